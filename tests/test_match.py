"""A whole match (R3 first dealer, R7 redeal, R10 scoring, rotation and the end, R11)."""

from __future__ import annotations

import json
import random

import pytest

from ginrummy import (
    DRAW_STOCK,
    HAND_LIMIT,
    PASS,
    IllegalActionError,
    Match,
    MatchOverError,
    Options,
    deadwood,
)
from helpers import (
    GIN_SPADES,
    LOOSE_25,
    LOOSE_57,
    deal,
    gin_deal,
    match_snapshot,
    play_dead_hand,
    play_gin_for,
    play_script,
    random_play,
)

# ----------------------------------------------------------------------------- R3


def test_r3_first_dealer_from_seed_reproducible() -> None:
    dealers = {seed: Match(seed=seed).first_dealer for seed in range(40)}
    assert set(dealers.values()) == {0, 1}  # random, not fixed
    for seed, dealer in dealers.items():
        m = Match(seed=seed)
        assert m.first_dealer == dealer and m.hand.dealer == dealer


def test_r3_named_first_dealer_is_used() -> None:
    for d in (0, 1):
        assert Match(seed=1, first_dealer=d).hand.dealer == d
    with pytest.raises(ValueError, match="first dealer"):
        Match(seed=1, first_dealer=2)


def test_r3_same_seed_same_match() -> None:
    records = []
    for _ in range(2):
        m = Match(seed=2024)
        random_play(m, random.Random(9))
        records.append(json.dumps(m.to_record()))
    assert records[0] == records[1]
    assert Match(seed=2024).hand.deal != Match(seed=2025).hand.deal


def test_r3_deals_follow_the_seed_not_the_play() -> None:
    a, b = Match(seed=77, first_dealer=0), Match(seed=77, first_dealer=0)
    play_dead_hand(a)
    play_dead_hand(b)
    assert a.hand.deal == b.hand.deal and len(a.hands) == 2


# ----------------------------------------------------------------------------- R10


def test_r10_dealer_rotates_after_every_scored_hand() -> None:
    # Seat 0 wins every hand by gin, as dealer and as non-dealer alike.
    m = Match(Options(target=250), first_dealer=1, deals=[gin_deal(0) for _ in range(10)])
    dealers = []
    while not m.is_over():
        dealers.append(m.hand.dealer)
        play_gin_for(m, 0)
    assert dealers == [1, 0, 1, 0][: len(dealers)] and len(dealers) == 4


def test_r10_dealer_rotates_after_undercut_too() -> None:
    # Seat 1 knocks with 9 and seat 0 (the dealer) ties it: an undercut scored by the dealer.
    tie = deal("2D 3D 4D 5H 6H 7H 8H AH AC 7D", "5C 6C 7C JD JH JS 2S 3S 4S 9H", "QD", "KC")
    m = Match(first_dealer=0, deals=[tie])
    play_script(m, "pass", "pass", "draw stock", "discard KC knock")
    r = m.hands[0].result
    assert r is not None and (r.result, r.scorer, r.points) == ("undercut", 0, 25)
    assert m.scores == (25, 0)
    assert m.hand.dealer == 1 and len(m.hands) == 2


def test_r10_same_dealer_after_dead_hand() -> None:
    m = Match(seed=5, first_dealer=1)
    for _ in range(3):
        play_dead_hand(m)
        dead = m.hands[-2].result
        assert dead is not None and dead.result == "dead"
        assert m.hand.dealer == 1
    assert [h.dealer for h in m.hands] == [1, 1, 1, 1]
    assert m.scores == (0, 0)


def test_r10_scores_are_plain_sums_of_hand_scores() -> None:
    m = Match(Options(target=250), first_dealer=0,
              deals=[gin_deal(0, LOOSE_25), gin_deal(1, LOOSE_57), gin_deal(0, LOOSE_57)])
    play_gin_for(m, 0)
    assert m.scores == (50, 0)
    play_gin_for(m, 1)
    assert m.scores == (50, 82)
    play_gin_for(m, 0)
    assert m.scores == (132, 82)
    total = [0, 0]
    for r in m.results():
        if r is not None and r.scorer is not None:
            total[r.scorer] += r.points
    assert tuple(total) == m.scores


