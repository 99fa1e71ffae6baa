"""The ``ginrummy/1`` game record (docs/records.md): write any match or prefix, read and
validate one by replaying it under the rules.

>>> from ginrummy.match import Match
>>> m = Match(seed=3)
>>> rec = m.to_record()
>>> rec["format"], len(rec["hands"])
('ginrummy/1', 1)
>>> Match.from_record(rec).hand.deal == m.hand.deal
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .cards import CardError
from .hand import Action, Deal, DealError, IllegalActionError
from .match import END_OF, Match, Termination
from .options import Options, OptionsError

__all__ = ["FORMAT", "RecordError", "match_from_record", "match_to_record", "replay", "loads"]

FORMAT = "ginrummy/1"


class RecordError(ValueError):
    """A record that is malformed or breaks the rules; says where (0-based indexes)."""

    def __init__(self, message: str, hand: int | None = None, action: int | None = None):
        super().__init__(message)
        self.message = message
        self.hand = hand
        self.action = action

    def to_json(self) -> dict[str, Any]:
        """The ``error`` member of ``replay --json`` (docs/records.md)."""
        return {"hand": self.hand, "action": self.action, "message": self.message}


def _is_seat(value: Any) -> bool:
    """Whether a JSON value is seat 0 or 1 (an integer, not a boolean or float)."""
    return type(value) is int and value in (0, 1)


def match_to_record(match: Match) -> dict[str, Any]:
    """The match so far as a record: every dealt hand with its deal and actions."""
    rec: dict[str, Any] = {
        "format": FORMAT,
        "options": match.options.to_json(),
    }
    if match.players is not None:
        rec["players"] = list(match.players)
    rec["seed"] = match.seed
    rec["hands"] = [
        {
            "dealer": h.dealer,
            "deal": h.deal.to_json(),
            "actions": [_action_json(match, i, j, op.to_json()) for j, op in enumerate(h.history)],
        }
        for i, h in enumerate(match.hands)
    ]
    outcome = match.outcome()
    if outcome is not None:
        rec["end"] = outcome.end
        if outcome.reason is Termination.RESIGNED:
            rec["resigned_by"] = outcome.by
    return rec


def _action_json(match: Match, hand: int, index: int, d: dict[str, Any]) -> dict[str, Any]:
    """A record's action, marked ``"timeout": true`` when it was played on timeout."""
    if match.timed_out(hand, index):
        d["timeout"] = True
    return d


_ENDS = {v: k for k, v in END_OF.items()}
"""The record's ``end`` values and the ending each names."""


def _apply_end(match: Match, record: Mapping[str, Any]) -> None:
    """Check the record's optional ``end`` against the replayed match, and apply the
    endings the actions cannot show (a resignation, an abort: where the record stops);
    raises RecordError. A record that stops before its match ended (a prefix) keeps the
    ``end`` of the whole match: only an ending the actions reach is checked."""
    end = record.get("end")
    if "resigned_by" in record and end != "resigned":
        raise RecordError("'resigned_by' belongs only to a record whose 'end' is resigned.")
    if end is None:
        return
    if end not in _ENDS:
        raise RecordError(f"'end' must be one of {', '.join(sorted(_ENDS))}, not {end!r}.")
    reason = _ENDS[end]
    if reason in (Termination.RESIGNED, Termination.ABORTED) and not match.is_over():
        if reason is Termination.RESIGNED:
            seat = record.get("resigned_by")
            if not _is_seat(seat):
                raise RecordError("A resigned match needs a 'resigned_by' of 0 or 1.")
            match.resign(0 if seat == 0 else 1)
        elif not match.can_abort():
            raise RecordError("The record says the match was aborted, but both players had "
                              "moved and the first hand's first discard was made.")
        else:
            match.abort()
        return
    outcome = match.outcome()
    if outcome is not None and outcome.reason is not reason:
        # (a match not over yet is a prefix of the one that ended so: nothing to check)
        raise RecordError(f"The record says the match ended by {end}, but it ended by "
                          f"{outcome.end}.")


