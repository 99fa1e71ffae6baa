"""The analysis board's answer: every legal action of a position with its match-winning
chance, points and standard error, best first (INTERFACES section 12).

One function, :func:`analyze_position`, answers ``POST /api/analysis`` and
``ginrummy analyze --position FILE --json`` alike, so the same position, seed and samples
give the same answer from both. The evaluator runs on a sample budget only (no clock):
the answer depends on the position, the seed and the samples alone, on any machine.

>>> out = analyze_position({"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H", "pile": "5D",
...     "stock": 31, "to_play": "draw", "samples": 8})
>>> [a["action"]["act"] for a in out["actions"]], out["samples"], out["phase"]
(['pass', 'draw'], 8, 'offer')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..evaluator import Evaluator
from ..evaluator.evaluation import Evaluation
from ..i18n import t
from ..review.report import action_json
from .position import PositionError, read_position

__all__ = ["DEFAULT_SAMPLES", "MAX_SAMPLES", "analyze_position", "ranked", "settings_of"]

DEFAULT_SAMPLES = 1024
"""Sampled deals per action when the request names none: a win chance to about one
percentage point (its standard error), in a few tenths of a second on the compiled
kernel. The board refines by asking again with more (up to :data:`MAX_SAMPLES`)."""
MAX_SAMPLES = 16384
"""The most sampled deals one request may ask for (four times a puzzle's 4,096)."""


def settings_of(obj: Mapping[str, Any]) -> tuple[int, int]:
    """The request's ``seed`` (default 0) and ``samples`` (default
    :data:`DEFAULT_SAMPLES`), checked; PositionError with the allowed range."""
    seed = obj.get("seed", 0)
    if type(seed) is not int or not 0 <= seed < 2 ** 63:
        raise PositionError(t("'seed' must be a whole number from 0, not {value}.",
                              value=repr(seed)))
    samples = obj.get("samples", DEFAULT_SAMPLES)
    if type(samples) is not int or not 1 <= samples <= MAX_SAMPLES:
        raise PositionError(t("'samples' must be a whole number from 1 to {most}, not "
                              "{value}.", most=str(MAX_SAMPLES), value=repr(samples)))
    return seed, samples


def ranked(ev: Evaluation) -> list[Any]:
    """The evaluation's values best first: the highest win chance, then the most points,
    then the order of ``view.legal``."""
    order = range(len(ev.values))
    return [ev.values[i] for i in sorted(order, key=lambda i: (-ev.values[i].win,
                                                               -ev.values[i].points, i))]


def analyze_position(obj: Any) -> dict[str, Any]:
    """``{"actions": [{"action", "win", "points", "se", "points_se"}], "samples", "seed",
    "phase", "dealer", "upcard", "knock_limit"}`` for a position object (docs/training.md):
    win chances of the whole match for the deciding seat, best first. Raises
    :class:`PositionError` (one sentence) for a position that cannot be read or reached."""
    if not isinstance(obj, Mapping):
        raise PositionError(t("A position must be a JSON object."))
    seed, samples = settings_of(obj)
    view = read_position(obj)
    ev = Evaluator(samples=samples, seed=seed).evaluate(view)
    return {
        "actions": [{"action": action_json(v.action), "win": round(v.win, 4),
                     "points": round(v.points, 2), "se": round(v.win_se, 4),
                     "points_se": round(v.points_se, 2)} for v in ranked(ev)],
        "samples": ev.samples,
        "seed": seed,
        "phase": view.phase.value,
        "dealer": view.dealer,
        "upcard": str(view.upcard),
        "knock_limit": view.knock_limit,
    }
