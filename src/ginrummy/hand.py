"""One hand of Gin Rummy as a state machine (R3-R9), with per-seat views (R11).

Every action has a ``can_*`` question, a ``verify_*`` that raises the reason, and the
action itself, which applies it and appends a frozen :class:`Operation` to the history.
A refused action raises an :class:`IllegalActionError` (a ``ValueError``) and changes
nothing.

>>> deal = Deal.build("AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH", "KC")
>>> hand = Hand(deal, dealer=0)
>>> hand.phase, hand.to_play
(<Phase.OFFER: 'offer'>, 1)
>>> hand.play(PASS); hand.play(PASS); hand.play(DRAW_STOCK)
Operation(seat=1, action=Action(act='pass'), card=None)
Operation(seat=0, action=Action(act='pass'), card=None)
Operation(seat=1, action=Action(act='draw', source='stock'), card=Card.parse('AC'))
>>> hand.play(Action.discard(Card.parse("AC"), knock=True)).action
Action(act='discard', card=Card.parse('AC'), knock=True)
>>> hand.result.result, hand.result.scorer, hand.result.points
(<HandEnd.GIN: 'gin'>, 1, 25)
"""


from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .actions import (
    _DISCARDS,
    _HIDDEN_STOCK_DRAW,
    _PILE_OPS,
    _PLAIN_OPS,
    _STOCK_OPS,
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    STRAIGHT_BACK,
    Action,
    ActionKind,
    CardNotInHandError,
    DrawSource,
    HandEnd,
    HandOverError,
    IllegalActionError,
    InvalidActionError,
    KnockNotAllowedError,
    NotYourTurnError,
    Operation,
    Phase,
    StraightBackError,
    WrongPhaseError,
    _plain_discards,
)
from .cards import (
    Card,
    CardError,
    CardSet,
    CardsLike,
    deck,
    from_mask,
    parse_cards,
    shuffled_deck,
)
from .melds import Showdown, deadwood_by_discard_mask, deadwood_mask, showdown_mask
from .options import Options
from .scoring import knock_points
from .view import HandResult, History, View, ViewError

_new_tuple = tuple.__new__

__all__ = [
    "Action",
    "ActionKind",
    "CardNotInHandError",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "Deal",
    "DealError",
    "DrawSource",
    "Hand",
    "HandEnd",
    "HandOverError",
    "HandResult",
    "History",
    "IllegalActionError",
    "InvalidActionError",
    "KnockNotAllowedError",
    "NotYourTurnError",
    "Operation",
    "PASS",
    "Phase",
    "STRAIGHT_BACK",
    "StraightBackError",
    "View",
    "ViewError",
    "WrongPhaseError",
]


class DealError(ValueError):
    """A deal that is not exactly 10 + 10 + 1 + 31 distinct cards."""



