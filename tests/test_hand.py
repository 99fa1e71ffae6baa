"""One hand under the rules (R3-R9, R11), driven through the public Hand API with
hand-made deals."""

from __future__ import annotations

import json
import random

import pytest

from ginrummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Card,
    CardNotInHandError,
    Deal,
    DealError,
    Hand,
    HandOverError,
    IllegalActionError,
    KnockNotAllowedError,
    NotYourTurnError,
    Options,
    Phase,
    StraightBackError,
    WrongPhaseError,
    deadwood,
)
from helpers import (
    GIN_SPADES,
    LOOSE_25,
    cards_in,
    deal,
    every_action,
    knock_hand,
    play_script,
    snapshot,
    strs,
)

KNOCK9 = "5C 6C 7C JD JH JS 2S 3S 4S 9H"
"""Runs 5-7 clubs and 2-4 spades, set of jacks, 9H loose: deadwood 9."""

DEF41 = "8C 9C 2D 3D 4D KH KD QC TH AH"
"""Against KNOCK9: lays off 8C 9C and keeps 41 deadwood."""

C = Card.parse


def fresh(dealer: int = 0, options: Options | None = None) -> Hand:
    """A hand with a known deal: seat 0 holds gin in spades, seat 1 LOOSE_25, up-card KS."""
    return Hand(deal(GIN_SPADES, LOOSE_25, "KS", "JS QS"), dealer, options or Options())


def state(hand: Hand) -> tuple[Phase, int | None]:
    """The phase and the seat to play (a call, so each check reads the state afresh)."""
    return hand.phase, hand.to_play


def expect_refused(hand: Hand, action: Action, seat: int | None, error: type[Exception],
                   message: str | None = None) -> str:
    """Check that ``action`` is refused with ``error`` and changes nothing; return the message."""
    before = snapshot(hand)
    assert not hand.can_play(action, seat)
    with pytest.raises(error) as info:
        hand.play(action, seat)
    assert snapshot(hand) == before
    text = str(info.value)
    if message is not None:
        assert text == message
    assert text[:1].isupper() and text.endswith("."), text
    return text


# ----------------------------------------------------------------------------- R3


def test_r3_deal_gives_ten_cards_each_upcard_and_31_stock() -> None:
    d = Deal.shuffled(random.Random(5))
    hand = Hand(d, dealer=1)
    assert len(hand.cards_of(0)) == len(hand.cards_of(1)) == 10
    assert hand.discards == [d.upcard]
    assert hand.stock_count == 31 and hand.stock == d.stock
    everything = {*hand.cards_of(0), *hand.cards_of(1), *hand.discards, *hand.stock}
    assert len(everything) == 52


def test_r3_non_dealer_acts_first() -> None:
    for dealer in (0, 1):
        hand = fresh(dealer)
        assert hand.phase is Phase.OFFER
        assert hand.to_play == 1 - dealer


def test_r3_shuffled_deal_is_reproducible_from_seed() -> None:
    assert Deal.shuffled(random.Random(11)) == Deal.shuffled(random.Random(11))
    assert Deal.shuffled(random.Random(11)) != Deal.shuffled(random.Random(12))


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S / " + LOOSE_25 + " / KS / TS", "Seat 0 must be dealt 10"),
        (GIN_SPADES + " / " + LOOSE_25 + " / KS / AC 2C", "31"),
        (GIN_SPADES + " / " + LOOSE_25 + " / XX / ", "Unknown card"),
        (GIN_SPADES + " / " + LOOSE_25 + " / KS", "hand0 / hand1 / upcard / stock"),
    ],
)
def test_r3_malformed_deal_is_refused_with_a_reason(text: str, fragment: str) -> None:
    with pytest.raises(DealError, match=fragment):
        Deal.parse(text)


def test_r3_card_dealt_twice_is_refused() -> None:
    good = deal(GIN_SPADES, LOOSE_25, "KS")
    stock = ["AS", *strs(good.stock[1:])]
    with pytest.raises(DealError, match="The card AS is dealt twice."):
        Deal.build(GIN_SPADES, LOOSE_25, "KS", stock)
    with pytest.raises(DealError, match="Duplicate card: KS"):
        Deal.build(GIN_SPADES, "KS KS 3H 4H 5H 6H 7H KD QC 5D", "2C", strs(good.stock))


