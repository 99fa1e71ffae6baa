"""R8/R9: the showdown after a knock, lay-offs, and the knocker's tie-break."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import product

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from brute_force import Meld, every_arrangement, is_valid_meld, points
from ginrummy.cards import Card, CardError, parse_cards, to_mask
from ginrummy.melds import (
    Arrangement,
    Showdown,
    best_arrangements,
    best_layoff,
    showdown,
    showdown_mask,
)

# ----------------------------------------------------------------- brute-force reference


def dead(hand: frozenset[int], melds: Sequence[Meld]) -> int:
    return sum(points(c) for c in hand - frozenset().union(*melds))


@cache
def brute_deadwood(hand: frozenset[int]) -> int:
    return min(dead(hand, m) for m in every_arrangement(hand))


def brute_least_arrangements(hand: frozenset[int]) -> tuple[int, list[tuple[Meld, ...]]]:
    """Every least-deadwood arrangement, runs split in every way too."""
    arrs = list(every_arrangement(hand))
    least = min(dead(hand, m) for m in arrs)
    return least, [m for m in arrs if dead(hand, m) == least]


def brute_layoff(melds: Sequence[Meld], defender: frozenset[int]) -> int:
    """Least defender deadwood: every card either stays or goes on one knocker meld."""
    options: list[list[int | None]] = []
    cards = sorted(defender)
    for c in cards:
        opts: list[int | None] = [None]
        for i, m in enumerate(melds):
            ranks = {x % 13 for x in m}
            is_set = len(ranks) == 1
            if (is_set and c % 13 in ranks) or (not is_set and c // 13 == min(m) // 13):
                opts.append(i)
        options.append(opts)
    best = brute_deadwood(defender)
    for choice in product(*options):
        if all(x is None for x in choice):
            continue
        added: dict[int, set[int]] = {}
        for c, where in zip(cards, choice, strict=True):
            if where is not None:
                added.setdefault(where, set()).add(c)
        if all(is_valid_meld(melds[i] | frozenset(extra)) for i, extra in added.items()):
            kept = frozenset(c for c, where in zip(cards, choice, strict=True) if where is None)
            best = min(best, brute_deadwood(kept))
    return best


def brute_showdown(knocker: frozenset[int], defender: frozenset[int]) -> tuple[int, int]:
    """(knocker deadwood, defender deadwood) under R8, the tie-break in the defender's favour."""
    least, arrs = brute_least_arrangements(knocker)
    if least == 0:
        return 0, brute_deadwood(defender)
    return least, min(brute_layoff(list(m), defender) for m in arrs)


# ----------------------------------------------------------------- helpers


def idx(cards: Sequence[Card]) -> frozenset[int]:
    return frozenset(c.index for c in cards)


