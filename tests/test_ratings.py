"""Glicko-2 (ginrummy.ratings) against Glickman's published worked example."""

from __future__ import annotations

import pytest

from ginrummy.ratings import DEFAULT, Rating, expected_score, match_update, update


def test_glickman_worked_example() -> None:
    """Glickman's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300
    (tau 0.5) -> 1464.06, 151.52, 0.05999."""
    r = update(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
                                         (Rating(1700, 300), 0.0)], tau=0.5)
    assert r.rating == pytest.approx(1464.06, abs=0.01)
    assert r.deviation == pytest.approx(151.52, abs=0.01)
    assert r.volatility == pytest.approx(0.05999, abs=0.00001)


def test_no_games_only_widens_the_deviation() -> None:
    r = update(Rating(1600, 100, 0.06), [])
    assert r.rating == 1600 and r.deviation > 100 and r.volatility == 0.06
    assert update(Rating(1500, 349.9, 0.06), []).deviation == 350


def test_match_update_is_symmetric_and_zero_sum_for_equals() -> None:
    a, b = match_update(DEFAULT, DEFAULT, 1.0)
    assert a.rating > 1500 > b.rating
    assert a.rating - 1500 == pytest.approx(1500 - b.rating)
    assert a.deviation < DEFAULT.deviation
    t1, t2 = match_update(Rating(1700, 60), Rating(1500, 60), 0.5)
    assert t1.rating < 1700 and t2.rating > 1500  # a tie against a weaker player costs
    assert expected_score(Rating(1700, 60), Rating(1500, 60)) > 0.5