def test_r3_deal_parse_reads_stock_top_first() -> None:
    d = deal(GIN_SPADES, LOOSE_25, "KS", "JS QS")
    again = Deal.parse(" / ".join([GIN_SPADES, LOOSE_25, "KS", " ".join(strs(d.stock))]))
    assert again == d
    assert strs(d.stock[:2]) == ["JS", "QS"]


def test_r3_dealer_must_be_a_seat() -> None:
    with pytest.raises(ValueError, match="dealer"):
        Hand(deal(GIN_SPADES, LOOSE_25, "KS"), dealer=2)


# ----------------------------------------------------------------------------- R4


def test_r4_offer_allows_only_take_or_pass() -> None:
    hand = fresh()
    assert set(hand.legal_actions()) == {PASS, DRAW_DISCARD}


def test_r4_non_dealer_takes_upcard_then_dealer_plays() -> None:
    hand = fresh(dealer=0)
    op = hand.play(DRAW_DISCARD, 1)
    assert op.card == C("KS")
    assert state(hand) == (Phase.DISCARD, 1)
    assert C("KS") in hand.cards_of(1) and len(hand.cards_of(1)) == 11
    assert hand.discards == [] and hand.stock_count == 31
    hand.play(Action.discard("KD"), 1)
    assert state(hand) == (Phase.DRAW, 0)
    assert hand.discards == [C("KD")]


def test_r4_dealer_may_take_upcard_after_non_dealer_passes() -> None:
    hand = fresh(dealer=0)
    hand.play(PASS, 1)
    assert state(hand) == (Phase.OFFER, 0)
    assert set(hand.legal_actions()) == {PASS, DRAW_DISCARD}
    hand.play(DRAW_DISCARD, 0)
    assert state(hand) == (Phase.DISCARD, 0)
    hand.play(Action.discard("AS"), 0)
    assert state(hand) == (Phase.DRAW, 1)  # the non-dealer plays next


def test_r4_both_pass_then_non_dealer_draws_from_stock() -> None:
    hand = fresh(dealer=1)
    hand.play(PASS, 0)
    hand.play(PASS, 1)
    assert state(hand) == (Phase.DRAW, 0)
    assert set(hand.legal_actions()) == {DRAW_STOCK, DRAW_DISCARD}
    op = hand.play(DRAW_STOCK, 0)
    assert op.card == C("JS") and hand.stock_count == 30
    assert hand.discards == [C("KS")]


def test_r4_both_pass_then_non_dealer_may_still_take_upcard() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass")
    op = hand.play(DRAW_DISCARD, 1)
    assert op.card == C("KS") and hand.discards == []
    expect_refused(hand, Action.discard("KS"), 1, StraightBackError)


def test_r4_stock_draw_refused_during_offer() -> None:
    hand = fresh(dealer=0)
    expect_refused(hand, DRAW_STOCK, 1, WrongPhaseError,
                   "While the up-card is offered you may only take it or pass.")
    hand.play(PASS, 1)
    expect_refused(hand, DRAW_STOCK, 0, WrongPhaseError)


def test_r4_pass_refused_after_the_offer() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass")
    expect_refused(hand, PASS, 1, WrongPhaseError)
    hand.play(DRAW_STOCK, 1)
    expect_refused(hand, PASS, 1, WrongPhaseError)


def test_r4_taker_may_knock_with_the_discard_after_taking_upcard() -> None:
    # Seat 1 holds 2S..TS minus nothing useful but AS: the up-card AS completes gin.
    hand = Hand(deal("AH 2H 3H 4H 5H 6H 7H KD QC 5D", "2S 3S 4S 5S 6S 7S 8S 9S TS KC", "AS"), 0)
    hand.play(DRAW_DISCARD, 1)
    hand.play(Action.discard("KC", knock=True), 1)
    assert hand.result is not None and hand.result.result == "gin"
    assert hand.result.knocker == 1


# ----------------------------------------------------------------------------- R5


def test_r5_turn_draws_one_and_discards_one() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass", "draw stock")
    assert len(hand.cards_of(1)) == 11 and len(hand.cards_of(0)) == 10
    hand.play(Action.discard("JS"), 1)  # the card just drawn from the stock may go back
    assert len(hand.cards_of(1)) == 10 and hand.discards[-1] == C("JS")
    op = hand.play(DRAW_DISCARD, 0)
    assert op.card == C("JS")
    assert hand.discards == [C("KS")]