@pytest.mark.parametrize("target", [100, 150, 200, 250])
def test_r10_match_ends_when_a_total_reaches_the_target(target: int) -> None:
    per_hand = deadwood(LOOSE_57) + 25  # 82 for each gin
    hands_needed = -(-target // per_hand)
    m = Match(Options(target=target), first_dealer=0,
              deals=[gin_deal(0) for _ in range(hands_needed + 2)])
    for k in range(1, hands_needed + 1):
        assert not m.is_over()
        play_gin_for(m, 0)
        assert m.scores == (per_hand * k, 0)
    o = m.outcome()
    assert m.is_over() and o is not None
    assert (o.winner, o.scores, o.hands, o.reason) == (0, (per_hand * hands_needed, 0),
                                                       hands_needed, "target")
    assert o.result() == "1-0" and m.winner == 0 and len(m.hands) == hands_needed


def test_r10_reaching_the_target_exactly_ends_the_match() -> None:
    m = Match(first_dealer=0, deals=[gin_deal(1, LOOSE_25), gin_deal(1, LOOSE_25)])
    play_gin_for(m, 1)
    assert m.scores == (0, 50) and not m.is_over()
    play_gin_for(m, 1)
    o = m.outcome()
    assert o is not None and o.scores == (0, 100) and o.winner == 1 and o.result() == "0-1"


def test_r10_sixty_hand_limit_tie_has_no_winner() -> None:
    m = Match(seed=3)
    for i in range(HAND_LIMIT):
        assert not m.is_over() and len(m.hands) == i + 1
        play_dead_hand(m)
    o = m.outcome()
    assert HAND_LIMIT == 60
    assert m.is_over() and o is not None
    assert (o.winner, o.scores, o.hands, o.reason) == (None, (0, 0), 60, "hand_limit")
    assert o.result() == "1/2-1/2" and m.winner is None
    assert len(m.hands) == 60  # dead hands count towards the limit


def test_r10_sixty_hand_limit_leader_wins() -> None:
    m = Match(seed=4, first_dealer=0, deals=[gin_deal(1, LOOSE_25)])
    play_gin_for(m, 1)
    for _ in range(HAND_LIMIT - 1):
        play_dead_hand(m)
    o = m.outcome()
    assert o is not None and (o.winner, o.scores, o.reason) == (1, (0, 50), "hand_limit")


def test_r10_actions_after_match_over_refused_and_change_nothing() -> None:
    m = Match(first_dealer=0, deals=[gin_deal(0)] * 3)
    while not m.is_over():
        play_gin_for(m, 0)
    before = match_snapshot(m)
    for seat in (0, 1, None):
        for a in (PASS, DRAW_STOCK):
            assert not m.can_play(a, seat)
            with pytest.raises(MatchOverError, match="The match is over."):
                m.play(a, seat)
    with pytest.raises(MatchOverError):
        m.start_hand()
    assert m.legal_actions() == () and m.to_play is None
    assert match_snapshot(m) == before


def test_r10_next_hand_cannot_start_before_the_current_one_ends() -> None:
    m = Match(seed=1)
    with pytest.raises(IllegalActionError, match="not over"):
        m.start_hand()
    with pytest.raises(IllegalActionError, match="not over"):
        m.next_dealer()


def test_r10_wrong_dealer_for_next_hand_refused() -> None:
    m = Match(seed=1, first_dealer=0, auto_deal=False)
    assert m.awaiting_deal()
    with pytest.raises(IllegalActionError, match="Seat 0 deals this hand, not seat 1."):
        m.start_hand(dealer=1)
    assert m.hands == []
    m.start_hand(dealer=0)
    assert len(m.hands) == 1


def test_r10_refused_match_action_changes_nothing() -> None:
    m = Match(seed=12)
    before = match_snapshot(m)
    seat = m.to_play
    assert seat is not None
    with pytest.raises(IllegalActionError):
        m.play(PASS, 1 - seat)
    with pytest.raises(IllegalActionError):
        m.play(DRAW_STOCK, seat)
    assert match_snapshot(m) == before


def test_r10_hands_carry_running_scores_and_index() -> None:
    m = Match(Options(target=250), first_dealer=0, deals=[gin_deal(0)] * 3)
    play_gin_for(m, 0)
    play_gin_for(m, 0)
    v = m.view(1)
    assert v.hand_index == 2 and v.scores == (164, 0)


# ----------------------------------------------------------------------------- R11, R12


def test_r11_match_view_is_the_current_hands_view() -> None:
    m = Match(seed=8)
    for seat in (0, 1):
        assert m.view(seat).to_json() == m.hand.view(seat).to_json()


def test_r12_options_apply_to_every_hand() -> None:
    m = Match(Options(target=150, gin_only=True), seed=3)
    play_dead_hand(m)
    for h in m.hands:
        assert h.knock_limit == 0 and h.options.target == 150


def test_r12_oklahoma_limit_follows_each_hands_upcard() -> None:
    m = Match(Options(oklahoma=True), seed=21)
    for _ in range(4):
        up = m.hand.upcard
        assert m.hand.knock_limit == (0 if up.rank == "A" else up.points)
        play_dead_hand(m)


def test_r6_gin_spades_helper_is_gin() -> None:
    # Guards the helpers every match test relies on.
    assert deadwood(GIN_SPADES) == 0 and deadwood(LOOSE_57) == 57 and deadwood(LOOSE_25) == 25
