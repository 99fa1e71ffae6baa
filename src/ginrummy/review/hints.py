"""Hints: the coach's suggestion for a decision, from the seat's view only (R11)."""

from __future__ import annotations

from ..hand import View
from .grade import DEFAULT_BUDGET_MS
from .report import action_words

__all__ = ["suggest"]


def suggest(view: View, budget_ms: float | None = None, seed: int = 0) -> str:
    """``discard 9C (54% to win the match; discard KH 51%)``: the evaluator's best action
    for ``view`` and the runner-up, in words."""
    from ..evaluator import Evaluator

    if len(view.legal) < 2:
        return "only one move is possible here."
    ev = Evaluator(budget_ms=budget_ms or DEFAULT_BUDGET_MS, seed=seed).evaluate(view)
    best = ev.best()
    rest = sorted((v for v in ev.values if v.action != best.action),
                  key=lambda v: (-v.win, -v.points))
    text = f"{action_words(best.action)} ({best.win:.0%} to win the match"
    if rest:
        text += f"; next best {action_words(rest[0].action)} {rest[0].win:.0%}"
    return text + ")."