def test_r5_straight_back_refused_with_exact_sentence() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass", "draw stock", "discard JS")
    hand.play(DRAW_DISCARD, 0)
    text = expect_refused(hand, Action.discard("JS"), 0, StraightBackError)
    assert text == "You cannot put that straight back."
    expect_refused(hand, Action.discard("JS", knock=True), 0, StraightBackError,
                   "You cannot put that straight back.")
    assert Action.discard("JS") not in hand.legal_actions()
    assert C("JS") not in hand.knock_discards()


def test_r5_straight_back_refused_for_the_upcard() -> None:
    for taker_passes_first in (False, True):
        hand = fresh(dealer=1)
        if taker_passes_first:
            play_script(hand, "pass")
        hand.play(DRAW_DISCARD, hand.to_play)
        seat = hand.to_play
        expect_refused(hand, Action.discard("KS"), seat, StraightBackError,
                       "You cannot put that straight back.")


def test_r5_discard_before_draw_refused() -> None:
    hand = fresh(dealer=0)
    expect_refused(hand, Action.discard("KD"), 1, WrongPhaseError)
    play_script(hand, "pass", "pass")
    expect_refused(hand, Action.discard("KD"), 1, WrongPhaseError,
                   "Draw a card before you discard.")


def test_r5_second_draw_refused() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass", "draw stock")
    for a in (DRAW_STOCK, DRAW_DISCARD):
        expect_refused(hand, a, 1, WrongPhaseError, "You have already drawn: discard a card.")


def test_r5_wrong_seat_refused_in_every_phase() -> None:
    hand = fresh(dealer=0)
    expect_refused(hand, PASS, 0, NotYourTurnError, "It is not your turn: seat 1 is to play.")
    play_script(hand, "pass")
    expect_refused(hand, PASS, 1, NotYourTurnError)
    play_script(hand, "pass")
    expect_refused(hand, DRAW_STOCK, 0, NotYourTurnError)
    play_script(hand, "draw stock")
    expect_refused(hand, Action.discard("AS"), 0, NotYourTurnError)


def test_r5_card_not_in_hand_refused() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass", "draw stock")
    expect_refused(hand, Action.discard("AS"), 1, CardNotInHandError, "You do not hold AS.")
    expect_refused(hand, Action.discard("QS", knock=True), 1, CardNotInHandError)


def test_r5_unknown_draw_source_refused() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass")
    before = snapshot(hand)
    with pytest.raises(IllegalActionError, match="'stock' or 'discard'"):
        hand.draw("table", 1)
    assert not hand.can_draw("table", 1)
    assert snapshot(hand) == before


def test_r5_legal_actions_are_exactly_the_allowed_ones_in_every_phase() -> None:
    hand = fresh(dealer=0)
    rng = random.Random(3)
    while not hand.is_over():
        legal = set(hand.legal_actions())
        for seat in (0, 1):
            allowed = {a for a in every_action() if hand.can_play(a, seat)}
            assert allowed == (legal if seat == hand.to_play else set())
        hand.play(rng.choice(sorted(legal, key=str)), hand.to_play)
    assert hand.legal_actions() == ()


def test_r5_every_refused_action_changes_nothing() -> None:
    hand = fresh(dealer=1)
    rng = random.Random(8)
    for _ in range(12):
        seat = hand.to_play
        assert seat is not None
        legal = set(hand.legal_actions())
        for a in every_action():
            for s in (0, 1):
                if s == seat and a in legal:
                    continue
                before = snapshot(hand)
                with pytest.raises(IllegalActionError) as info:
                    hand.play(a, s)
                assert snapshot(hand) == before
                assert str(info.value).endswith(".")
        hand.play(rng.choice(sorted(legal, key=str)), seat)


def test_r5_actions_after_hand_over_refused() -> None:
    hand = knock_hand(KNOCK9, DEF41)
    assert hand.is_over() and hand.to_play is None
    for a in (PASS, DRAW_STOCK, DRAW_DISCARD, Action.discard("8C"), Action.discard("KC")):
        for seat in (0, 1, None):
            expect_refused(hand, a, seat, HandOverError, "The hand is over.")


def test_r5_play_without_seat_acts_for_the_seat_to_play() -> None:
    hand = fresh(dealer=0)
    op = hand.play(PASS)
    assert op.seat == 1 and hand.to_play == 0


# ----------------------------------------------------------------------------- R6


