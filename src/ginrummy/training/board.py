"""The facts of an analysis-board position (docs/training.md, "The analysis board";
INTERFACES section 12): read from JSON and checked against each other, each refusal one
sentence naming the card at fault (:class:`PositionError`).

The facts::

    {"hand": CARDS, "pile": CARDS (bottom first), "opponent_took": CARDS,
     "opponent_discarded": CARDS, "opponent_passed": CARDS, "stock": N,
     "to_play": "draw" | "discard", "scores": [A, B], "options": {...},
     "seat": 0, "dealer": 0 | 1, "upcard": CARD, "history": [...]}

CARDS is a list of cards or one string (``"7C 8C 9C"``). ``opponent_took`` and
``opponent_discarded`` are in the order they happened (as :attr:`View.opponent_took` and
:attr:`View.opponent_discarded` list them); ``opponent_passed`` is the up-card if the
opponent passed on it (R4, :attr:`View.opponent_passed`), else empty. ``seat`` (default
0) is the deciding seat and ``scores`` are by seat. ``dealer``, ``upcard`` and
``history`` are optional (:mod:`.reach` says what they settle).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import IllegalActionError, Operation
from ..cards import Card, CardError, parse_cards
from ..options import Options, OptionsError

__all__ = ["EXTRA_FIELDS", "FIELDS", "Board", "PositionError", "check_board", "read_board"]

FIELDS = ("hand", "pile", "opponent_took", "opponent_discarded", "opponent_passed", "stock",
          "to_play", "scores", "options", "seat", "dealer", "upcard", "history")
"""The facts of a position; ``seed`` and ``samples`` ride along for the evaluator."""
EXTRA_FIELDS = ("seed", "samples")

class PositionError(ValueError):
    """A position that cannot be read or that no hand can reach; the message is one
    sentence, naming the card where one is at fault."""


@dataclass(frozen=True)
class Board:
    """The facts of a position, read and typed (see the module docstring)."""

    seat: int
    dealer: int | None
    hand: tuple[Card, ...]
    pile: tuple[Card, ...]
    took: tuple[Card, ...]
    discarded: tuple[Card, ...]
    passed: tuple[Card, ...]
    stock: int
    to_play: str
    scores: tuple[int, int]
    options: Options
    upcard: Card | None
    history: tuple[Operation, ...] | None = None
    """The hand's actions as the seat saw them (a view's ``history``), when given: they
    fix the order of events that the lists leave open (which turn a take was on)."""


# ----------------------------------------------------------------------------- reading

def _cards(obj: Mapping[str, Any], key: str, required: bool = False) -> tuple[Card, ...]:
    if key not in obj:
        if required:
            raise PositionError(f"The position needs {key!r} (a list of cards or one string).")
        return ()
    value = obj[key]
    if not isinstance(value, (str, list)):
        raise PositionError(f"{key!r} must be a list of cards or one string of cards.")
    try:
        return tuple(parse_cards(value, allow_duplicates=True))
    except CardError as e:
        raise PositionError(f"In {key!r}: {e}") from None


def _whole(obj: Mapping[str, Any], key: str, lo: int, hi: int, default: int = 0) -> int:
    value = obj.get(key, default)
    if type(value) is not int or not lo <= value <= hi:
        raise PositionError(f"{key!r} must be a whole number from {lo} to {hi}, not {value!r}.")
    return value


def _card(raw: Any) -> Card | None:
    """The ``upcard`` (None when absent)."""
    if raw is None:
        return None
    try:
        return Card.parse(raw)
    except CardError as e:
        raise PositionError(f"In 'upcard': {e}") from None


def _history(raw: Any) -> tuple[Operation, ...] | None:
    """A view's ``history`` list read back (None when absent)."""
    if raw is None:
        return None
    try:
        if isinstance(raw, list):
            return tuple(Operation.from_json(h) for h in raw)
    except IllegalActionError as e:
        raise PositionError(f"In 'history': {e}") from None
    raise PositionError("'history' must be a list of actions (a view's history).")


