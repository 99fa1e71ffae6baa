"""Game review: a coach that grades every decision of a record (docs/review.md).

Every decision (a moment with two or more legal actions) is graded from the deciding
seat's view only (R11) by :class:`ginrummy.evaluator.Evaluator`, the same evaluator that
plays as ``expert``: a good decision that lost to an unlucky draw is not a mistake.

    ginrummy review game.json                 # readable review, both seats
    ginrummy review game.json --json --seat 1 --hands 0,2 --budget-ms 50 --jobs 2
"""

from __future__ import annotations

from .grade import (
    BLUNDER,
    DEFAULT_BUDGET_MS,
    DEFAULT_SAMPLES,
    INACCURACY,
    MISTAKE,
    Graded,
    Moment,
    mark_for,
)
from .report import PLAYS_LIKE, RATINGS, Review, rating_for
from .reviewing import review_match

__all__ = [
    "BLUNDER",
    "DEFAULT_BUDGET_MS",
    "DEFAULT_SAMPLES",
    "INACCURACY",
    "MISTAKE",
    "PLAYS_LIKE",
    "RATINGS",
    "Graded",
    "Moment",
    "Review",
    "main",
    "mark_for",
    "rating_for",
    "review_match",
]


def main(argv: list[str]) -> int:
    """``ginrummy review FILE [--json] [--seat S] [--hands LIST] [--budget-ms M] [--jobs J]``."""
    from .command import run

    return run(argv)
