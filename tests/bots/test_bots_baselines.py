"""The baseline bots' published rules (STRATEGY.md) on hand-made positions (R4-R6)."""

from __future__ import annotations

import random

from ginrummy.bots import make_bot
from ginrummy.bots.marjj import MarjjBot
from ginrummy.bots.simple import SimpleBot
from ginrummy.cards import Card, parse_cards
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Deal, Hand, Phase
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.melds import deadwood_by_discard_mask


def _hand(h0: str, h1: str, up: str, stock: str | None = None) -> Hand:
    """A hand dealt by seat 0, so seat 1 is offered the up-card first (R4)."""
    return Hand(Deal.build(h0, h1, up, stock), dealer=0)


def test_simple_takes_upcard_that_melds_r4() -> None:
    hand = _hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "5H 6H KS QD 9S 2D 3S JH 8D AD", "7H")
    assert SimpleBot(1).decide(hand.view(1)) == DRAW_DISCARD


def test_simple_passes_upcard_in_no_meld_r4() -> None:
    hand = _hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "5H 6H KS QD 9S 2D 3S JH 8D AD", "KH")
    assert SimpleBot(1).decide(hand.view(1)) == PASS


def test_simple_draws_stock_when_pile_top_is_useless_r5() -> None:
    hand = _hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "5H 6H KS QD 9S 2D 3S JH 8D AD", "KH")
    hand.play(PASS)
    hand.play(PASS)
    assert hand.phase is Phase.DRAW and hand.to_play == 1
    assert SimpleBot(1).decide(hand.view(1)) == DRAW_STOCK


def test_simple_discards_least_deadwood_never_the_taken_card_r5() -> None:
    hand = _hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "5H 6H KS QD 9S 2D 3S JH 8D AD", "7H")
    hand.play(DRAW_DISCARD)
    view = hand.view(1)
    mask = sum(c.mask for c in view.hand)
    table = deadwood_by_discard_mask(mask)
    best = min(v for i, v in table.items() if i != Card.parse("7H").index)
    for seed in range(20):
        action = SimpleBot(seed).decide(view)
        assert action.card is not None and action.card != Card.parse("7H")
        assert table[action.card.index] == best
        assert action.card in parse_cards("KS QD JH")  # the three tens-valued loose cards


def test_simple_knocks_as_soon_as_allowed_r6() -> None:
    # Seat 1 holds two runs and a set plus 3S; drawing AD lets it knock with 1 or 3 left.
    hand = _hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "5H 6H 7H JS JD JH 8D 9D TD 3S", "KC",
                 "AD " + " ".join(str(c) for c in parse_cards(
                     "2S 4S 5S 6S 7S 8S 9S TS QS KS AH 2H 3H 4H 8H 9H TH QH KH "
                     "2D 3D 4D 5D 6D 7D QD KD AS JC QC")))
    hand.play(PASS)
    hand.play(PASS)
    hand.play(DRAW_STOCK)
    action = SimpleBot(3).decide(hand.view(1))
    assert action == Action.discard(Card.parse("3S"), True)


def test_marjj_takes_upcard_only_if_it_lowers_deadwood_in_a_meld() -> None:
    hand = _hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "5H 6H KS QD 9S 2D 3S JH 8D AD", "7H")
    assert MarjjBot(1).decide(hand.view(1)) == DRAW_DISCARD
    hand = _hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "5H 6H KS QD 9S 2D 3S JH 8D AD", "KH")
    assert MarjjBot(1).decide(hand.view(1)) == PASS


def test_marjj_knocks_voluntarily_only_in_first_three_turns_r6() -> None:
    rng = random.Random(5)
    knocks = 0
    for m_seed in range(6):
        match = Match(seed=m_seed)
        bots = [make_bot("marjj", m_seed), make_bot("simple", m_seed)]
        while not match.is_over():
            seat = match.to_play
            assert seat is not None
            view = match.view(seat)
            action = bots[seat].decide(view)
            if seat == 0 and action.knock:
                knocks += 1
                turn = Knowledge.of(view).my_discards + 1
                assert action.card is not None
                left = deadwood_by_discard_mask(sum(c.mask for c in view.hand))
                assert turn <= 3 or left[action.card.index] == 0
            match.play(action, seat)
        rng.random()
    assert knocks > 0


def test_marjj_prefers_gin_to_a_knock_r6() -> None:
    # After drawing 8H seat 1 can discard 3S for gin (or knock with other discards).
    hand = _hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "5H 6H 7H JS JD JH 9D TD JC 3S", "KC",
                 "8H " + " ".join(str(c) for c in parse_cards(
                     "2S 4S 5S 6S 7S 8S 9S TS QS KS AH 2H 3H 4H AD 9H TH QH KH "
                     "2D 3D 4D 5D 6D 7D 8D KD AS QD QC")))
    hand.play(PASS)
    hand.play(PASS)
    hand.play(DRAW_STOCK)
    action = MarjjBot(2).decide(hand.view(1))
    assert action == Action.discard(Card.parse("3S"), True)
