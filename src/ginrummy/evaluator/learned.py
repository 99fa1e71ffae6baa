"""A learned opponent model: each unseen card's chance to be in the opponent's hand, read
from one seat's :class:`View` only (R11), by a small model trained on self-play.

Three parts, each a plain function so the hot path can move to the compiled kernel later:

* :func:`card_features` reads the view into one row of small whole numbers per unseen
  card (:data:`FEATURES`): how the opponent treated the cards that share a meld with it
  (R2: same rank, the same suit one or two ranks away): held from the pile, discarded
  (and lately), passed on (and lately); how many of those are ours, dead on the pile or
  still unseen; the card's rank and the ranks the opponent has thrown; the turn, the
  stock, the scores. Nothing but the view goes in.
* :func:`logits` scores each row with a one-hidden-layer network (ReLU) or, with no hidden
  layer, a logistic model, on flat lists of weights.
* :func:`fit_total` adds the one shift to every score that makes the chances add up to the
  opponent's unknown cards (a position's chances must: it holds exactly that many).

The weights ship in ``data/belief_model.json`` (written by ``scripts/train_belief.py``
from ``scripts/belief_data.py``'s self-play; docs/bots.md, "Learned belief"). A missing
or unreadable file falls back to the heuristic belief (:mod:`.belief`) with one warning
line on standard error.

>>> from ginrummy.match import Match
>>> view = Match(seed=3).view(0)
>>> chances = card_chances(view)
>>> len(chances), round(sum(chances), 6)
(52, 10.0)
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from ..cards import POINTS
from ..hand import Phase, View
from ..kernel.sampler import belief_logits
from ..knowledge import Knowledge, meld_partners

__all__ = [
    "FEATURES",
    "FORMAT",
    "LearnedModel",
    "card_chances",
    "card_features",
    "default_model",
    "fit_total",
    "load_model",
    "logits",
    "model_from_json",
]

FORMAT = "ginrummy-belief-1"
"""The model file's format tag; a file with another is refused (and the heuristic used)."""

RECENT = 2
"""An opponent's discard or pass counts as recent within its latest this many turns."""

_RELATIONS = ("rank", "run1", "run2")
_KINDS = ("held", "shed", "shed_recent", "passed", "passed_recent", "mine", "dead", "unseen")
FEATURES: tuple[str, ...] = (
    *(f"{r}_{k}" for r in _RELATIONS for k in _KINDS),
    "rank", "points", "live_pairs", "held_pairs", "shed_pairs", "passed_pairs",
    "shed_higher", "shed_lower",
    "opp_turns", "opp_draws", "opp_takes", "stock", "unknown", "unseen", "phase",
    "knock_limit", "my_score", "opp_score",
)
"""The per-card inputs, in order (whole numbers 0..255): for each relation (``rank``: the
other cards of its rank; ``run1``, ``run2``: its suit one and two ranks away), how many of
those cards the opponent holds from the pile, discarded (within its latest :data:`RECENT`
turns), passed on (lately), are ours, lie on the pile not discarded by it (dead), are
unseen; then the card's rank (A=0) and points; the meld pairs (R2) it could still make
with cards the opponent may hold, those with a card it holds, and the pairs of which it
discarded or passed on one card while the other may be held; the opponent's discards
of higher and lower rank; and the position: the opponent's turns, stock draws and pile
takes, the stock, its unknown cards, all unseen cards, the phase (offer 0, draw 1,
discard 2), the knock limit, and the two scores (ours first)."""
NF = len(FEATURES)


