"""One table session: a match in memory, its seats' WebSockets, and how it is rebuilt.

A :class:`Table` is one match rebuilt from the database (deals derived from the secret
seed, actions replayed); :func:`catch_up` brings it forward in place when another process
has stored changes (only the new actions are read and played). :class:`Subscriber` is one
seat's WebSocket with its own send queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bots import Bot
from ..hand import Action, Deal
from ..match import Match
from ..options import Options
from .store import StoredAction, StoredMatch

__all__ = [
    "Subscriber",
    "Table",
    "TableError",
    "build_match",
    "catch_up",
    "deal_for",
    "dumps",
    "secret_seed",
]

_orjson: Any
try:
    import orjson as _orjson
except ImportError:  # optional: only faster
    _orjson = None


class TableError(Exception):
    """A refused request: the HTTP status and the sentence the player sees; 409 refusals
    may carry the seat's current STATE so the page can catch up."""

    def __init__(self, status: int, message: str, state: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.state = state
        self.extra: dict[str, Any] = {}
        """More members of the error body (e.g. ``claimed_at``)."""

    def to_json(self) -> dict[str, Any]:
        """The HTTP error body."""
        d: dict[str, Any] = {"error": self.message, **self.extra}
        if self.state is not None:
            d["state"] = self.state
        return d


def dumps(obj: Any) -> str:
    """JSON text of a message: with orjson when it is installed (several times faster on
    the STATE pushed to both seats after every action), else the standard library."""
    if _orjson is not None:
        return str(_orjson.dumps(obj).decode())
    return json.dumps(obj, separators=(",", ":"))


def deal_for(seed: int, hand_index: int) -> Deal:
    """The deal of hand ``hand_index``: a pure function of the match's secret seed, so a
    restart (or a replay) deals exactly the same cards."""
    return Deal.shuffled(random.Random(f"{seed}:{hand_index}"))


class Subscriber:
    """One WebSocket of one seat: messages queue up and a writer task sends them in order,
    so a slow browser never holds up the table."""

    QUEUE = 256

    def __init__(self, seat: int, send_text: Callable[[str], Any]) -> None:
        self.seat = seat
        self._send_text = send_text
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(self.QUEUE)
        self.closed = False

    def push(self, message: dict[str, Any]) -> None:
        """Queue a message; a browser too far behind is dropped (it reconnects and gets
        the current state)."""
        if not self.closed:
            self.push_text(dumps(message))

    def push_text(self, text: str) -> None:
        """Queue an already encoded message (one encoding serves every socket of a seat)."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        """Stop sending (the writer task ends after what is queued)."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)

    async def run(self) -> None:
        """Send queued messages until closed or the socket fails."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await self._send_text(text)
            except Exception:  # noqa: BLE001 - a dead socket just ends this writer
                self.closed = True
                return


@dataclass(eq=False)
class Table:
    """One match in memory: its stored row, the rebuilt :class:`Match`, the lock that
    orders every change, the seats' WebSockets and the computer player."""

    stored: StoredMatch
    match: Match
    next_seq: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    bot: Bot | None = None
    bot_name: str = ""
    """The registered bot that plays the computer's seat (see :func:`resolve_bot`)."""
    bot_seat: int | None = None
    bot_task: asyncio.Task[None] | None = None
    base_version: int = 0
    """Oldest version an action may be based on: the last change to the game itself (a
    friend joining changes no cards, so it does not make a move stale)."""
    hand_end_version: int | None = None
    """While between hands: the version at which the hand ended; a ``next`` based on any
    later version is still good (both players may press it at once)."""
    state_cache: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """Each seat's last STATE with the version it shows (see :meth:`Service.state`)."""
    last_used: float = field(default_factory=time.monotonic)
    """When a request last used this table (monotonic seconds): idle tables are evicted
    from memory and rebuilt from the database on their next use."""

    @property
    def id(self) -> str:
        """The match id."""
        return self.stored.id


def secret_seed() -> tuple[int, int]:
    """A new match's secret seed and first dealer, from the system's secure randomness."""
    return secrets.randbits(62), secrets.randbelow(2)


def build_match(sm: StoredMatch) -> Match:
    """Replay a stored match: deal each hand from the seed and play its stored actions
    under the rules (so a damaged row is caught, not trusted)."""
    m = Match(
        Options.from_json(sm.options),
        seed=sm.seed,
        first_dealer=sm.first_dealer,
        players=(sm.players[0], sm.players[1]),
        auto_deal=False,
    )
    by_hand: dict[int, list[StoredAction]] = {}
    for a in sm.actions:
        by_hand.setdefault(a.hand, []).append(a)
    for i in range(sm.hands_dealt):
        m.start_hand(deal_for(sm.seed, i))
        for a in by_hand.get(i, []):
            m.play(Action.from_json(a.action), a.seat)
    return m




def catch_up(t: Table, sm: StoredMatch) -> bool:
    """Bring ``t`` forward in place to the stored ``sm`` (whose ``actions`` are only those
    from ``t.next_seq`` on): deal the hands dealt since and play the new actions under the
    rules. Returns whether the game itself changed (new action or deal). Raises ValueError
    (or the rules' errors) when the rows do not continue this table: rebuild it then."""
    m = t.match
    changed = False
    for a in sm.actions:
        if a.seq != t.next_seq:
            raise ValueError(f"action {a.seq} does not follow {t.next_seq}")
        while len(m.hands) <= a.hand:
            m.start_hand(deal_for(sm.seed, len(m.hands)))
        m.play(Action.from_json(a.action), a.seat)
        t.next_seq += 1
        changed = True
    while len(m.hands) < sm.hands_dealt:
        m.start_hand(deal_for(sm.seed, len(m.hands)))
        changed = True
    if len(m.hands) != sm.hands_dealt:
        raise ValueError("more hands in memory than stored")
    sm.actions = []  # played into the match; not kept twice
    m.players = (sm.players[0], sm.players[1])  # a friend may have been renamed
    t.stored = sm
    t.state_cache.clear()
    return changed
