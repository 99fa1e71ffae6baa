"""Hints: the coach's suggestion for a decision, from the seat's view only (R11).

A hint depends on the position and the seed alone (a sample budget, no clock): the same
position gives the same hint after a reload, in another process, on another day.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..hand import View
from .report import action_words

if TYPE_CHECKING:
    from ..evaluator import ActionValue

__all__ = ["HINT_SAMPLES", "best_two", "suggest"]

HINT_SAMPLES = 256
"""Sampled deals per action behind a hint (a few tens of milliseconds with the compiled
kernel)."""


def best_two(view: View, samples: int = HINT_SAMPLES, seed: int = 0
             ) -> tuple[ActionValue, ActionValue | None]:
    """The evaluator's best action at ``view`` and the runner-up (None with one legal
    action): one place for the terminal's and the web table's hints."""
    from ..evaluator import Evaluator

    ev = Evaluator(samples=samples, seed=seed).evaluate(view)
    best = ev.best()
    rest = sorted((v for v in ev.values if v.action != best.action),
                  key=lambda v: (-v.win, -v.points))
    return best, (rest[0] if rest else None)


def suggest(view: View, samples: int = HINT_SAMPLES, seed: int = 0) -> str:
    """``discard 9C (54% to win the match; next best discard KH 51%)``: the evaluator's
    best action for ``view`` and the runner-up, in words."""
    if len(view.legal) < 2:
        return "only one move is possible here."
    best, second = best_two(view, samples, seed)
    text = f"{action_words(best.action)} ({best.win:.0%} to win the match"
    if second is not None:
        text += f"; next best {action_words(second.action)} {second.win:.0%}"
    return text + ")."