def strs(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def check_showdown(sd: Showdown, knocker: frozenset[int], defender: frozenset[int]) -> None:
    """Every structural promise of :class:`Showdown`, independent of optimality."""
    k = sd.knocker_arrangement
    assert frozenset().union(*(idx(m) for m in k.melds), idx(k.deadwood_cards)) == knocker
    assert all(is_valid_meld(idx(m)) for m in k.melds)
    assert k.deadwood == sd.knocker_deadwood == sum(c.points for c in k.deadwood_cards)
    assert sd.gin == (sd.knocker_deadwood == 0)
    d = sd.defender_arrangement
    laid = idx(sd.laid_off)
    assert len(laid) == len(sd.layoffs) == len(sd.laid_off)
    own = [idx(m) for m in d.melds]
    assert all(is_valid_meld(m) for m in own)
    parts = [*own, idx(d.deadwood_cards), laid]
    assert sum(len(p) for p in parts) == len(defender)
    assert frozenset().union(*parts) == defender
    assert d.deadwood == sd.defender_deadwood == sum(c.points for c in d.deadwood_cards)
    assert d.deadwood == brute_deadwood(defender - laid)  # own cards arranged at their best
    if sd.gin:
        assert sd.layoffs == ()
    added: dict[int, set[int]] = {}
    for card, i in sd.layoffs:
        assert 0 <= i < len(k.melds)
        added.setdefault(i, set()).add(card.index)
    for i, extra in added.items():
        assert is_valid_meld(idx(k.melds[i]) | frozenset(extra)), (k.melds[i], extra)


def sd(knocker: str, defender: str) -> Showdown:
    result = showdown(knocker, defender)
    check_showdown(result, idx(parse_cards(knocker)), idx(parse_cards(defender)))
    return result


def meld_text(arr: Arrangement, i: int) -> str:
    return " ".join(map(str, arr.melds[i]))


# ----------------------------------------------------------------- R8 hand-made cases


def test_r8_set_of_three_takes_its_fourth_card() -> None:
    r = sd("7C 7D 7H 2S 3S 4S JD QD KD AH", "7S 9C 9D KC QC TS 5H 6H 8D 2C")
    assert strs(r.laid_off) == ["7S"]
    ((card, i),) = r.layoffs
    assert meld_text(r.knocker_arrangement, i) == "7C 7D 7H"
    assert r.knocker_deadwood == 1
    assert r.defender_deadwood == 9 + 9 + 10 + 10 + 10 + 5 + 6 + 8 + 2


def test_r8_set_of_four_takes_nothing() -> None:
    r = sd("7C 7D 7H 7S 2S 3S 4S JD QD AH", "KD 9C 9D KC QC TS 5H 6H 8D 2C")
    assert r.layoffs == ()


def test_r8_run_chains_at_both_ends() -> None:
    r = sd("5H 6H 7H KC KD KS AC 2C 3C 4D", "3H 4H 8H 9H JS QS 2D 9C TC AS")
    assert sorted(strs(r.laid_off)) == ["3H", "4H", "8H", "9H"]
    run = next(i for i, m in enumerate(r.knocker_arrangement.melds) if str(m[0]) == "5H")
    assert {i for _, i in r.layoffs if _.suit == "H"} == {run}
    assert r.defender_deadwood == 10 + 10 + 2 + 9 + 10 + 1


def test_r8_chain_needs_every_link() -> None:
    # 9H cannot go on 5-6-7H without the 8H.
    r = sd("5H 6H 7H KC KD KS AC 2C 3C 4D", "9H TH JS QS 2D 9C TC AS 4S 6S")
    assert r.layoffs == ()


def test_r8_chain_onto_run_that_ends_at_king_or_ace() -> None:
    r = sd("JS QS KS 2C 2D 2H 5D 6D 7D AH", "TS 9S 7S AS 3S 3H KH QH 4C 9C")
    assert sorted(strs(r.laid_off)) == ["9S", "TS"]
    r = sd("AS 2S 3S 9C 9D 9H 5D 6D 7D AH", "4S 5S KS QS 3H KH QH 4C TC 8H")
    assert sorted(strs(r.laid_off)) == ["4S", "5S"]


def test_r8_gap_between_two_runs_each_takes_its_end() -> None:
    r = sd("2C 3C 4C 8C 9C TC KD KH KS AD", "5C 7C QS JS 2H 3S 5H 7H 9H TH")
    arr = r.knocker_arrangement
    where = {str(c): meld_text(arr, i) for c, i in r.layoffs}
    assert where == {"5C": "2C 3C 4C", "7C": "8C 9C TC"}


def test_r8_defender_keeps_card_for_own_set() -> None:
    # Laying 8C off would break the defender's set of eights.
    r = sd("5C 6C 7C KD KH KS 2S 3S 4S AH", "8C 8D 8H JD QC TH 9S 6H 4D 2D")
    assert r.layoffs == ()
    assert r.defender_deadwood == 10 + 10 + 10 + 9 + 6 + 4 + 2


def test_r8_defender_keeps_cards_for_own_run() -> None:
    # 4C fits 5-6-7C, but 2-3-4C is the defender's own run.
    r = sd("5C 6C 7C KD KH KS 2S 3S 4S AH", "2C 3C 4C JD QC TH 9S 6H 4D 2D")
    assert r.layoffs == ()
    # With no 2C the 3C and 4C both chain on instead.
    r = sd("5C 6C 7C KD KH KS 2S 3S 4S AH", "8S 3C 4C JD QC TH 9S 6H 4D 2D")
    assert sorted(strs(r.laid_off)) == ["3C", "4C"]


def test_r8_tie_between_own_meld_and_layoff_keeps_own_meld() -> None:
    r = sd("5C 6C 7C KD KH KS 2S 3S 4S AH", "8C 9C TC JD QH TH 9S 6H 4D 2D")
    assert r.layoffs == ()
    assert {frozenset(strs(m)) for m in r.defender_arrangement.melds} == {
        frozenset({"8C", "9C", "TC"})
    }


def test_r8_own_meld_and_layoffs_chosen_together() -> None:
    # 8C and 9C could both chain onto 5-6-7C, but 9C does better in the defender's nines.
    r = sd("5C 6C 7C KD KH KS 2S 3S 4S AH", "8C 9C 9D 9H QH TH 6H 4D 2D JD")
    assert strs(r.laid_off) == ["8C"]
    own = {frozenset(strs(m)) for m in r.defender_arrangement.melds}
    assert frozenset({"9C", "9D", "9H"}) in own
    assert r.defender_deadwood == 10 + 10 + 6 + 4 + 2 + 10
    # A run of four may give its end card to the knocker's set and still be a run.
    r = sd("7C 7D 7H KD KH KS 2C 3C 4C AH", "7S 8S 9S TS QH TH 9D 6H 4D 2D")
    assert r.defender_deadwood == 10 + 10 + 9 + 6 + 4 + 2
    assert r.layoffs == ()  # a tie: the defender keeps their own meld whole


def test_r8_knocker_tie_break_favours_defender_set() -> None:
    # 4H is in the run 3-4-5H or the set 4C 4D 4H: both leave the knocker 10.
    knocker = "3H 4H 5H 4C 4D JS QS KS AC AD"
    assert len(best_arrangements(knocker)) == 2
    r = sd(knocker, "4S 9C 9D TC 8H JH QH 2S 6S 8S")
    assert strs(r.laid_off) == ["4S"]
    assert any(len(m) == 3 and {c.rank for c in m} == {"4"} for m in r.knocker_arrangement.melds)
    assert r.knocker_deadwood == 10


def test_r8_knocker_tie_break_favours_defender_run() -> None:
    knocker = "3H 4H 5H 4C 4D JS QS KS AC AD"
    r = sd(knocker, "6H 7H 9C 9D TC JH 2S 6S 8S QD")
    assert sorted(strs(r.laid_off)) == ["6H", "7H"]
    assert any(strs(m) == ["3H", "4H", "5H"] for m in r.knocker_arrangement.melds)


def test_r8_gin_allows_no_layoffs() -> None:
    r = sd("5H 6H 7H KC KD KS AC 2C 3C 4C", "8H 9H KH 4H 5C QS 2D 9C TC AS")
    assert r.gin and r.knocker_deadwood == 0
    assert r.layoffs == () and r.laid_off == ()
    defender = parse_cards("8H 9H KH 4H 5C QS 2D 9C TC AS")
    assert r.defender_deadwood == sum(c.points for c in defender)


def test_r8_mask_and_text_api_agree() -> None:
    k, d = "5H 6H 7H KC KD KS AC 2C 3C 4D", "3H 4H 8H 9H JS QS 2D 9C TC AS"
    assert showdown_mask(to_mask(parse_cards(k)), to_mask(parse_cards(d))) == showdown(k, d)
    assert showdown(parse_cards(k), parse_cards(d)) == showdown(k, d)


def test_r8_bad_input() -> None:
    with pytest.raises(CardError, match="exactly 10"):
        showdown("5H 6H 7H", "3H 4H 8H")
    with pytest.raises(CardError, match="both hold 5H"):
        showdown("5H 6H 7H KC KD KS AC 2C 3C 4D", "5H 4H 8H 9H JS QS 2D 9C TC AS")
    with pytest.raises(ValueError):
        showdown_mask(1 << 52, 1)
    with pytest.raises(ValueError, match="Not a meld"):
        best_layoff([parse_cards("5H 6H 8H")], "4H")
    with pytest.raises(ValueError, match="twice"):
        best_layoff([parse_cards("5H 6H 7H")], "7H")


def test_r8_best_layoff_on_given_melds() -> None:
    # Touching runs given apart: each takes the card at its own end.
    arr, lay = best_layoff([parse_cards("3C 4C 5C"), parse_cards("6C 7C 8C")], "2C 9C KD")
    assert [(str(c), i) for c, i in lay] == [("2C", 0), ("9C", 1)]
    assert arr.deadwood == 10 and strs(arr.deadwood_cards) == ["KD"]
    arr, lay = best_layoff([], "2C 3C 4C KD")
    assert lay == () and arr.deadwood == 10


# ----------------------------------------------------------------- properties vs brute force


@st.composite
def deals(draw: st.DrawFn) -> tuple[frozenset[int], frozenset[int]]:
    """Two disjoint 10-card hands, uniform or from a narrow window (many melds, lay-offs)."""
    width = draw(st.sampled_from([13, 5, 6, 7]))
    start = draw(st.integers(0, 13 - width))
    suits = draw(st.sampled_from([4, 4, 3]))
    pool = [s * 13 + r for s in range(suits) for r in range(start, start + width)]
    if len(pool) < 20:
        pool = list(range(52))
    cards = draw(st.lists(st.sampled_from(pool), min_size=20, max_size=20, unique=True))
    return frozenset(cards[:10]), frozenset(cards[10:])


@settings(max_examples=800, deadline=None)
@given(deals())
def test_r8_showdown_matches_brute_force(deal: tuple[frozenset[int], frozenset[int]]) -> None:
    knocker, defender = deal
    result = showdown_mask(sum(1 << c for c in knocker), sum(1 << c for c in defender))
    check_showdown(result, knocker, defender)
    kdw, ddw = brute_showdown(knocker, defender)
    event("gin" if result.gin else "lay-offs" if result.layoffs else "no lay-off")
    assert result.knocker_deadwood == kdw
    assert result.defender_deadwood == ddw
    if not result.gin:
        melds = [idx(m) for m in result.knocker_arrangement.melds]
        assert brute_layoff(melds, defender) == ddw  # the arrangement used is the best one


@settings(max_examples=400, deadline=None)
@given(deals())
def test_r8_best_layoff_matches_brute_force(deal: tuple[frozenset[int], frozenset[int]]) -> None:
    knocker, defender = deal
    _, arrs = brute_least_arrangements(knocker)
    melds = list(arrs[len(arrs) // 2])  # possibly with runs split in two
    arr, lay = best_layoff([[Card.from_index(c) for c in sorted(m)] for m in melds],
                           [Card.from_index(c) for c in sorted(defender)])
    laid = frozenset(c.index for c, _ in lay)
    added: dict[int, set[int]] = {}
    for c, i in lay:
        added.setdefault(i, set()).add(c.index)
    assert all(is_valid_meld(melds[i] | frozenset(x)) for i, x in added.items())
    assert arr.deadwood == brute_deadwood(defender - laid) == brute_layoff(melds, defender)
    covered = frozenset().union(*(idx(m) for m in arr.melds), idx(arr.deadwood_cards), laid)
    assert covered == defender
