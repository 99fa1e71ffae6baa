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

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import ALL_CARDS, POINTS
from .hand import Action, Operation, Phase, View

__all__ = ["ALL_CARDS", "Knowledge", "Shown", "in_some_meld", "meld_partners", "POINTS"]

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
        shown = Shown(view.upcard.index)
        shown.replay(view.history)
        pile = 0
        for c in view.discards:
            pile |= c.mask
        top = view.discards[-1].index if view.discards else None
        return shown.knowledge(view.seat, view.hand.mask, pile, top,
                               view.phase is Phase.DISCARD)


class Shown:
    """What both seats have shown of one hand so far (R11), a step at a time: the pile,
    and per seat the cards it took from the pile and still holds, declined, discarded.

    :meth:`Knowledge.of` replays a view's history through it; an environment that sees
    every step as it happens keeps one up to date instead (``ginrummy.rl.tracker``).
    Lists are per seat; -1 stands for no card.

    >>> from ginrummy.hand import DRAW_STOCK, Deal, Hand
    >>> import random
    >>> h = Hand(Deal.shuffled(random.Random(5)), dealer=0)
    >>> s = Shown(h.upcard.index)
    >>> for op in (h.play(h.legal_actions()[0]), h.play(h.legal_actions()[0])):
    ...     s.play(op.seat, op.action)
    >>> s.passed[1] == s.passed[0] == h.upcard.mask, s.pile == [h.upcard.index]
    (True, True)
    """

    __slots__ = ("upcard", "pile", "pile_mask", "known", "passed", "discarded", "taken",
                 "stock_draws", "last_discard", "last_taken")

    def __init__(self, upcard: int) -> None:
        self.upcard = upcard
        self.pile = [upcard]
        """The discard pile's cards, top last (R3: the up-card alone at the deal)."""
        self.pile_mask = 1 << upcard
        self.known = [0, 0]
        """Cards the seat took from the pile and still holds."""
        self.passed = [0, 0]
        """Cards the seat declined: a pass on the up-card (R4), or the top card when it
        drew from the stock (R5)."""
        self.discarded = [0, 0]
        self.taken = [-1, -1]
        """The pile card the seat took this turn (R5: not discardable now)."""
        self.stock_draws = [0, 0]
        self.last_discard = [-1, -1]
        """The seat's latest discard when it has not drawn since."""
        self.last_taken = [-1, -1]
        """The pile card it took on the turn of that discard."""

    def play(self, seat: int, action: Action) -> None:
        """Record what ``seat``'s ``action`` shows the table (:meth:`replay`)."""
        self.replay((Operation(seat, action),))

    def replay(self, ops: Iterable[Operation]) -> None:
        """Record what each operation shows the table (R11), in order: a pass declines the
        up-card (R4); a pile draw shows the card taken, a stock draw declines the top card
        (R5); a discard (knock or not) shows the card thrown."""
        pile, known, passed, taken = self.pile, self.known, self.passed, self.taken
        discarded, last_discard, last_taken = self.discarded, self.last_discard, self.last_taken
        pile_mask = self.pile_mask
        for op in ops:
            seat, action = op.seat, op.action
            kind = action.act
            if kind == "pass":
                passed[seat] |= 1 << self.upcard
            elif kind == "draw":
                if action.source == "discard":
                    c = pile.pop()
                    pile_mask &= ~(1 << c)
                    known[seat] |= 1 << c
                    taken[seat] = c
                else:
                    if pile:
                        passed[seat] |= 1 << pile[-1]
                    taken[seat] = -1
                    self.stock_draws[seat] += 1
                last_discard[seat] = -1
            else:
                assert action.card is not None
                c = action.card.index
                pile.append(c)
                pile_mask |= 1 << c
                discarded[seat] |= 1 << c
                known[seat] &= ~(1 << c)
                last_discard[seat] = c
                last_taken[seat] = taken[seat]
                taken[seat] = -1
        self.pile_mask = pile_mask

    def knowledge(self, seat: int, mine: int, pile: int, top: int | None,
                  discarding: bool) -> Knowledge:
        """``seat``'s :class:`Knowledge`, holding ``mine``, with the pile ``pile`` (a mask)
        topped by ``top``; ``discarding``: the seat holds 11 cards, so the pile card it
        just took is not discardable (R5)."""
        opp = 1 - seat
        known = self.known[opp]
        taken = self.taken[seat]
        last = self.last_discard[opp]
        last_taken = self.last_taken[opp]
        return Knowledge(
            mine=mine,
            pile=pile,
            top=top,
            opp_known=known,
            opp_passed=self.passed[opp],
            opp_discarded=self.discarded[opp],
            my_discarded=self.discarded[seat],
            opp_stock_draws=self.stock_draws[opp],
            unseen=ALL_CARDS & ~mine & ~pile & ~known,
            opp_unknown=10 - known.bit_count(),
            taken=taken if discarding and taken >= 0 else None,
            opp_last_discard=None if last < 0 else last,
            opp_last_taken=None if last < 0 or last_taken < 0 else last_taken,
        )
