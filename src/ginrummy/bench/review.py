"""How fast the review grades decisions (the ``review`` block of ``ginrummy bench``)."""

from __future__ import annotations

import time
from typing import Any

from ..arena import play_match
from ..bots import make_bot
from ..review.grade import DEFAULT_BUDGET_MS, DEFAULT_SAMPLES, evaluate_moments, moments

__all__ = ["format_speed", "review_speed"]


def review_speed(decisions: int = 40, seed: int = 2026) -> dict[str, Any]:
    """Grade the first ``decisions`` decisions of a fixed strong-vs-strong match at the
    review's default settings, in one process: decisions per second."""
    _, match = play_match(make_bot("strong-fast", seed), make_bot("strong-fast", seed + 1),
                          seed=seed, first_dealer=0)
    todo = moments(match, range(len(match.hands)), (0, 1))[:decisions]
    t = time.perf_counter()
    evs = evaluate_moments(todo)
    dt = time.perf_counter() - t
    return {
        "decisions": len(todo),
        "samples": DEFAULT_SAMPLES,
        "budget_ms": DEFAULT_BUDGET_MS,
        "seconds": round(dt, 3),
        "decisions_per_s": round(len(todo) / dt, 2) if dt > 0 else None,
        "mean_measure_samples": round(sum(e.samples for e in evs) / max(1, len(evs)), 1),
    }


def format_speed(r: dict[str, Any]) -> str:
    """The bench block's text."""
    limit = "no time limit" if r["budget_ms"] is None else \
        f"at most {r['budget_ms']:g} ms per decision"
    return (f"Review, default settings ({r['samples']} screening samples, {limit}), "
            "one process:\n"
            f"  {r['decisions']} decisions of a strong-vs-strong match in {r['seconds']} s: "
            f"{r['decisions_per_s']} decisions/s "
            f"({r['mean_measure_samples']} measuring samples each on average)")
