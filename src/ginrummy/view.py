"""What one seat may see of a hand (R11): its :class:`View`, the redacted
:class:`History` of the hand, and the :class:`HandResult` once it ends; with the JSON forms
the bot protocol uses, read back strictly (:class:`ViewError`, never a ``KeyError``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, NamedTuple

from .actions import (
    Action,
    HandEnd,
    IllegalActionError,
    Operation,
    Phase,
)
from .cards import Card, CardError, CardSet, format_cards, parse_cards
from .melds import Showdown
from .options import Options
from .scoring import GIN_BONUS, UNDERCUT_BONUS

__all__ = ["HandResult", "History", "View", "ViewError"]


class ViewError(ValueError):
    """A view (or hand result) in JSON form that cannot be read: every malformed input
    raises this, never ``KeyError`` or ``TypeError``."""



class History(Sequence[Operation]):
    """A seat's view of a hand's history (R11): an immutable sequence of :class:`Operation`
    values in which the opponent's stock draws carry no card.

    Views share one append-only list per seat and each holds a prefix of it, so taking a
    view costs nothing per past action; it reads and compares like a tuple.

    >>> from ginrummy.actions import PASS
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
        """The hand object of ``ginrummy replay --json`` (docs/records.md)."""
        return {
            "result": self.result.value,
            "knocker": self.knocker,
            "scorer": self.scorer,
            "points": self.points,
            "deadwood": list(self.deadwood) if self.deadwood else None,
            "layoffs": [str(c) for c in self.layoffs],
        }

    def describe(self, names: Sequence[str] = ("Seat 0", "Seat 1"),
                 symbols: bool = False) -> list[str]:
        """How the hand ended, as the text faces narrate it: the showdown (when known)
        and who scores what (R7-R9), one line each. ``names`` are the seats' names.

        >>> HandResult(HandEnd.DEAD).describe()
        ['Two cards left in the stock: a dead hand. Nobody scores.']
        >>> HandResult.from_json({"result": "undercut", "knocker": 0, "scorer": 1,
        ...     "points": 27, "deadwood": [8, 6], "layoffs": []}).describe(["Ann", "Bob"])
        ['Ann knocks with 8 deadwood; Bob has 6.', 'Undercut: Bob scores 27 (25 + 8 - 6).']
        """
        if self.result is HandEnd.DEAD or self.knocker is None:
            return ["Two cards left in the stock: a dead hand. Nobody scores."]
        k, d = self.knocker, 1 - self.knocker
        lines = []
        if self.showdown is not None:
            lines += self.showdown.describe(names[k], names[d], symbols)
        elif self.deadwood is not None:
            verb = "goes gin" if self.result is HandEnd.GIN else \
                f"knocks with {self.deadwood[k]} deadwood"
            lay = f" after laying off {format_cards(self.layoffs, symbols)}" \
                if self.layoffs else ""
            lines.append(f"{names[k]} {verb}; {names[d]} has {self.deadwood[d]}{lay}.")
        scorer = names[self.scorer] if self.scorer is not None else "nobody"
        how = ""
        if self.deadwood is not None:
            kd, dd = self.deadwood[k], self.deadwood[d]
            how = {HandEnd.GIN: f" ({GIN_BONUS} + {dd})",
                   HandEnd.UNDERCUT: f" ({UNDERCUT_BONUS} + {kd} - {dd})",
                   HandEnd.KNOCK: f" ({dd} - {kd})"}[self.result]
        what = {HandEnd.KNOCK: "Knock", HandEnd.GIN: "Gin", HandEnd.UNDERCUT: "Undercut"}
        lines.append(f"{what[self.result]}: {scorer} scores {self.points}{how}.")
        return lines

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
        """The VIEW object of the bot protocol (docs/protocol.md), plus ``to_play``."""
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


