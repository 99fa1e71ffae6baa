"""What every bot is: a decision function over a seat's view (R11), never the full state.

A bot receives a :class:`~ginrummy.hand.View` (a copy holding only what its seat may
see) and returns one of ``view.legal``. Holding no reference to the hand or match, it
cannot peek at the opponent's cards or the stock: leaking is impossible by construction.
"""

from __future__ import annotations

import random

from ..hand import Action, HandResult, Phase, View

__all__ = ["Bot", "BotError", "takes_back"]


class BotError(ValueError):
    """A bot was asked for by a name that does not exist, or misbehaved."""


class Bot:
    """Base class: subclasses implement :meth:`decide`; ``seed`` makes play reproducible."""

    name = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def decide(self, view: View) -> Action:
        """Choose one of ``view.legal``."""
        raise NotImplementedError

    def hand_over(self, view: View, result: HandResult | None = None) -> None:
        """Called with the seat's final view when a hand ends (both hands shown after a
        knock, R11); bots that learn across hands override it."""

    def new_match(self, seat: int) -> None:
        """Called before a match starts; bots with per-match state override it."""


def takes_back(view: View) -> bool:
    """Whether taking the face-up card now would take back a card this seat discarded
    since anyone last drew from the stock.

    The rules set no limit on a hand's length (R5, R7): two players who keep taking each
    other's discards never draw from the stock, so the hand never goes dead. Every such
    endless hand has each player taking back its own discard with no stock draw in
    between, so a bot that declines exactly that (as the project's searching and
    MARJJ-style bots do) can never be half of an endless hand, at the cost of a card it
    gave up on a moment ago.

    >>> from ginrummy.hand import DRAW_DISCARD, Deal, Hand
    >>> import random
    >>> h = Hand(Deal.shuffled(random.Random(5)), dealer=0)
    >>> takes_back(h.view(1))  # the up-card was dealt, not discarded
    False
    """
    if view.phase is not Phase.DRAW or view.to_play != view.seat or not view.discards:
        return False
    top = view.discards[-1]
    for op in reversed(view.history):
        if op.action.act == "draw" and op.action.source == "stock":
            return False
        if op.seat == view.seat and op.action.act == "discard" and op.action.card == top:
            return True
    return False