def read_board(obj: Any) -> Board:
    """The typed facts of a position object; :class:`PositionError` for a missing, unknown
    or malformed field (checks of the facts against each other come after)."""
    if not isinstance(obj, Mapping):
        raise PositionError("A position must be a JSON object.")
    unknown = sorted(set(obj) - set(FIELDS) - set(EXTRA_FIELDS))
    if unknown:
        raise PositionError(f"Unknown field {unknown[0]!r}: a position has "
                            f"{', '.join(FIELDS)}.")
    for key in ("hand", "stock", "to_play"):
        if key not in obj:
            raise PositionError(f"The position needs {key!r}.")
    to_play = obj["to_play"]
    if to_play not in ("draw", "discard"):
        raise PositionError(f"'to_play' is \"draw\" or \"discard\", not {to_play!r}.")
    scores = obj.get("scores", [0, 0])
    if not (isinstance(scores, list) and len(scores) == 2
            and all(type(x) is int and x >= 0 for x in scores)):
        raise PositionError("'scores' must be two whole numbers (seat 0's, seat 1's).")
    try:
        options = Options.from_json(obj.get("options"))
    except OptionsError as e:
        raise PositionError(str(e)) from None
    for s in scores:
        if s >= options.target:
            raise PositionError(f"A score of {s} has already reached the target "
                                f"{options.target}: the match would be over.")
    return Board(
        seat=_whole(obj, "seat", 0, 1, 0),
        dealer=_whole(obj, "dealer", 0, 1) if obj.get("dealer") is not None else None,
        hand=_cards(obj, "hand", required=True),
        pile=_cards(obj, "pile"),
        took=_cards(obj, "opponent_took"),
        discarded=_cards(obj, "opponent_discarded"),
        passed=_cards(obj, "opponent_passed"),
        stock=_whole(obj, "stock", 0, 31),
        to_play=to_play,
        scores=(scores[0], scores[1]),
        options=options,
        upcard=_card(obj.get("upcard")),
        history=_history(obj.get("history")),
    )


def _twice(cards: Sequence[Card], where: str) -> None:
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise PositionError(f"The card {c} is in {where} twice.")
        seen.add(c)


def check_board(b: Board) -> None:
    """The checks a player can read (one sentence, naming the card): cards in two places,
    wrong counts, a pile that cannot follow the opponent's last discard."""
    want = 11 if b.to_play == "discard" else 10
    if len(b.hand) != want:
        raise PositionError(f"To {b.to_play} you hold {want} cards, not {len(b.hand)}.")
    _twice(b.hand, "your hand")
    _twice(b.pile, "the pile")
    hand, pile = set(b.hand), set(b.pile)
    for c in b.pile:
        if c in hand:
            raise PositionError(f"The card {c} is both in your hand and on the pile.")
    total = len(b.hand) + len(b.pile) + b.stock + 10
    if total != 52:
        raise PositionError(
            f"The position accounts for {total} cards (your {len(b.hand)}, the pile's "
            f"{len(b.pile)}, the stock's {b.stock} and the opponent's 10), not 52.")
    low = 2 if b.to_play == "discard" else 3
    if b.stock < low:
        raise PositionError(f"A hand in play has at least {low} stock cards at your "
                            f"{b.to_play} (R7: two left after a discard end it), not "
                            f"{b.stock}.")
    if len(b.passed) > 1:
        raise PositionError("The opponent can pass only on the up-card: 'opponent_passed' "
                            f"holds one card at most, not {len(b.passed)}.")
    thrown = set(b.discarded)
    held = [c for c in b.took if c not in thrown]
    for c in held:
        for where, cards in (("in your hand", hand), ("on the pile", pile)):
            if c in cards:
                raise PositionError(f"The opponent took {c} from the pile and has not "
                                    f"thrown it back, so it cannot be {where}.")
    if len(set(held)) > 10:
        raise PositionError("The opponent cannot hold more than 10 cards taken from the pile.")
    for c in b.discarded:
        if c not in pile and c not in hand and c not in b.took:
            raise PositionError(f"The opponent threw {c}, so it must be on the pile, in "
                                "your hand or taken back by them.")
    for c in b.passed:
        if b.upcard is not None and c != b.upcard:
            raise PositionError(f"The opponent can pass only on the up-card "
                                f"{b.upcard}, not {c}.")
    if b.discarded:
        last = b.discarded[-1]
        if b.to_play == "draw" and (not b.pile or b.pile[-1] != last):
            top = f", not {b.pile[-1]}" if b.pile else ", and the pile is empty"
            raise PositionError(f"At your draw the top of the pile is the opponent's last "
                                f"discard, {last}{top}.")
        if b.to_play == "discard" and last not in hand and (not b.pile or b.pile[-1] != last):
            raise PositionError(f"The opponent's last discard, {last}, must be on top of the "
                                "pile, or in your hand if you just took it.")