# ----------------------------------------------------------------------------- the deal


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one hand as dealt (R3): two hands of 10, the up-card, 31 stock cards
    (top first). Construction checks that they are the 52 cards exactly once."""

    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    upcard: Card
    stock: tuple[Card, ...]

    def __post_init__(self) -> None:
        if len(self.hands) != 2:
            raise DealError("A deal has two hands.")
        for s, h in enumerate(self.hands):
            if len(h) != 10:
                raise DealError(f"Seat {s} must be dealt 10 cards, not {len(h)}.")
        if len(self.stock) != 31:
            raise DealError(f"The stock must hold 31 cards, not {len(self.stock)}.")
        seen = 0
        for c in (*self.hands[0], *self.hands[1], self.upcard, *self.stock):
            if not isinstance(c, Card):
                raise DealError(f"Not a card: {c!r}.")
            if seen & c.mask:
                raise DealError(f"The card {c} is dealt twice.")
            seen |= c.mask

    @classmethod
    def shuffled(cls, rng: random.Random) -> Deal:
        """A random deal from ``rng`` (reproducible for a seeded generator)."""
        cards = shuffled_deck(rng)
        return cls((tuple(cards[:10]), tuple(cards[10:20])), cards[20], tuple(cards[21:]))

    @classmethod
    def build(cls, hand0: CardsLike, hand1: CardsLike, upcard: Card | str,
              stock: CardsLike | None = None) -> Deal:
        """A deal from the given cards; the stock defaults to the rest of the deck in index
        order, for tests that do not care about it."""
        try:
            h0, h1 = tuple(parse_cards(hand0)), tuple(parse_cards(hand1))
            up = upcard if isinstance(upcard, Card) else Card.parse(upcard)
            if stock is None:
                used = {*h0, *h1, up}
                st = tuple(c for c in deck() if c not in used)
            else:
                st = tuple(parse_cards(stock))
        except CardError as e:
            raise DealError(str(e)) from None
        return cls((h0, h1), up, st)

    @classmethod
    def parse(cls, text: str) -> Deal:
        """Read ``HAND0 / HAND1 / UPCARD / STOCK`` (stock top first), the form ``str`` prints.

        >>> d = Deal.shuffled(random.Random(1))
        >>> Deal.parse(str(d)) == d
        True
        """
        parts = text.split("/")
        if len(parts) != 4:
            raise DealError("A deal reads 'hand0 / hand1 / upcard / stock'.")
        return cls.build(parts[0], parts[1], parts[2].strip(), parts[3])

    def __str__(self) -> str:
        return " / ".join(
            [" ".join(map(str, self.hands[0])), " ".join(map(str, self.hands[1])),
             str(self.upcard), " ".join(map(str, self.stock))]
        )

    def to_json(self) -> dict[str, Any]:
        """The record's ``deal`` object."""
        return {
            "hands": [[str(c) for c in h] for h in self.hands],
            "upcard": str(self.upcard),
            "stock": [str(c) for c in self.stock],
        }

    @classmethod
    def from_json(cls, obj: Any) -> Deal:
        """Read a record's ``deal`` object; raises DealError with a clear message."""
        if not isinstance(obj, Mapping):
            raise DealError("The deal must be an object with 'hands', 'upcard' and 'stock'.")
        hands, upcard, stock = obj.get("hands"), obj.get("upcard"), obj.get("stock")
        if not (isinstance(hands, list) and len(hands) == 2
                and all(isinstance(h, list) for h in hands)):
            raise DealError("The deal's 'hands' must be two lists of cards.")
        if not isinstance(upcard, str):
            raise DealError("The deal's 'upcard' must be a card such as '5H'.")
        if not isinstance(stock, list):
            raise DealError("The deal's 'stock' must be a list of cards.")
        for c in (*hands[0], *hands[1], *stock):
            if not isinstance(c, str):
                raise DealError(f"Not a card: {c!r}.")
        return cls.build(hands[0], hands[1], upcard, stock)



def _score(knocker: int, sd: Showdown) -> HandResult:
    """R9: exactly one player scores a knocked hand (the points: :func:`knock_points`)."""
    defender = 1 - knocker
    dw = [0, 0]
    dw[knocker], dw[defender] = sd.knocker_deadwood, sd.defender_deadwood
    pts = knock_points(sd)
    if sd.gin:
        return HandResult(HandEnd.GIN, knocker, knocker, pts, (dw[0], dw[1]), sd)
    if pts < 0:
        return HandResult(HandEnd.UNDERCUT, knocker, defender, -pts, (dw[0], dw[1]), sd)
    return HandResult(HandEnd.KNOCK, knocker, knocker, pts, (dw[0], dw[1]), sd)



# ----------------------------------------------------------------------------- the hand


