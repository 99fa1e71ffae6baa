"""Hints: the coach's suggestion for a decision, from the seat's view only (R11)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..hand import View
from .grade import DEFAULT_BUDGET_MS
from .report import action_words

if TYPE_CHECKING:
    from ..evaluator import ActionValue

__all__ = ["best_two", "suggest"]


def best_two(view: View, budget_ms: float, seed: int = 0
             ) -> tuple[ActionValue, ActionValue | None]:
    """The evaluator's best action at ``view`` and the runner-up (None with one legal
    action): one place for the terminal's and the web table's hints."""
    from ..evaluator import Evaluator

    ev = Evaluator(budget_ms=budget_ms, seed=seed).evaluate(view)
    best = ev.best()
    rest = sorted((v for v in ev.values if v.action != best.action),
                  key=lambda v: (-v.win, -v.points))
    return best, (rest[0] if rest else None)


def suggest(view: View, budget_ms: float | None = None, seed: int = 0) -> str:
    """``discard 9C (54% to win the match; discard KH 51%)``: the evaluator's best action
    for ``view`` and the runner-up, in words."""
    if len(view.legal) < 2:
        return "only one move is possible here."
    best, second = best_two(view, budget_ms or DEFAULT_BUDGET_MS, seed)
    text = f"{action_words(best.action)} ({best.win:.0%} to win the match"
    if second is not None:
        text += f"; next best {action_words(second.action)} {second.win:.0%}"
    return text + ")."
