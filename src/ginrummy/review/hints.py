"""Hints: the coach's suggestion for a decision, from the seat's view only (R11).

A hint is the review's own verdict, given before the move instead of after it: the same
evaluation the review will grade the decision with (:func:`~.grade.evaluate_view`: the
screen of every action and the measure of the shortlist, the same samples, the seed of the
decision's place, :func:`~.grade.moment_seed`, and the opponent styles the seat has seen,
:func:`~.grade.styles_at`). So the coach never contradicts itself: a move made on the
hint is the review's best move (loss 0, no mark), and when the runner-up is one the
review would not mark either (its loss within the noise, or below an inaccuracy) the
hint says "either is fine" and names both. A hint depends on the position and the seed
alone (a sample budget, no clock): the same position gives the same hint after a reload,
in another process, on another day.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..hand import View
from ..i18n import t
from .explain import CardWords, percent
from .grade import DEFAULT_SAMPLES, Moment, evaluate_view, grade, moment_seed
from .report import action_words

if TYPE_CHECKING:
    from ..evaluator import ActionValue

__all__ = ["Hint", "coach_hint", "suggest"]


@dataclass(frozen=True)
class Hint:
    """The coach's verdict on the decision at ``view``: the review's best action and the
    runner-up (None with one evaluated action), and ``either``: the review would mark
    neither, so either is fine."""

    best: ActionValue
    second: ActionValue | None
    either: bool

    def words(self, card: CardWords = str) -> str:
        """``discard 9C (54% to win the match; next best discard KH, 51%)``, or ``either is
        fine: draw from the stock (46%) or take the discard (46%)``; cards by ``card``, in
        the language of the moment."""
        best = action_words(self.best.action, card)
        win = str(percent(self.best.win))
        if self.second is None:
            return t("{move} ({win}% to win the match)", move=best, win=win)
        other = action_words(self.second.action, card)
        other_win = str(percent(self.second.win))
        if self.either:
            return t("either is fine: {move} ({win}% to win the match) or {other} "
                     "({other_win}%)", move=best, win=win, other=other, other_win=other_win)
        return t("{move} ({win}% to win the match; next best {other}, {other_win}%)",
                 move=best, win=win, other=other, other_win=other_win)

    def sentence(self, card: CardWords = str) -> str:
        """The hint as the site's coach says it, a whole sentence: ``Suggestion: discard
        9♣ (54% to win the match; next best discard K♥, 51%).`` or ``Either is fine: draw
        from the stock (46% to win the match) or take the discard (46%).``"""
        if self.either and self.second is not None:
            return t("Either is fine: {move} ({win}% to win the match) or {other} "
                     "({other_win}%).", move=action_words(self.best.action, card),
                     win=str(percent(self.best.win)),
                     other=action_words(self.second.action, card),
                     other_win=str(percent(self.second.win)))
        return t("Suggestion: {hint}.", hint=self.words(card))


def coach_hint(view: View, *, styles: tuple[float, float] = (0.0, 0.0),
               samples: int | None = DEFAULT_SAMPLES, seed: int = 0,
               budget_ms: float | None = None) -> Hint:
    """The review's verdict at ``view`` (two or more legal actions), computed as
    ``ginrummy review --samples SAMPLES --seed SEED`` will grade it: ``styles`` are the
    opponent's shares the review samples this decision with (:func:`~.grade.styles_at`),
    the decision's place is the view's hand and its count of actions so far. With
    ``budget_ms`` None (the default) the verdict depends on the view, the styles, the
    samples and the seed alone."""
    hand, action = view.hand_index, len(view.history)
    ev = evaluate_view(view, None, budget_ms=budget_ms, samples=samples,
                       seed=moment_seed(seed, hand, action), styles=styles)
    best = ev.best()
    rest = sorted((v for v in ev.values if v.action != best.action),
                  key=lambda v: (-v.win, -v.points))
    second = rest[0] if rest else None
    either = False
    if second is not None:
        # The review measures a played action on the shortlist this evaluation measured
        # (the screen's best few, which hold the runner-up), so its grade is this one.
        played = Moment(hand, action, view.seat, view, second.action, styles)
        either = grade(played, ev).mark is None
    return Hint(best, second, either)


def suggest(view: View, samples: int | None = DEFAULT_SAMPLES, seed: int = 0,
            styles: tuple[float, float] = (0.0, 0.0), card: CardWords = str,
            budget_ms: float | None = None) -> str:
    """The hint in words (:meth:`Hint.words`), or that only one move is possible."""
    if len(view.legal) < 2:
        return t("only one move is possible here.")
    hint = coach_hint(view, styles=styles, samples=samples, seed=seed, budget_ms=budget_ms)
    return hint.words(card) + "."
