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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import islice
from typing import Any, NamedTuple

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

__all__ = [
    "Action",
    "ActionKind",
    "DrawSource",
    "HandEnd",
    "InvalidActionError",
    "CardNotInHandError",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "Deal",
    "DealError",
    "Hand",
    "HandOverError",
    "HandResult",
    "History",
    "IllegalActionError",
    "KnockNotAllowedError",
    "NotYourTurnError",
    "Operation",
    "PASS",
    "Phase",
    "StraightBackError",
    "View",
    "ViewError",
    "WrongPhaseError",
]

STRAIGHT_BACK = "You cannot put that straight back."


# ----------------------------------------------------------------------------- errors


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the message is the sentence a player sees."""


class InvalidActionError(IllegalActionError):
    """An action that is malformed whatever the position (a syntax error: an unknown kind,
    a draw from nowhere, a discard with no card), as opposed to a well-formed action the
    rules refuse now. It subclasses :class:`IllegalActionError` so that code catching
    that keeps catching both; catch this one first to tell them apart."""


class NotYourTurnError(IllegalActionError):
    """The action came from the seat that is not to play."""


class WrongPhaseError(IllegalActionError):
    """The action does not fit the phase (e.g. a discard before drawing)."""


class CardNotInHandError(IllegalActionError):
    """A discard of a card the player does not hold."""


class StraightBackError(IllegalActionError):
    """R5: discarding the card just taken from the discard pile."""


class KnockNotAllowedError(IllegalActionError):
    """R6: a knock with more deadwood than the knock limit."""


class HandOverError(IllegalActionError):
    """An action after the hand has ended."""


class DealError(ValueError):
    """A deal that is not exactly 10 + 10 + 1 + 31 distinct cards."""


class ViewError(ValueError):
    """A view (or hand result) in JSON form that cannot be read: every malformed input
    raises this, never ``KeyError`` or ``TypeError``."""


# ----------------------------------------------------------------------------- actions


class Phase(StrEnum):
    """Where a hand stands: the up-card offer (R4), drawing, discarding, or over."""

    OFFER = "offer"
    DRAW = "draw"
    DISCARD = "discard"
    OVER = "over"

    def __str__(self) -> str:
        return self.value


class ActionKind(StrEnum):
    """What an action does (R4, R5): pass on the up-card, draw, or discard."""

    PASS = "pass"
    DRAW = "draw"
    DISCARD = "discard"

    def __str__(self) -> str:
        return self.value


class DrawSource(StrEnum):
    """Where a draw comes from: the stock or the discard pile (R5)."""

    STOCK = "stock"
    DISCARD = "discard"

    def __str__(self) -> str:
        return self.value


class HandEnd(StrEnum):
    """How a hand ended (R7, R9)."""

    KNOCK = "knock"
    GIN = "gin"
    UNDERCUT = "undercut"
    DEAD = "dead"

    def __str__(self) -> str:
        return self.value


class Action:
    """A player's move: ``pass``, ``draw`` from ``stock``/``discard``, or ``discard`` a card.

    The kinds and sources are enums that compare equal to their strings. An impossible
    combination is refused when built, with :class:`InvalidActionError`. There are 107
    actions and each exists once (``Action("pass") is PASS``), so actions compare and hash
    by identity, as fast as ints.

    >>> Action.from_json({"act": "discard", "card": "10h"})
    Action(act='discard', card=Card.parse('TH'), knock=False)
    >>> str(Action.parse("discard kh knock"))
    'discard KH knock'
    >>> Action("draw", "stock") is DRAW_STOCK, DRAW_STOCK.act == "draw"
    (True, True)
    >>> Action("discard")
    Traceback (most recent call last):
    ...
    ginrummy.hand.InvalidActionError: A discard needs a card.
    """

    __slots__ = ("act", "source", "card", "knock", "code")
    act: ActionKind
    source: DrawSource | None
    card: Card | None
    knock: bool
    code: int
    """A small int naming the action: 0 pass, 1 draw from the stock, 2 draw from the
    discard pile, ``3 + 2 * card.index + knock`` for a discard."""

    def __new__(cls, act: ActionKind | str, source: DrawSource | str | None = None,
                card: Card | None = None, knock: bool = False) -> Action:
        try:
            kind = ActionKind(act)
        except (ValueError, TypeError):
            raise InvalidActionError(
                f"Unknown action {act!r}: use 'pass', 'draw' or 'discard'.") from None
        src = None
        if kind is ActionKind.DRAW:
            try:
                src = DrawSource(source)  # type: ignore[arg-type]
            except (ValueError, TypeError):
                raise InvalidActionError(
                    f"A draw is from 'stock' or 'discard', not {source!r}.") from None
        elif source is not None:
            raise InvalidActionError(f"Only a draw has a source, not a {kind}.")
        if kind is ActionKind.DISCARD:
            if not isinstance(card, Card):
                raise InvalidActionError("A discard needs a card.")
        elif card is not None:
            raise InvalidActionError(f"Only a discard names a card, not a {kind}.")
        if not isinstance(knock, bool):
            raise InvalidActionError("'knock' must be true or false.")
        if knock and kind is not ActionKind.DISCARD:
            raise InvalidActionError("Only a discard can knock.")
        if kind is ActionKind.PASS:
            code = 0
        elif kind is ActionKind.DRAW:
            code = 1 if src is DrawSource.STOCK else 2
        else:
            assert card is not None
            code = 3 + 2 * card.index + knock
        if _ALL_ACTIONS:
            return _ALL_ACTIONS[code]
        self = object.__new__(cls)  # only while the 107 actions are being built
        for name, value in (("act", kind), ("source", src), ("card", card), ("knock", knock),
                            ("code", code)):
            object.__setattr__(self, name, value)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Action is immutable")

    def __reduce__(self) -> tuple[object, tuple[Any, ...]]:
        return (Action, (str(self.act), None if self.source is None else str(self.source),
                         self.card, self.knock))

    def __copy__(self) -> Action:
        return self

    def __deepcopy__(self, memo: Any) -> Action:
        return self

    @staticmethod
    def from_code(code: int) -> Action:
        """The action with the given :attr:`code` (0..106)."""
        if type(code) is not int or not 0 <= code < len(_ALL_ACTIONS):
            raise InvalidActionError(f"No action has the code {code!r}.")
        return _ALL_ACTIONS[code]

    @staticmethod
    def discard(card: Card | str, knock: bool = False) -> Action:
        """The (interned) discard action for a card."""
        c = card if isinstance(card, Card) else Card.parse(card)
        return _DISCARDS[c.index][1 if knock else 0]

    @staticmethod
    def draw(source: str) -> Action:
        """Draw from ``"stock"`` or ``"discard"``."""
        if source == "stock":
            return DRAW_STOCK
        if source == "discard":
            return DRAW_DISCARD
        raise InvalidActionError(f"A draw is from 'stock' or 'discard', not {source!r}.")

    def to_json(self) -> dict[str, Any]:
        """The record/protocol form, without ``seat``."""
        if self.act == "pass":
            return {"act": "pass"}
        if self.act == "draw":
            return {"act": "draw", "from": str(self.source)}
        assert self.card is not None
        return {"act": "discard", "card": str(self.card), "knock": self.knock}

    @staticmethod
    def from_json(obj: Any) -> Action:
        """Read an action object (record or protocol form); raises InvalidActionError."""
        if not isinstance(obj, Mapping):
            raise InvalidActionError("An action must be a JSON object.")
        act = obj.get("act")
        if act == "pass":
            return PASS
        if act == "draw":
            return Action.draw(obj.get("from"))  # type: ignore[arg-type]
        if act == "discard":
            card = obj.get("card")
            if not isinstance(card, str):
                raise InvalidActionError("A discard needs a 'card' such as 'KH'.")
            try:
                c = Card.parse(card)
            except CardError as e:
                raise InvalidActionError(str(e)) from None
            knock = obj.get("knock", False)
            if not isinstance(knock, bool):
                raise InvalidActionError("'knock' must be true or false.")
            return Action.discard(c, knock)
        raise InvalidActionError(f"Unknown action {act!r}: use 'pass', 'draw' or 'discard'.")

    @staticmethod
    def parse(text: str) -> Action:
        """Read the short form: ``pass``, ``draw stock|discard``, ``discard KH [knock]``;
        raises InvalidActionError."""
        if not isinstance(text, str):
            raise InvalidActionError(f"An action is text like 'discard KH', not {text!r}.")
        words = text.lower().split()
        if words == ["pass"]:
            return PASS
        if len(words) == 2 and words[0] == "draw":
            return Action.draw(words[1])
        if len(words) in (2, 3) and words[0] == "discard":
            if len(words) == 3 and words[2] != "knock":
                raise InvalidActionError(f"Cannot read action {text!r}.")
            try:
                return Action.discard(Card.parse(words[1]), len(words) == 3)
            except CardError as e:
                raise InvalidActionError(str(e)) from None
        raise InvalidActionError(
            f"Cannot read action {text!r}: try 'pass', 'draw stock', 'draw discard', "
            "'discard KH' or 'discard KH knock'."
        )

    def __str__(self) -> str:
        if self.act == "draw":
            return f"draw {self.source}"
        if self.act == "discard":
            return f"discard {self.card}" + (" knock" if self.knock else "")
        return self.act

    def __repr__(self) -> str:
        if self.act == "draw":
            return f"Action(act='draw', source='{self.source}')"
        if self.act == "discard":
            return f"Action(act='discard', card={self.card!r}, knock={self.knock})"
        return f"Action(act='{self.act}')"


_ALL_ACTIONS: list[Action] = []
_ALL_ACTIONS.extend(
    [Action(ActionKind.PASS), Action(ActionKind.DRAW, DrawSource.STOCK),
     Action(ActionKind.DRAW, DrawSource.DISCARD)]
    + [Action(ActionKind.DISCARD, None, c, k) for c in deck() for k in (False, True)]
)
PASS = _ALL_ACTIONS[0]
DRAW_STOCK = _ALL_ACTIONS[1]
DRAW_DISCARD = _ALL_ACTIONS[2]
_DISCARDS = [(_ALL_ACTIONS[3 + 2 * i], _ALL_ACTIONS[4 + 2 * i]) for i in range(52)]


class Operation(NamedTuple):
    """One applied action in a hand's history; ``card`` is the card drawn, if any (None
    for the opponent's stock draw in a seat's view, R11). A small immutable value."""

    seat: int
    action: Action
    card: Card | None = None

    def to_json(self, viewer: int | None = None) -> dict[str, Any]:
        """Record form (``viewer`` None) or a seat's view form (R11: stock draws by others
        carry no card; discard-pile draws always show theirs)."""
        d: dict[str, Any] = {"seat": self.seat, **self.action.to_json()}
        if viewer is not None and self.action.act == "draw" and self.card is not None and (
            self.action.source == "discard" or viewer == self.seat
        ):
            d["card"] = str(self.card)
        return d

    def redacted_for(self, viewer: int) -> Operation:
        """This operation as ``viewer`` may see it (R11): the card of the opponent's stock
        draw is hidden; everything else is public or the viewer's own."""
        if self.seat != viewer and self.card is not None and self.action.source == "stock":
            return _HIDDEN_STOCK_DRAW[self.seat]
        return self

    @staticmethod
    def from_json(obj: Any) -> Operation:
        """Read a record's or a view's history entry (``card`` on a draw is optional);
        raises :class:`IllegalActionError` for anything malformed."""
        if not isinstance(obj, Mapping):
            raise IllegalActionError("A history entry must be a JSON object.")
        seat = obj.get("seat")
        if seat not in (0, 1) or isinstance(seat, bool):
            raise IllegalActionError(f"A history entry's seat is 0 or 1, not {seat!r}.")
        action = Action.from_json(obj)
        card = None
        text = obj.get("card")
        if action.act == "draw" and text is not None:
            try:
                card = Card.parse(text)
            except CardError as e:
                raise IllegalActionError(str(e)) from None
        return Operation(seat, action, card)


