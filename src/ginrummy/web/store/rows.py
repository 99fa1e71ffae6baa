"""The rows of a match as the web layer handles them: the match, its actions, and one
accepted change to store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...fairness import DEAL_SCHEME

__all__ = ["NO_TOKEN", "Change", "SomeStale", "StoredAction", "StoredMatch", "ready_text"]

NO_TOKEN = ""
"""The token hash of a seat nobody holds yet (a friend's seat before the invite is used):
no SHA-256 digest equals it, so no token opens that seat."""

class SomeStale(Exception):
    """A bulk commit bumped fewer rows than it had changes: roll back and go one by one."""


@dataclass(frozen=True, slots=True)
class StoredAction:
    """One stored action: its place in the match, the hand, the seat and the action JSON."""

    seq: int
    hand: int
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One accepted change of a match: the version it was based on, the action (if any)
    and the match's new summary fields (built by keyword: many are alike)."""

    match_id: str
    expected_version: int
    action: StoredAction | None = None
    status: str
    joined: bool
    hands_dealt: int
    ready: tuple[bool, ...]
    scores: tuple[int, ...]
    winner: int | None
    to_play: int | None
    token_hash1: str | None = None
    """Set only when the friend takes seat 1: the new token's hash (stored only if the
    seat is still free)."""
    joined_at: float | None = None
    """With ``token_hash1``: when the seat was claimed (Unix seconds)."""
    players: tuple[str, str] | None = None
    """Set only when a player is (re)named: both names."""
    banks: tuple[float, float] | None = None
    """What is left of each seat's time bank (None: the table has no clock)."""
    deadline: float | None = None
    """When the decision now awaited runs out (Unix seconds; None: none is timed)."""
    end_reason: str | None = None
    """The record's ``end`` once the match is over (else None)."""
    ended_by: int | None = None
    """The seat that resigned or lost on time (else None)."""


@dataclass(slots=True)
class StoredMatch:
    """A match row as stored (and, when loaded with :meth:`Store.load`, its actions)."""

    id: str
    token_hash0: str
    token_hash1: str
    options: dict[str, Any]
    players: list[str]
    seed: int
    first_dealer: int
    opponent: str
    bot_level: str | None
    bot_name: str | None
    version: int = 0
    status: str = "playing"
    joined: bool = True
    hands_dealt: int = 1
    ready: list[bool] = field(default_factory=lambda: [False, False])
    scores: list[int] = field(default_factory=lambda: [0, 0])
    winner: int | None = None
    to_play: int | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    invite_hash: str | None = None
    joined_at: float | None = None
    """When the friend's seat was claimed (Unix seconds), else None."""
    deal_scheme: str = DEAL_SCHEME
    """How the seed deals (:data:`ginrummy.fairness.DEAL_SCHEMES`); matches stored before
    the scheme was recorded read as ``python-random/1``, the scheme they were dealt with."""
    clock_move: int | None = None
    """Seconds each decision gets (None: no clock at this table)."""
    clock_bank: int | None = None
    """Seconds each seat's bank starts with (None: no clock)."""
    banks: list[float] | None = None
    """What is left of each seat's bank (None: no clock)."""
    deadline: float | None = None
    """When the awaited decision runs out (Unix seconds), None when nothing is timed."""
    end_reason: str | None = None
    """The record's ``end`` once the match is over."""
    ended_by: int | None = None
    """The seat that resigned or ran out of time."""
    bot_seats: tuple[bool, bool] = (False, False)
    """Which seats BOT accounts or programs play (every page marks their names BOT)."""
    no_coach: bool = False
    """A rated, arena or daily match: no hints, and its review opens only once it is over
    (:mod:`ginrummy.web.online.coaching`)."""
    actions: list[StoredAction] = field(default_factory=list)

    def token_hash(self, seat: int) -> str:
        """The stored token hash of ``seat``."""
        return self.token_hash0 if seat == 0 else self.token_hash1


def ready_text(ready: Sequence[bool]) -> str:
    return "".join("1" if r else "0" for r in ready)
