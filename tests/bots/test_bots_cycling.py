"""No hand between the project's bots can go on for ever (R5, R7 set no length limit).

Two players who keep taking each other's discards never draw from the stock, so the hand
never goes dead (R7). ``takes_back`` spots the one move every such cycle needs (taking
back your own discard with no stock draw in between) and the bots decline it.
"""

from __future__ import annotations

import random

from ginrummy.bots.base import Bot
from ginrummy.bots.expert import ExpertBot
from ginrummy.bots.marjj import MarjjBot, draw_action, top_joins_and_lowers
from ginrummy.bots.strong import StrongBot
from ginrummy.cards import Card
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Deal, Hand, Phase, View
from ginrummy.heuristics import takes_back
from ginrummy.knowledge import Knowledge


def _d(card: str) -> Action:
    return Action.discard(Card.parse(card))


def _after(*moves: tuple[int, Action]) -> Hand:
    """Seat 0 deals; seat 1 holds 5H 6H 7H 8H; both pass the up-card and seat 1 draws."""
    hand = Hand(Deal.build("AC 2D 4S 6C 8S TD QC KS 3H 9C",
                           "5H 6H 7H 8H JS JD 8D 9D 2C KC", "KD"), dealer=0)
    for seat, action in [(1, PASS), (0, PASS), (1, DRAW_STOCK), *moves]:
        hand.play(action, seat)
    return hand


def _passed_back() -> Hand:
    """Seat 1 throws 8H, seat 0 takes it; seat 1 takes seat 0's KS; seat 0 takes seat 1's
    2C and throws 8H back: seat 1 (holding 5H 6H 7H) is offered its own 8H again."""
    return _after((1, _d("8H")), (0, DRAW_DISCARD), (0, _d("KS")), (1, DRAW_DISCARD),
                  (1, _d("2C")), (0, DRAW_DISCARD), (0, _d("8H")))


def test_taking_back_your_own_discard_is_spotted_r5() -> None:
    hand = _passed_back()
    view = hand.view(1)
    assert view.phase is Phase.DRAW and view.discards[-1] == Card.parse("8H")
    assert takes_back(view)
    assert not takes_back(hand.view(0))  # not seat 0's turn to draw


def test_a_stock_draw_in_between_lets_a_card_be_taken_back_r5() -> None:
    hand = _after((1, _d("8H")), (0, DRAW_DISCARD), (0, _d("KS")), (1, DRAW_STOCK),
                  (1, _d("2C")), (0, DRAW_DISCARD), (0, _d("8H")))
    view = hand.view(1)
    assert view.discards[-1] == Card.parse("8H") and not takes_back(view)
    # seat 1 never threw KS: taking it is not taking anything back
    assert not takes_back(_after((1, _d("8H")), (0, DRAW_DISCARD), (0, _d("KS"))).view(1))


def test_the_bots_do_not_take_their_own_discard_back_r5() -> None:
    view = _passed_back().view(1)
    assert top_joins_and_lowers(Knowledge.of(view))  # 8H would otherwise be taken
    for bot in (MarjjBot(1), StrongBot(1, samples=4), ExpertBot(1, samples=4)):
        assert bot.decide(view) == DRAW_STOCK, bot.name


class _Taker(Bot):
    """Takes every discard it may, throws its lowest card, never knocks: the most
    cycle-prone player there is. ``careful`` makes it decline ``takes_back``."""

    def __init__(self, careful: bool) -> None:
        super().__init__(0)
        self.careful = careful

    def decide(self, view: View) -> Action:
        if view.phase is Phase.OFFER:
            return PASS
        if view.phase is Phase.DRAW:
            if self.careful:
                return draw_action(view, lambda: True)
            return DRAW_DISCARD if DRAW_DISCARD in view.legal else DRAW_STOCK
        return min((a for a in view.legal if not a.knock),
                   key=lambda a: a.card.index if a.card else 0)


def _length(careful: bool, seed: int, limit: int = 2000) -> tuple[int, Hand]:
    hand = Hand(Deal.shuffled(random.Random(seed)), dealer=seed % 2)
    bots = [_Taker(careful), _Taker(careful)]
    n = 0
    while hand.result is None and n < limit:
        seat = hand.to_play
        assert seat is not None
        hand.play(bots[seat].decide(hand.view(seat)), seat)
        n += 1
    return n, hand


def test_two_players_who_decline_taking_back_always_finish_the_hand_r7() -> None:
    endless = 0
    for seed in range(20):
        n, hand = _length(careful=False, seed=seed)
        endless += hand.result is None
        n, hand = _length(careful=True, seed=seed)
        assert hand.result is not None, f"seed {seed}: still going after {n} actions"
        assert hand.result.knocker is None  # they never knock: the hand went dead (R7)
    assert endless > 0  # without the rule these players do cycle for ever
