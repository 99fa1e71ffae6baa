"""How a hand reaches a position: a legal history that ends in a board's facts, played
on a real :class:`~ginrummy.hand.Hand`, so the seat's view is one the rules can produce.

:func:`reach` searches (or, given the view's ``history``, replays) who dealt, what became of
the up-card, which of the opponent's discards the seat took and which of its own the
opponent took. The search counts what must happen (turns alternate and each ends with one
discard, so the opponent's discards fix the turns left; the pile's final size then fixes
the takes left, and the stock the draws) and follows the pile's order, so a real position
is read in milliseconds. Without ``dealer`` the opponent is tried as the dealer first;
without ``upcard`` it is the bottom of the pile, or the card taken at the offer. The hidden
cards of the history (the opponent's unknown cards, the stock) are filled in arbitrarily:
the view never shows them, and the evaluator's samples depend on the public facts only.
Where the lists leave the order of events open (on which turn the opponent took a card),
the first reading is taken; the view's ``history`` fixes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..actions import DRAW_DISCARD, DRAW_STOCK, PASS, Action, IllegalActionError, Phase
from ..cards import Card, deck
from ..hand import Deal, DealError, Hand
from ..i18n import t
from ..view import View
from .board import Board, PositionError

__all__ = ["NODE_BUDGET", "reach"]

NODE_BUDGET = 200_000
"""Search steps at most while looking for a history (a real position needs a few dozen)."""


_PILE, _OPP, _MINE = 1, 2, 3
"""Where a card has been seen: on the pile, taken by the opponent, taken by the seat
(a card never seen is in nobody's dict: a hand as dealt, or the stock)."""


Events = list[tuple[int, Action, "Card | None"]]
"""A history as ``(seat, action, card)``: the card of a pile take or a discard, else None."""


class _TooHard(Exception):
    """The search ran out of its node budget."""


@dataclass
class _Found:
    """A history that reaches the position: the actions and who played them."""

    dealer: int
    upcard: Card
    events: Events


class _Search:
    """Depth-first search for a legal history ending in the board (module docstring)."""

    def __init__(self, b: Board) -> None:
        self.b = b
        self.me = b.seat
        self.opp = 1 - b.seat
        self.hand = set(b.hand)
        self.nodes = NODE_BUDGET
        self.failed: set[Any] = set()

    # a state: (seat to move, pile, permanent count, takes done, discards done, stock,
    # where cards are, the events so far)
    def final(self, pile: tuple[Card, ...], it: int, iod: int, stock: int,
              loc: dict[Card, int]) -> bool:
        """Whether the state is the board at the seat's decision."""
        b = self.b
        if it != len(b.took) or iod != len(b.discarded) or stock != b.stock:
            return False
        if tuple(pile) != b.pile:
            return False
        for c, where in loc.items():
            if (where == _MINE) != (c in self.hand):
                return False
        return all(loc.get(c, _MINE) == _MINE for c in self.hand)

    def turn(self, seat: int, pile: tuple[Card, ...], it: int, iod: int, stock: int,
             loc: dict[Card, int], events: Events,
             forced: Action | None = None) -> Events | None:
        """Play ``seat``'s turn every way the board allows, then the next; the events of a
        history that reaches the board, or None."""
        self.nodes -= 1
        if self.nodes < 0:
            raise _TooHard
        key = (seat, pile, it, iod, stock, frozenset(loc.items()), forced)
        if key in self.failed:
            return None
        b = self.b
        if self.budget(seat, pile, it, iod, stock) is None:
            self.failed.add(key)
            return None
        if seat == self.me and forced is None and b.to_play == "draw" \
                and self.final(pile, it, iod, stock, loc):
            return events
        got = self._turn(seat, pile, it, iod, stock, loc, events, forced)
        if got is None:
            self.failed.add(key)
        return got

    def budget(self, seat: int, pile: tuple[Card, ...], it: int, iod: int,
               stock: int) -> tuple[int, int] | None:
        """At the start of ``seat``'s turn: how many pile takes the seat has left and in
        how many draws, or None when the counts cannot come out. Turns alternate and every
        turn discards once, so the turns left follow from the opponent's discards left;
        the pile's final size then fixes the takes left, and the stock the draws."""
        b = self.b
        opp_turns = len(b.discarded) - iod
        my_turns = opp_turns - (seat != self.me)
        if my_turns < 0:
            return None
        my_draws = my_turns + (b.to_play == "discard")
        takes = len(pile) + opp_turns + my_turns - len(b.pile)
        opp_takes = len(b.took) - it
        my_takes = takes - opp_takes
        if not 0 <= my_takes <= my_draws or not 0 <= opp_takes <= opp_turns:
            return None
        if (opp_turns - opp_takes) + (my_draws - my_takes) != stock - b.stock:
            return None
        return my_takes, my_draws

    def _draws(self, seat: int, pile: tuple[Card, ...], it: int, iod: int, stock: int,
               forced: Action | None) -> list[Action]:
        b = self.b
        out: list[Action] = []
        counts = self.budget(seat, pile, it, iod, stock)
        if counts is None:
            return []
        if seat == self.me:
            takes, draws = counts
        else:
            takes, draws = len(b.took) - it, len(b.discarded) - iod
        can_take = bool(pile) and takes > 0 and (seat == self.me or (
            it < len(b.took) and b.took[it] == pile[-1]))
        can_stock = stock - 1 >= b.stock and takes < draws
        if forced is not None:
            ok = can_take if forced is DRAW_DISCARD else can_stock
            return [forced] if ok else []
        if can_take:
            out.append(DRAW_DISCARD)
        if can_stock:
            out.append(DRAW_STOCK)
        if seat == self.me and len(out) == 2 and pile[-1] not in self.hand:
            out.reverse()  # a card not held at the end was more likely left
        return out

    def _turn(self, seat: int, pile: tuple[Card, ...], it: int, iod: int, stock: int,
              loc: dict[Card, int], events: Events, forced: Action | None) -> Events | None:
        b = self.b
        mine = seat == self.me
        for draw in self._draws(seat, pile, it, iod, stock, forced):
            p, lc, t, st = pile, dict(loc), it, stock
            taken: Card | None = None
            if draw is DRAW_DISCARD:
                taken = p[-1]
                p = p[:-1]
                lc[taken] = _MINE if mine else _OPP
                if not mine:
                    t += 1
            else:
                st -= 1
            ev = [*events, (seat, draw, taken)]
            if mine and b.to_play == "discard" and self.final(p, t, iod, st, lc):
                return ev
            if p and (len(p) > len(b.pile) or b.pile[len(p) - 1] != p[-1]):
                continue  # a covered card stays where it is for good
            for card in self._discards(seat, p, t, iod, lc, taken):
                if st <= 2:
                    continue  # R7: this discard would end the hand dead
                lc2 = dict(lc)
                lc2[card] = _PILE
                got = self.turn(1 - seat, (*p, card), t, iod + (not mine), st, lc2,
                                [*ev, (seat, Action.discard(card), card)])
                if got is not None:
                    return got
        return None

    def _discards(self, seat: int, pile: tuple[Card, ...], it: int, iod: int,
                  loc: dict[Card, int], taken: Card | None) -> list[Card]:
        """The cards ``seat`` may throw now to stay on course for the board: the
        opponent's next listed discard, or for the seat the card the opponent takes next
        or the pile's next card for good."""
        b = self.b
        if seat == self.opp:
            if iod >= len(b.discarded):
                return []
            thrown = b.discarded[iod]
            return [thrown] if thrown != taken and loc.get(thrown, _OPP) == _OPP else []
        out: list[Card] = []
        stays = len(pile)  # where it stays for good if the opponent leaves it
        opp_takes, opp_turns = len(b.took) - it, len(b.discarded) - iod
        wanted: list[Card | None] = [
            b.took[it] if opp_takes > 0 else None,
            b.pile[stays] if stays < len(b.pile) and opp_takes < opp_turns else None]
        for c in wanted:
            if c is not None and c not in out and c != taken \
                    and loc.get(c, _MINE) == _MINE:
                out.append(c)
        return out

    def run(self, dealer: int, opening: int, upcard: Card) -> _Found | None:
        """A history for one dealer, one way of opening (see :func:`_openings`) and one
        up-card, or None."""
        non_dealer = 1 - dealer
        passes, taker = _OPENINGS[opening]
        seats = [non_dealer, dealer][:passes]
        events: Events = [(s, PASS, None) for s in seats]
        first = dealer if opening == 2 else non_dealer
        forced = DRAW_STOCK if taker is None else DRAW_DISCARD
        got = self.turn(first, (upcard,), 0, 0, 31, {upcard: _PILE}, events, forced)
        return None if got is None else _Found(dealer, upcard, got)


_OPENINGS: dict[int, tuple[int, int | None]] = {
    4: (2, None),  # both pass, the non-dealer draws from the stock
    1: (0, 0),     # the non-dealer takes the up-card
    2: (1, 1),     # the non-dealer passes, the dealer takes it
    3: (2, 0),     # both pass, the non-dealer takes it
}
"""Ways a hand opens (R4): passes made, and who takes the up-card (0 the non-dealer, 1 the
dealer, None: nobody, it stays at the bottom of the pile)."""


def _search(b: Board) -> _Found:
    """The first history that reaches the board (module docstring for the order tried)."""
    me, opp = b.seat, 1 - b.seat
    s = _Search(b)
    dealers = [b.dealer] if b.dealer is not None else [opp, me]
    at_start = (b.stock == 31 and len(b.pile) == 1 and not b.took and not b.discarded
                and b.to_play == "draw")
    try:
        for dealer in dealers:
            if at_start:
                found = _offer(b, dealer)
                if found is not None:
                    return found
            for opening, (passes, taker) in _OPENINGS.items():
                passers = [1 - dealer, dealer][:passes]
                if (opp in passers) != bool(b.passed):
                    continue
                taker_seat = None if taker is None else (1 - dealer if taker == 0 else dealer)
                for up in _upcards(b, taker_seat):
                    if b.passed and up != b.passed[0]:
                        continue
                    found = s.run(dealer, opening, up)
                    if found is not None:
                        return found
    except _TooHard:
        raise PositionError(t("The position is too tangled to read back into a hand: "
                              "simplify the pile or the opponent's lists.")) from None
    raise PositionError(t("No hand can be played to this position: check the order of the "
                          "pile (bottom first) and of the opponent's discards, and that each "
                          "card you threw is on the pile or taken by the opponent."))


def _offer(b: Board, dealer: int) -> _Found | None:
    """A decision at the up-card offer or just after it (R4), with nothing played yet."""
    me = b.seat
    up = b.pile[0]
    if b.upcard is not None and b.upcard != up:
        return None
    if me != dealer and not b.passed:  # the non-dealer's offer
        return _Found(dealer, up, [])
    if b.passed and b.passed[0] == up:
        if me == dealer:  # the dealer's offer, the non-dealer passed
            return _Found(dealer, up, [(1 - dealer, PASS, None)])
        return _Found(dealer, up, [(me, PASS, None), (dealer, PASS, None)])
    return None


def _upcards(b: Board, taker: int | None) -> list[Card]:
    """The up-cards to try: named, the bottom of the pile when nobody took it, the
    opponent's first take when it did, or (the seat took it) the passed card or any card
    the seat may have held."""
    if b.upcard is not None:
        return [b.upcard]
    if taker is None:
        return [b.pile[0]] if b.pile else []
    if taker != b.seat:
        return [b.took[0]] if b.took else []
    if b.passed:
        return [b.passed[0]]
    out: list[Card] = []
    for c in (*sorted(b.hand), *b.pile, *b.took):
        if c not in out and c not in b.discarded:
            out.append(c)
    return out


# ----------------------------------------------------------------------------- the hand


def _deal(b: Board, found: _Found) -> Deal | None:
    """A deal that the found history plays out: the cards each seat threw from its own
    hand and the seat's unseen cards dealt in the order needed, the stock's draws in turn,
    and the cards nobody has seen (the opponent's unknown cards, the rest of the stock)
    in card order."""
    me, opp = b.seat, 1 - b.seat
    seen: set[Card] = {found.upcard}
    fresh: tuple[list[Card], list[Card]] = ([], [])
    draws: list[int] = []
    for seat, action, card in found.events:
        if action is DRAW_STOCK:
            draws.append(seat)
        elif card is not None:
            if action.act == "discard" and card not in seen:
                fresh[seat].append(card)
            seen.add(card)
    fresh[me].extend(c for c in sorted(b.hand) if c not in seen)
    seen.update(b.hand)
    pool = [c for c in deck() if c not in seen]
    need = 10 + draws.count(opp) - len(fresh[opp])
    if need < 0 or need > len(pool) or len(fresh[me]) != 10 + draws.count(me):
        return None
    fresh[opp].extend(pool[:need])
    rest = pool[need:]
    nexts = [10, 10]
    stock: list[Card] = []
    for seat in draws:
        stock.append(fresh[seat][nexts[seat]])
        nexts[seat] += 1
    stock.extend(rest)
    hands = [fresh[0][:10], fresh[1][:10]]
    try:
        return Deal((tuple(hands[0]), tuple(hands[1])), found.upcard, tuple(stock))
    except DealError:
        return None


def _play(b: Board, found: _Found) -> View | None:
    """The seat's view after the found history, played under the rules on a real hand;
    None if anything in it does not hold (then the search's reading was wrong)."""
    deal = _deal(b, found)
    if deal is None:
        return None
    hand = Hand(deal, found.dealer, b.options, 0, b.scores)
    try:
        for seat, action, _ in found.events:
            hand.play(action, seat)
    except IllegalActionError:
        return None
    view = hand.view(b.seat)
    phases = (Phase.DISCARD,) if b.to_play == "discard" else (Phase.DRAW, Phase.OFFER)
    if (view.to_play != b.seat or view.phase not in phases
            or sorted(view.hand) != sorted(b.hand) or view.discards != b.pile
            or view.stock_count != b.stock or view.opponent_took != b.took
            or view.opponent_discarded != b.discarded or view.opponent_passed != b.passed):
        return None
    return view


def _replayed(b: Board) -> _Found:
    """The board's own history read as a found one: the dealer is the seat that did not
    act first (R4), the up-card the first card taken before any discard, else the bottom
    of the pile."""
    ops = b.history or ()
    dealer = 1 - ops[0].seat if ops else (b.dealer if b.dealer is not None else 1 - b.seat)
    if b.dealer is not None and b.dealer != dealer:
        raise PositionError(t("The history starts with seat {seat}, the non-dealer (R4), so "
                              "seat {dealer} cannot be the dealer.", seat=str(ops[0].seat),
                              dealer=str(b.dealer)))
    up = b.upcard
    for op in ops:
        if op.action.act == "discard":
            break
        if op.action is DRAW_DISCARD and up is None:
            up = op.card
    if up is None:
        up = b.pile[0] if b.pile else None
    if up is None:
        raise PositionError(t("Name the 'upcard': nobody can tell it from this position."))
    pile = [up]
    events: Events = []
    for op in ops:
        card: Card | None = None
        if op.action is DRAW_DISCARD:
            if not pile:
                raise PositionError(t("The history takes from an empty pile."))
            card = pile.pop()
        elif op.action.act == "discard":
            card = op.action.card
            assert card is not None
            pile.append(card)
        events.append((op.seat, op.action, card))
    return _Found(dealer, up, events)


def reach(b: Board) -> View:
    """The seat's view at a (checked) board, by a history that reaches it; PositionError
    when none does."""
    found = _search(b) if b.history is None else _replayed(b)
    view = _play(b, found)
    if view is None and b.history is not None:
        raise PositionError(t("The history does not lead to this position's cards: check "
                              "that it is the hand's history as this seat saw it."))
    if view is None:
        raise PositionError(t("No hand can be played to this position: check the order of "
                              "the pile and of the opponent's discards."))
    return view
