"""Fair-play screening: how closely a seat's play agrees with the coach, and the rule that
says when that is beyond what honest play reaches (docs/fair-play.md).

The screening grades every decision of a seat as the review does, with the review's seed,
:data:`SCREEN_SAMPLES` samples and no time limit (so the same match always gives the same
figures, on any machine and under any load), and keeps three figures per match:

* ``decisions``: decisions with two or more legal actions;
* ``agree``: those where the seat played the coach's first choice;
* ``loss``: the summed normalized loss (the review's error rate is ``loss / decisions``);

and the same two counts over the *contested* decisions, where the coach's first choice is
at least :data:`CONTESTED` of match-winning chance ahead of its second: a decision any
player gets right (the only sensible discard) says nothing about help, a close call that
is always called the engine's way does.

:func:`verdict` is the rule, calibrated on bots of known strength and on engine copiers by
``scripts/screening_calibration.py``; a flag is for a moderator to judge, never a ban.

>>> f = Figures(decisions=10, agree=7, loss=0.02, contested=4, contested_agree=3)
>>> f.agreement, f.error_rate, f.contested_agreement
(0.7, 0.002, 0.75)
>>> verdict(f) is None  # far too few decisions to say anything
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..match import Match
from .grade import DEFAULT_SAMPLES, Graded, moments
from .reviewing import review_match

__all__ = [
    "CONTESTED",
    "MIN_DECISIONS",
    "SCREEN_SAMPLES",
    "SCREEN_SEED",
    "SHORT",
    "THRESHOLD",
    "THRESHOLD_SHORT",
    "WEIGHT",
    "Figures",
    "figures_of",
    "graded_of",
    "score",
    "screen_match",
    "threshold",
    "verdict",
]

SCREEN_SAMPLES = 4 * DEFAULT_SAMPLES
"""Samples a decision is graded with: four times the review's, so that the coach's first
choice is seldom a coin toss between two near-equal moves (at the review's 64 the figures
of ``expert`` and ``strong`` lie much closer together: docs/fair-play.md)."""
SCREEN_SEED = 0
"""The seed the screening grades with: the web review's and hint's own, so a move copied
from the site's coach always agrees."""
CONTESTED = 0.01
"""A decision is contested when the coach's first choice is at least this much
match-winning chance ahead of its second."""
MIN_DECISIONS = 150
"""Decisions needed before the rule says anything."""
WEIGHT = 100.0
"""How much the error rate weighs against agreement in the rule's score: an engine both
agrees with the coach and loses almost nothing (``expert`` 0.11% a decision at the
screening's samples, ``strong`` 0.54%)."""
SHORT = 400
"""Below this many decisions the rule asks for the higher :data:`THRESHOLD_SHORT` (a few
matches' figures spread wider)."""
THRESHOLD_SHORT = 0.68
"""The score at or above which the rule flags figures of :data:`MIN_DECISIONS` to
:data:`SHORT` decisions: 0.028 above the highest of ``strong``'s (docs/fair-play.md)."""
THRESHOLD = 0.63
"""The same for :data:`SHORT` decisions or more: 0.032 above the highest of
``strong``'s."""


@dataclass(frozen=True, slots=True)
class Figures:
    """A seat's screening figures over one match or many (they add up)."""

    decisions: int = 0
    agree: int = 0
    loss: float = 0.0
    contested: int = 0
    contested_agree: int = 0

    def __add__(self, other: Figures) -> Figures:
        return Figures(self.decisions + other.decisions, self.agree + other.agree,
                       round(self.loss + other.loss, 6), self.contested + other.contested,
                       self.contested_agree + other.contested_agree)

    @property
    def agreement(self) -> float:
        """The share of decisions that were the coach's first choice."""
        return self.agree / self.decisions if self.decisions else 0.0

    @property
    def contested_agreement(self) -> float:
        """The same share among contested decisions."""
        return self.contested_agree / self.contested if self.contested else 0.0

    @property
    def error_rate(self) -> float:
        """The mean normalized loss a decision (the review's error rate)."""
        return self.loss / self.decisions if self.decisions else 0.0

    def to_json(self) -> dict[str, Any]:
        """The figures as stored."""
        return {"decisions": self.decisions, "agree": self.agree, "loss": round(self.loss, 6),
                "contested": self.contested, "contested_agree": self.contested_agree}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Figures:
        """Figures as :meth:`to_json` wrote them."""
        return cls(int(d["decisions"]), int(d["agree"]), float(d["loss"]),
                   int(d["contested"]), int(d["contested_agree"]))


def gap(g: Graded) -> float:
    """How far the coach's first choice is ahead of its second (match-winning chance)."""
    wins = sorted({v.action: v.win for v in (g.played, *g.alternatives)}.values(),
                  reverse=True)
    return wins[0] - wins[1] if len(wins) >= 2 else 0.0


def figures_of(graded: list[Graded], contested: float = CONTESTED) -> Figures:
    """The figures of graded decisions."""
    n = agree = c = c_agree = 0
    loss = 0.0
    for g in graded:
        same = g.played.action == g.best.action
        n += 1
        agree += same
        loss += g.normalized
        if gap(g) >= contested:
            c += 1
            c_agree += same
    return Figures(n, agree, round(loss, 6), c, c_agree)


def graded_of(match: Match, seat: int) -> list[Graded]:
    """Every decision of ``seat`` in ``match`` graded as the review grades it (its
    samples and seed, no time limit)."""
    if not moments(match, range(len(match.hands)), [seat]):
        return []
    review = review_match(match, seats=[seat], samples=SCREEN_SAMPLES, budget_ms=None,
                          seed=SCREEN_SEED)
    return list(review.graded)


def screen_match(match: Match, seat: int, contested: float = CONTESTED) -> Figures:
    """The screening figures of ``seat`` in ``match`` (:func:`graded_of`)."""
    return figures_of(graded_of(match, seat), contested)


def score(f: Figures) -> float:
    """The rule's score: agreement minus :data:`WEIGHT` times the error rate.

    >>> round(score(Figures(100, 84, 0.09, 0, 0)), 4)
    0.75
    """
    return f.agreement - WEIGHT * f.error_rate


def threshold(decisions: int) -> float:
    """The score figures over this many decisions must reach to be flagged."""
    return THRESHOLD_SHORT if decisions < SHORT else THRESHOLD


def verdict(f: Figures) -> str | None:
    """Why these figures are beyond honest play (the flag's reason), or None.

    >>> verdict(Figures(300, 246, 0.33, 170, 162)) is not None  # like expert's play
    True
    >>> verdict(Figures(300, 198, 1.62, 170, 133)) is None  # like strong's
    True
    """
    if f.decisions < MIN_DECISIONS or score(f) < threshold(f.decisions):
        return None
    return (f"agrees with the engine's first choice in {100 * f.agreement:.0f}% of "
            f"{f.decisions} decisions with an error rate of {100 * f.error_rate:.2f}% "
            f"(score {score(f):.3f}; honest play in the calibration stays below "
            f"{threshold(f.decisions):.2f})")