def loads(text: str | bytes) -> Any:
    """Parse record JSON text, turning syntax errors into RecordError."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordError(f"The record is not valid JSON: {e}.") from None
    except RecursionError:
        raise RecordError("The record is not valid JSON: it is nested too deeply.") from None


def match_from_record(record: Any, _progress: list[Match] | None = None) -> Match:
    """Replay a record (dict or JSON text) into a :class:`Match`; raises RecordError.

    ``_progress`` (internal) receives the match as soon as it exists, so a caller can
    report the hands replayed before an error.
    """
    if isinstance(record, (str, bytes)):
        record = loads(record)
    if not isinstance(record, Mapping):
        raise RecordError("A record must be a JSON object.")
    if record.get("format") != FORMAT:
        raise RecordError(f"Not a {FORMAT} record: 'format' is {record.get('format')!r}.")
    # Members this version does not know are ignored: the format may gain optional ones.
    try:
        options = Options.from_json(record.get("options"))
    except OptionsError as e:
        raise RecordError(str(e)) from None
    players = record.get("players")
    if players is not None and not (
        isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)
    ):
        raise RecordError("'players' must be a list of two names.")
    seed = record.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError("'seed' must be an integer.")
    hands = record.get("hands")
    if not isinstance(hands, list):
        raise RecordError("A record needs a list of 'hands'.")
    first_dealer: Any = 0
    if hands:
        if not isinstance(hands[0], Mapping):
            raise RecordError("Each hand must be an object.", 0)
        first_dealer = hands[0].get("dealer")
        if not _is_seat(first_dealer):
            raise RecordError("Each hand needs a 'dealer' of 0 or 1.", 0)
    match = Match(
        options,
        seed=seed if seed is not None else 0,
        first_dealer=first_dealer,
        players=(players[0], players[1]) if players else None,
        auto_deal=False,
    )
    match.seed = seed
    if _progress is not None:
        _progress.append(match)
    for i, h in enumerate(hands):
        if not isinstance(h, Mapping):
            raise RecordError("Each hand must be an object.", i)
        if match.is_over():
            raise RecordError("The record goes on after the match has ended.", i)
        dealer = h.get("dealer")
        if not _is_seat(dealer):
            raise RecordError("Each hand needs a 'dealer' of 0 or 1.", i)
        try:
            deal = Deal.from_json(h.get("deal"))
        except (DealError, CardError) as e:
            raise RecordError(str(e), i) from None
        expected = match.next_dealer()
        if dealer != expected:
            raise RecordError(
                f"Seat {expected} deals hand {i} (R7, R10), not seat {dealer}.", i
            )
        hand = match.start_hand(deal, dealer)
        actions = h.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError("A hand's 'actions' must be a list.", i)
        for j, a in enumerate(actions):
            if not isinstance(a, Mapping):
                raise RecordError("Each action must be an object.", i, j)
            if hand.is_over():
                raise RecordError("The hand goes on after it has ended.", i, j)
            seat = a.get("seat")
            if not _is_seat(seat):
                raise RecordError("Each action needs a 'seat' of 0 or 1.", i, j)
            timeout = a.get("timeout", False)
            if not isinstance(timeout, bool):
                raise RecordError("'timeout' must be true or false.", i, j)
            try:
                action = Action.from_json(a)
                if action.act != "discard" and a.get("knock") is True:
                    raise IllegalActionError("Only a discard can carry a knock.")
                op = match.play(action, seat, timeout=timeout)
            except IllegalActionError as e:
                raise RecordError(str(e), i, j) from None
            if action.act == "draw" and "card" in a and a["card"] != str(op.card):
                # the card drawn is fixed by the deal; a record that says otherwise is wrong
                raise RecordError(
                    f"The record says {a['card']!r} was drawn, but the card drawn is {op.card}.",
                    i, j,
                )
        if i + 1 < len(hands) and not hand.is_over():
            raise RecordError("A later hand follows a hand that did not end.", i + 1)
    _apply_end(match, record)
    return match


def read_partial(record: Any) -> tuple[Match | None, RecordError | None]:
    """Replay as much of a record as is valid: the match so far and the error, if any.

    On error the match holds the hands replayed before it (None if the record's header
    is already wrong).
    """
    progress: list[Match] = []
    try:
        return match_from_record(record, progress), None
    except RecordError as e:
        return (progress[0] if progress else None), e


def replay(record: Any) -> tuple[dict[str, Any], RecordError | None]:
    """The ``ginrummy replay --json`` object for a record, and the error if it has one.

    On error the object covers the hands replayed up to it and carries ``error``.
    """
    match, error = read_partial(record)
    out: dict[str, Any] = summary(match)
    if error is not None:
        out["error"] = error.to_json()
    return out, error


def summary(match: Match | None) -> dict[str, Any]:
    """Hands, scores and the match result: the ``replay --json`` object (docs/records.md)."""
    if match is None:
        return {"hands": [], "scores": [0, 0], "finished": False, "winner": None}
    hands: list[dict[str, Any]] = []
    for h in match.hands:
        if h.result is None:
            hands.append({"result": None, "knocker": None, "scorer": None, "points": 0,
                          "deadwood": None, "layoffs": []})
        else:
            hands.append(h.result.to_json())
    out: dict[str, Any] = {
        "hands": hands,
        "scores": list(match.scores),
        "finished": match.is_over(),
        "winner": match.winner,
    }
    outcome = match.outcome()
    if outcome is not None:  # how it ended: only once it has (docs/records.md)
        out["end"] = outcome.end
        if outcome.by is not None:
            out["by"] = outcome.by
    return out