_HIDDEN_STOCK_DRAW = (Operation(0, DRAW_STOCK), Operation(1, DRAW_STOCK))


class History(Sequence[Operation]):
    """A seat's view of a hand's history (R11): an immutable sequence of :class:`Operation`
    values in which the opponent's stock draws carry no card.

    Views share one append-only list per seat and each holds a prefix of it, so taking a
    view costs nothing per past action; it reads and compares like a tuple.

    >>> h = History([Operation(1, PASS)])
    >>> len(h), h[0].seat, h == (Operation(1, PASS),)
    (1, 1, True)
    """

    __slots__ = ("_ops", "_n")

    def __init__(self, ops: Sequence[Operation] = (), n: int | None = None) -> None:
        self._ops = ops
        self._n = len(ops) if n is None else n

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Operation]:
        if self._n == len(self._ops) and isinstance(self._ops, tuple):
            return iter(self._ops)
        return islice(self._ops, self._n)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self)[i]
        n = self._n
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("history index out of range")
        return self._ops[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (History, tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"History({list(self)!r})"

    def to_json(self, viewer: int | None = None) -> list[dict[str, Any]]:
        """The view's (or, with ``viewer`` None, the record's) JSON list of actions."""
        return [op.to_json(viewer) for op in self]


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


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended (R7, R9): ``knock``, ``gin``, ``undercut`` or ``dead`` (a
    :class:`HandEnd`, equal to those strings)."""

    result: HandEnd
    knocker: int | None = None
    scorer: int | None = None
    points: int = 0
    deadwood: tuple[int, int] | None = None
    showdown: Showdown | None = None
    laid_off: tuple[Card, ...] = ()
    """The laid-off cards when the result was read from JSON (no showdown to ask)."""

    @property
    def layoffs(self) -> tuple[Card, ...]:
        """The defender's cards laid off on the knocker's melds (R8)."""
        return self.showdown.laid_off if self.showdown else self.laid_off

    def to_json(self) -> dict[str, Any]:
        """The hand object of ``ginrummy replay --json`` (INTERFACES §3)."""
        return {
            "result": self.result.value,
            "knocker": self.knocker,
            "scorer": self.scorer,
            "points": self.points,
            "deadwood": list(self.deadwood) if self.deadwood else None,
            "layoffs": [str(c) for c in self.layoffs],
        }

    @classmethod
    def from_json(cls, obj: Any) -> HandResult:
        """Read the hand object of ``replay --json`` (as :meth:`to_json` writes it); the
        showdown's arrangements are not part of it. Raises :class:`ViewError`.

        >>> r = HandResult.from_json({"result": "knock", "knocker": 0, "scorer": 0,
        ...     "points": 9, "deadwood": [3, 12], "layoffs": ["8D"]})
        >>> r.points, r.layoffs
        (9, (Card.parse('8D'),))
        """
        if not isinstance(obj, Mapping):
            raise ViewError("A hand result must be a JSON object.")
        try:
            result = HandEnd(obj.get("result"))  # type: ignore[arg-type]
        except (ValueError, TypeError):
            raise ViewError(f"Unknown hand result {obj.get('result')!r}.") from None
        seats = []
        for key in ("knocker", "scorer"):
            v = obj.get(key)
            if v is not None and (v not in (0, 1) or isinstance(v, bool)):
                raise ViewError(f"The result's {key!r} must be 0, 1 or null, not {v!r}.")
            seats.append(v)
        points = obj.get("points", 0)
        if type(points) is not int or points < 0:
            raise ViewError(f"The result's points must be a whole number, not {points!r}.")
        dw = obj.get("deadwood")
        deadwood = None
        if dw is not None:
            if not (isinstance(dw, list) and len(dw) == 2
                    and all(type(x) is int and x >= 0 for x in dw)):
                raise ViewError("The result's deadwood must be two whole numbers or null.")
            deadwood = (dw[0], dw[1])
        lay = obj.get("layoffs", [])
        if not isinstance(lay, list):
            raise ViewError("The result's layoffs must be a list of cards.")
        try:
            laid_off = tuple(parse_cards(lay))
        except CardError as e:
            raise ViewError(str(e)) from None
        if (result is HandEnd.DEAD) != (seats[0] is None):
            raise ViewError("A dead hand has no knocker; any other result has one.")
        return cls(result, seats[0], seats[1], points, deadwood, None, laid_off)


def _score(knocker: int, sd: Showdown) -> HandResult:
    """R9: exactly one player scores a knocked hand."""
    defender = 1 - knocker
    dw = [0, 0]
    dw[knocker], dw[defender] = sd.knocker_deadwood, sd.defender_deadwood
    if sd.gin:
        return HandResult(HandEnd.GIN, knocker, knocker, sd.defender_deadwood + 25,
                          (dw[0], dw[1]), sd)
    if sd.defender_deadwood <= sd.knocker_deadwood:
        pts = sd.knocker_deadwood - sd.defender_deadwood + 25
        return HandResult(HandEnd.UNDERCUT, knocker, defender, pts, (dw[0], dw[1]), sd)
    pts = sd.defender_deadwood - sd.knocker_deadwood
    return HandResult(HandEnd.KNOCK, knocker, knocker, pts, (dw[0], dw[1]), sd)


# ----------------------------------------------------------------------------- the view


class View(NamedTuple):
    """What one seat may see (R11), nothing more: built by copying allowed facts only.

    ``revealed`` holds both hands once a knock has shown them, otherwise None. A view is
    an immutable named tuple (cheap to build: one per decision); ``view._replace(...)``
    gives a changed copy.
    """

    seat: int
    dealer: int
    hand_index: int
    scores: tuple[int, int]
    options: Options
    knock_limit: int
    phase: Phase
    to_play: int | None
    hand: CardSet
    upcard: Card
    discards: tuple[Card, ...]
    stock_count: int
    history: History
    legal: tuple[Action, ...] = ()
    result: HandResult | None = None
    revealed: tuple[tuple[Card, ...], tuple[Card, ...]] | None = None

    @property
    def is_my_turn(self) -> bool:
        """Whether this seat is to act."""
        return self.to_play == self.seat

    @property
    def opponent_took(self) -> tuple[Card, ...]:
        """Cards the opponent took from the discard pile this hand (public, R11)."""
        me = self.seat
        return tuple(op.card for op in self.history
                     if op.seat != me and op.action.source == "discard" and op.card is not None)

    @property
    def opponent_passed(self) -> tuple[Card, ...]:
        """The up-card, if the opponent passed on it in the offer (R11)."""
        return tuple(self.upcard for op in self.history
                     if op.seat != self.seat and op.action.act == "pass")

    @property
    def opponent_discarded(self) -> tuple[Card, ...]:
        """Cards the opponent discarded this hand, in order."""
        me = self.seat
        return tuple(op.action.card for op in self.history
                     if op.seat != me and op.action.card is not None)

    def to_json(self) -> dict[str, Any]:
        """The VIEW object of the bot protocol (INTERFACES §5), plus ``to_play``."""
        d: dict[str, Any] = {
            "seat": self.seat,
            "dealer": self.dealer,
            "hand_index": self.hand_index,
            "scores": list(self.scores),
            "options": self.options.to_json(),
            "knock_limit": self.knock_limit,
            "phase": self.phase.value,
            "to_play": self.to_play,
            "hand": [str(c) for c in self.hand],
            "upcard": str(self.upcard),
            "discards": [str(c) for c in self.discards],
            "stock_count": self.stock_count,
            "history": self.history.to_json(self.seat),
        }
        if self.result is not None:
            d["result"] = self.result.to_json()
        if self.revealed is not None:
            d["revealed"] = [[str(c) for c in h] for h in self.revealed]
        return d

    @classmethod
    def from_json(cls, obj: Any, legal: Sequence[Any] = ()) -> View:
        """Rebuild a view from its protocol form (for bots run as external programs),
        including the result and both hands after a knock; ``view.to_json()`` reads back.

        Any malformed input raises :class:`ViewError` (a ``ValueError``) naming the field.
        """
        if not isinstance(obj, Mapping):
            raise ViewError("A view must be a JSON object.")

        def get(key: str, default: Any = _MISSING) -> Any:
            if key in obj:
                return obj[key]
            if default is _MISSING:
                raise ViewError(f"The view has no {key!r}.")
            return default

        def whole(key: str, default: Any = _MISSING, lo: int = 0, hi: int | None = None) -> int:
            v = get(key, default)
            if type(v) is not int or v < lo or (hi is not None and v > hi):
                raise ViewError(f"The view's {key!r} must be a whole number, not {v!r}.")
            return v

        def cards(key: str, value: Any) -> tuple[Card, ...]:
            if not isinstance(value, list):
                raise ViewError(f"The view's {key!r} must be a list of cards.")
            try:
                return tuple(parse_cards(value))
            except CardError as e:
                raise ViewError(f"The view's {key!r}: {e}") from None

        try:
            phase = Phase(get("phase"))
        except (ValueError, TypeError):
            raise ViewError(f"Unknown phase {obj.get('phase')!r}.") from None
        seat = whole("seat", hi=1)
        to_play = get("to_play", seat if phase is not Phase.OVER else None)
        if to_play is not None and (to_play not in (0, 1) or isinstance(to_play, bool)):
            raise ViewError(f"The view's 'to_play' must be 0, 1 or null, not {to_play!r}.")
        scores = get("scores")
        if not (isinstance(scores, list) and len(scores) == 2
                and all(type(x) is int for x in scores)):
            raise ViewError("The view's 'scores' must be two whole numbers.")
        try:
            options = Options.from_json(get("options", None))
        except ValueError as e:
            raise ViewError(str(e)) from None
        try:
            upcard = Card.parse(get("upcard"))
        except CardError as e:
            raise ViewError(f"The view's 'upcard': {e}") from None
        raw_history = get("history", [])
        if not isinstance(raw_history, list):
            raise ViewError("The view's 'history' must be a list of actions.")
        try:
            history = tuple(Operation.from_json(h) for h in raw_history)
        except IllegalActionError as e:
            raise ViewError(f"The view's 'history': {e}") from None
        try:
            actions = tuple(a if isinstance(a, Action) else Action.from_json(a) for a in legal)
        except IllegalActionError as e:
            raise ViewError(f"The legal actions: {e}") from None
        except TypeError:
            raise ViewError("The legal actions must be a list of actions.") from None
        result = None
        if get("result", None) is not None:
            result = HandResult.from_json(obj["result"])
        revealed = None
        shown = get("revealed", None)
        if shown is not None:
            if not (isinstance(shown, list) and len(shown) == 2):
                raise ViewError("The view's 'revealed' must be two lists of cards.")
            revealed = (cards("revealed", shown[0]), cards("revealed", shown[1]))
        return cls(
            seat=seat,
            dealer=whole("dealer", hi=1),
            hand_index=whole("hand_index", 0),
            scores=(scores[0], scores[1]),
            options=options,
            knock_limit=whole("knock_limit", hi=10),
            phase=phase,
            to_play=to_play,
            hand=CardSet(cards("hand", get("hand"))),
            upcard=upcard,
            discards=cards("discards", get("discards")),
            stock_count=whole("stock_count", hi=31),
            history=History(history),
            legal=actions,
            result=result,
            revealed=revealed,
        )


_MISSING: Any = object()
_new_view = tuple.__new__


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
        # what _apply changed beyond the cards, one entry per history entry (for pop)
        self._undo: list[tuple[Any, ...]] = []

    def copy(self) -> Hand:
        """An independent copy of this position: playing on one never changes the other
        (the deal, the options and finished results are immutable and shared)."""
        twin = object.__new__(Hand)
        twin.__dict__.update(self.__dict__)
        twin._masks = list(self._masks)
        twin._stock = list(self._stock)
        twin.discards = list(self.discards)
        twin.history = list(self.history)
        twin._undo = list(self._undo)
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
        op = self.history.pop()
        (self.to_play, self.phase, self._taken, self._by_discard, self._legal,
         self.result) = self._undo.pop()
        seat = op.seat
        action = op.action
        if action.act == "draw":
            card = op.card
            assert card is not None
            self._masks[seat] &= ~card.mask
            if action.source == "stock":
                self._stock.append(card)
            else:
                self.discards.append(card)
        elif action.act == "discard":
            card = self.discards.pop()
            self._masks[seat] |= card.mask
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
                while m:
                    low = m & -m
                    i = low.bit_length() - 1
                    m ^= low
                    if i != taken:
                        out.append(_DISCARDS[i][0])
                self._legal = legal = tuple(out)
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
        self._undo.append(
            (seat, self.phase, self._taken, self._by_discard, self._legal, self.result))
        self._legal = None
        if action.act == "pass":
            op = Operation(seat, action)
            if seat == self.dealer:
                self.to_play = 1 - self.dealer  # R4.3: non-dealer opens
                self.phase = Phase.DRAW
            else:
                self.to_play = self.dealer
        elif action.act == "draw":
            card = self._stock.pop() if action.source == "stock" else self.discards.pop()
            self._taken = card if action.source == "discard" else None
            self._masks[seat] |= card.mask
            self._by_discard = None
            self.phase = Phase.DISCARD
            op = Operation(seat, action, card)
        else:
            out_card = action.card
            assert out_card is not None
            card = out_card
            self._masks[seat] &= ~card.mask
            self.discards.append(card)
            self._taken = None
            self._by_discard = None
            op = Operation(seat, action)
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
        return _new_view(View, (
            seat, self.dealer, self.hand_index, self.scores, self.options, self.knock_limit,
            self.phase, to_play, CardSet._of(self._masks[seat]), self.deal.upcard,
            tuple(self.discards), len(self._stock),
            History(self._seen[seat], len(self.history)),
            self.legal_actions() if to_play == seat else (), result, revealed,
        ))
