"""The ``ginrummy/1`` game record (docs/records.md): read one as far as it is valid, and
report it (``ginrummy replay``). A :class:`~ginrummy.match.Match` writes and reads its own
record (:meth:`~ginrummy.match.Match.to_record`, :meth:`~ginrummy.match.Match.from_record`:
replaying it under the rules); this module builds on them.

>>> from ginrummy.match import Match
>>> m = Match(seed=3)
>>> rec = match_to_record(m)
>>> rec["format"], len(rec["hands"])
('ginrummy/1', 1)
>>> match_from_record(rec).hand.deal == m.hand.deal
True
"""

from __future__ import annotations

from typing import Any

from .match import FORMAT, Match, RecordError, loads

__all__ = ["FORMAT", "RecordError", "match_from_record", "match_to_record", "read_partial",
           "replay", "loads", "summary"]


def match_to_record(match: Match) -> dict[str, Any]:
    """The match so far as a record (:meth:`Match.to_record`)."""
    return match.to_record()


def match_from_record(record: Any, _progress: list[Match] | None = None) -> Match:
    """Replay a record (dict or JSON text) into a :class:`Match` (:meth:`Match.from_record`);
    raises RecordError."""
    return Match.from_record(record, _progress)


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
