"""The ``strong`` bot in hand-made positions: gin first (R6, R9), no knock into a
certain undercut (R9: a tie or lower defender deadwood scores for the defender)."""

from __future__ import annotations

import random

from ginrummy.bots.knowledge import Knowledge
from ginrummy.bots.strong import StrongBot, match_win_chance, sample_opponent
from ginrummy.cards import Card, deck, parse_cards, to_mask
from ginrummy.hand import DRAW_STOCK, PASS, Action, Deal, Hand
from ginrummy.melds import deadwood_mask

CLUBS = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC"


def _after_draw(seat1: str, drawn: str) -> Hand:
    """Seat 0 deals and holds ten clubs (gin); seat 1 draws ``drawn`` from the stock."""
    used = set(parse_cards(CLUBS + " " + seat1 + " KC " + drawn))
    stock = [Card.parse(drawn)] + [c for c in deck() if c not in used]
    hand = Hand(Deal.build(CLUBS, seat1, "KC", stock), dealer=0)
    hand.play(PASS)
    hand.play(PASS)
    hand.play(DRAW_STOCK)
    return hand


def test_strong_takes_gin_when_offered_r6() -> None:
    # JC makes a four-card set; throwing 3S leaves nothing unmelded.
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 3S", "JC")
    assert StrongBot(1, samples=8).decide(hand.view(1)) == Action.discard(Card.parse("3S"), True)


def test_strong_does_not_knock_into_an_undercut_r9() -> None:
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    view = hand.view(1)
    knock = Action.discard(Card.parse("KS"), True)
    assert knock in view.legal  # 8 deadwood: a knock is allowed (R6)
    bot = StrongBot(1, samples=8)
    clubs = to_mask(parse_cards(CLUBS))
    bot._worlds = lambda k, n: [clubs] * n  # type: ignore[method-assign]
    action = bot.decide(view)
    assert not action.knock  # the defender would hold 0: an undercut worth 33 to them


def test_strong_knocks_when_the_opponent_is_surely_far_behind_r9() -> None:
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    view = hand.view(1)
    bot = StrongBot(1, samples=8)
    junk = to_mask(parse_cards("KD QS QH TS TH 9S 9H 6S 4D 2H"))
    assert deadwood_mask(junk) > 60
    bot._worlds = lambda k, n: [junk] * n  # type: ignore[method-assign]
    assert bot.decide(view).knock


def test_sampled_opponent_hands_are_consistent_with_the_view_r11() -> None:
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    k = Knowledge.of(hand.view(1))
    rng = random.Random(0)
    unknown = [c.index for c in deck() if k.unseen >> c.index & 1]
    for draws in (0, 5):
        opp = sample_opponent(k, rng, unknown, draws)
        assert opp.bit_count() == 10
        assert not opp & (k.mine | k.pile)


def test_match_win_chance_is_monotone_r10() -> None:
    assert match_win_chance(100, 40, 100) == 1.0
    assert match_win_chance(40, 100, 100) == 0.0
    assert abs(match_win_chance(50, 50, 100) - 0.5) < 1e-9
    assert match_win_chance(80, 50, 100) > match_win_chance(60, 50, 100) > 0.5