def test_r6_knock_judged_on_the_ten_cards_left() -> None:
    hand = Hand(deal(DEF41, KNOCK9, "QD", "KC"), 0)
    play_script(hand, "pass", "pass", "draw stock")
    assert hand.deadwood_after(C("KC")) == 9
    assert hand.deadwood_after(C("9H")) == 10  # KC left: exactly the limit
    assert hand.deadwood_after(C("2S")) == 26
    assert hand.can_discard(C("9H"), knock=True)
    assert hand.can_discard(C("2S"), knock=False)
    text = expect_refused(hand, Action.discard("2S", knock=True), 1, KnockNotAllowedError)
    assert text.startswith("You cannot knock") and "26" in text and "10" in text
    assert set(hand.knock_discards()) == {C("KC"), C("9H")}
    hand.play(Action.discard("9H", knock=True), 1)
    assert hand.result is not None and hand.result.result == "knock"
    assert hand.result.deadwood is not None and hand.result.deadwood[1] == 10


def test_r6_knock_ends_the_hand_at_once() -> None:
    hand = knock_hand(KNOCK9, DEF41)
    assert hand.phase is Phase.OVER and hand.to_play is None
    assert hand.legal_actions() == ()
    assert len(hand.history) == 4
    assert not hand.can_play(DRAW_STOCK, 0) and not hand.can_play(DRAW_DISCARD, 0)


def test_r6_knock_is_never_compulsory() -> None:
    hand = Hand(deal(LOOSE_25, GIN_SPADES, "QD", "KC"), 0)
    play_script(hand, "pass", "pass", "draw stock")
    assert hand.can_discard(C("KC"), knock=True)
    hand.play(Action.discard("KC"), 1)
    assert hand.result is None and state(hand) == (Phase.DRAW, 0)


def test_r6_no_big_gin_eleven_melded_cards_still_discard() -> None:
    hand = Hand(deal(LOOSE_25, GIN_SPADES, "QD", "JS"), 0)
    play_script(hand, "pass", "pass", "draw stock")
    assert deadwood(hand.cards_of(1)) == 0 and len(hand.cards_of(1)) == 11
    assert hand.phase is Phase.DISCARD and hand.result is None
    assert all(a.act == "discard" for a in hand.legal_actions())
    hand.play(Action.discard("AS", knock=True), 1)
    r = hand.result
    assert r is not None and r.result == "gin" and r.scorer == 1
    assert r.points == deadwood(LOOSE_25) + 25 == 50  # an ordinary gin, no big-gin bonus


def test_r6_gin_only_table_refuses_any_deadwood_with_clear_sentence() -> None:
    opts = Options(gin_only=True)
    hand = Hand(deal(DEF41, KNOCK9, "QD", "KC"), 0, opts)
    assert hand.knock_limit == 0
    play_script(hand, "pass", "pass", "draw stock")
    text = expect_refused(hand, Action.discard("KC", knock=True), 1, KnockNotAllowedError)
    assert "gin only" in text and "9" in text
    assert hand.knock_discards() == []
    gin = knock_hand(GIN_SPADES, LOOSE_25, options=opts)
    assert gin.result is not None and gin.result.result == "gin"


def test_r6_can_knock_reports_whether_some_discard_allows_it() -> None:
    hand = Hand(deal(DEF41, KNOCK9, "QD", "KC"), 0)
    assert not hand.can_knock()
    play_script(hand, "pass", "pass", "draw stock")
    assert hand.can_knock(1) and not hand.can_knock(0)


# ----------------------------------------------------------------------------- R7


def _throw_back_until_over(hand: Hand, knock_on_last: bool = False) -> int:
    """Both pass, then each draws from the stock and throws the drawn card back."""
    play_script(hand, "pass", "pass")
    draws = 0
    while not hand.is_over():
        seat = hand.to_play
        op = hand.play(DRAW_STOCK, seat)
        draws += 1
        assert op.card is not None
        last = hand.stock_count == 2
        hand.play(Action.discard(op.card, knock=knock_on_last and last), seat)
        if not hand.is_over():
            assert hand.stock_count > 2
    return draws


def test_r7_dead_hand_when_two_cards_left() -> None:
    hand = Hand(deal(LOOSE_25, "AD 3D 6D 8D TD 2C 4C 7C 9C JC", "KS"), 0)
    draws = _throw_back_until_over(hand)
    assert draws == 29 and hand.stock_count == 2
    r = hand.result
    assert r is not None and r.result == "dead"
    assert r.scorer is None and r.knocker is None and r.points == 0 and r.deadwood is None
    assert r.to_json() == {"result": "dead", "knocker": None, "scorer": None, "points": 0,
                           "deadwood": None, "layoffs": []}


