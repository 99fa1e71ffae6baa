"""The vocabulary of a hand (R4-R7): phases, actions, how hands end, applied operations,
and the errors an action can meet.

Every one of the 107 actions exists once (``Action("pass") is PASS``) and so does every
operation a hand can record, so the hot loops of play allocate nothing for them.

>>> Action.parse("discard kh knock") is Action.discard("KH", knock=True)
True
>>> [str(a) for a in (PASS, DRAW_STOCK, DRAW_DISCARD)]
['pass', 'draw stock', 'draw discard']
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NamedTuple

from .cards import Card, CardError, deck

__all__ = [
    "Action",
    "ActionKind",
    "CardNotInHandError",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "DrawSource",
    "HandEnd",
    "HandOverError",
    "IllegalActionError",
    "InvalidActionError",
    "KnockNotAllowedError",
    "NotYourTurnError",
    "Operation",
    "PASS",
    "Phase",
    "STRAIGHT_BACK",
    "StraightBackError",
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
    ginrummy.actions.InvalidActionError: A discard needs a card.
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
        return self.act.value

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
_new_tuple = tuple.__new__

# Every operation exists once, like every action: no allocation as a hand is played.
_PLAIN_OPS = tuple(tuple(_new_tuple(Operation, (seat, a, None)) for a in _ALL_ACTIONS)
                   for seat in (0, 1))
_STOCK_OPS = tuple(tuple(_new_tuple(Operation, (seat, DRAW_STOCK, c)) for c in deck())
                   for seat in (0, 1))
_PILE_OPS = tuple(tuple(_new_tuple(Operation, (seat, DRAW_DISCARD, c)) for c in deck())
                  for seat in (0, 1))

# _SUIT_DISCARDS[s][x]: the discards (without knock) of the cards of suit s in the 13-bit
# rank mask x, filled on first use.
_SUIT_DISCARDS: list[list[tuple[Action, ...] | None]] = [[None] * 8192 for _ in range(4)]


def _suit_discards(suit: int, x: int) -> tuple[Action, ...]:
    t = _SUIT_DISCARDS[suit][x]
    if t is None:
        t = _SUIT_DISCARDS[suit][x] = tuple(
            _DISCARDS[13 * suit + r][0] for r in range(13) if x >> r & 1)
    return t


def _plain_discards(m: int) -> tuple[Action, ...]:
    """The discards without knock of every card in mask ``m``, in card order."""
    sd = _SUIT_DISCARDS
    x0, x1, x2, x3 = m & 0x1FFF, m >> 13 & 0x1FFF, m >> 26 & 0x1FFF, m >> 39
    return ((sd[0][x0] or _suit_discards(0, x0)) + (sd[1][x1] or _suit_discards(1, x1))
            + (sd[2][x2] or _suit_discards(2, x2)) + (sd[3][x3] or _suit_discards(3, x3)))


