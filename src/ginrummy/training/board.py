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
from ..i18n import t
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
            raise PositionError(t("The position needs {field} (a list of cards or one "
                                  "string).", field=repr(key)))
        return ()
    value = obj[key]
    if not isinstance(value, (str, list)):
        raise PositionError(t("{field} must be a list of cards or one string of cards.",
                              field=repr(key)))
    try:
        return tuple(parse_cards(value, allow_duplicates=True))
    except CardError as e:
        raise PositionError(t("In {field}: {error}", field=repr(key), error=str(e))) from None


def _whole(obj: Mapping[str, Any], key: str, lo: int, hi: int, default: int = 0) -> int:
    value = obj.get(key, default)
    if type(value) is not int or not lo <= value <= hi:
        raise PositionError(t("{field} must be a whole number from {low} to {high}, not "
                              "{value}.", field=repr(key), low=str(lo), high=str(hi),
                              value=repr(value)))
    return value


def _card(raw: Any) -> Card | None:
    """The ``upcard`` (None when absent)."""
    if raw is None:
        return None
    try:
        return Card.parse(raw)
    except CardError as e:
        raise PositionError(t("In {field}: {error}", field="'upcard'", error=str(e))) from None


def _history(raw: Any) -> tuple[Operation, ...] | None:
    """A view's ``history`` list read back (None when absent)."""
    if raw is None:
        return None
    try:
        if isinstance(raw, list):
            return tuple(Operation.from_json(h) for h in raw)
    except IllegalActionError as e:
        raise PositionError(t("In {field}: {error}", field="'history'", error=str(e))) \
            from None
    raise PositionError(t("'history' must be a list of actions (a view's history)."))


def read_board(obj: Any) -> Board:
    """The typed facts of a position object; :class:`PositionError` for a missing, unknown
    or malformed field (checks of the facts against each other come after)."""
    if not isinstance(obj, Mapping):
        raise PositionError(t("A position must be a JSON object."))
    unknown = sorted(set(obj) - set(FIELDS) - set(EXTRA_FIELDS))
    if unknown:
        raise PositionError(t("Unknown field {field}: a position has {fields}.",
                              field=repr(unknown[0]), fields=", ".join(FIELDS)))
    for key in ("hand", "stock", "to_play"):
        if key not in obj:
            raise PositionError(t("The position needs {field}.", field=repr(key)))
    to_play = obj["to_play"]
    if to_play not in ("draw", "discard"):
        raise PositionError(t("'to_play' is \"draw\" or \"discard\", not {value}.",
                              value=repr(to_play)))
    scores = obj.get("scores", [0, 0])
    if not (isinstance(scores, list) and len(scores) == 2
            and all(type(x) is int and x >= 0 for x in scores)):
        raise PositionError(t("'scores' must be two whole numbers (seat 0's, seat 1's)."))
    try:
        options = Options.from_json(obj.get("options"))
    except OptionsError as e:
        raise PositionError(str(e)) from None
    for s in scores:
        if s >= options.target:
            raise PositionError(t("A score of {score} has already reached the target "
                                  "{target}: the match would be over.", score=str(s),
                                  target=str(options.target)))
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


def _twice(cards: Sequence[Card]) -> Card | None:
    """The first card found twice in ``cards``, if any."""
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            return c
        seen.add(c)
    return None


def check_board(b: Board) -> None:
    """The checks a player can read (one sentence, naming the card): cards in two places,
    wrong counts, a pile that cannot follow the opponent's last discard."""
    want = 11 if b.to_play == "discard" else 10
    if len(b.hand) != want:
        if b.to_play == "discard":
            raise PositionError(t("To discard you hold {want} cards, not {count}.",
                                  want=str(want), count=str(len(b.hand))))
        raise PositionError(t("To draw you hold {want} cards, not {count}.", want=str(want),
                              count=str(len(b.hand))))
    twice = _twice(b.hand)
    if twice is not None:
        raise PositionError(t("The card {card} is in your hand twice.", card=str(twice)))
    twice = _twice(b.pile)
    if twice is not None:
        raise PositionError(t("The card {card} is in the pile twice.", card=str(twice)))
    hand, pile = set(b.hand), set(b.pile)
    for c in b.pile:
        if c in hand:
            raise PositionError(t("The card {card} is both in your hand and on the pile.",
                                  card=str(c)))
    total = len(b.hand) + len(b.pile) + b.stock + 10
    if total != 52:
        raise PositionError(t(
            "The position accounts for {total} cards (your {hand}, the pile's {pile}, the "
            "stock's {stock} and the opponent's 10), not 52.", total=str(total),
            hand=str(len(b.hand)), pile=str(len(b.pile)), stock=str(b.stock)))
    low = 2 if b.to_play == "discard" else 3
    if b.stock < low:
        if b.to_play == "discard":
            raise PositionError(t("A hand in play has at least {low} stock cards at your "
                                  "discard (R7: two left after a discard end it), not "
                                  "{stock}.", low=str(low), stock=str(b.stock)))
        raise PositionError(t("A hand in play has at least {low} stock cards at your draw "
                              "(R7: two left after a discard end it), not {stock}.",
                              low=str(low), stock=str(b.stock)))
    if len(b.passed) > 1:
        raise PositionError(t("The opponent can pass only on the up-card: 'opponent_passed' "
                              "holds one card at most, not {count}.",
                              count=str(len(b.passed))))
    thrown = set(b.discarded)
    held = [c for c in b.took if c not in thrown]
    for c in held:
        if c in hand:
            raise PositionError(t("The opponent took {card} from the pile and has not thrown "
                                  "it back, so it cannot be in your hand.", card=str(c)))
        if c in pile:
            raise PositionError(t("The opponent took {card} from the pile and has not thrown "
                                  "it back, so it cannot be on the pile.", card=str(c)))
    if len(set(held)) > 10:
        raise PositionError(t("The opponent cannot hold more than 10 cards taken from the "
                              "pile."))
    for c in b.discarded:
        if c not in pile and c not in hand and c not in b.took:
            raise PositionError(t("The opponent threw {card}, so it must be on the pile, in "
                                  "your hand or taken back by them.", card=str(c)))
    for c in b.passed:
        if b.upcard is not None and c != b.upcard:
            raise PositionError(t("The opponent can pass only on the up-card {upcard}, not "
                                  "{card}.", upcard=str(b.upcard), card=str(c)))
    if b.discarded:
        last = b.discarded[-1]
        if b.to_play == "draw" and (not b.pile or b.pile[-1] != last):
            if b.pile:
                raise PositionError(t("At your draw the top of the pile is the opponent's "
                                      "last discard, {card}, not {top}.", card=str(last),
                                      top=str(b.pile[-1])))
            raise PositionError(t("At your draw the top of the pile is the opponent's last "
                                  "discard, {card}, and the pile is empty.", card=str(last)))
        if b.to_play == "discard" and last not in hand and (not b.pile or b.pile[-1] != last):
            raise PositionError(t("The opponent's last discard, {card}, must be on top of "
                                  "the pile, or in your hand if you just took it.",
                                  card=str(last)))
