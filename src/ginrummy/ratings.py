"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013), pure: no I/O.

A player has a rating (about 1500 for a newcomer), a rating deviation (how unsure the
rating is: 350 for a newcomer, shrinking as they play, growing again while they do not)
and a volatility (how erratic their results are). :func:`update` applies one rating
period: a player's results against opponents rated before the period. The web table
rates each rated match as a period of its own (as lichess does), so both players' new
ratings follow from their ratings just before it.

>>> r = update(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
...                                     (Rating(1700, 300), 0.0)])
>>> round(r.rating, 2), round(r.deviation, 2), round(r.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "DEFAULT",
    "SCALE",
    "SETTLED_DEVIATION",
    "TAU",
    "Rating",
    "expected_score",
    "match_update",
    "update",
]

SCALE = 173.7178
"""Glicko-2's ratio between the Glicko scale (1500-centred) and its internal one."""
TAU = 0.5
"""The system constant: how much the volatility may change in a period (0.3 to 1.2;
smaller is steadier). Glickman's example uses 0.5."""
EPSILON = 0.000001
"""Convergence tolerance of the volatility iteration (Glickman's)."""
SETTLED_DEVIATION = 110.0
"""A rating whose deviation is at most this is settled: shown on the leaderboard."""
MAX_DEVIATION = 350.0
"""A newcomer's deviation, and the most a deviation grows to."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's Glicko-2 rating on the Glicko scale."""

    rating: float = 1500.0
    deviation: float = MAX_DEVIATION
    volatility: float = 0.06


DEFAULT = Rating()
"""A newcomer's rating."""


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """The player's expected score (0..1) against ``opponent`` (Glicko-2's E).

    >>> round(expected_score(Rating(1500, 200), Rating(1400, 30)), 3)
    0.639
    """
    return _e((player.rating - 1500) / SCALE, (opponent.rating - 1500) / SCALE,
              opponent.deviation / SCALE)


def update(player: Rating, results: Iterable[tuple[Rating, float]],
           tau: float = TAU) -> Rating:
    """The player's rating after one rating period with these ``results`` (each the
    opponent's rating before the period and the player's score: 1 win, 0.5 tie, 0 loss).
    No games: only the deviation grows (Glickman's step 6 alone)."""
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    games = [((o.rating - 1500.0) / SCALE, o.deviation / SCALE, s) for o, s in results]
    if not games:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, min(phi_star * SCALE, MAX_DEVIATION), sigma)
    # step 3: the estimated variance; step 4: the estimated improvement
    v_inv = 0.0
    delta_sum = 0.0
    for mu_j, phi_j, s in games:
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (s - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    # step 5: the new volatility (the Illinois algorithm)
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        den = 2.0 * (phi * phi + v + ex) ** 2
        return num / den - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = c, f_c
    new_sigma = math.exp(big_a / 2.0)
    # steps 6-8: the new deviation and rating
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return Rating(1500.0 + SCALE * new_mu, min(SCALE * new_phi, MAX_DEVIATION), new_sigma)


def match_update(a: Rating, b: Rating, score_a: float) -> tuple[Rating, Rating]:
    """Both players' new ratings after one rated match (``score_a``: 1 if ``a`` won, 0.5
    for a tie, 0 if ``b`` won), each computed from both ratings before it.

    >>> a, b = match_update(Rating(), Rating(), 1.0)
    >>> round(a.rating), round(b.rating)
    (1662, 1338)
    """
    return update(a, [(b, score_a)]), update(b, [(a, 1.0 - score_a)])
