"""The ``marjj`` bot: a re-implementation of MARJJ from its published description.

MARJJ (Penn State Harrisburg) won the AAAI-21 EAAI Gin Rummy challenge; STRATEGY.md
summarises it. It draws the face-up card only when the card lands in a meld and lowers
deadwood; it discards the card minimising
``deadwood + c * d**(turn-1) * E[deadwood after one more draw] + danger``
(the expectation over the unseen cards, ``danger`` a penalty for feeding the opponent);
and it knocks voluntarily only in its first three turns, after that only with gin.
One addition: it never takes back its own discard before someone draws from the stock
(:func:`~ginrummy.heuristics.takes_back`), since two such players could otherwise pass
cards to and fro for ever (the rules set no limit on a hand's length).
Our R8 fixes the knocker's melds, so MARJJ's lay-off-minimising meld choice is moot.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..cards import Card, iter_mask
from ..hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Phase, View
from ..heuristics import draw_outlook, related, takes_back
from ..knowledge import Knowledge, in_some_meld
from ..melds import deadwood_by_discard_mask, deadwood_mask
from .base import Bot

__all__ = [
    "MarjjBot",
    "discard_options",
    "draw_action",
    "expected_next_deadwood",
    "least_scored",
    "look_ahead_weight",
    "marjj_danger",
    "top_gives_gin",
    "top_joins_and_lowers",
]


def expected_next_deadwood(hand10: int, pool: int,
                           cache: dict[int, tuple[float, float]] | None = None) -> float:
    """Mean over the cards of ``pool`` of the least deadwood after drawing that card and
    making the best discard: how good a 10-card hand is one draw ahead (the first half
    of :func:`~ginrummy.heuristics.draw_outlook`, whose ``cache`` it shares)."""
    return draw_outlook(hand10, pool, cache)[0]


# ----------------------------------------------------------------------------- evaluation
# Shared by the bots built on MARJJ's evaluation (marjj, strong, expert): each is a
# function of the view's Knowledge, so a bot combines them rather than overriding another
# bot's private methods.


def top_joins_and_lowers(k: Knowledge) -> bool:
    """MARJJ's rule for the face-up card: take it only if it joins a meld and lowers our
    deadwood (after the best discard other than that card, R5)."""
    if k.top is None:
        return False
    with_top = k.mine | 1 << k.top
    if not in_some_meld(with_top, k.top):
        return False
    table = deadwood_by_discard_mask(with_top)
    after = min(v for i, v in table.items() if i != k.top)
    return after < deadwood_mask(k.mine)


def top_gives_gin(k: Knowledge) -> bool:
    """Whether taking the face-up card gives gin at once (R6)."""
    if k.top is None:
        return False
    table = deadwood_by_discard_mask(k.mine | 1 << k.top)
    return min(v for i, v in table.items() if i != k.top) == 0


def draw_action(view: View, take: Callable[[], bool]) -> Action:
    """The offer or draw: the face-up card when it may be taken and ``take()`` says so,
    otherwise pass on the up-card (R4) or draw from the stock (R5). A card this seat
    discarded since the stock was last drawn is never taken back (:func:`takes_back`),
    so no hand of these bots' can go on for ever."""
    if DRAW_DISCARD in view.legal and not takes_back(view) and take():
        return DRAW_DISCARD
    return PASS if view.phase is Phase.OFFER else DRAW_STOCK


def marjj_danger(card: int, k: Knowledge, taken: float, passed: float) -> float:
    """MARJJ's penalty for throwing ``card``: ``taken`` per card the opponent took that it
    melds with, less ``passed`` per such card they passed on or discarded (never < 0)."""
    took = sum(1 for t in iter_mask(k.opp_known) if related(card, t))
    shed = sum(1 for t in iter_mask(k.opp_passed | k.opp_discarded) if related(card, t))
    return max(0.0, taken * took - passed * shed)


def look_ahead_weight(c: float, d: float, turn: int) -> float:
    """MARJJ's weight of the look-ahead term on our ``turn``-th discard: ``c * d**(turn-1)``."""
    return c * d ** (turn - 1)


def discard_options(view: View) -> tuple[list[int], list[int]]:
    """The cards (indexes) we may discard without knocking, and those we may knock with."""
    cards = [a.card.index for a in view.legal
             if a.act == "discard" and not a.knock and a.card is not None]
    knockable = [a.card.index for a in view.legal if a.knock and a.card is not None]
    return cards, knockable


def least_scored(scores: dict[int, float], cards: list[int], rng: random.Random) -> int:
    """The card of ``cards`` with the lowest score; a tie is broken by ``rng``."""
    lowest = min(scores.values())
    ties = sorted(i for i in cards if scores[i] == lowest)
    return ties[0] if len(ties) == 1 else rng.choice(ties)


class MarjjBot(Bot):
    """MARJJ: deadwood plus a decaying look-ahead term plus a danger penalty."""

    name = "marjj"

    def __init__(
        self,
        seed: int | None = None,
        c: float = 18.0,
        d: float = 0.9,
        danger_taken: float = 10.0,
        danger_passed: float = 5.0,
        knock_turns: int = 3,
    ) -> None:
        super().__init__(seed)
        self.c = c
        self.d = d
        self.danger_taken = danger_taken
        self.danger_passed = danger_passed
        self.knock_turns = knock_turns

    def decide(self, view: View) -> Action:
        """Draw, discard and knock by MARJJ's rules."""
        k = Knowledge.of(view)
        if view.phase is Phase.OFFER or view.phase is Phase.DRAW:
            return draw_action(view, lambda: top_joins_and_lowers(k))
        return self.discard(view, k)

    def danger(self, card: int, k: Knowledge) -> float:
        """Penalty for throwing ``card``: :func:`marjj_danger` with this bot's weights."""
        return marjj_danger(card, k, self.danger_taken, self.danger_passed)

    def discard(self, view: View, k: Knowledge) -> Action:
        """The discard (and knock) by MARJJ's score: gin always, a knock in the first
        ``knock_turns`` turns, otherwise the lowest score."""
        turn = k.my_discards + 1
        weight = look_ahead_weight(self.c, self.d, turn)
        table = deadwood_by_discard_mask(k.mine)
        cards, knockable = discard_options(view)
        gins = [i for i in cards if table[i] == 0]
        cache: dict[int, tuple[float, float]] = {}
        scores: dict[int, float] = {}
        for i in cards:
            rest = k.mine & ~(1 << i)
            e = expected_next_deadwood(rest, k.unseen, cache)
            scores[i] = table[i] + weight * e + self.danger(i, k)
        if gins:
            best = min(gins, key=lambda i: (scores[i], i))
            return Action.discard(Card.from_index(best), True)
        if turn <= self.knock_turns and knockable:
            best = min(knockable, key=lambda i: (table[i], scores[i], i))
            return Action.discard(Card.from_index(best), True)
        return Action.discard(Card.from_index(least_scored(scores, cards, self.rng)), False)
