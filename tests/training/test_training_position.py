"""Analysis-board positions (INTERFACES section 12): the facts a seat can see read back into
its view (R11), and impossible positions refused with one sentence naming the card."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ginrummy.bots import make_bot
from ginrummy.cards import deck
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Phase, View
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.training.position import PositionError, position_of, read_position


def _views(seed: int, limit: int = 400) -> list[View]:
    """Every decision's view in a match of two rule-based bots (some long, tangled hands
    with many pile takes), from the seat to play's side."""
    rng = random.Random(seed)
    m = Match(seed=seed)
    bots = [make_bot(rng.choice(["random", "simple", "marjj"]), seed + s) for s in (0, 1)]
    for s in (0, 1):
        bots[s].new_match(s)
    out = []
    while not m.is_over() and len(out) < limit:
        seat = m.to_play
        assert seat is not None
        v = m.view(seat)
        out.append(v)
        m.play(bots[seat].decide(v), seat)
    return out


def _facts(v: View) -> tuple[Any, ...]:
    return (v.seat, v.dealer, v.scores, v.phase, Knowledge.of(v), v.discards, v.stock_count,
            v.knock_limit, v.legal, sorted(v.hand), v.opponent_took, v.opponent_discarded,
            v.opponent_passed)


@pytest.mark.parametrize("seed", range(4))
def test_R11_a_views_facts_with_its_history_read_back_to_the_same_view(seed: int) -> None:
    for v in _views(seed):
        assert _facts(read_position(position_of(v))) == _facts(v)


@pytest.mark.parametrize("seed", range(4, 8))
def test_R11_the_facts_alone_find_a_history_with_the_same_public_knowledge(seed: int) -> None:
    """Without the history the order of some events is open (which turn a take was on):
    the reading keeps every list, the pile, the stock, the legal moves and the masks the
    evaluator's samples are drawn from."""
    for v in _views(seed):
        pos = position_of(v)
        del pos["history"]
        w = read_position(pos)
        k, kw = Knowledge.of(v), Knowledge.of(w)
        assert (kw.mine, kw.pile, kw.opp_known, kw.opp_passed, kw.opp_discarded,
                kw.opp_stock_draws, kw.unseen, kw.opp_last_discard) == (
            k.mine, k.pile, k.opp_known, k.opp_passed, k.opp_discarded, k.opp_stock_draws,
            k.unseen, k.opp_last_discard)
        assert w.legal == v.legal and w.discards == v.discards
        assert w.stock_count == v.stock_count and w.phase == v.phase


def test_R4_the_offer_and_the_first_draw_read_from_the_passes() -> None:
    base = {"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H", "pile": "5D", "stock": 31,
            "to_play": "draw"}
    offer = read_position(base)
    assert offer.phase is Phase.OFFER and offer.legal == (PASS, DRAW_DISCARD)
    assert offer.dealer == 1  # the non-dealer is offered the up-card first
    dealer = read_position(base | {"opponent_passed": ["5D"], "dealer": 0})
    assert dealer.phase is Phase.OFFER and dealer.legal == (PASS, DRAW_DISCARD)
    both = read_position(base | {"opponent_passed": ["5D"], "dealer": 1})
    assert both.phase is Phase.DRAW and both.legal == (DRAW_STOCK, DRAW_DISCARD)


def test_R5_the_card_just_taken_cannot_be_the_discard() -> None:
    # the opponent threw 5S, which is in this hand of 11: taken this turn
    v = read_position({"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H 5S", "pile": "TD",
                       "opponent_discarded": ["5S"], "opponent_passed": ["TD"],
                       "stock": 30, "to_play": "discard"})
    cards = {a.card for a in v.legal}
    assert len(cards) == 10 and all(str(c) != "5S" for c in cards)


def test_R12_oklahoma_takes_the_knock_limit_from_the_named_up_card() -> None:
    pos = {"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H", "pile": "5D", "stock": 31,
           "to_play": "draw", "options": {"oklahoma": True}}
    assert read_position(pos).knock_limit == 5


def test_strings_and_lists_of_cards_read_alike() -> None:
    a = {"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H", "pile": "5D", "stock": 31,
         "to_play": "draw"}
    b = a | {"hand": a["hand"].split(), "pile": ["5d"]}
    assert _facts(read_position(a)) == _facts(read_position(b))


GOOD: dict[str, Any] = {"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H", "pile": "TD 5S",
                        "opponent_discarded": ["5S"], "opponent_passed": ["TD"], "stock": 30,
                        "to_play": "draw"}


@pytest.mark.parametrize("change, words", [
    ({"hand": "7C 7C 9C 9D 9H 9S KD QH 4S 2H"}, "The card 7C is in your hand twice."),
    ({"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 5S"}, "The card 5S is both in your hand and on "
                                                "the pile."),
    ({"hand": "7C 8C 9C 9D 9H 9S KD QH 4S"}, "To draw you hold 10 cards, not 9."),
    ({"stock": 29}, "accounts for 51 cards"),
    ({"hand": "7C 8C 9C 9D 9H 9S KD QH 4S ZZ"}, "Unknown card 'ZZ'"),
    ({"opponent_discarded": ["5S", "AH"]}, "The opponent threw AH, so it must be on the "
                                           "pile, in your hand or taken back by them."),
    ({"opponent_took": ["2H"]}, "The opponent took 2H from the pile and has not thrown it "
                                "back, so it cannot be in your hand."),
    ({"opponent_passed": ["TD", "5S"]}, "holds one card at most, not 2."),
    ({"opponent_passed": ["5S"], "upcard": "TD"}, "The opponent can pass only on the "
                                                  "up-card TD, not 5S."),
    ({"pile": "5S TD"}, "At your draw the top of the pile is the opponent's last discard, 5S, "
                        "not TD."),
    ({"to_play": "knock"}, "'to_play' is \"draw\" or \"discard\", not 'knock'."),
    ({"colour": "red"}, "Unknown field 'colour'"),
    ({"scores": [100, 0]}, "A score of 100 has already reached the target 100"),
    ({"opponent_discarded": []}, "No hand can be played to this position"),
])
def test_an_impossible_position_is_refused_with_one_sentence(change: dict[str, Any],
                                                             words: str) -> None:
    read_position(GOOD)  # the position itself is fine
    with pytest.raises(PositionError) as e:
        read_position(GOOD | change)
    text = str(e.value)
    assert words in text
    assert text.endswith(".") and "\n" not in text


def test_R7_a_draw_needs_three_stock_cards() -> None:
    hand = GOOD["hand"].split()
    rest = [str(c) for c in deck() if str(c) not in hand and str(c) not in ("TD", "5S")]
    pos = GOOD | {"pile": ["TD", *rest[:28], "5S"], "stock": 2}
    with pytest.raises(PositionError, match="at least 3 stock cards at your draw"):
        read_position(pos)
