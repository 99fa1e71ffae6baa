"""The kernel's solver and settlement are the core's (R2 deadwood, R8 lay-offs, R9
scoring) on thousands of random hands and knocks, in either build; and the two builds give
identical results on thousands of positions (R4-R7 steps), on belief samples and on whole
evaluations."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy.evaluator import Evaluator
from ginrummy.evaluator.belief import Belief, BeliefParams
from ginrummy.kernel import action_code
from ginrummy.kernel.builds import PYTHON, Build
from ginrummy.kernel.spec import outcome
from ginrummy.kernel.splitmix import Random
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.melds import deadwood_by_discard_mask, deadwood_mask, showdown_mask
from ginrummy.scoring import knock_points

from .test_kernel_playout import BUILDS, kernel_state, random_position


def compiled() -> Build:
    """The compiled build (the test is skipped without numba)."""
    if len(BUILDS) < 2:
        pytest.skip("numba is not installed: there is one build only")
    return BUILDS[1]


def examples(build: Build, n: int) -> int:
    """Hypothesis examples for a build: fewer for the slower Python one."""
    return n if build.name == "numba" else n // 3


def _meld_rich(draw: st.DrawFn, n: int) -> int:
    """``n`` distinct cards from a few ranks and neighbouring suits, so sets, runs,
    four-of-a-kinds and competing melds are common."""
    lo = draw(st.integers(0, 9))
    ranks = list(range(lo, lo + draw(st.integers(3, 4))))
    pool = [s * 13 + r for s in range(4) for r in ranks]
    pool += draw(st.lists(st.integers(0, 51), max_size=6))
    pool = sorted(set(pool))
    chosen = draw(st.lists(st.sampled_from(pool), min_size=min(n, len(pool)),
                           max_size=min(n, len(pool)), unique=True))
    mask = sum(1 << c for c in chosen)
    rest = [c for c in range(52) if not mask >> c & 1]
    for c in draw(st.permutations(rest))[: n - len(chosen)]:
        mask |= 1 << c
    return mask


@st.composite
def hands(draw: st.DrawFn, n: int | None = None) -> int:
    size = draw(st.integers(0, 11)) if n is None else n
    if draw(st.booleans()):
        return _meld_rich(draw, size)
    cards = draw(st.lists(st.integers(0, 51), min_size=size, max_size=size, unique=True))
    return sum(1 << c for c in cards)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_r2_the_kernels_deadwood_is_the_cores(build: Build) -> None:
    @settings(max_examples=examples(build, 3000))
    @given(hands())
    def check(h: int) -> None:
        assert build.deadwood(h) == deadwood_mask(h)

    check()


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_r2_the_kernels_deadwood_by_discard_is_the_cores(build: Build) -> None:
    @settings(max_examples=examples(build, 2000))
    @given(hands(11))
    def check(h: int) -> None:
        out = build.ints([-7] * 52)
        build.deadwood_by_discard(h, out)
        table = deadwood_by_discard_mask(h)
        assert {k: int(out[k]) for k in table} == table
        assert all(out[k] == -7 for k in range(52) if not h >> k & 1)

    check()


@st.composite
def knocks(draw: st.DrawFn) -> tuple[int, int, int]:
    knocker = draw(hands(10))
    rest = [c for c in range(52) if not knocker >> c & 1]
    if draw(st.booleans()):  # a defender with cards next to the knocker's melds
        near = sorted({c + d for c in range(52) if knocker >> c & 1 for d in (-2, -1, 1, 2)
                       if 0 <= c + d < 52 and not knocker >> (c + d) & 1}
                      | {c % 13 + 13 * s for c in range(52) if knocker >> c & 1
                         for s in range(4) if not knocker >> (c % 13 + 13 * s) & 1})
        first = draw(st.lists(st.sampled_from(near), max_size=min(7, len(near)), unique=True))
        others = [c for c in rest if c not in first]
        extra = draw(st.permutations(others))[: 10 - len(first)]
        defender = sum(1 << c for c in first + extra)
    else:
        defender = sum(1 << c for c in draw(st.permutations(rest))[:10])
    return draw(st.integers(0, 1)), knocker, defender


def core_settle(seat: int, knocker: int, defender: int) -> int:
    """The outcome of a knock as the core scores it (R8-R9: ``showdown_mask``)."""
    pts = knock_points(showdown_mask(knocker, defender))
    return outcome(seat, pts) if pts > 0 else outcome(1 - seat, -pts)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_r8_r9_the_kernels_settlement_is_the_cores(build: Build) -> None:
    """Gin, knocks with lay-offs chained on runs and added to sets, undercuts and ties
    (R8-R9): the kernel's settlement scores as the core's showdown."""
    @settings(max_examples=examples(build, 3000))
    @given(knocks())
    def check(case: tuple[int, int, int]) -> None:
        seat, knocker, defender = case
        assert build.settle(seat, knocker, defender) == core_settle(seat, knocker, defender)

    check()


def test_r4_r9_both_builds_play_out_alike_on_thousands_of_positions() -> None:
    """3,000 positions (every phase, all knock limits, every style): the compiled play-out
    ends each hand exactly as the Python build's, from the position and after each legal
    action of the mover (as the evaluator applies them); the play-outs themselves are held
    to the core's Hand in test_kernel_playout."""
    comp = compiled()
    for seed in range(3000):
        hand, turns, taken = random_position(10_000 + seed)
        styles = seed % 3 | (seed // 3) % 3 << 2
        st_, stock, pile = kernel_state(hand, styles, turns, taken)
        codes = [-1] + ([action_code(a) for a in hand.legal_actions()] if seed % 10 == 0
                        else [])
        for code in codes:
            assert comp.finish(st_, stock, pile, code) == \
                PYTHON.finish(st_, stock, pile, code, {}), (seed, code)


def test_both_builds_play_out_a_distilled_seat_alike() -> None:
    """Issue 48: 600 positions with a distilled seat (the discard fitted to expert) against
    every style, its opponent's pile picks known: the compiled play-out ends each hand as
    the Python build's."""
    from ginrummy.kernel.spec import DISTILLED, TOOK0

    comp = compiled()
    for seed in range(600):
        hand, turns, taken = random_position(40_000 + seed)
        other = seed % 4
        styles = DISTILLED | other << 2 if seed % 2 else other | DISTILLED << 2
        st_, stock, pile = kernel_state(hand, styles, turns, taken)
        rng = random.Random(seed)
        for seat in (0, 1):  # some cards each seat holds, as if taken from the pile
            held = [k for k in range(52) if st_[seat] >> k & 1]
            st_[TOOK0 + seat] = sum(1 << k for k in rng.sample(held, min(2, len(held))))
        assert comp.finish(st_, stock, pile, -1) == \
            PYTHON.finish(st_, stock, pile, -1, {}), seed


def _decisions(n: int, seed: int) -> list[tuple[Match, int]]:
    """Match positions with a decision, from random play (all options)."""
    from ginrummy.options import Options

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        opts = rng.choice([Options(), Options(gin_only=True), Options(oklahoma=True),
                           Options(target=250)])
        m = Match(opts, seed=rng.randrange(1 << 30))
        for _ in range(rng.randrange(0, 60)):
            if m.is_over():
                break
            legal = m.legal_actions()
            m.play(rng.choice(legal))
        if not m.is_over() and len(m.legal_actions()) > 1:
            out.append((m, rng.randrange(1 << 20)))
    return out


def test_belief_samples_are_identical_in_both_builds() -> None:
    """The belief's sampler (weights, improvement, redraws, R6's no-knock evidence) draws
    the same hands from the same random state in both builds."""
    comp = compiled()
    for m, s in _decisions(150, 5):
        assert m.to_play is not None
        view = m.view(m.to_play)
        params = BeliefParams(improve=[0.9, 1.7, -2.0][s % 3])
        b = Belief(Knowledge.of(view), view.knock_limit, params)
        pos, fl = b.position(), b.floats(0.5, 0.25)
        r1, r2 = Random(s), Random(s)
        for style in (0, 1, 2, 0, 1, 2):
            h1 = PYTHON.draw_hand(pos, fl, b.unknown, b.weights, r1, style)
            h2 = comp.draw_hand(comp.ints(pos), comp.floats(fl), comp.ints(b.unknown),
                                comp.floats(b.weights), r2, style)
            assert h1 == h2 and r1.state == r2.state


def test_evaluations_are_identical_in_both_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole evaluations (sampling, play-outs, match equity, control variate, standard
    errors) are bit for bit the same with either build."""
    import ginrummy.kernel as kernel

    compiled()
    for m, s in _decisions(40, 9):
        assert m.to_play is not None
        view = m.view(m.to_play)
        results = []
        for build in BUILDS:
            monkeypatch.setattr(kernel, "_chosen", (build, build.name))
            ev = Evaluator(samples=12, seed=s, quick=(s % 5) / 8, club=(s % 3) / 4,
                           style=s % 3).evaluate(view)
            results.append((ev.values, ev.win_samples, ev.points_samples))
        assert results[0] == results[1]
