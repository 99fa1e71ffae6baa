"""The tables in memory: one session per match, loaded on first use, kept in step with other
processes, evicted when idle; and the database calls, off the event loop."""

from __future__ import annotations

import asyncio
import hmac
import logging
import random
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from ..bots import bot_names, make_bot
from ..match import Match
from .broker import Broker, LocalBroker
from .computer import ComputerDriver
from .levels import resolve_bot
from .replays import ReplayCache
from .store import Change, StaleVersionError, Store, StoredMatch, StoreError, hash_token
from .table import Table, TableError, build_match, catch_up, secret_seed
from .views import TableViews

__all__ = ["Limits", "Sessions"]

log = logging.getLogger("ginrummy.web")

T = TypeVar("T")


@dataclass
class Limits:
    """Caps that keep one client or one burst from exhausting the server; each is a
    setting of ``ginrummy serve`` with this default."""

    max_tables: int = 5000
    """Tables held in memory at once (idle ones are evicted first; then 503)."""
    max_sockets_per_seat: int = 4
    """Open WebSockets per seat (a fifth is refused with 4429)."""
    abandoned_days: float = 30.0
    """Unfinished matches untouched this long are deleted (0: never)."""


class Sessions(TableViews):
    """The tables in memory: loaded from the database on first use, kept in step with
    what other processes store, evicted when idle; and the database calls (off the
    event loop, changes group-committed)."""

    def __init__(
        self,
        store: Store,
        bot_delay: float | tuple[float, float] = (0.6, 1.2),
        resume: bool = True,
        idle_seconds: float = 600.0,
        finished_idle_seconds: float = 60.0,
        sweep_seconds: float = 30.0,
        broker: Broker | None = None,
        driver: ComputerDriver | None = None,
        limits: Limits | None = None,
        lease_seconds: float = 3.0,
        scan_seconds: float = 1.0,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.resume = resume
        self.idle_seconds = idle_seconds
        self.finished_idle_seconds = finished_idle_seconds
        self.sweep_seconds = sweep_seconds
        self.broker = broker if broker is not None else LocalBroker()
        self.driver = driver if driver is not None else ComputerDriver()
        self.limits = limits if limits is not None else Limits()
        self.lease_seconds = lease_seconds
        self.scan_seconds = scan_seconds
        self._scan_skip: dict[str, float] = {}  # match id -> when the scan may retry it
        self.tables: dict[str, Table] = {}
        self.seed_source: Callable[[], tuple[int, int]] = secret_seed
        """(secret seed, first dealer) of a new match; tests may fix it to get known deals."""
        self._loading: dict[str, asyncio.Future[Table | None]] = {}
        self._executor = ThreadPoolExecutor(
            max_workers=1 if store.is_sqlite else 8, thread_name_prefix="ginrummy-db"
        )
        self._tasks: set[asyncio.Task[None]] = set()
        self._pending: list[tuple[Change, asyncio.Future[int]]] = []
        self._writer: asyncio.Task[None] | None = None
        self.replays = ReplayCache()
        self._refreshing: set[str] = set()
        self._missed: set[str] = set()
        """Tables changed elsewhere while this process was loading them: caught up after."""
        self._published: asyncio.Queue[tuple[str, int]] = asyncio.Queue()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ database

    async def _db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))
        except StaleVersionError:
            raise
        except StoreError as e:
            raise TableError(503, f"The database is not available: {e}") from None
        except Exception as e:  # noqa: BLE001 - any driver error: refuse, never a traceback
            log.exception("database error")
            raise TableError(503, f"The database is not available ({type(e).__name__}).") from None

    async def _write(self, change: Change) -> int:
        """Commit one change through the group-commit writer: changes that arrive while a
        transaction is being synced go together in the next one (one disk sync for
        many tables), each still acknowledged only after its commit."""
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append((change, fut))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._writer_loop())
        return await fut

    async def _writer_loop(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                results = await self._db(self.store.commit_batch, [c for c, _ in batch])
            except TableError as e:
                for _, f in batch:
                    if not f.done():
                        f.set_exception(TableError(e.status, e.message))
                continue
            except BaseException as e:
                for _, f in batch:
                    if not f.done():
                        f.set_exception(TableError(503, "The database is not available."))
                if isinstance(e, asyncio.CancelledError):
                    raise
                continue
            for (c, f), r in zip(batch, results, strict=True):
                if f.done():
                    continue
                if r is None:
                    f.set_exception(StaleVersionError(
                        f"Match {c.match_id} is no longer at version {c.expected_version}."))
                else:
                    f.set_result(r)

    # ------------------------------------------------------------------ loading

    async def table(self, match_id: str) -> Table:
        """The table of ``match_id``, loaded and replayed on first use; 404 if none."""
        t = self.tables.get(match_id)
        if t is not None:
            t.last_used = time.monotonic()
            return t
        if len(match_id) > 64:
            raise TableError(404, f"There is no match {match_id[:64]!r}.")
        fut = self._loading.get(match_id)
        if fut is None:
            self._make_room()
            fut = asyncio.get_running_loop().create_future()
            self._loading[match_id] = fut
            self._missed.discard(match_id)
            try:
                t = await self._load(match_id)
                fut.set_result(t)
                if t is not None and match_id in self._missed:
                    self._missed.discard(match_id)
                    self._on_remote_change(match_id, t.stored.version + 1)
            except BaseException as e:
                fut.set_exception(e)
                fut.exception()  # retrieved: this caller raises it; waiters get it too
                raise
            finally:
                del self._loading[match_id]
        else:
            t = await asyncio.shield(fut)
        if t is None:
            raise TableError(404, f"There is no match {match_id!r}.")
        t.last_used = time.monotonic()
        self._kick_bot(t)  # a computer turn left pending (e.g. by a failed move) resumes
        return t

    def _make_room(self) -> None:
        """At the cap on tables in memory, evict every idle one; 503 if none is idle."""
        if len(self.tables) >= self.limits.max_tables:
            self.evict_idle(force=True)
            if len(self.tables) >= self.limits.max_tables:
                raise TableError(503, "The server is full: try again in a minute.")

    async def _load(self, match_id: str) -> Table | None:
        sm = await self._db(self.store.load, match_id)
        if sm is None:
            return None
        t = Table(sm, Match(), next_seq=0)
        self._fill(t, sm)
        self.tables[match_id] = t
        return t

    def _fill(self, t: Table, sm: StoredMatch) -> None:
        """Set ``t`` to the stored match ``sm`` (all its actions), replayed under the rules."""
        try:
            match = build_match(sm)
        except (ValueError, KeyError, TypeError) as e:
            log.error("Stored match %s cannot be replayed: %s", sm.id, e)
            raise TableError(500, f"The stored match {sm.id} is damaged: {e}") from None
        t.stored = sm
        t.match = match
        t.next_seq = len(sm.actions)
        sm.actions = []  # played into the match; not kept twice
        t.base_version = sm.version
        t.state_cache.clear()
        t.bot = None
        t.bot_seat = None
        if sm.opponent == "computer":
            self._attach_bot(t)
        t.hand_end_version = self._hand_end_of(t) if match.awaiting_deal() else None

    def _hand_end_of(self, t: Table) -> int:
        """The version at which the finished hand ended: each person's ``next`` since
        bumped it once."""
        sm = t.stored
        return sm.version - sum(r for s, r in enumerate(sm.ready) if s != t.bot_seat)

    def _attach_bot(self, t: Table) -> None:
        sm = t.stored
        name = sm.bot_name or "random"
        if name not in bot_names():
            name = resolve_bot(sm.bot_level or "medium")
        t.bot_name = name
        t.bot = make_bot(name, self._bot_seed(t))
        t.bot_seat = 1
        t.bot.new_match(1)

    @staticmethod
    def _bot_seed(t: Table) -> int:
        """The computer's seed at the table's current position (the same in any process,
        so a turn taken over elsewhere is decided the same way)."""
        return random.Random(f"{t.stored.seed}:bot:{t.next_seq}").randrange(2**62)

    def _evict(self, t: Table) -> None:
        """Forget a table whose memory may be ahead of the database (a failed commit):
        the next request rebuilds it from what is stored."""
        if self.tables.get(t.id) is t:
            del self.tables[t.id]
        if t.bot_task is not None:
            t.bot_task.cancel()
        for s in t.subscribers:
            s.close()
        t.subscribers.clear()

    # ------------------------------------------------------------------ memory

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                self.evict_idle()
                await self.prune()
            except Exception:  # noqa: BLE001 - the sweeper must outlive any surprise
                log.exception("evicting idle tables failed")

    async def prune(self, now: float | None = None) -> int:
        """Delete unfinished matches nobody has touched for ``limits.abandoned_days``
        (finished ones stay: their records and replays are public). Returns how many."""
        days = self.limits.abandoned_days
        if days <= 0:
            return 0
        cutoff = (time.time() if now is None else now) - days * 86400
        ids = await self._db(self.store.prune_abandoned, cutoff)
        for mid in ids:
            t = self.tables.get(mid)
            if t is not None:
                self._evict(t)
        if ids:
            log.info("pruned %d abandoned matches", len(ids))
        return len(ids)

    def evict_idle(self, now: float | None = None, force: bool = False) -> list[str]:
        """Drop from memory the tables nobody is using: no open WebSocket, no change or
        computer move under way, and untouched for ``idle_seconds`` (``finished_idle_seconds``
        once the match is over; any time at all with ``force``). Everything is in the
        database, so the next request rebuilds the table exactly. Returns the evicted ids."""
        now = time.monotonic() if now is None else now
        gone: list[str] = []
        for mid, t in list(self.tables.items()):
            if any(not s.closed for s in t.subscribers) or t.lock.locked():
                continue
            if t.bot_task is not None and not t.bot_task.done():
                continue
            limit = self.finished_idle_seconds if t.match.is_over() else self.idle_seconds
            if force or now - t.last_used >= limit:
                del self.tables[mid]
                t.subscribers.clear()
                gone.append(mid)
        if gone:
            log.debug("evicted %d idle tables; %d in memory", len(gone), len(self.tables))
        return gone

    # ------------------------------------------------------------------ other processes

    async def _publisher(self) -> None:
        """Send "table changed" events in commit order: all those queued while the last
        send was under way go together in one round trip (a broker outage delays pushes
        to other processes' seats; it never blocks a commit)."""
        while True:
            batch = [await self._published.get()]
            while not self._published.empty():
                batch.append(self._published.get_nowait())
            try:
                await self.broker.publish_many(batch)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - broker down: seats elsewhere poll
                log.warning("could not publish %d changes (of %s, ...): %s", len(batch),
                            batch[0][0], e)

    def _on_remote_change(self, match_id: str, version: int) -> None:
        """Another process stored a change: bring this process's copy forward (if it has
        one) and push each of its seats its own view."""
        t = self.tables.get(match_id)
        if t is None:
            if match_id in self._loading:  # being read: it may have read the old version
                self._missed.add(match_id)
            return
        if t.stored.version >= version or match_id in self._refreshing:
            return
        self._refreshing.add(match_id)
        self._spawn(self._refresh_task(t))

    def _on_broker_reconnect(self) -> None:
        """Events may have been missed while the broker was away: catch every table up."""
        for t in list(self.tables.values()):
            if t.id not in self._refreshing:
                self._refreshing.add(t.id)
                self._spawn(self._refresh_task(t))

    async def _refresh_task(self, t: Table) -> None:
        try:
            async with t.lock:
                self._refreshing.discard(t.id)
                await self._refresh_locked(t)
        except TableError as e:
            log.warning("could not catch up match %s: %s", t.id, e.message)
        finally:
            self._refreshing.discard(t.id)
        self._kick_bot(t)

    async def _refresh_locked(self, t: Table) -> None:
        """Read what other processes stored since this copy (only the new actions) and
        play it forward; push the seats their new views. Under the table lock."""
        sm = await self._db(self.store.load, t.id, t.next_seq)
        if sm is None:
            self._evict(t)
            raise TableError(404, f"There is no match {t.id!r}.")
        if sm.version <= t.stored.version:
            return
        was_over = t.match.hand.is_over()
        hands_before = len(t.match.hands)
        try:
            changed = catch_up(t, sm)
        except (ValueError, KeyError, TypeError) as e:
            log.warning("rebuilding match %s: %s", t.id, e)
            await self._rebuild_locked(t)
            self._broadcast(t)
            return
        if changed:
            t.base_version = sm.version
        if t.match.awaiting_deal():
            if t.hand_end_version is None or not was_over or len(t.match.hands) != hands_before:
                t.hand_end_version = self._hand_end_of(t)
        else:
            t.hand_end_version = None
        self._broadcast(t)

    async def _rebuild_locked(self, t: Table) -> None:
        """Replace ``t``'s match with a fresh rebuild from the database, in place (its
        sockets stay). Under the table lock."""
        sm = await self._db(self.store.load, t.id)
        if sm is None:
            self._evict(t)
            raise TableError(404, f"There is no match {t.id!r}.")
        self._fill(t, sm)

    # ------------------------------------------------------------------ seats

    def authenticate(self, t: Table, token: str | None) -> int:
        """The seat whose token this is: 401 without a token, 403 with a wrong one."""
        if not token:
            raise TableError(
                401, "This needs your seat's token (Authorization: Bearer TOKEN)."
            )
        h = hash_token(token)
        seat = -1
        for s in (0, 1):  # compare with both, in constant time
            if hmac.compare_digest(h, t.stored.token_hash(s)):
                seat = s
        if seat < 0:
            raise TableError(403, "That token does not belong to a seat at this match.")
        return seat

    async def authenticate_fresh(self, t: Table, token: str | None) -> int:
        """:meth:`authenticate`, but a token this copy does not know is checked again after
        reading what other processes stored: the friend may have joined through another
        process a moment ago, before its "changed" event arrived here."""
        try:
            return self.authenticate(t, token)
        except TableError as e:
            if e.status != 403:
                raise
        async with t.lock:
            await self._refresh_locked(t)
        return self.authenticate(t, token)

    def _kick_bot(self, t: Table) -> None:
        """Start the computer's move if it is due (see :class:`~.turns.ComputerTurns`)."""
        raise NotImplementedError