def _relations(c: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    s, r = divmod(c, 13)
    rank = tuple(t * 13 + r for t in range(4) if t != s)
    run1 = tuple(s * 13 + q for q in (r - 1, r + 1) if 0 <= q < 13)
    run2 = tuple(s * 13 + q for q in (r - 2, r + 2) if 0 <= q < 13)
    return rank, run1, run2


_REL = tuple(_relations(c) for c in range(52))
_PHASE = {Phase.OFFER: 0, Phase.DRAW: 1, Phase.DISCARD: 2}


def card_features(view: View) -> tuple[list[int], list[int], int]:
    """The unseen cards of ``view`` (ascending), their feature rows flattened
    (``len(cards) * len(FEATURES)`` whole numbers, row by row) and the number of them the
    opponent holds. Reads the view alone (R11)."""
    k = Knowledge.of(view)
    me = view.seat
    shed_at = [0] * 52    # the opponent's turn (1-based) at which it discarded the card
    passed_at = [0] * 52  # ... at which it left the card face up (a pass or a stock draw)
    pile: list[int] = [view.upcard.index]
    turns = takes = 0
    for op in view.history:
        a = op.action
        mine = op.seat == me
        if a.act == "pass":
            if not mine:
                passed_at[view.upcard.index] = turns + 1
        elif a.act == "draw" and a.source == "discard":
            pile.pop()
            if not mine:
                takes += 1
        elif a.act == "draw":
            if not mine and pile:
                passed_at[pile[-1]] = turns + 1
        else:
            assert a.card is not None
            pile.append(a.card.index)
            if not mine:
                turns += 1
                shed_at[a.card.index] = turns
    held, ours, unseen = k.opp_known, k.mine, k.unseen
    dead = k.pile & ~k.opp_discarded
    possible = unseen | held
    shed_ranks = [i % 13 for i in range(52) if shed_at[i]]
    recent = turns - RECENT + 1
    position = [
        turns, k.opp_stock_draws, takes, view.stock_count, k.opp_unknown,
        unseen.bit_count(), _PHASE.get(view.phase, 2), view.knock_limit,
        min(view.scores[me], 255), min(view.scores[1 - me], 255),
    ]
    cards: list[int] = []
    rows: list[int] = []
    for c in range(52):
        if not unseen >> c & 1:
            continue
        cards.append(c)
        for rel in _REL[c]:
            n_held = n_shed = n_shed_recent = n_passed = n_passed_recent = 0
            n_mine = n_dead = n_unseen = 0
            for x in rel:
                bit = 1 << x
                if held & bit:
                    n_held += 1
                if shed_at[x]:
                    n_shed += 1
                    n_shed_recent += shed_at[x] >= recent
                if passed_at[x]:
                    n_passed += 1
                    n_passed_recent += passed_at[x] >= recent
                if ours & bit:
                    n_mine += 1
                if dead & bit:
                    n_dead += 1
                if unseen & bit:
                    n_unseen += 1
            rows += (n_held, n_shed, n_shed_recent, n_passed, n_passed_recent, n_mine,
                     n_dead, n_unseen)
        r = c % 13
        live = with_held = shed_pair = passed_pair = 0
        for u, v in meld_partners(c):
            pm = (1 << u) | (1 << v)
            if possible & pm == pm:
                live += 1
                if held & pm:
                    with_held += 1
            if (shed_at[u] and possible >> v & 1) or (shed_at[v] and possible >> u & 1):
                shed_pair += 1
            if (passed_at[u] and possible >> v & 1) or (passed_at[v] and possible >> u & 1):
                passed_pair += 1
        higher = sum(1 for q in shed_ranks if q > r)
        rows += (r, POINTS[c], live, with_held, shed_pair, passed_pair, higher,
                 len(shed_ranks) - higher
                 - sum(1 for q in shed_ranks if q == r))
        rows += position
    return cards, rows, k.opp_unknown


class LearnedModel(NamedTuple):
    """The weights as flat lists: ``w1[h * nf + f]`` (input ``f`` to hidden unit ``h``),
    ``b1``, ``w2`` (hidden to output; the inputs' own weights when ``hidden`` is 0), ``b2``;
    ``scale[f]`` multiplies input ``f`` first. ``meta`` says how it was trained."""

    hidden: int
    scale: list[float]
    w1: list[float]
    b1: list[float]
    w2: list[float]
    b2: float
    meta: dict[str, Any]


def logits(rows: Sequence[int] | Sequence[float], n: int, nf: int, scale: Sequence[float],
           hidden: int, w1: Sequence[float], b1: Sequence[float], w2: Sequence[float],
           b2: float) -> list[float]:
    """The score of each of ``n`` feature rows (flat, ``nf`` a row): a ReLU layer of
    ``hidden`` units then a linear output, or (``hidden`` 0) a linear model. The kernel's
    own loops (:func:`ginrummy.kernel.sampler.belief_logits`), run as plain Python."""
    out = [0.0] * n
    belief_logits(rows, n, nf, scale, hidden, w1, b1, w2, b2, out)  # type: ignore[arg-type]
    return out


def _sigmoid(z: float) -> float:
    if z >= 0.0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def fit_total(z: Sequence[float], total: int, iterations: int = 60) -> list[float]:
    """``sigmoid(z[i] + b)`` for the one ``b`` that makes them add up to ``total`` (Newton's
    method, steps capped at 4; ``total`` 0 or all cards give exact zeros or ones)."""
    n = len(z)
    if total <= 0:
        return [0.0] * n
    if total >= n:
        return [1.0] * n
    b = math.log(total / (n - total)) - sum(z) / n
    for _ in range(iterations):
        s = d = 0.0
        for zi in z:
            p = _sigmoid(zi + b)
            s += p
            d += p * (1.0 - p)
        g = s - total
        if abs(g) < 1e-12 or d <= 0.0:
            break
        b -= max(-4.0, min(4.0, g / d))
    return [_sigmoid(zi + b) for zi in z]


# ----------------------------------------------------------------------------- the file

_state: dict[str, Any] = {"model": None, "loaded": False, "warned": False}


def _warn_once(message: str) -> None:
    if not _state["warned"]:
        _state["warned"] = True
        sys.stderr.write(f"ginrummy: {message}\n")
        sys.stderr.flush()


def _floats(obj: dict[str, Any], key: str, size: int) -> list[float]:
    v = obj.get(key)
    if not (isinstance(v, list) and len(v) == size
            and all(type(x) in (int, float) and math.isfinite(x) for x in v)):
        raise ValueError(f"its {key!r} is not a list of {size} finite numbers")
    return [float(x) for x in v]


def model_from_json(obj: Any) -> LearnedModel:
    """The model in a parsed model file; ``ValueError`` saying what is wrong otherwise."""
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise ValueError(f"it is not a {FORMAT!r} model")
    if obj.get("features") != list(FEATURES):
        raise ValueError("its features are not this version's")
    hidden = obj.get("hidden")
    if type(hidden) is not int or not 0 <= hidden <= 1024:
        raise ValueError("its 'hidden' is not a whole number 0..1024")
    b2 = obj.get("b2")
    if not isinstance(b2, (int, float)) or isinstance(b2, bool) or not math.isfinite(b2):
        raise ValueError("its 'b2' is not a finite number")
    meta = obj.get("meta", {})
    return LearnedModel(hidden, _floats(obj, "scale", NF), _floats(obj, "w1", hidden * NF),
                        _floats(obj, "b1", hidden), _floats(obj, "w2", hidden or NF),
                        float(b2), meta if isinstance(meta, dict) else {})


DATA_FILE = "data/belief_model.json"


def load_model(path: str | Path | None = None) -> LearnedModel | None:
    """The model in ``path`` (None: the shipped file), or None with a warning line (once
    a process) when it is missing or unreadable."""
    where = str(path) if path is not None else f"ginrummy/{DATA_FILE}"
    try:
        if path is None:
            text = resources.files("ginrummy").joinpath(DATA_FILE).read_text("utf-8")
        else:
            text = Path(path).read_text("utf-8")
        return model_from_json(json.loads(text))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        _warn_once(f"the learned belief {where} cannot be used ({e}); "
                   "the heuristic belief stands in.")
        return None


def default_model() -> LearnedModel | None:
    """The shipped model, read once a process (None if it cannot be used)."""
    if not _state["loaded"]:
        _state["model"] = load_model()
        _state["loaded"] = True
    model: LearnedModel | None = _state["model"]
    return model


HEURISTIC_SAMPLES = 256
"""Samples of the heuristic belief's card chances when it stands in for the model."""


def heuristic_chances(view: View, samples: int = HEURISTIC_SAMPLES) -> list[float]:
    """The heuristic belief's chance of each card (52; :mod:`.belief`, every opponent
    patient), from ``samples`` deals seeded by the view's own facts: the stand-in."""
    from ..kernel.splitmix import Random
    from .belief import Belief

    k = Knowledge.of(view)
    seed = random.Random(repr((k.mine, k.pile, k.opp_known, k.opp_discarded, k.opp_passed,
                               view.stock_count))).getrandbits(64)
    chances = Belief(k, view.knock_limit).card_chances(Random(seed), samples)
    out = [float(k.opp_known >> c & 1) for c in range(52)]
    for c, p in chances.items():
        out[c] = p
    return out


def card_chances(view: View, model: LearnedModel | None | str = "default") -> list[float]:
    """Each card's chance to be in the opponent's hand (52, by card index): 1 for the
    cards it took from the pile and holds, 0 for those we see elsewhere, the model's
    chance for the unseen ones (adding up to its unknown cards). ``model``: a loaded model,
    or ``"default"`` for the shipped one; without a usable model, the heuristic belief's."""
    m = default_model() if isinstance(model, str) else model
    if m is None:
        return heuristic_chances(view)
    cards, rows, total = card_features(view)
    z = logits(rows, len(cards), NF, m.scale, m.hidden, m.w1, m.b1, m.w2, m.b2)
    known = Knowledge.of(view).opp_known
    out = [float(known >> c & 1) for c in range(52)]
    for c, p in zip(cards, fit_total(z, total), strict=True):
        out[c] = p
    return out