def test_r7_knock_on_last_discard_still_scores() -> None:
    # Seat 1 (non-dealer) makes draws 1, 3, ..., 29 and holds gin throughout.
    hand = Hand(deal(LOOSE_25, GIN_SPADES, "KS"), 0)
    draws = _throw_back_until_over(hand, knock_on_last=True)
    assert draws == 29 and hand.stock_count == 2
    r = hand.result
    assert r is not None and r.result == "gin" and r.scorer == 1 and r.points == 50


def test_r7_pile_draws_do_not_run_the_stock_down() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass", "draw stock", "discard JS")
    for _ in range(40):  # take the top discard and throw another card: stock stays at 30
        seat = hand.to_play
        assert seat is not None
        op = hand.play(DRAW_DISCARD, seat)
        other = next(c for c in hand.cards_of(seat) if c != op.card)
        hand.play(Action.discard(other), seat)
    assert hand.stock_count == 30 and not hand.is_over()


def test_r7_dead_hand_reveals_nothing() -> None:
    hand = Hand(deal(LOOSE_25, "AD 3D 6D 8D TD 2C 4C 7C 9C JC", "KS"), 0)
    _throw_back_until_over(hand)
    for seat in (0, 1):
        v = hand.view(seat)
        assert v.revealed is None and "revealed" not in v.to_json()
        assert not {str(c) for c in hand.cards_of(1 - seat)} & cards_in(v.to_json())


# ----------------------------------------------------------------------------- R8, R9


def test_r8_knock_result_carries_layoffs() -> None:
    hand = knock_hand(KNOCK9, DEF41)
    r = hand.result
    assert r is not None and r.showdown is not None
    assert strs(r.layoffs) == ["8C", "9C"]
    assert r.to_json()["layoffs"] == ["8C", "9C"]


def test_r9_knock_scores_the_difference() -> None:
    r = knock_hand(KNOCK9, DEF41).result
    assert r is not None
    assert (r.result, r.knocker, r.scorer, r.points) == ("knock", 1, 1, 41 - 9)
    assert r.deadwood == (41, 9)  # [seat 0, seat 1]: the defender's after lay-offs


def test_r9_undercut_scores_difference_plus_25_to_defender() -> None:
    r = knock_hand(KNOCK9, "2D 3D 4D 5H 6H 7H 8H AH AC 3C").result
    assert r is not None
    assert (r.result, r.knocker, r.scorer, r.points) == ("undercut", 1, 0, 9 - 5 + 25)
    assert r.deadwood == (5, 9)


def test_r9_tie_is_undercut() -> None:
    r = knock_hand(KNOCK9, "2D 3D 4D 5H 6H 7H 8H AH AC 7D").result
    assert r is not None
    assert (r.result, r.scorer, r.points) == ("undercut", 0, 25)


def test_r9_undercut_after_layoffs() -> None:
    r = knock_hand(KNOCK9, "2D 3D 4D 5H 6H 7H 8H AH 8C 3C").result
    assert r is not None
    assert (r.result, r.scorer, r.points) == ("undercut", 0, 9 - 4 + 25)
    assert strs(r.layoffs) == ["8C"]


def test_r9_gin_scores_defender_deadwood_plus_25_without_layoffs() -> None:
    defender = "JS AH 2H 3H 4H 5H 6H KD QC 5D"  # JS would fit the spade run: not after gin
    r = knock_hand(GIN_SPADES, defender).result
    assert r is not None
    assert (r.result, r.knocker, r.scorer) == ("gin", 1, 1)
    assert r.points == deadwood(defender) + 25 == 60
    assert r.layoffs == () and r.deadwood == (35, 0)


def test_r9_gin_is_never_undercut() -> None:
    r = knock_hand(GIN_SPADES, "AH 2H 3H 4H 5H 6H 7H 8H 9H TH").result
    assert r is not None
    assert (r.result, r.scorer, r.points) == ("gin", 1, 25)


# ----------------------------------------------------------------------------- R11


VIEW_FIELDS = {"seat", "dealer", "hand_index", "scores", "options", "knock_limit", "phase",
               "hand", "upcard", "discards", "stock_count", "history"}


