"""The match-equity table (R10): terminal values, symmetry, monotonicity, the shipped data."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import pytest

from ginrummy.equity import (
    DATA_FORMAT,
    HandOutcomes,
    after_hand,
    hand_outcomes,
    parse_data,
    solve,
    variant_key,
    win_chance,
)
from ginrummy.options import TARGETS, Options

OPTS = Options()


def test_terminal_values_r10() -> None:
    # R10: the first total to reach the target wins the match.
    assert win_chance((100, 0), 0, 0, OPTS) == 1.0
    assert win_chance((100, 0), 1, 0, OPTS) == 0.0
    assert win_chance((99, 150), 0, 1, Options(target=150)) == 0.0
    assert after_hand((90, 0), 0, 1, 0, 10, OPTS) == 0.0
    assert 0.0 < after_hand((90, 95), 0, 1, 1, 4, OPTS) < 1.0  # 99 is not the target
    assert after_hand((90, 95), 0, 1, 1, 5, OPTS) == 1.0


@pytest.mark.parametrize("target", TARGETS)
def test_symmetric_and_bounded(target: int) -> None:
    opts = Options(target=target)
    for a in range(0, target, 7):
        for b in range(0, target, 11):
            for d in (0, 1):
                w = win_chance((a, b), 0, d, opts)
                assert 0.0 < w < 1.0
                assert w + win_chance((a, b), 1, d, opts) == pytest.approx(1.0, abs=1e-12)
                # relabelling the seats changes nothing
                assert w == pytest.approx(win_chance((b, a), 1, 1 - d, opts), abs=1e-12)


@pytest.mark.parametrize("opts", [Options(), Options(gin_only=True), Options(oklahoma=True)])
def test_monotone_in_own_and_opponent_score(opts: Options) -> None:
    t = opts.target
    for d in (0, 1):
        for b in range(0, t, 3):
            row = [win_chance((a, b), 0, d, opts) for a in range(t + 1)]
            assert all(x <= y + 1e-12 for x, y in zip(row, row[1:], strict=False))
        for a in range(0, t, 3):
            col = [win_chance((a, b), 0, d, opts) for b in range(t + 1)]
            assert all(x >= y - 1e-12 for x, y in zip(col, col[1:], strict=False))


def test_dead_hand_keeps_the_dealer_scored_hand_passes_the_deal() -> None:
    # R7: the same dealer deals again after a dead hand; R10: else the deal passes.
    assert after_hand((30, 40), 1, 0, None, 0, OPTS) == win_chance((30, 40), 0, 1, OPTS)
    assert after_hand((30, 40), 1, 0, 0, 12, OPTS) == win_chance((42, 40), 0, 0, OPTS)
    assert after_hand((30, 40), 1, 1, 1, 12, OPTS) == win_chance((30, 52), 1, 0, OPTS)


def _brute(target: int, o: HandOutcomes) -> float:
    """An independent memoized recursion over (x, y, dealer) for seat 0's chance."""

    @cache
    def w(x: int, y: int, dealer: int) -> float:
        if x >= target:
            return 1.0
        if y >= target:
            return 0.0
        s = 0.0
        for p, q in enumerate(o.dealer, 1):
            nx, ny = (x + p, y) if dealer == 0 else (x, y + p)
            s += q * w(nx, ny, 1 - dealer)
        for p, q in enumerate(o.non_dealer, 1):
            nx, ny = (x, y + p) if dealer == 0 else (x + p, y)
            s += q * w(nx, ny, 1 - dealer)
        return s / (1 - o.dead)

    return w(0, 0, 1)


def test_solver_matches_a_brute_force_recursion() -> None:
    o = HandOutcomes(dead=0.2, dealer=(0.0,) * 9 + (0.1,) + (0.0,) * 14 + (0.2,),
                     non_dealer=(0.0,) * 19 + (0.3,) + (0.0,) * 9 + (0.2,), hands=10)
    f = solve(100, o)
    # seat 0 does not deal first: its chance is 1 - F(dealer=seat 1 at 0-0)
    assert 1.0 - f[0][0] == pytest.approx(_brute(100, o), abs=1e-12)


def test_shipped_data_is_what_the_loader_expects() -> None:
    text = resources.files("ginrummy").joinpath("data/match_equity.json").read_text("utf-8")
    data = json.loads(text)
    assert data["format"] == DATA_FORMAT
    parsed = parse_data(data)
    assert set(parsed) == {"standard", "gin_only", "oklahoma"}
    for name, o in parsed.items():
        assert o.hands >= 2000, name  # a few thousand self-play hands per variant
        assert sum(o.dealer) + sum(o.non_dealer) + o.dead == pytest.approx(1.0)
        assert data["variants"][name]["matches_at_hand_limit"] >= 0
    # R6/R9 under gin only: every scored hand is a gin, worth at least 25
    assert sum(parsed["gin_only"].dealer[:24]) == 0.0
    assert hand_outcomes(Options(gin_only=True, oklahoma=True)) == parsed["gin_only"]
    assert variant_key(Options(oklahoma=True)) == "oklahoma"


@pytest.mark.parametrize("bad", [
    None, {}, {"format": "x"}, {"format": DATA_FORMAT},
    {"format": DATA_FORMAT, "variants": {"standard": {}}},
])
def test_loader_rejects_bad_data(bad: object) -> None:
    with pytest.raises(ValueError, match="Match-equity data"):
        parse_data(bad)


def test_loader_rejects_counts_that_do_not_add_up() -> None:
    v = {"dealer": {"10": 3}, "non_dealer": {"25": 1}, "dead": 1, "hands": 6}
    data = {"format": DATA_FORMAT, "variants": {k: v for k in ("standard", "gin_only",
                                                                "oklahoma")}}
    with pytest.raises(ValueError, match="do not add up"):
        parse_data(data)
    v["hands"] = 5
    assert parse_data(data)["standard"].dead == pytest.approx(0.2)
    v["dealer"] = {"0": 3}
    with pytest.raises(ValueError, match="bad point value"):
        parse_data(data)


@pytest.mark.parametrize("call", [
    lambda: win_chance((-1, 0), 0, 0, OPTS),
    lambda: win_chance((0, 0), 2, 0, OPTS),
    lambda: win_chance((0, 0), 0, 5, OPTS),
    lambda: win_chance((0,), 0, 0, OPTS),  # type: ignore[arg-type]
    lambda: after_hand((0, 0), 0, 0, None, 5, OPTS),
    lambda: after_hand((0, 0), 0, 0, 3, 5, OPTS),
    lambda: after_hand((0, 0), 0, 0, 1, -5, OPTS),
])
def test_bad_arguments_are_value_errors(call: object) -> None:
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]
