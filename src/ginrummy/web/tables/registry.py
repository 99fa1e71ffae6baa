"""The tables in memory: loaded on first use, kept in step with the database, evicted idle.

The :class:`TableRegistry` holds one :class:`~.table.Table` per match in use. A table is
read from the database on its first request and kept in step with what other processes
store: their "changed" events (from the broker) make it read what is new and push its
seats; while the broker is away it polls the versions of the tables it holds instead
(every ``poll_seconds``), and a slow safety poll runs even when the broker is up, so a lost
event delays a table by seconds at most. When the database comes back after an outage,
every table catches up and every socket is pushed its seat's state again.

Tables nobody uses (no open socket, no change or computer move under way) leave memory
after a while and are rebuilt from the database, unchanged, on their next request.
Unfinished matches untouched for ``limits.abandoned_days`` are deleted.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from ... import i18n
from ...i18n import N_
from ...match import Match
from ..backends.broker import Broker
from ..backends.database import Database
from ..errors import TableError
from ..guard import Limits
from ..store import StoredMatch, hash_token
from .sockets import RELOADED, SocketHub
from .table import Table, build_match, catch_up

__all__ = ["TableRegistry"]

log = logging.getLogger("ginrummy.web")

GONE = N_("The match is gone.")
"""Why the sockets of a match no longer stored are closed."""

OnTable = Callable[[Table], None]
"""A listener told of a table that entered memory or moved on (the computer's turns)."""


class TableRegistry:
    """Every table of this process (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        hub: SocketHub,
        broker: Broker,
        limits: Limits,
        idle_seconds: float = 600.0,
        finished_idle_seconds: float = 60.0,
        sweep_seconds: float = 30.0,
        poll_seconds: float = 1.0,
        safety_poll_seconds: float = 15.0,
    ) -> None:
        self.db = db
        self.hub = hub
        self.broker = broker
        self.limits = limits
        self.idle_seconds = idle_seconds
        self.finished_idle_seconds = finished_idle_seconds
        self.sweep_seconds = sweep_seconds
        self.poll_seconds = poll_seconds
        self.safety_poll_seconds = safety_poll_seconds
        self.tables: dict[str, Table] = {}
        self.on_table: list[OnTable] = []
        """Told of each table that entered memory or moved on."""
        self._loading: dict[str, asyncio.Future[Table | None]] = {}
        self._missed: set[str] = set()
        """Tables changed elsewhere while this process was loading them: caught up after."""
        self._refreshing: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` in the background (kept until done, cancelled by :meth:`stop`)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def stop(self) -> None:
        """Cancel the background work."""
        for task in list(self._tasks):
            task.cancel()

    def _tell(self, t: Table) -> None:
        for cb in list(self.on_table):
            try:
                cb(t)
            except Exception:  # noqa: BLE001 - one listener never stops the others
                log.exception("table listener failed")

    # ------------------------------------------------------------------ lookup

    def peek(self, match_id: str) -> Table | None:
        """The table of ``match_id`` if it is in memory."""
        return self.tables.get(match_id)

    async def get(self, match_id: str) -> Table:
        """The table of ``match_id``, read and replayed on first use; 404 if there is no
        such match, 503 if it is not in memory and the database is away."""
        t = self.tables.get(match_id)
        if t is not None:
            t.last_used = time.monotonic()
            return t
        if len(match_id) > 64:
            raise _no_match(match_id[:64])
        fut = self._loading.get(match_id)
        if fut is None:
            self.make_room()
            fut = asyncio.get_running_loop().create_future()
            self._loading[match_id] = fut
            self._missed.discard(match_id)
            try:
                t = await self._load(match_id)
                fut.set_result(t)
                if t is not None and match_id in self._missed:
                    self._missed.discard(match_id)
                    self.changed_elsewhere(match_id, t.version + 1)
            except BaseException as e:
                fut.set_exception(e)
                fut.exception()  # retrieved: this caller raises it; waiters get it too
                raise
            finally:
                del self._loading[match_id]
        else:
            t = await asyncio.shield(fut)
        if t is None:
            raise _no_match(match_id)
        t.last_used = time.monotonic()
        self._tell(t)  # e.g. a computer turn left pending resumes
        return t

    def add(self, t: Table) -> None:
        """Hold a new match's table (just stored)."""
        t.read_at = time.monotonic()
        self.tables[t.id] = t
        self._tell(t)

    def make_room(self) -> None:
        """At the cap on tables in memory, evict every idle one; 503 if none is idle."""
        if len(self.tables) >= self.limits.max_tables:
            self.evict_idle(force=True)
            if len(self.tables) >= self.limits.max_tables:
                raise TableError(503, N_("The server is full: try again in a minute."))

    async def _load(self, match_id: str) -> Table | None:
        sm = await self.db.read(self.db.store.load, match_id)
        if sm is None:
            return None
        t = Table(sm, Match(), next_seq=0)
        self._fill(t, sm)
        self.tables[match_id] = t
        return t

    @staticmethod
    def _fill(t: Table, sm: StoredMatch) -> None:
        """Set ``t`` to the stored match ``sm`` (all its actions), replayed under the rules."""
        try:
            match = build_match(sm)
        except (ValueError, KeyError, TypeError) as e:
            log.error("Stored match %s cannot be replayed: %s", sm.id, e)
            raise _damaged(sm.id, e) from None
        t.stored = sm
        t.match = match
        t.next_seq = len(sm.actions)
        sm.actions = []  # played into the match; not kept twice
        t.base_version = sm.version
        t.read_at = time.monotonic()
        t.forget_views(history=True)
        t.bot = None  # the computer's turns attach a fresh one
        t.bot_seat = 1 if sm.opponent == "computer" else None
        t.hand_end_version = _hand_end_of(t) if match.awaiting_deal() else None

    # ------------------------------------------------------------------ catching up

    async def refresh(self, t: Table) -> None:
        """Read what other processes stored since this copy (only the new actions) and
        play it forward; push the seats their new views. Under the table lock."""
        sm = await self.db.read(self.db.store.tail, t.stored, t.next_seq)
        if sm is None:
            self.evict(t, GONE)
            raise _no_match(t.id)
        t.read_at = time.monotonic()
        if sm.version <= t.version:
            return
        was_over = t.match.hand.is_over()
        hands_before = len(t.match.hands)
        try:
            changed = catch_up(t, sm)
        except (ValueError, KeyError, TypeError) as e:
            log.warning("rebuilding match %s: %s", t.id, e)
            await self.rebuild(t)
            self.hub.broadcast(t)
            return
        if changed:
            t.base_version = sm.version
        if t.match.awaiting_deal():
            if t.hand_end_version is None or not was_over or len(t.match.hands) != hands_before:
                t.hand_end_version = _hand_end_of(t)
        else:
            t.hand_end_version = None
        self.hub.broadcast(t)

    async def rebuild(self, t: Table) -> None:
        """Replace ``t``'s match with a fresh rebuild from the database, in place (its
        sockets stay). Under the table lock."""
        sm = await self.db.read(self.db.store.load, t.id)
        if sm is None:
            self.evict(t, GONE)
            raise _no_match(t.id)
        self._fill(t, sm)

    def changed_elsewhere(self, match_id: str, version: int) -> None:
        """Another process stored ``version`` of a match: bring this process's copy
        forward (if it has one) and push each of its seats its own view."""
        t = self.tables.get(match_id)
        if t is None:
            if match_id in self._loading:  # being read: it may have read the old version
                self._missed.add(match_id)
            return
        if t.version >= version:
            return
        self._refresh_soon(t)

    def _refresh_soon(self, t: Table, force_push: bool = False) -> None:
        if t.id in self._refreshing:
            return
        self._refreshing.add(t.id)
        self.spawn(self._refresh_task(t, force_push))

    async def _refresh_task(self, t: Table, force_push: bool) -> None:
        try:
            async with t.lock:
                self._refreshing.discard(t.id)
                await self.refresh(t)
                if force_push:
                    self.hub.broadcast(t, force=True)
        except TableError as e:
            log.warning("could not catch up match %s: %s", t.id, e.message)
            if e.status != 503:  # not merely the database away: this copy cannot be
                self.evict(t, RELOADED)  # kept in step
        finally:
            self._refreshing.discard(t.id)
        if self.tables.get(t.id) is t:
            self._tell(t)

    def refresh_all(self, force_push: bool = False) -> None:
        """Catch every table up (events may have been missed: the broker came back), and
        with ``force_push`` push every socket its state again (the database came back:
        moves resume)."""
        for t in list(self.tables.values()):
            self._refresh_soon(t, force_push)

    async def poll_forever(self) -> None:
        """Learn of other processes' changes from the database: every ``poll_seconds``
        while the broker is away, every ``safety_poll_seconds`` otherwise (one query for
        the versions of all tables held here; only those behind are read)."""
        if not self.broker.distributed:
            return
        last = time.monotonic()
        while True:
            await asyncio.sleep(self.poll_seconds)
            now = time.monotonic()
            if self.broker.healthy and now - last < self.safety_poll_seconds:
                continue
            last = now
            if not self.tables or not self.db.available:
                continue
            try:
                versions = await self.db.read(self.db.store.versions, list(self.tables))
            except TableError:
                continue
            for mid, version in versions.items():
                self.changed_elsewhere(mid, version)

    # ------------------------------------------------------------------ seats

    async def seat_of(self, t: Table, token: str | None) -> int:
        """The seat whose token this is: 401 without a token, 403 with a wrong one. A
        token this copy does not know is checked again if the stored match has moved on
        (the friend may have joined through another process a moment ago): one look at
        the stored version, and a catch-up only when it is newer."""
        try:
            return authenticate(t, token)
        except TableError as e:
            if e.status != 403:
                raise
            versions = await self.db.read(self.db.store.versions, [t.id])
            if versions.get(t.id, -1) <= t.version:
                raise
        async with t.lock:
            await self.refresh(t)
        return authenticate(t, token)

    # ------------------------------------------------------------------ memory

    def evict(self, t: Table, reason: str) -> None:
        """Forget a table (its match is gone or cannot be read): its sockets close with
        ``reason`` and its computer stops."""
        if self.tables.get(t.id) is t:
            del self.tables[t.id]
        if t.bot_task is not None:
            t.bot_task.cancel()
        self.hub.close_match(t.id, reason)

    def evict_idle(self, now: float | None = None, force: bool = False) -> list[str]:
        """Drop from memory the tables nobody is using: no open WebSocket, no change or
        computer move under way, and untouched for ``idle_seconds`` (``finished_idle_seconds``
        once the match is over; any time at all with ``force``). Everything is in the
        database, so the next request rebuilds the table exactly. Returns the evicted ids."""
        now = time.monotonic() if now is None else now
        gone: list[str] = []
        for mid, t in list(self.tables.items()):
            if self.hub.has_open(mid) or t.lock.locked():
                continue
            if t.bot_task is not None and not t.bot_task.done():
                continue
            limit = self.finished_idle_seconds if t.match.is_over() else self.idle_seconds
            if force or now - t.last_used >= limit:
                del self.tables[mid]
                gone.append(mid)
        if gone:
            log.debug("evicted %d idle tables; %d in memory", len(gone), len(self.tables))
        return gone

    async def prune(self, now: float | None = None) -> int:
        """Delete unfinished matches nobody has touched for ``limits.abandoned_days``
        (finished ones stay: their records and replays are public). Returns how many."""
        days = self.limits.abandoned_days
        if days <= 0:
            return 0
        cutoff = (time.time() if now is None else now) - days * 86400
        ids = await self.db.read(self.db.store.prune_abandoned, cutoff)
        for mid in ids:
            t = self.tables.get(mid)
            if t is not None:
                self.evict(t, N_("The match was deleted after a long time unplayed."))
        if ids:
            log.info("pruned %d abandoned matches", len(ids))
        return len(ids)

    async def sweep_forever(self) -> None:
        """Evict idle tables and prune abandoned matches, every ``sweep_seconds``."""
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                self.evict_idle()
                if self.db.available:
                    await self.prune()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the sweeper must outlive any surprise
                log.exception("evicting idle tables failed")


def authenticate(t: Table, token: str | None) -> int:
    """The seat of ``t`` whose token this is: 401 without a token, 403 with a wrong one
    (both seats compared, in constant time)."""
    if not token:
        raise TableError(401, N_("This needs your seat's token (Authorization: Bearer "
                                 "TOKEN)."))
    h = hash_token(token)
    seat = -1
    for s in (0, 1):
        if hmac.compare_digest(h, t.stored.token_hash(s)):
            seat = s
    if seat < 0:
        raise TableError(403, N_("That token does not belong to a seat at this match."))
    return seat


def _no_match(match_id: str) -> TableError:
    """The refusal of a match id no match has (404)."""
    return TableError(404, i18n.t("There is no match {id}.", id=repr(match_id)))


def _damaged(match_id: str, e: Exception) -> TableError:
    """The refusal of a stored match that cannot be replayed (500)."""
    return TableError(500, i18n.t("The stored match {id} is damaged: {error}", id=match_id,
                                  error=str(e)))


def _hand_end_of(t: Table) -> int:
    """The version at which the finished hand ended: each person's ``next`` since bumped
    it once (the computer is always ready)."""
    sm = t.stored
    return sm.version - sum(r for s, r in enumerate(sm.ready) if s != t.bot_seat)
