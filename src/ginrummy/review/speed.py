"""How fast the review grades decisions (the ``review`` block of ``ginrummy bench``)."""

from __future__ import annotations

import time
from typing import Any

from ..arena import play_match
from ..bots import make_bot
from .grade import DEFAULT_BUDGET_MS, evaluate_moments, moments

__all__ = ["review_speed"]


def review_speed(decisions: int = 40, budget_ms: float = DEFAULT_BUDGET_MS,
                 samples: int = 32, seed: int = 2026) -> dict[str, Any]:
    """Grade the first ``decisions`` decisions of a fixed strong-vs-strong match, once at
    the default time budget and once at a fixed sample count; decisions per second."""
    _, match = play_match(make_bot("strong-fast", seed), make_bot("strong-fast", seed + 1),
                          seed=seed, first_dealer=0)
    todo = moments(match, range(len(match.hands)), (0, 1))[:decisions]
    out: dict[str, Any] = {"decisions": len(todo)}
    for label, kw in (("budget", {"budget_ms": budget_ms}),
                      ("samples", {"budget_ms": None, "samples": samples})):
        t = time.perf_counter()
        evs = evaluate_moments(todo, **kw)
        dt = time.perf_counter() - t
        out[label] = {
            **{k: v for k, v in kw.items() if v is not None},
            "seconds": round(dt, 3),
            "decisions_per_s": round(len(todo) / dt, 2) if dt > 0 else None,
            "mean_samples": round(sum(e.samples for e in evs) / max(1, len(evs)), 1),
        }
    return out


def format_speed(r: dict[str, Any]) -> str:
    """The bench block's text."""
    b, s = r["budget"], r["samples"]
    return (f"Review ({r['decisions']} decisions of a strong-vs-strong match, one process):\n"
            f"  at {b['budget_ms']:g} ms per decision: {b['decisions_per_s']} decisions/s "
            f"({b['mean_samples']} samples each on average)\n"
            f"  at {s['samples']} samples per decision: {s['decisions_per_s']} decisions/s")