def test_r11_view_fields_exactly_as_interfaces() -> None:
    hand = fresh(dealer=0)
    v = hand.view(1).to_json()
    assert set(v) >= VIEW_FIELDS and set(v) - VIEW_FIELDS <= {"to_play"}
    assert v == {
        "seat": 1, "dealer": 0, "hand_index": 0, "scores": [0, 0],
        "options": {"target": 100, "gin_only": False, "oklahoma": False},
        "knock_limit": 10, "phase": "offer", "to_play": 1,
        "hand": sorted(LOOSE_25.split(), key=lambda s: C(s).index),
        "upcard": "KS", "discards": ["KS"], "stock_count": 31, "history": [],
    }
    play_script(hand, "pass", "pass", "draw stock")
    v = hand.view(1).to_json()
    assert v["phase"] == "discard" and len(v["hand"]) == 11
    assert hand.view(0).to_json()["hand"] == strs(hand.cards_of(0))


def test_r11_view_never_holds_opponent_cards() -> None:
    hand = fresh(dealer=0)
    rng = random.Random(4)
    while not hand.is_over():
        for seat in (0, 1):
            text = json.dumps(hand.view(seat).to_json())
            for c in hand.cards_of(1 - seat):
                public = c == hand.upcard or any(
                    op.card == c and op.action.source == "discard" for op in hand.history)
                assert public or f'"{c}"' not in text
            for c in hand.stock:
                assert f'"{c}"' not in text
        legal = [a for a in hand.legal_actions() if not a.knock]
        hand.play(rng.choice(sorted(legal, key=str)), hand.to_play)


def test_r11_history_hides_opponent_stock_draws_but_shows_pile_draws() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass", "draw stock", "discard KD", "draw discard", "discard AS")
    own = hand.view(1).to_json()["history"]
    other = hand.view(0).to_json()["history"]
    assert own[2] == {"seat": 1, "act": "draw", "from": "stock", "card": "JS"}
    assert other[2] == {"seat": 1, "act": "draw", "from": "stock"}
    for h in (own, other):
        assert h[0] == {"seat": 1, "act": "pass"} and h[1] == {"seat": 0, "act": "pass"}
        assert h[3] == {"seat": 1, "act": "discard", "card": "KD", "knock": False}
        assert h[4] == {"seat": 0, "act": "draw", "from": "discard", "card": "KD"}
    assert hand.view(1).opponent_took == (C("KD"),)
    assert hand.view(0).opponent_passed == (C("KS"),)
    assert hand.view(0).opponent_discarded == (C("KD"),)


def test_r11_revealed_hands_only_after_a_knock() -> None:
    hand = Hand(deal(DEF41, KNOCK9, "QD", "KC"), 0)
    play_script(hand, "pass", "pass", "draw stock")
    for seat in (0, 1):
        assert hand.view(seat).revealed is None
    hand.play(Action.discard("KC", knock=True), 1)
    for seat in (0, 1):
        v = hand.view(seat)
        assert v.revealed is not None
        assert set(v.revealed[0]) == set(hand.cards_of(0))
        assert set(v.revealed[1]) == set(hand.cards_of(1))
        j = v.to_json()
        assert j["result"]["result"] == "knock" and len(j["revealed"]) == 2


def test_r11_view_is_a_frozen_copy() -> None:
    hand = fresh(dealer=0)
    v = hand.view(1)
    before = json.dumps(v.to_json())
    play_script(hand, "pass", "pass", "draw stock")
    assert json.dumps(v.to_json()) == before
    with pytest.raises(AttributeError):
        v.seat = 0  # type: ignore[misc]


def test_r11_legal_actions_only_in_the_view_of_the_seat_to_play() -> None:
    hand = fresh(dealer=0)
    assert set(hand.view(1).legal) == {PASS, DRAW_DISCARD}
    assert hand.view(0).legal == ()
    assert hand.view(1).is_my_turn and not hand.view(0).is_my_turn


def test_r11_view_of_unknown_seat_refused() -> None:
    with pytest.raises(ValueError, match="seat"):
        fresh().view(2)


def test_r11_view_round_trips_through_json() -> None:
    hand = fresh(dealer=0)
    play_script(hand, "pass", "pass", "draw stock")
    v = hand.view(1)
    again = type(v).from_json(json.loads(json.dumps(v.to_json())), [a.to_json() for a in v.legal])
    assert again.to_json() == v.to_json()
    assert again.legal == v.legal
