"""R2: melds and deadwood, checked against a brute-force reference solver."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brute_force import Meld, every_arrangement, is_valid_meld, points
from ginrummy.cards import Card, CardError, deck, parse_cards, to_mask
from ginrummy.melds import (
    Arrangement,
    arrange,
    arrangements_mask,
    best_arrangements,
    deadwood,
    deadwood_by_discard,
    deadwood_by_discard_mask,
    deadwood_mask,
    is_meld,
)

ALL = deck()


# ----------------------------------------------------------------- brute-force reference


@cache
def brute(hand: frozenset[int]) -> tuple[int, frozenset[frozenset[Meld]]]:
    """Least deadwood of ``hand`` and, for its optimal arrangements, every choice of sets."""
    best = 1000
    set_choices: set[frozenset[Meld]] = set()
    for melds in every_arrangement(hand):
        melded = frozenset().union(*melds)
        dw = sum(points(c) for c in hand - melded)
        sets = frozenset(m for m in melds if len({c % 13 for c in m}) == 1)
        if dw < best:
            best, set_choices = dw, {sets}
        elif dw == best:
            set_choices.add(sets)
    return best, frozenset(set_choices)


def brute_deadwood(hand: frozenset[int]) -> int:
    return brute(hand)[0]


# ----------------------------------------------------------------- strategies


@st.composite
def uniform_hands(draw: st.DrawFn, lo: int = 0, hi: int = 11) -> frozenset[int]:
    """``lo``..``hi`` distinct cards from the whole deck."""
    n = draw(st.integers(lo, hi))
    return frozenset(draw(st.lists(st.integers(0, 51), min_size=n, max_size=n, unique=True)))


@st.composite
def rich_hands(draw: st.DrawFn, lo: int = 0, hi: int = 11) -> frozenset[int]:
    """``lo``..``hi`` cards from a window of 5 adjacent ranks in all 4 suits (many melds)."""
    start = draw(st.integers(0, 8))
    window = [s * 13 + r for s in range(4) for r in range(start, start + 5)]
    n = draw(st.integers(lo, min(hi, 20)))
    return frozenset(draw(st.lists(st.sampled_from(window), min_size=n, max_size=n, unique=True)))


def hands(lo: int = 0, hi: int = 11) -> st.SearchStrategy[frozenset[int]]:
    return st.one_of(uniform_hands(lo, hi), rich_hands(lo, hi))


def mask_of(hand: frozenset[int]) -> int:
    return sum(1 << c for c in hand)


def cards_of(hand: frozenset[int]) -> list[Card]:
    return [Card.from_index(c) for c in sorted(hand)]


def check_arrangement(arr: Arrangement, hand: frozenset[int], least: int) -> None:
    """``arr`` is valid, disjoint, covers ``hand`` exactly and has the least deadwood."""
    seen: list[int] = []
    for meld in arr.melds:
        idx = frozenset(c.index for c in meld)
        assert len(idx) == len(meld)
        assert is_valid_meld(idx), meld
        assert is_meld(list(meld))
        seen.extend(idx)
    seen.extend(c.index for c in arr.deadwood_cards)
    assert len(seen) == len(set(seen)), "a card is used twice"
    assert set(seen) == hand
    assert arr.deadwood == sum(c.points for c in arr.deadwood_cards) == least


# ----------------------------------------------------------------- R2 examples


def test_r2_example_seed_001() -> None:
    hand = "7C 8C 9C 9D 9H 9S KD QH 4S 2H"
    assert deadwood(hand) == 26
    arr = arrange(hand)
    assert sorted(map(str, arr.deadwood_cards)) == sorted(["KD", "QH", "4S", "2H"])
    assert {frozenset(map(str, m)) for m in arr.melds} == {
        frozenset({"7C", "8C", "9C"}), frozenset({"9D", "9H", "9S"})
    }


def test_r2_example_seed_002_seven_in_run_and_set() -> None:
    hand = "7C 7D 7H 7S 8C 9C"
    assert deadwood(hand) == 0
    arr = arrange(hand)
    assert arr.deadwood_cards == ()
    assert {frozenset(map(str, m)) for m in arr.melds} == {
        frozenset({"7C", "8C", "9C"}), frozenset({"7D", "7H", "7S"})
    }


def test_r2_cards_objects_and_strings_agree() -> None:
    hand = "7C 8C 9C 9D 9H 9S KD QH 4S 2H"
    assert deadwood(parse_cards(hand)) == deadwood(hand.lower()) == 26
    assert deadwood_mask(to_mask(parse_cards(hand))) == 26


def test_r2_no_wrap_and_aces_low() -> None:
    assert deadwood("QS KS AS") == 21
    assert deadwood("AS 2S 3S") == 0
    assert deadwood("KS AS 2S") == 13


def test_r2_small_hands() -> None:
    assert deadwood("") == 0
    assert arrange("").melds == ()
    assert deadwood("KH") == 10
    assert deadwood("5C 5D 5H 5S") == 0
    assert deadwood("5C 5D") == 10


def test_r2_several_least_arrangements_are_all_listed() -> None:
    # 4H can go in the run 3-4-5H or the set of fours: both leave 8 deadwood.
    arrs = best_arrangements("3H 4H 5H 4C 4D")
    assert len(arrs) == 2
    assert {a.deadwood for a in arrs} == {8}


def test_r2_deadwood_by_discard_example() -> None:
    d = deadwood_by_discard("7C 8C 9C 9D 9H 9S KD QH 4S 2H 3H")
    assert d[Card.parse("KD")] == 19
    assert d[Card.parse("7C")] == 37
    assert {str(c) for c in d} == {str(c) for c in parse_cards("7C 8C 9C 9D 9H 9S KD QH 4S 2H 3H")}


# ----------------------------------------------------------------- R2 errors


def test_r2_more_than_11_cards_refused() -> None:
    twelve = " ".join(str(c) for c in ALL[:12])
    for fn in (deadwood, arrange, best_arrangements):
        with pytest.raises(ValueError, match="12"):
            fn(twelve)


@pytest.mark.parametrize("n", [0, 10, 12])
def test_r2_deadwood_by_discard_needs_exactly_11(n: int) -> None:
    with pytest.raises(ValueError, match="exactly 11"):
        deadwood_by_discard(ALL[:n])


@pytest.mark.parametrize("fn", [deadwood, arrange, best_arrangements])
def test_r2_unknown_and_duplicate_cards_refused(fn: object) -> None:
    assert callable(fn)
    with pytest.raises(CardError, match="Unknown card 'XY'"):
        fn("AS XY")
    with pytest.raises(ValueError, match="Duplicate card: AS"):
        fn("AS 2S as")
    with pytest.raises(ValueError, match="Duplicate card: AS"):
        deadwood_by_discard("AS 2S 3S 4S 5S 6S 7S 8S 9S TS AS")


# ----------------------------------------------------------------- properties vs brute force


@settings(max_examples=1000, deadline=None)
@given(hands())
def test_r2_deadwood_matches_brute_force(hand: frozenset[int]) -> None:
    least = brute_deadwood(hand)
    assert deadwood_mask(mask_of(hand)) == least
    assert deadwood(cards_of(hand)) == least


@settings(max_examples=1000, deadline=None)
@given(hands())
def test_r2_best_arrangements_match_brute_force(hand: frozenset[int]) -> None:
    least, set_choices = brute(hand)
    arrs = best_arrangements(" ".join(str(c) for c in cards_of(hand)))
    assert arrs and arrangements_mask(mask_of(hand)) == arrs
    assert arrange(cards_of(hand)) == arrs[0]
    for arr in arrs:
        check_arrangement(arr, hand, least)
    # R8 needs them all: one per distinct choice of sets among the optimal arrangements.
    got = [frozenset(frozenset(c.index for c in m) for m in a.melds if len(m) and
                     m[0].rank_index == m[-1].rank_index) for a in arrs]
    assert len(got) == len(set(got))
    assert set(got) == set(set_choices)


@settings(max_examples=400, deadline=None)
@given(hands(11, 11))
def test_r2_deadwood_by_discard_matches_brute_force(hand: frozenset[int]) -> None:
    expected = {c: brute_deadwood(hand - {c}) for c in hand}
    assert deadwood_by_discard_mask(mask_of(hand)) == expected
    public = deadwood_by_discard(cards_of(hand))
    assert {c.index: v for c, v in public.items()} == expected
    assert all(isinstance(c, Card) for c in public)
