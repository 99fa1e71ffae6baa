"""The turn clock's arithmetic: the table option, what a change does to the banks and the
deadline, and the STATE's ``clock`` member. Pure functions of the stored row and the match
(no I/O): the :class:`~.committer.Committer` applies them to every change it stores, and
:mod:`.clocks` enforces the deadlines they set.

A timed table gives each decision (a pass at the up-card offer, a draw, a discard)
``move`` seconds; past them the seat's bank drains; when the bank is empty too, the
decision is out of time and the table plays the safe move for the seat (:mod:`.clocks`).
The deadline of the decision awaited is ``start + move + bank``: a seat that plays at
``now`` keeps ``min(bank, deadline - now)`` of its bank (so time within ``move`` costs the
bank nothing). Between hands, both seats get ``move`` seconds to press "Next hand" (no
bank used, not a timeout): then the next hand is dealt anyway; STATE shows that moment as
``hand_over.deal_at``, and ``clock.deadline`` is null then (nobody is to play). The
computer's seat is timed like a person's (it moves well within any clock; should its
driver stall past the deadline, the table plays the safe move for it too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...i18n import t
from ...match import Match

__all__ = ["MAX_BANK", "MAX_MOVE", "MIN_MOVE", "ClockSettings", "clock_json", "deal_at",
           "next_clock", "parse_clock", "settings_of"]

MIN_MOVE = 1
MAX_MOVE = 600
"""A decision gets 1 to 600 seconds."""
MAX_BANK = 3600
"""A bank holds 0 to 3,600 seconds."""


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """A table's clock: seconds per decision and seconds in each seat's bank."""

    move: int
    bank: int

    def to_json(self) -> dict[str, int]:
        return {"move": self.move, "bank": self.bank}


def parse_clock(obj: Any) -> ClockSettings | None:
    """The ``clock`` table option: absent or null for none, else ``{"move": SECONDS,
    "bank": SECONDS}`` (whole seconds; move 1-600, bank 0-3600, bank optional: 0).
    Raises ValueError with one sentence for the player."""
    if obj is None:
        return None
    if not isinstance(obj, Mapping):
        raise ValueError(t('The clock must be an object like {"move": 20, "bank": 120} '
                           "(or null for none)."))
    unknown = set(obj) - {"move", "bank"}
    if unknown:
        raise ValueError(t("Unknown clock field {field}: a clock has 'move' and 'bank'.",
                           field=repr(sorted(unknown)[0])))
    if "move" not in obj:
        raise ValueError(t("The clock needs 'move': the seconds each decision gets."))
    move, bank = obj["move"], obj.get("bank", 0)
    for name, value, lo, hi in (("move", move, MIN_MOVE, MAX_MOVE),
                                ("bank", bank, 0, MAX_BANK)):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(t("The clock's {name} must be a whole number of seconds from "
                               "{least} to {most}, not {value}.", name=repr(name),
                               least=str(lo), most=str(hi), value=repr(value)))
    return ClockSettings(move, bank)


def next_clock(settings: ClockSettings | None, banks: list[float] | None,
               deadline: float | None, waited_for: int | None, m: Match, playing: bool,
               restart: bool, acted: int | None, timeout: bool,
               now: float) -> tuple[tuple[float, float] | None, float | None]:
    """The banks and the deadline after a change.

    ``waited_for``: the seat whose decision the old deadline timed (None between hands or
    when nothing was timed); ``acted``: the seat that just made a decision (None for a
    change that is no decision: a deal, a join, a name); ``timeout``: that decision was
    played by the table because the seat's time was out (its bank is then spent);
    ``restart``: the awaited decision changed (an action, a deal, the match starting or
    ending), so a new deadline is set, else the old one stands."""
    if settings is None:
        return None, None
    b = [float(x) for x in banks] if banks is not None else [float(settings.bank)] * 2
    if acted is not None and waited_for == acted and deadline is not None:
        b[acted] = 0.0 if timeout else max(0.0, min(b[acted], deadline - now))
    elif acted is not None and timeout:
        b[acted] = 0.0
    out = (round(b[0], 3), round(b[1], 3))
    if not restart:
        return out, deadline
    if not playing or m.is_over():
        return out, None
    if m.awaiting_deal():
        return out, now + settings.move
    seat = m.to_play
    if seat is None:
        return out, None
    return out, now + settings.move + out[seat]


def clock_json(settings: ClockSettings | None, banks: list[float] | None,
               deadline: float | None, m: Match) -> dict[str, Any] | None:
    """STATE's ``clock``: ``{"move", "bank": [S0, S1], "deadline", "timeouts": [T0, T1]}``
    (``bank`` what is left of each seat's bank, ``deadline`` Unix seconds or null when
    nobody is to play: between hands too, where the stored deadline is when the next hand
    is dealt anyway, :func:`deal_at`; ``timeouts`` each seat's turns lost to the clock in
    a row); None for a table without a clock."""
    if settings is None:
        return None
    b = banks if banks is not None else [float(settings.bank)] * 2
    shown = deadline if m.to_play is not None and not m.is_over() else None
    return {"move": settings.move, "bank": [b[0], b[1]], "deadline": shown,
            "timeouts": list(m.timeouts)}


def deal_at(settings: ClockSettings | None, deadline: float | None, m: Match) -> float | None:
    """Between hands at a timed table: when the next hand is dealt without waiting for
    "Next hand" (STATE's ``hand_over.deal_at``); else None."""
    if settings is None or m.is_over() or not m.awaiting_deal():
        return None
    return deadline


def settings_of(move: int | None, bank: int | None) -> ClockSettings | None:
    """A stored table's clock (None when it has none)."""
    if move is None:
        return None
    return ClockSettings(int(move), int(bank or 0))