@dataclass(eq=False)
class Hand:
    """One hand from the deal to its result (R3-R9).

    ``hands`` and the stock are private state: consumers outside the core read
    :meth:`view` (R11). Hands compare by identity: two hands of one deal are different
    positions once either has moved. :meth:`copy` gives an independent position and
    :meth:`push` / :meth:`pop` play and take back actions, for search and replay.

    >>> h = Hand(Deal.shuffled(random.Random(2)), dealer=0)
    >>> twin = h.copy(); _ = twin.push(PASS)
    >>> h.phase, len(h.history), len(twin.history), twin == h
    (<Phase.OFFER: 'offer'>, 0, 1, False)
    >>> twin.pop(); len(twin.history)
    Operation(seat=1, action=Action(act='pass'), card=None)
    0
    """

    deal: Deal
    dealer: int
    options: Options = field(default_factory=Options)
    hand_index: int = 0
    scores: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        if self.dealer not in (0, 1):
            raise ValueError(f"The dealer must be seat 0 or 1, not {self.dealer!r}.")
        self.knock_limit: int = self.options.knock_limit(self.deal.upcard)
        self._masks = [sum(c.mask for c in self.deal.hands[0]),
                       sum(c.mask for c in self.deal.hands[1])]
        self._stock: list[Card] = list(reversed(self.deal.stock))  # top is the end
        self.discards: list[Card] = [self.deal.upcard]
        self.to_play: int | None = 1 - self.dealer
        self.phase: Phase = Phase.OFFER
        self.history: list[Operation] = []
        self.result: HandResult | None = None
        self._taken: Card | None = None  # card just taken from the pile (R5)
        self._by_discard: dict[int, int] | None = None  # deadwood after each discard
        self._legal: tuple[Action, ...] | None = None
        # each seat's view of the history, one entry per action: lists shared by that
        # seat's views (each view holds a prefix, so no view copies the history)
        self._seen: tuple[list[Operation], list[Operation]] = ([], [])
        self._views_out = False  # whether a view may hold the current lists

    def copy(self) -> Hand:
        """An independent copy of this position: playing on one never changes the other
        (the deal, the options and finished results are immutable and shared)."""
        twin = object.__new__(Hand)
        twin.__dict__.update(self.__dict__)
        twin._masks = list(self._masks)
        twin._stock = list(self._stock)
        twin.discards = list(self.discards)
        twin.history = list(self.history)
        twin._seen = (list(self._seen[0]), list(self._seen[1]))
        return twin

    def push(self, action: Action, seat: int | None = None) -> Operation:
        """Play ``action`` (checked as :meth:`play` does); :meth:`pop` takes it back."""
        return self.play(action, seat)

    def pop(self) -> Operation:
        """Take back the last action, restoring the position exactly as it was before it
        (cards, pile, stock, turn, phase and result); returns the operation undone.

        Raises :class:`IllegalActionError` when nothing has been played. Views taken
        before keep what they showed.
        """
        if not self.history:
            raise IllegalActionError("There is no action to take back.")
        history = self.history
        op = history.pop()
        # Everything else before the action follows from the history: no undo records.
        seat = op.seat
        action = op.action
        self.to_play = seat
        self.result = None
        self._by_discard = None
        self._legal = None
        self._taken = None
        kind = action.act
        if kind is ActionKind.PASS:
            self.phase = Phase.OFFER
        elif kind is ActionKind.DRAW:
            card = op.card
            assert card is not None
            self._masks[seat] &= ~card.mask
            if action is DRAW_STOCK:
                self._stock.append(card)
                self.phase = Phase.DRAW
            else:
                self.discards.append(card)
                # taking the up-card as the first or second action is the offer (R4)
                self.phase = Phase.OFFER if len(history) < 2 else Phase.DRAW
        else:
            card = self.discards.pop()
            self._masks[seat] |= card.mask
            self.phase = Phase.DISCARD
            if history and history[-1].action is DRAW_DISCARD:
                self._taken = history[-1].card  # R5 applies again
        s0, s1 = self._seen
        if self._views_out:
            # views already taken hold these lists: truncate copies, so they stay as they were
            n = len(self.history)
            self._seen = (s0[:n], s1[:n])
            self._views_out = False
        else:
            s0.pop()
            s1.pop()
        return op

    # ------------------------------------------------------------------ questions

    @property
    def stock_count(self) -> int:
        """Cards left in the stock."""
        return len(self._stock)

    @property
    def upcard(self) -> Card:
        """The hand's up-card (R3)."""
        return self.deal.upcard

    @property
    def top_discard(self) -> Card | None:
        """The card on top of the discard pile."""
        return self.discards[-1] if self.discards else None

    def is_over(self) -> bool:
        """Whether the hand has ended (knock, gin or dead hand)."""
        return self.phase is Phase.OVER

    def cards_of(self, seat: int) -> list[Card]:
        """The cards a seat holds, in index order (full-state access: not for bots)."""
        return from_mask(self._masks[seat])

    def mask_of(self, seat: int) -> int:
        """The 52-bit mask of the cards a seat holds (full-state access: not for bots)."""
        return self._masks[seat]

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock, top first (full-state access: not for bots)."""
        return tuple(reversed(self._stock))

    def deadwood_after(self, card: Card) -> int:
        """In the discard phase: the deadwood of the 10 cards left after discarding ``card``."""
        if self.phase is not Phase.DISCARD:
            raise WrongPhaseError("There is no discard to make now.")
        bd = self._discard_table()
        if card.index not in bd:
            raise CardNotInHandError(f"You do not hold {card}.")
        return bd[card.index]

    def knock_discards(self) -> list[Card]:
        """In the discard phase: the discards that would allow a knock (R6)."""
        if self.phase is not Phase.DISCARD:
            return []
        lim = self.knock_limit
        return [Card.from_index(i) for i, v in sorted(self._discard_table().items())
                if v <= lim and Card.from_index(i) is not self._taken]

    def _discard_table(self) -> dict[int, int]:
        if self._by_discard is None:
            assert self.to_play is not None
            self._by_discard = deadwood_by_discard_mask(self._masks[self.to_play])
        return self._by_discard

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the player to move may take now (empty once the hand is over)."""
        if self._legal is not None:
            return self._legal
        ph = self.phase
        if ph is Phase.OFFER:
            legal: tuple[Action, ...] = (PASS, DRAW_DISCARD)
        elif ph is Phase.DRAW:
            legal = (DRAW_STOCK, DRAW_DISCARD)
        elif ph is Phase.DISCARD:
            lim = self.knock_limit
            taken = self._taken.index if self._taken is not None else -1
            out = []
            m = self._masks[self.to_play]  # type: ignore[index]
            if self._by_discard is None and deadwood_mask(m) > lim + 10:
                # Discarding a card c leaves at least deadwood(hand) - points(c) >=
                # deadwood(hand) - 10, so no discard allows a knock (R6): skip the table.
                if taken >= 0:
                    m &= ~(1 << taken)
                self._legal = legal = _plain_discards(m)
                return legal
            for i, v in self._discard_table().items():
                if i == taken:
                    continue
                pair = _DISCARDS[i]
                out.append(pair[0])
                if v <= lim:
                    out.append(pair[1])
            legal = tuple(out)
        else:
            legal = ()
        self._legal = legal
        return legal

    # ------------------------------------------------------------------ verify / can

    def _verify_seat(self, seat: int | None) -> int:
        if self.phase is Phase.OVER:
            raise HandOverError("The hand is over.")
        assert self.to_play is not None
        if seat is not None and seat != self.to_play:
            raise NotYourTurnError(f"It is not your turn: seat {self.to_play} is to play.")
        return self.to_play

    def verify_pass(self, seat: int | None = None) -> None:
        """Raise unless passing on the up-card is allowed now (R4)."""
        self._verify_seat(seat)
        if self.phase is not Phase.OFFER:
            raise WrongPhaseError("You can only pass while the up-card is offered.")

    def verify_draw(self, source: str, seat: int | None = None) -> None:
        """Raise unless drawing from ``source`` (stock or discard) is allowed now (R4, R5)."""
        self._verify_seat(seat)
        if source not in ("stock", "discard"):
            raise InvalidActionError(f"A draw is from 'stock' or 'discard', not {source!r}.")
        if self.phase is Phase.DISCARD:
            raise WrongPhaseError("You have already drawn: discard a card.")
        if source == "stock" and self.phase is Phase.OFFER:
            raise WrongPhaseError(
                "While the up-card is offered you may only take it or pass."
            )

    def verify_discard(self, card: Card, knock: bool = False, seat: int | None = None) -> None:
        """Raise unless discarding ``card`` (with a knock if asked) is allowed now (R5, R6)."""
        s = self._verify_seat(seat)
        if self.phase is not Phase.DISCARD:
            raise WrongPhaseError("Draw a card before you discard.")
        if not self._masks[s] & card.mask:
            raise CardNotInHandError(f"You do not hold {card}.")
        if card is self._taken:
            raise StraightBackError(STRAIGHT_BACK)
        if knock:
            dw = self._discard_table()[card.index]
            if dw > self.knock_limit:
                if self.knock_limit == 0:
                    raise KnockNotAllowedError(
                        f"You cannot knock: this hand allows gin only, and discarding {card} "
                        f"leaves {dw} deadwood."
                    )
                raise KnockNotAllowedError(
                    f"You cannot knock: discarding {card} leaves {dw} deadwood, "
                    f"more than the knock limit of {self.knock_limit}."
                )

    def verify(self, action: Action, seat: int | None = None) -> None:
        """Raise the reason ``action`` is not allowed now, or return if it is."""
        if action.act == "pass":
            self.verify_pass(seat)
        elif action.act == "draw":
            self.verify_draw(action.source or "", seat)
        elif action.act == "discard" and action.card is not None:
            self.verify_discard(action.card, action.knock, seat)
        else:
            raise IllegalActionError(f"Unknown action {action.act!r}.")

    def can_play(self, action: Action, seat: int | None = None) -> bool:
        """Whether ``action`` is allowed now."""
        try:
            self.verify(action, seat)
        except IllegalActionError:
            return False
        return True

    def can_pass(self, seat: int | None = None) -> bool:
        """Whether passing on the up-card is allowed now."""
        return self.can_play(PASS, seat)

    def can_draw(self, source: str, seat: int | None = None) -> bool:
        """Whether drawing from ``source`` is allowed now."""
        try:
            self.verify_draw(source, seat)
        except IllegalActionError:
            return False
        return True

    def can_discard(self, card: Card, knock: bool = False, seat: int | None = None) -> bool:
        """Whether discarding ``card`` (knocking if asked) is allowed now."""
        try:
            self.verify_discard(card, knock, seat)
        except IllegalActionError:
            return False
        return True

    def can_knock(self, seat: int | None = None) -> bool:
        """Whether some discard now would allow a knock (R6)."""
        try:
            self._verify_seat(seat)
        except IllegalActionError:
            return False
        return bool(self.knock_discards())

    # ------------------------------------------------------------------ actions

    def pass_(self, seat: int | None = None) -> Operation:
        """Pass on the up-card (R4)."""
        self.verify_pass(seat)
        return self._apply(PASS)

    def draw(self, source: str, seat: int | None = None) -> Operation:
        """Draw from ``"stock"`` or ``"discard"`` (R5; taking the up-card is a discard draw)."""
        self.verify_draw(source, seat)
        return self._apply(DRAW_STOCK if source == "stock" else DRAW_DISCARD)

    def discard(self, card: Card | str, knock: bool = False, seat: int | None = None) -> Operation:
        """Discard a card, optionally knocking with it (R5, R6)."""
        c = card if isinstance(card, Card) else Card.parse(card)
        self.verify_discard(c, knock, seat)
        return self._apply(Action.discard(c, knock))

    def play(self, action: Action, seat: int | None = None) -> Operation:
        """Verify and apply any action; returns the recorded operation."""
        if self._legal is not None and (seat is None or seat == self.to_play) \
                and action in self._legal:
            return self._apply(action)  # fast path: already known legal
        self.verify(action, seat)
        return self._apply(action)

    def _apply(self, action: Action) -> Operation:
        seat = self.to_play
        assert seat is not None
        self._legal = None
        kind = action.act
        if kind is ActionKind.PASS:
            op = _PLAIN_OPS[seat][0]
            if seat == self.dealer:
                self.to_play = 1 - self.dealer  # R4.3: non-dealer opens
                self.phase = Phase.DRAW
            else:
                self.to_play = self.dealer
        elif kind is ActionKind.DRAW:
            if action is DRAW_STOCK:
                card = self._stock.pop()
                self._taken = None
                op = _STOCK_OPS[seat][card.index]
            else:
                card = self.discards.pop()
                self._taken = card
                op = _PILE_OPS[seat][card.index]
            self._masks[seat] |= card.mask
            self._by_discard = None
            self.phase = Phase.DISCARD
        else:
            out_card = action.card
            assert out_card is not None
            card = out_card
            self._masks[seat] &= ~card.mask
            self.discards.append(card)
            self._taken = None
            self._by_discard = None
            op = _PLAIN_OPS[seat][action.code]
            if action.knock:
                sd = showdown_mask(self._masks[seat], self._masks[1 - seat])
                self._finish(_score(seat, sd))
            elif len(self._stock) <= 2:
                self._finish(HandResult(HandEnd.DEAD))  # R7
            else:
                self.to_play = 1 - seat
                self.phase = Phase.DRAW
        self.history.append(op)
        s0, s1 = self._seen
        if action is DRAW_STOCK:
            hidden = _HIDDEN_STOCK_DRAW[seat]
            s0.append(op if seat == 0 else hidden)
            s1.append(op if seat == 1 else hidden)
        else:
            s0.append(op)
            s1.append(op)
        return op

    def _finish(self, result: HandResult) -> None:
        self.result = result
        self.phase = Phase.OVER
        self.to_play = None

    # ------------------------------------------------------------------ views

    def view(self, seat: int) -> View:
        """What ``seat`` may see now (R11); both hands only after a knock reveals them."""
        if seat not in (0, 1):
            raise ValueError(f"A seat is 0 or 1, not {seat!r}.")
        revealed = None
        result = self.result
        if result is not None and result.result is not HandEnd.DEAD:
            revealed = (tuple(self.cards_of(0)), tuple(self.cards_of(1)))
        self._views_out = True
        to_play = self.to_play
        return _new_tuple(View, (
            seat, self.dealer, self.hand_index, self.scores, self.options, self.knock_limit,
            self.phase, to_play, CardSet._of(self._masks[seat]), self.deal.upcard,
            tuple(self.discards), len(self._stock),
            History(self._seen[seat], len(self.history)),
            self.legal_actions() if to_play == seat else (), result, revealed,
        ))
