"""A stand-in match-equity table with the signatures of :mod:`ginrummy.equity`, used only
when that module is absent. It models a hand as a fair coin for who scores and a fixed
points distribution (no dead hands, no dealer edge, no 60-hand limit, R10)."""

from __future__ import annotations

from functools import lru_cache

from ..options import Options

__all__ = ["after_hand", "win_chance"]

# points a scored hand is worth and how often (a rough shape of bot-vs-bot play)
_POINTS: tuple[tuple[int, float], ...] = (
    (4, 0.10), (8, 0.12), (12, 0.12), (16, 0.10), (20, 0.08), (27, 0.08), (32, 0.10),
    (38, 0.10), (45, 0.08), (55, 0.07), (70, 0.05),
)


@lru_cache(maxsize=8)
def _table(target: int) -> tuple[tuple[float, ...], ...]:
    """``t[a][b]``: chance that the player on ``a`` wins against ``b`` (both < target)."""
    t = [[0.0] * target for _ in range(target)]

    def w(a: int, b: int) -> float:
        if a >= target:
            return 1.0
        if b >= target:
            return 0.0
        return t[a][b]

    for a in range(target - 1, -1, -1):
        for b in range(target - 1, -1, -1):
            t[a][b] = sum(0.5 * q * (w(a + p, b) + w(a, b + p)) for p, q in _POINTS)
    return tuple(tuple(row) for row in t)


def win_chance(scores: tuple[int, int], seat: int, next_dealer: int, options: Options) -> float:
    """Chance that ``seat`` wins the match from ``scores`` (R10); ``next_dealer`` unused."""
    target = options.target
    mine, theirs = scores[seat], scores[1 - seat]
    if mine >= target or theirs >= target:
        return 1.0 if mine > theirs else 0.0 if theirs > mine else 0.5
    return _table(target)[mine][theirs]


def after_hand(scores: tuple[int, int], dealer: int, seat: int, scorer: int | None,
               points: int, options: Options) -> float:
    """``seat``'s match-winning chance once this hand ends with ``scorer`` scoring ``points``."""
    if scorer is None:
        return win_chance(scores, seat, dealer, options)
    new = (scores[0] + points, scores[1]) if scorer == 0 else (scores[0], scores[1] + points)
    return win_chance(new, seat, 1 - dealer, options)
