"""What every bot is: a decision function over a seat's view (R11), never the full state.

A bot receives a :class:`~ginrummy.hand.View` (a copy holding only what its seat may
see) and returns one of ``view.legal``. Holding no reference to the hand or match, it
cannot peek at the opponent's cards or the stock: leaking is impossible by construction.
"""

from __future__ import annotations

import random

from ..hand import Action, HandResult, View

__all__ = ["Bot", "BotError"]


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
