"""What a seat knows about one hand, read from its :class:`View` only (R11), as card masks.

One reading of the public history, shared by the bots and the RL encoding: our cards,
the discard pile, the cards the opponent is known to hold (taken from the pile and not
thrown back), what they passed on or discarded, and the unseen cards (the opponent's
unknown cards plus the stock).

>>> from ginrummy.match import Match
>>> k = Knowledge.of(Match(seed=3).view(0))
>>> k.mine.bit_count(), k.unseen.bit_count(), k.opp_unknown
(10, 41, 10)
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import ALL_CARDS, POINTS
from .hand import Phase, View

__all__ = ["ALL_CARDS", "Knowledge", "in_some_meld", "meld_partners", "POINTS"]



def _partners(i: int) -> tuple[tuple[int, int], ...]:
    """The pairs of cards that make a meld (R2) with card ``i``: same-rank pairs and the
    three run windows through ``i``."""
    s, r = divmod(i, 13)
    out: list[tuple[int, int]] = []
    others = [t * 13 + r for t in range(4) if t != s]
    out += [(others[0], others[1]), (others[0], others[2]), (others[1], others[2])]
    for lo in (r - 2, r - 1, r):
        if lo >= 0 and lo + 2 <= 12:
            pair = tuple(s * 13 + k for k in range(lo, lo + 3) if k != r)
            out.append((pair[0], pair[1]))
    return tuple(out)


_PARTNERS: tuple[tuple[tuple[int, int], ...], ...] = tuple(_partners(i) for i in range(52))
_PAIR_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(1 << a | 1 << b for a, b in pairs) for pairs in _PARTNERS
)


def meld_partners(i: int) -> tuple[tuple[int, int], ...]:
    """The card pairs that would form a 3-card meld with card index ``i`` (R2)."""
    return _PARTNERS[i]


def in_some_meld(mask: int, i: int) -> bool:
    """Whether card ``i`` forms some meld (R2) with other cards of ``mask``."""
    return any(mask & pm == pm for pm in _PAIR_MASKS[i])


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The public and private facts of a hand for one seat, as 52-bit masks."""

    mine: int
    pile: int
    top: int | None
    opp_known: int
    opp_passed: int
    opp_discarded: int
    my_discarded: int
    opp_stock_draws: int
    unseen: int
    opp_unknown: int
    taken: int | None
    opp_last_discard: int | None = None
    """The opponent's latest discard when it has not drawn since (its hand then was its
    hand now plus this card), else None."""
    opp_last_taken: int | None = None
    """The pile card the opponent took on the turn of ``opp_last_discard`` (R5: not
    discardable then), else None."""

    @property
    def my_discards(self) -> int:
        """How many cards this seat has discarded this hand (its turns so far)."""
        return self.my_discarded.bit_count()

    @classmethod
    def of(cls, view: View) -> Knowledge:
        """Read everything from the view's history (R11); nothing hidden is used."""
        me = view.seat
        pile: list[int] = [view.upcard.index]
        opp_known = 0
        opp_passed = 0
        opp_discarded = 0
        my_discarded = 0
        opp_stock = 0
        taken: int | None = None
        last_discard: int | None = None
        last_taken: int | None = None
        opp_took: int | None = None
        for op in view.history:
            action = op.action
            mine = op.seat == me
            kind = action.act
            if kind == "pass":
                if not mine:
                    opp_passed |= 1 << view.upcard.index
            elif kind == "draw" and action.source == "discard":
                card = pile.pop()
                if mine:
                    taken = card
                else:
                    opp_known |= 1 << card
                    opp_took, last_discard = card, None
            elif kind == "draw":
                if not mine:
                    opp_took, last_discard = None, None
                    opp_stock += 1
                    if pile:
                        opp_passed |= 1 << pile[-1]
                else:
                    taken = None
            else:
                assert action.card is not None
                card = action.card.index
                pile.append(card)
                if mine:
                    my_discarded |= 1 << card
                    taken = None
                else:
                    opp_known &= ~(1 << card)
                    opp_discarded |= 1 << card
                    last_discard, last_taken = card, opp_took
        mine_mask = view.hand.mask
        pile_mask = 0
        for c in view.discards:
            pile_mask |= c.mask
        unseen = ALL_CARDS & ~mine_mask & ~pile_mask & ~opp_known
        top = view.discards[-1].index if view.discards else None
        if view.phase is not Phase.DISCARD:
            taken = None
        return cls(
            mine=mine_mask,
            pile=pile_mask,
            top=top,
            opp_known=opp_known,
            opp_passed=opp_passed,
            opp_discarded=opp_discarded,
            my_discarded=my_discarded,
            opp_stock_draws=opp_stock,
            unseen=unseen,
            opp_unknown=10 - opp_known.bit_count(),
            taken=taken,
            opp_last_discard=last_discard,
            opp_last_taken=None if last_discard is None else last_taken,
        )
