"""The ``simple`` bot: the AAAI-21 EAAI Gin Rummy challenge baseline (STRATEGY.md).

It takes the face-up card only if that card then lies in a meld (R2), otherwise draws
from the stock; discards a random card among those leaving the least deadwood (never
the card just taken, R5); and knocks as soon as it may (R6). It never plays for gin.
"""

from __future__ import annotations

from ..hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Phase, View
from ..knowledge import in_some_meld
from ..melds import deadwood_by_discard_mask
from .base import Bot

__all__ = ["SimpleBot", "least_deadwood_discards"]


def least_deadwood_discards(view: View) -> tuple[list[Action], int]:
    """The legal plain discards that leave the least deadwood, and that deadwood."""
    mask = 0
    for c in view.hand:
        mask |= c.mask
    table = deadwood_by_discard_mask(mask)
    plain = [a for a in view.legal if a.act == "discard" and not a.knock]
    best = min(table[a.card.index] for a in plain if a.card is not None)
    return [a for a in plain if a.card is not None and table[a.card.index] == best], best


def wants_upcard(view: View) -> bool:
    """Whether the top of the discard pile would lie in some meld with our cards (R2)."""
    if not view.discards:
        return False
    top = view.discards[-1]
    mask = top.mask
    for c in view.hand:
        mask |= c.mask
    return in_some_meld(mask, top.index)


class SimpleBot(Bot):
    """The challenge's SimpleGinRummyPlayer, re-implemented from its description."""

    name = "simple"

    def decide(self, view: View) -> Action:
        """Draw, discard and knock by the baseline's fixed rules."""
        if view.phase is Phase.OFFER or view.phase is Phase.DRAW:
            if DRAW_DISCARD in view.legal and wants_upcard(view):
                return DRAW_DISCARD
            return PASS if view.phase is Phase.OFFER else DRAW_STOCK
        best, _ = least_deadwood_discards(view)
        choice = best[0] if len(best) == 1 else self.rng.choice(best)
        knock = Action.discard(choice.card, True) if choice.card is not None else choice
        return knock if knock in view.legal else choice


class EasyBot(SimpleBot):
    """A gentler ``simple`` for beginners: now and then it overlooks a useful up-card or
    throws a random card instead of the best one; it still always knocks when it can."""

    name = "easy"
    slip = 0.25

    def decide(self, view: View) -> Action:
        """Like ``simple``, with a chance of a slip on each draw or discard."""
        if view.phase is Phase.DISCARD and self.rng.random() < self.slip:
            plain = [a for a in view.legal if a.act == "discard" and not a.knock]
            choice = self.rng.choice(plain)
            knock = Action.discard(choice.card, True) if choice.card is not None else choice
            return knock if knock in view.legal else choice
        if view.phase is not Phase.DISCARD and self.rng.random() < self.slip:
            return PASS if view.phase is Phase.OFFER else DRAW_STOCK
        return super().decide(view)
