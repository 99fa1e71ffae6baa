"""The seats' live connections: each WebSocket's send queue, the pushes of every table,
heartbeats, and the caps on open sockets (per seat and per address, across processes).

A socket is never left silent and open. Every push carries the table's version; a socket
that has been sent nothing for :attr:`SocketHub.heartbeat_seconds` gets a beat
``{"type": "beat", "version": V}`` (a page that sees a version it has not shown asks for
the state, and one that hears nothing for a while reconnects). A socket that cannot be
kept in step (its queue overflowed, its table was dropped) is closed with a code and a
reason, so the page reconnects and shows the latest state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ... import i18n
from ...i18n import N_, language, using
from ..backends.broker import Broker
from ..errors import TableError
from ..guard import Limits, close_reason
from .table import Table
from .views import dumps, state_text

__all__ = ["LOGGED_OUT", "LOGGED_OUT_CODE", "SocketHub", "Subscriber"]

log = logging.getLogger("ginrummy.web")

RECONNECT = 1012
"""Close code: reconnect (the page does, and gets the current state)."""
LOGGED_OUT_CODE = 4401
LOGGED_OUT = N_("You were logged out: log in again to play this seat.")
"""Why a socket authenticated by a session that ended is closed."""


TOO_FAR_BEHIND = N_("Too far behind: reconnect for the current state.")
RELOADED = N_("The table was reloaded: reconnect.")
"""Why the sockets of a table dropped from memory are closed."""


class Subscriber:
    """One WebSocket of one seat: messages queue up and a writer task sends them in order,
    so a slow browser never holds up the table; closing it closes the socket itself, with
    a code and a reason (said in the socket's language), at once."""

    QUEUE = 256

    def __init__(self, match_id: str, seat: int, address: str,
                 send_text: Callable[[str], Awaitable[Any]],
                 close_socket: Callable[[int, str], Awaitable[Any]]) -> None:
        self.id = secrets.token_hex(8)
        self.match_id = match_id
        self.seat = seat
        self.address = address
        self._send_text = send_text
        self._close_socket = close_socket
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(self.QUEUE)
        self.closed = False
        self.ended = asyncio.Event()
        """Set when the socket is closed (by the server or by a failed send)."""
        self.close_code = RECONNECT
        self.close_reason = ""
        self.version = -1
        """The table version this socket was last sent."""
        self.last_sent = time.monotonic()
        """When a message was last queued for this socket (monotonic seconds)."""
        self.token_id: str | None = None
        """The API token this socket authenticated with, if any (closed when it is
        revoked)."""
        self.account: str | None = None
        """The account whose session authenticated this socket (None: a seat token)."""
        self.session: str | None = None
        """That session's token hash: the socket lives only as long as the session."""
        self.lang = language()
        """The language of the request that opened the socket: its close reasons and the
        sentences pushed to it are said in it."""

    def push(self, message: dict[str, Any]) -> None:
        """Queue a message (encoded here)."""
        if not self.closed:
            self.push_text(dumps(message))

    def push_text(self, text: str, version: int | None = None) -> None:
        """Queue an already encoded message (one encoding serves every socket of a seat); a
        browser too far behind is closed (it reconnects and gets the current state)."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close(RECONNECT, TOO_FAR_BEHIND)
            return
        self.last_sent = time.monotonic()
        if version is not None:
            self.version = version

    def close(self, code: int = RECONNECT, reason: str = "") -> None:
        """Stop sending; the writer sends what is queued, then closes the socket with
        ``code`` and ``reason`` (an English sentence marked with ``N_``, said in the
        socket's language then, or one already said in it)."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.close_reason = reason
            self.ended.set()
            if self.queue.full():  # too far behind: what is queued no longer matters
                while not self.queue.empty():
                    self.queue.get_nowait()
            self.queue.put_nowait(None)

    async def run(self) -> None:
        """Send queued messages until closed (then close the socket) or the socket fails."""
        while True:
            text = await self.queue.get()
            if text is None:
                with using(self.lang):
                    reason = close_reason(i18n.t(self.close_reason))
                with contextlib.suppress(Exception):
                    await self._close_socket(self.close_code, reason)
                return
            try:
                await self._send_text(text)
            except Exception:  # noqa: BLE001 - a dead socket just ends this writer
                self.closed = True
                self.ended.set()
                return


class SocketHub:
    """Every open socket of this process, by match; pushes, heartbeats and caps."""

    def __init__(self, limits: Limits, broker: Broker, paused: Callable[[], bool],
                 heartbeat_seconds: float = 15.0) -> None:
        self.limits = limits
        self.broker = broker
        self.paused = paused
        """Whether moves are paused (the database is away): pushes say so."""
        self.heartbeat_seconds = heartbeat_seconds
        self._by_match: dict[str, set[Subscriber]] = {}
        self._by_address: dict[str, int] = {}

    # ------------------------------------------------------------------ counting

    def open_at(self, match_id: str) -> list[Subscriber]:
        """The open sockets of a match."""
        return [s for s in self._by_match.get(match_id, ()) if not s.closed]

    def open_count(self) -> int:
        """How many sockets this process holds open (for ``/metrics``)."""
        return sum(len(subs) for subs in self._by_match.values())

    def has_open(self, match_id: str) -> bool:
        """Whether any socket of the match is open here."""
        return any(not s.closed for s in self._by_match.get(match_id, ()))

    def match_ids(self) -> list[str]:
        """The matches with sockets here."""
        return list(self._by_match)

    def address_count(self, address: str) -> int:
        """Open sockets of one client address here."""
        return self._by_address.get(address, 0)

    # ------------------------------------------------------------------ opening, closing

    async def admit(self, sub: Subscriber) -> None:
        """Count a new socket, or refuse it (429) when its seat or its address already
        has as many open as allowed, on this process or (with a shared broker) on all."""
        lim = self.limits
        here = sum(1 for s in self.open_at(sub.match_id) if s.seat == sub.seat)
        if here >= lim.max_sockets_per_seat or not await self._present(
                f"{sub.match_id}:{sub.seat}", sub.id, lim.max_sockets_per_seat):
            raise TableError(429, i18n.t("At most {n} open connections per seat: close "
                                         "another tab of this table first.",
                                         n=str(lim.max_sockets_per_seat)))
        if self.address_count(sub.address) >= lim.max_sockets_per_address or \
                not await self._present(f"addr:{sub.address}", sub.id,
                                        lim.max_sockets_per_address):
            await self._absent(f"{sub.match_id}:{sub.seat}", sub.id)
            raise TableError(429, i18n.t("At most {n} open connections from one address.",
                                         n=str(lim.max_sockets_per_address)))
        self._by_match.setdefault(sub.match_id, set()).add(sub)
        self._by_address[sub.address] = self._by_address.get(sub.address, 0) + 1

    async def _present(self, key: str, member: str, cap: int) -> bool:
        if not self.broker.distributed or not self.broker.healthy:
            return True  # counted in this process only meanwhile
        try:
            return await self.broker.presence_add(key, member, cap, self._presence_ttl())
        except Exception:  # noqa: BLE001 - broker away: this process's count holds
            return True

    async def _absent(self, key: str, member: str) -> None:
        if self.broker.distributed:
            with contextlib.suppress(Exception):
                await self.broker.presence_remove(key, member)

    def _presence_ttl(self) -> float:
        return max(3 * self.heartbeat_seconds, 10.0)

    async def remove(self, sub: Subscriber) -> None:
        """Forget a socket that closed."""
        sub.close()
        subs = self._by_match.get(sub.match_id)
        if subs is not None and sub in subs:
            subs.discard(sub)
            if not subs:
                del self._by_match[sub.match_id]
            n = self._by_address.get(sub.address, 1) - 1
            if n > 0:
                self._by_address[sub.address] = n
            else:
                self._by_address.pop(sub.address, None)
            await self._absent(f"{sub.match_id}:{sub.seat}", sub.id)
            await self._absent(f"addr:{sub.address}", sub.id)

    def close_sessions(self, account: str, session: str | None = None) -> int:
        """Close the sockets that ``account`` authenticated with a session (``session``:
        only that session's, by its token hash): it was logged out, and a socket opened
        before must not play on (4401, so the page asks who it is); how many."""
        closed = 0
        for subs in self._by_match.values():
            for s in subs:
                if not s.closed and s.account == account and s.session is not None and (
                        session is None or s.session == session):
                    s.close(LOGGED_OUT_CODE, LOGGED_OUT)
                    closed += 1
        return closed

    def close_match(self, match_id: str, reason: str) -> None:
        """Close every socket of a match (reconnect: its table is being dropped)."""
        for s in self.open_at(match_id):
            s.close(RECONNECT, reason)

    def token_ids(self) -> set[str]:
        """The API tokens open sockets here authenticated with."""
        return {s.token_id for subs in self._by_match.values() for s in subs
                if s.token_id is not None and not s.closed}

    def close_token(self, token_id: str, code: int, reason: str) -> int:
        """Close every socket that authenticated with this API token (it was revoked);
        how many."""
        n = 0
        for subs in self._by_match.values():
            for s in subs:
                if s.token_id == token_id and not s.closed:
                    s.close(code, reason)
                    n += 1
        return n

    def close_all(self, reason: str) -> None:
        """Close every socket (the server is stopping: the pages reconnect elsewhere)."""
        for subs in self._by_match.values():
            for s in subs:
                s.close(RECONNECT, reason)

    # ------------------------------------------------------------------ pushes

    def send_state(self, t: Table, sub: Subscriber, force: bool = False) -> None:
        """Push one socket its seat's current STATE, unless it was pushed this version
        already (``force``: even so, e.g. the page asked for it)."""
        if force or sub.version < t.version:
            sub.push_text(state_text(t, sub.seat, self.paused()), t.version)

    def broadcast(self, t: Table, force: bool = False) -> None:
        """Push each socket of ``t`` its seat's STATE (called after a change is stored,
        under the table lock, so every browser sees changes in order); sockets already
        shown this version get nothing unless ``force`` (e.g. moves paused or resumed)."""
        subs = self._by_match.get(t.id)
        if not subs:
            return
        paused = self.paused()
        version = t.version
        texts: dict[int, str] = {}
        for s in list(subs):
            if s.closed or (s.version >= version and not force):
                continue
            text = texts.get(s.seat)
            if text is None:
                text = texts[s.seat] = state_text(t, s.seat, paused)
            s.push_text(text, version)

    def broadcast_all(self, tables: Iterable[Table]) -> None:
        """Push every socket of these tables its STATE again (moves paused or resumed)."""
        for t in tables:
            self.broadcast(t, force=True)

    # ------------------------------------------------------------------ heartbeats

    async def heartbeat_forever(self, lookup: Callable[[str], Table | None]) -> None:
        """Every few seconds: beat the sockets sent nothing for a while (with their
        table's version), close those whose table is gone, and keep this process's
        sockets counted at the broker."""
        last_refresh = 0.0
        while True:
            await asyncio.sleep(min(self.heartbeat_seconds / 3, 5.0))
            try:
                now = time.monotonic()
                for mid in list(self._by_match):
                    t = lookup(mid)
                    for s in self.open_at(mid):
                        if t is None:
                            s.close(RECONNECT, RELOADED)
                        elif now - s.last_sent >= self.heartbeat_seconds:
                            s.push_text(dumps({"type": "beat", "version": t.version}))
                if self.broker.distributed and now - last_refresh >= self._presence_ttl() / 3:
                    last_refresh = now
                    await self._refresh_presence()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the heartbeat outlives any surprise
                log.exception("socket heartbeat failed")

    async def _refresh_presence(self) -> None:
        entries: list[tuple[str, str]] = []
        for subs in self._by_match.values():
            for s in subs:
                if not s.closed:
                    entries += [(f"{s.match_id}:{s.seat}", s.id), (f"addr:{s.address}", s.id)]
        with contextlib.suppress(Exception):  # broker away: counted here meanwhile
            await self.broker.presence_refresh(entries, self._presence_ttl())
