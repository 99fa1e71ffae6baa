"""Reviewing a match: every decision of some seats and hands, graded (the engine behind
``ginrummy review``, the terminal's end-of-match review and the web table's reviews)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from ..match import Match
from ..record import RecordError
from .explain import CardWords, explain_said
from .grade import DEFAULT_BUDGET_MS, DEFAULT_SAMPLES, evaluate_moments, grade, moments
from .report import Review

__all__ = ["review_match"]


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
    card: CardWords = str,
) -> Review:
    """Grade the decisions of ``seats`` in ``hands`` (default: all) of ``match``.

    Each decision gets at most ``samples`` screening samples and ``budget_ms`` of time,
    whichever comes first (``budget_ms=None``: the samples only, reproducible).
    ``progress(done, total)`` is called as decisions finish; the reasons write each card
    with ``card`` (R1 by default; the web table passes its own), and each decision keeps
    its reason as a sentence still to be said (:attr:`~.grade.Graded.said`).
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
    why = partial(explain_said, card=card)
    graded = [grade(m, ev, why) for m, ev in zip(todo, evals, strict=True)]
    return Review(match, seat_t, hand_t, graded, error=error, budget_ms=budget_ms)
