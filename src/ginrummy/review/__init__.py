"""Game review: a coach that grades every decision of a record (docs/review.md).

Every decision (a moment with two or more legal actions) is graded from the deciding
seat's view only (R11) by :class:`ginrummy.evaluator.Evaluator`, the same evaluator that
plays as ``expert``: a good decision that lost to an unlucky draw is not a mistake.

    ginrummy review game.json                 # readable review, both seats
    ginrummy review game.json --json --seat 1 --hands 0,2 --budget-ms 50 --jobs 2
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..match import Match
from ..record import RecordError
from .explain import explain
from .grade import (
    BLUNDER,
    DEFAULT_BUDGET_MS,
    DEFAULT_SAMPLES,
    INACCURACY,
    MISTAKE,
    Graded,
    Moment,
    evaluate_moments,
    grade,
    mark_for,
    moments,
)
from .report import PLAYS_LIKE, RATINGS, Review, rating_for

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


def review_match(
    match: Match,
    *,
    seats: Sequence[int] = (0, 1),
    hands: Sequence[int] | None = None,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    samples: int | None = DEFAULT_SAMPLES,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    error: RecordError | None = None,
) -> Review:
    """Grade the decisions of ``seats`` in ``hands`` (default: all) of ``match``.

    Each decision gets at most ``samples`` screening samples and ``budget_ms`` of time,
    whichever comes first (``budget_ms=None``: the samples only, reproducible).
    ``progress(done, total)`` is called as decisions finish.
    """
    seat_t = tuple(sorted(set(seats)))
    hand_t = tuple(range(len(match.hands)) if hands is None else hands)
    todo = moments(match, hand_t, seat_t)
    total = len(todo)
    if progress is not None:
        progress(0, total)
    evals = evaluate_moments(
        todo, budget_ms=budget_ms, samples=samples,
        seed=seed, jobs=jobs,
        progress=None if progress is None else (lambda done: progress(done, total)),
    )
    graded = [grade(m, ev, explain) for m, ev in zip(todo, evals, strict=True)]
    return Review(match, seat_t, hand_t, graded, error=error, budget_ms=budget_ms)


def main(argv: list[str]) -> int:
    """``ginrummy review FILE [--json] [--seat S] [--hands LIST] [--budget-ms M] [--jobs J]``."""
    from .command import run

    return run(argv)
