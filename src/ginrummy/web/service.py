"""The web table's service: every change checked, stored, then shown, on one or many processes.

The server is authoritative. Each accepted action is checked (seat, token, version,
phase, legality), committed with its version bump in one transaction, and only then
acknowledged and pushed to each seat as that seat's own STATE (R11). The pieces: a
:class:`~.table.Table` session per match in memory, the :class:`~.store.Store` (the
single source of truth), the :class:`~.computer.ComputerDriver` (computer decisions off
the event loop) and the :class:`~.broker.Broker` (other processes' "table changed"
events and computer-turn leases). After a restart, pending computer turns resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import random
import secrets
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from ..bots import BotError, bot_names, make_bot
from ..cards import to_mask
from ..hand import (
    Action,
    HandOverError,
    HandResult,
    IllegalActionError,
    NotYourTurnError,
)
from ..match import Match, MatchOverError
from ..melds import arrangements_mask
from ..options import Options, OptionsError
from . import extras
from .broker import Broker, LocalBroker
from .computer import ComputerDriver
from .replays import ReplayCache
from .store import (
    NO_TOKEN,
    Change,
    StaleVersionError,
    Store,
    StoredAction,
    StoredMatch,
    StoreError,
    hash_token,
)
from .table import (
    Subscriber,
    Table,
    TableError,
    build_match,
    catch_up,
    deal_for,
    dumps,
    secret_seed,
)

__all__ = [
    "BOT_LEVELS",
    "Limits",
    "MAX_NAME",
    "Service",
    "Subscriber",
    "Table",
    "TableError",
    "deal_for",
    "resolve_bot",
]

log = logging.getLogger("ginrummy.web")

T = TypeVar("T")

MAX_NAME = 30
MAX_LOOKUP_TOKENS = 200
FRIEND_NAME = "Friend"

BOT_LEVELS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("easy", "Easy", ("easy", "simple", "random")),
    ("medium", "Medium", ("medium", "marjj", "simple", "easy", "random")),
    ("hard", "Hard", ("expert", "hard", "strong", "medium", "marjj", "simple", "easy", "random")),
)
"""Levels offered to people: (level, label, bot names to try in order). A level whose own
bot is not registered falls back to the next one that is, so the lobby never breaks."""


def resolve_bot(level: str) -> str:
    """The registered bot that plays ``level`` (see :data:`BOT_LEVELS`); raises
    TableError 400 for an unknown level."""
    names = set(bot_names())
    for lv, _, candidates in BOT_LEVELS:
        if lv == level:
            for c in candidates:
                if c in names:
                    return c
            return sorted(names)[0]
    levels = ", ".join(lv for lv, _, _ in BOT_LEVELS)
    raise TableError(400, f"Unknown computer level {level!r}: choose one of {levels}.")


def _version_of(body: Mapping[str, Any]) -> int:
    v = body.get("version")
    if isinstance(v, bool) or not isinstance(v, int):
        raise TableError(
            400, "Send the 'version' of the state you are acting on, e.g. {\"version\": 17}."
        )
    return v


class _Stale(Exception):
    """A commit found the stored version moved on (another process changed the match):
    the table has been rebuilt from the database; check the request again."""


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


class Service:
    """Every table of the server. Async methods run on the event loop; database calls
    run in a worker thread (one for SQLite, whose writes are serial anyway); computer
    decisions in the :class:`ComputerDriver`; other processes' changes arrive through
    the :class:`Broker`."""

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

    # ------------------------------------------------------------------ lifecycle

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start(self) -> None:
        """Connect to the broker, resume computer turns that were pending when the server
        stopped, and start the sweeper that evicts idle tables and prunes abandoned ones."""
        await self.broker.start(self._on_remote_change, self._on_broker_reconnect)
        self._spawn(self._sweep_forever())
        if self.broker.distributed:
            self._spawn(self._publisher())
            self._spawn(self._scan_forever())
        elif self.resume:
            self._spawn(self._resume_all())

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

    async def _resume_all(self) -> None:
        try:
            ids = await self._db(self.store.ids_with_status, "playing", "computer")
        except (StoreError, TableError) as e:
            log.error("Cannot resume computer turns: %s", e)
            return
        for mid in ids:
            try:
                t = await self.table(mid)
            except TableError as e:
                log.error("Cannot resume match %s: %s", mid, e.message)
                continue
            self._kick_bot(t)

    async def _scan_forever(self) -> None:
        """Many processes: take over computer turns whose driver is gone. A turn left
        waiting longer than a moment whose lease nobody holds is driven here (the lease
        makes sure by one process only; the version check makes a lost race harmless)."""
        while True:
            await asyncio.sleep(self.scan_seconds)
            try:
                ids = await self._db(
                    self.store.computer_turns, time.time() - self.scan_seconds
                )
                now = time.monotonic()
                for mid in ids:
                    if self._scan_skip.get(mid, 0.0) > now:
                        continue
                    try:
                        await self._take_over(mid)
                    except TableError as e:  # this match only: the others still go on
                        self._scan_skip[mid] = now + 60.0
                        log.warning("cannot drive computer turn of match %s: %s", mid, e.message)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - database or broker away: try again
                log.warning("scanning for computer turns failed: %s", e)

    async def _take_over(self, mid: str) -> None:
        """Drive the computer's waiting turn in ``mid`` here, unless its driver lives on."""
        t = self.tables.get(mid)
        if t is not None and t.bot_task is not None and not t.bot_task.done():
            return
        if not await self.broker.acquire(mid, self.lease_seconds):
            return
        await self.broker.release(mid)  # _bot_run takes it again for itself
        t = await self.table(mid)
        async with t.lock:
            await self._refresh_locked(t)
        self._kick_bot(t)

    async def stop(self) -> None:
        """Cancel computer players and writers, and release the database and broker."""
        for t in list(self.tables.values()):
            if t.bot_task is not None:
                t.bot_task.cancel()
            for s in t.subscribers:
                s.close()
        for task in list(self._tasks):
            task.cancel()
        await self.broker.close()
        self.driver.close()
        self._executor.shutdown(wait=True)
        self.store.close()

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

    # ------------------------------------------------------------------ other processes

    async def _publisher(self) -> None:
        """Send "table changed" events in commit order, one at a time (a broker outage
        delays pushes to other processes' seats; it never blocks a commit)."""
        while True:
            mid, version = await self._published.get()
            try:
                await self.broker.publish(mid, version)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - broker down: seats elsewhere poll
                log.warning("could not publish a change of %s: %s", mid, e)

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

    # ------------------------------------------------------------------ state

    def status_of(self, t: Table) -> str:
        """``waiting`` (friend not joined), ``playing`` or ``finished``."""
        if t.match.is_over():
            return "finished"
        if t.stored.opponent == "friend" and not t.stored.joined:
            return "waiting"
        return "playing"

    def state(self, t: Table, seat: int) -> dict[str, Any]:
        """What ``seat`` sees (R11): its view, legal moves, its own arrangement, the score
        sheet, and at a hand's end what the rules reveal (nothing after a dead hand).
        Every change bumps the version, so a seat's STATE is built once per version (the
        broadcast and the HTTP answer share it); callers must not modify it."""
        cached = t.state_cache.get(seat)
        if cached is not None and cached[0] == t.stored.version:
            return cached[1]
        out = self._build_state(t, seat)
        t.state_cache[seat] = (t.stored.version, out)
        return out

    def _build_state(self, t: Table, seat: int) -> dict[str, Any]:
        m = t.match
        sm = t.stored
        hand = m.hand
        v = m.view(seat)
        legal = [a.to_json() for a in v.legal]
        knock = sorted({a.card for a in v.legal if a.knock and a.card is not None})
        arr = arrangements_mask(to_mask(v.hand))[0]
        status = self.status_of(t)
        hand_over: dict[str, Any] | None = None
        r = hand.result
        if r is not None:
            arrangements: list[dict[str, Any]] | None = None
            layoffs: list[dict[str, Any]] = []
            sd = r.showdown
            if sd is not None and r.knocker is not None:
                pair = [sd.knocker_arrangement, sd.defender_arrangement]
                if r.knocker == 1:
                    pair.reverse()
                arrangements = [a.to_json() for a in pair]
                layoffs = [{"card": str(c), "meld": i} for c, i in sd.layoffs]
            hand_over = {
                "hand": hand.hand_index,
                "result": r.to_json(),
                "hands": [[str(c) for c in h] for h in v.revealed] if v.revealed else None,
                "arrangements": arrangements,
                "layoffs": layoffs,
                "ready": list(sm.ready),
            }
        sheet = []
        running = [0, 0]
        for h in m.hands:
            if h.result is None:
                continue
            if h.result.scorer is not None:
                running[h.result.scorer] += h.result.points
            sheet.append(
                {
                    "hand": h.hand_index,
                    "result": h.result.result,
                    "scorer": h.result.scorer,
                    "points": h.result.points,
                    "scores": list(running),
                }
            )
        other = 1 - seat
        waiting = status == "waiting" or (
            status == "playing"
            and (
                m.to_play == other
                or (hand_over is not None and sm.ready[seat] and not sm.ready[other])
            )
        )
        outcome = m.outcome()
        return extras.state_extras(v) | {
            "id": sm.id,
            "seat": seat,
            "version": sm.version,
            "status": status,
            "players": list(sm.players),
            "opponent": sm.opponent,
            "bot": sm.bot_level,
            "options": m.options.to_json(),
            "scores": list(m.scores),
            "winner": outcome.winner if outcome else None,
            "end_reason": outcome.reason if outcome else None,
            "view": v.to_json(),
            "legal": legal,
            "my_turn": bool(legal),
            "arrangement": arr.to_json(),
            "knock_discards": [str(c) for c in knock],
            "hand_over": hand_over,
            "score_sheet": sheet,
            "waiting_for_opponent": waiting,
            "friend_joined_at": sm.joined_at,
        }

    def _broadcast(self, t: Table) -> None:
        """Queue each connected seat's own STATE (called under the table lock, after the
        change is committed, so every browser sees changes in order)."""
        texts: dict[int, str] = {}
        for s in list(t.subscribers):
            if s.closed:
                t.subscribers.discard(s)
                continue
            if s.seat not in texts:
                texts[s.seat] = dumps({"type": "state", "state": self.state(t, s.seat)})
            s.push_text(texts[s.seat])

    # ------------------------------------------------------------------ changes

    async def _commit(
        self, t: Table, seat: int, action: Action | None = None, token_hash1: str | None = None,
        joined_at: float | None = None,
    ) -> None:
        """Store the change already applied to ``t.match`` (and ``t.stored``'s ready and
        joined flags) with a version bump; on failure forget the table, so nothing that
        was not stored is ever shown. Called under the table lock."""
        m = t.match
        sm = t.stored
        stored_action = None
        if action is not None:
            stored_action = StoredAction(t.next_seq, len(m.hands) - 1, seat, action.to_json())
        status = self.status_of(t)
        change = Change(sm.id, sm.version, stored_action, status, sm.joined, len(m.hands),
                        tuple(sm.ready), m.scores, m.winner, m.to_play, token_hash1, joined_at)
        try:
            new_version = await self._write(change)
        except StaleVersionError:
            # Another process changed the match first: what is in memory is not stored,
            # so rebuild from the database (the caller checks its request again).
            await self._rebuild_locked(t)
            self._broadcast(t)
            raise _Stale from None
        except TableError:
            self._evict(t)
            raise
        sm.version = new_version
        sm.status = status
        sm.hands_dealt = len(m.hands)
        if stored_action is not None:
            t.next_seq += 1
        if self.broker.distributed:
            self._published.put_nowait((sm.id, new_version))

    def _check_version(
        self, t: Table, seat: int, version: int, oldest: int | None = None
    ) -> None:
        """409 unless ``version`` is from ``oldest`` (default: the last change to the game)
        up to the current version."""
        lo = t.base_version if oldest is None else oldest
        if not lo <= version <= t.stored.version:
            raise TableError(
                409,
                f"The table has moved on (you sent version {version}, it is now at "
                f"{t.stored.version}): here is the current state.",
                self.state(t, seat),
            )

    async def _apply_action(self, t: Table, seat: int, action: Action) -> None:
        """Check, apply, store (then show) one action by ``seat``; under the table lock."""
        m = t.match
        if m.is_over():
            raise TableError(409, "The match is over.")
        if m.awaiting_deal():
            raise TableError(409, "This hand is over: start the next hand first.")
        try:
            m.verify(action, seat)
        except (NotYourTurnError, HandOverError, MatchOverError) as e:
            raise TableError(409, str(e)) from None
        except IllegalActionError as e:
            raise TableError(400, str(e)) from None
        joined_before = t.stored.joined
        if seat == 1:
            t.stored.joined = True  # acting with the invite token is joining
        try:
            m.play(action, seat)
        except IllegalActionError as e:  # verify passed, so this cannot happen; be safe
            t.stored.joined = joined_before
            self._evict(t)
            raise TableError(400, str(e)) from None
        hand_ended = m.hand.is_over()
        if hand_ended:
            t.stored.ready = [s == t.bot_seat for s in (0, 1)]
        await self._commit(t, seat, action)
        t.base_version = t.stored.version
        t.hand_end_version = t.stored.version if hand_ended else None
        if hand_ended and t.bot is not None and t.bot_seat is not None:
            try:
                t.bot.hand_over(m.view(t.bot_seat), m.hand.result)
            except Exception:  # noqa: BLE001 - a bot's bookkeeping never stops the table
                log.exception("bot hand_over failed")
        self._broadcast(t)

    async def act(
        self, t: Table, seat: int, body: Any, want_state: bool = True
    ) -> dict[str, Any] | None:
        """``POST .../actions``: ``{"action": ACTION, "version": N}`` -> STATE (None when
        ``want_state`` is false: a WebSocket gets it from the broadcast)."""
        if not isinstance(body, Mapping):
            raise TableError(400, "The request body must be a JSON object.")
        version = _version_of(body)
        if "action" not in body:
            raise TableError(
                400, "Send the 'action', e.g. {\"act\": \"draw\", \"from\": \"stock\"}."
            )
        try:
            action = Action.from_json(body["action"])
        except IllegalActionError as e:
            raise TableError(400, str(e)) from None
        for _ in range(2):
            async with t.lock:
                await self._fresh_for(t, version)
                self._check_version(t, seat, version)
                try:
                    await self._apply_action(t, seat, action)
                except _Stale:
                    continue  # rebuilt from the database: check the request again
                state = self.state(t, seat) if want_state else None
            self._kick_bot(t)
            return state
        raise TableError(409, "The table changed elsewhere: reload the page to see it.")

    async def _fresh_for(self, t: Table, version: int) -> None:
        """Many processes: a request based on a version this copy has not seen yet (its
        change event is still on the way) first catches the copy up."""
        if self.broker.distributed and version > t.stored.version:
            await self._refresh_locked(t)

    async def next_hand(self, t: Table, seat: int, body: Any) -> dict[str, Any]:
        """``POST .../next``: the seat is ready for the next hand; the hand is dealt once
        both are (the computer always is)."""
        if not isinstance(body, Mapping):
            raise TableError(400, "The request body must be a JSON object.")
        version = _version_of(body)
        for _ in range(2):
            try:
                state = await self._next_once(t, seat, version)
            except _Stale:
                continue  # rebuilt from the database: check the request again
            self._kick_bot(t)
            return state
        raise TableError(409, "The table changed elsewhere: reload the page to see it.")

    async def _next_once(self, t: Table, seat: int, version: int) -> dict[str, Any]:
        async with t.lock:
            await self._fresh_for(t, version)
            m = t.match
            sm = t.stored
            end = t.hand_end_version if m.awaiting_deal() else None
            self._check_version(t, seat, version, end)
            if m.is_over():
                raise TableError(409, "The match is over.")
            if not m.awaiting_deal():
                raise TableError(409, "The hand is still being played.")
            if sm.ready[seat]:
                return self.state(t, seat)
            old_ready = list(sm.ready)
            old_joined = sm.joined
            sm.ready = [r or s == seat for s, r in enumerate(sm.ready)]
            if seat == 1:
                sm.joined = True
            dealt = all(sm.ready)
            if dealt:
                m.start_hand(deal_for(sm.seed, len(m.hands)))
                sm.ready = [False, False]
            try:
                await self._commit(t, seat)
            except TableError:
                sm.ready, sm.joined = old_ready, old_joined
                raise
            t.base_version = sm.version
            if dealt:
                t.hand_end_version = None
            self._broadcast(t)
            return self.state(t, seat)

    async def join_and_state(self, t: Table, seat: int) -> dict[str, Any]:
        """The seat's STATE; the friend's first visit marks the match as joined."""
        for _ in range(2):
            async with t.lock:
                if seat == 1 and not t.stored.joined:
                    t.stored.joined = True
                    try:
                        await self._commit(t, seat)
                    except _Stale:
                        continue
                    except TableError:
                        t.stored.joined = False
                        raise
                    self._broadcast(t)
                return self.state(t, seat)
        raise TableError(409, "The table changed elsewhere: reload the page to see it.")

    async def subscribe(self, t: Table, sub: Subscriber) -> None:
        """Register a seat's WebSocket and queue its current STATE first."""
        await self.join_and_state(t, sub.seat)
        async with t.lock:
            open_here = sum(1 for s in t.subscribers if s.seat == sub.seat and not s.closed)
            if open_here >= self.limits.max_sockets_per_seat:
                raise TableError(
                    429, f"At most {self.limits.max_sockets_per_seat} open connections "
                    "per seat: close another tab of this table first."
                )
            t.subscribers.add(sub)
            sub.push({"type": "state", "state": self.state(t, sub.seat)})

    def unsubscribe(self, t: Table, sub: Subscriber) -> None:
        """Forget a closed WebSocket."""
        sub.close()
        t.subscribers.discard(sub)

    # ------------------------------------------------------------------ computer

    def _bot_to_move(self, t: Table) -> bool:
        m = t.match
        return (
            t.bot is not None
            and not m.is_over()
            and not m.awaiting_deal()
            and m.to_play == t.bot_seat
        )

    def _delay(self) -> float:
        d = self.bot_delay
        if isinstance(d, tuple):
            return random.uniform(d[0], d[1])
        return float(d)

    def _kick_bot(self, t: Table) -> None:
        """Start the computer's move if it is to play and not already thinking."""
        if t.bot_task is not None and not t.bot_task.done():
            return
        if self.tables.get(t.id) is not t or not self._bot_to_move(t):
            return
        t.bot_task = asyncio.create_task(self._bot_run(t))

    async def _bot_run(self, t: Table) -> None:
        """Play the computer's moves while it is to play, each after a short delay. With
        many processes only the holder of the match's lease drives it; the lease is
        renewed while held, so a dead holder's turn is taken over within seconds."""
        distributed = self.broker.distributed
        if distributed and not await self._try_lease(t.id):
            return
        renewer = asyncio.create_task(
            self._renew_lease(t) if distributed else asyncio.Event().wait()
        )
        try:
            while self.tables.get(t.id) is t and self._bot_to_move(t):
                version = t.stored.version
                delay = self._delay()
                if delay > 0:
                    await asyncio.sleep(delay)
                if t.stored.version != version or not self._bot_to_move(t):
                    continue
                assert t.bot is not None and t.bot_seat is not None
                view = t.match.view(t.bot_seat)
                decision = await self.driver.decide(t.bot_name, t.bot, self._bot_seed(t), view)
                action = decision.action
                if action not in view.legal:
                    log.error("bot %s chose an illegal %s", decision.by, action)
                    action = random.choice(view.legal)
                async with t.lock:
                    if t.stored.version != version or not self._bot_to_move(t):
                        continue
                    if renewer.done():
                        log.warning("lost the computer-turn lease of %s", t.id)
                        return
                    try:
                        await self._apply_action(t, t.bot_seat, action)
                    except _Stale:
                        continue  # rebuilt: think again about the table as it is
        except asyncio.CancelledError:
            raise
        except TableError as e:
            log.error("computer move in match %s failed: %s", t.id, e.message)
        except Exception:  # noqa: BLE001 - keep the server up; the move is retried on reload
            log.exception("computer move in match %s failed", t.id)
        finally:
            renewer.cancel()
            if distributed:
                with contextlib.suppress(Exception):
                    await self.broker.release(t.id)

    async def _try_lease(self, match_id: str) -> bool:
        try:
            return await self.broker.acquire(match_id, self.lease_seconds)
        except Exception as e:  # noqa: BLE001 - broker down: another process's scan retries
            log.warning("could not take the computer-turn lease of %s: %s", match_id, e)
            return False

    async def _renew_lease(self, t: Table) -> None:
        """Renew the lease every third of its life; end (so the driver stops) if lost."""
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                if not await self.broker.renew(t.id, self.lease_seconds):
                    return
            except Exception as e:  # noqa: BLE001 - broker away: the lease may lapse
                log.warning("could not renew the lease of %s: %s", t.id, e)

    # ------------------------------------------------------------------ creation

    async def create(self, body: Any) -> dict[str, Any]:
        """``POST /api/matches``: a new match against the computer or a friend."""
        if not isinstance(body, Mapping):
            raise TableError(400, "The request body must be a JSON object.")
        unknown = set(body) - {"opponent", "bot", "name", "options"}
        if unknown:
            raise TableError(400, f"Unknown field {sorted(unknown)[0]!r}.")
        opponent = body.get("opponent", "computer")
        if opponent not in ("computer", "friend"):
            raise TableError(400, "The opponent is 'computer' or 'friend'.")
        name = body.get("name", "You")
        if name is None:
            name = "You"
        if not isinstance(name, str):
            raise TableError(400, "The name must be text.")
        name = " ".join(name.split())
        if not name:
            name = "You"
        if len(name) > MAX_NAME or any(not ch.isprintable() for ch in name):
            raise TableError(400, f"A name is at most {MAX_NAME} printable characters.")
        try:
            options = Options.from_json(body.get("options"))
        except OptionsError as e:
            raise TableError(400, str(e)) from None
        level: str | None = None
        bot_name: str | None = None
        if opponent == "computer":
            lv = body.get("bot", "medium")
            if not isinstance(lv, str):
                raise TableError(400, "The computer level must be text, e.g. 'medium'.")
            bot_name = resolve_bot(lv)
            level = lv
            label = next(lb for l_, lb, _ in BOT_LEVELS if l_ == lv)
            players = [name, f"{label} computer"]
        else:
            if body.get("bot") is not None:
                raise TableError(400, "A computer level only applies to a computer opponent.")
            players = [name, FRIEND_NAME]
        token = secrets.token_urlsafe(32)
        # Seat 1: the computer's gets a token nobody knows; a friend's stays free until the
        # single-use invite code is exchanged for a fresh token (join), so the creator
        # never holds the friend's token.
        invite = secrets.token_urlsafe(32) if opponent == "friend" else None
        self._make_room()
        seed, first_dealer = self.seed_source()
        match = Match(
            options, seed=seed, first_dealer=first_dealer,
            players=(players[0], players[1]), auto_deal=False,
        )
        match.start_hand(deal_for(seed, 0))
        sm = StoredMatch(
            id=secrets.token_urlsafe(9),
            token_hash0=hash_token(token),
            token_hash1=(
                NO_TOKEN if invite is not None else hash_token(secrets.token_urlsafe(32))
            ),
            invite_hash=hash_token(invite) if invite is not None else None,
            options=options.to_json(),
            players=players,
            seed=seed,
            first_dealer=first_dealer,
            opponent=opponent,
            bot_level=level,
            bot_name=bot_name,
            version=0,
            status="waiting" if opponent == "friend" else "playing",
            joined=opponent == "computer",
            hands_dealt=1,
            ready=[False, False],
            to_play=match.to_play,
        )
        await self._db(self.store.create, sm)
        t = Table(sm, match, next_seq=0)
        if opponent == "computer":
            try:
                self._attach_bot(t)
            except BotError as e:
                raise TableError(500, str(e)) from None
        self.tables[sm.id] = t
        self._kick_bot(t)
        out: dict[str, Any] = {
            "id": sm.id,
            "seat": 0,
            "token": token,
            "url": f"/play/{sm.id}#token={token}",
        }
        if invite is not None:
            out["invite_url"] = f"/play/{sm.id}#invite={invite}"
        return out

    async def join(self, t: Table, body: Any) -> dict[str, Any]:
        """``POST .../join``: exchange the single-use invite code for a fresh seat-1 token
        (stored hashed); a second use is refused, so only the friend holds that seat."""
        if not isinstance(body, Mapping) or not isinstance(body.get("invite"), str):
            raise TableError(400, "Send the invitation code: {\"invite\": \"...\"}.")
        code = body["invite"]
        if not 0 < len(code) <= 200:
            raise TableError(400, "The invitation code must be non-empty text.")
        for _ in range(2):
            async with t.lock:
                sm = t.stored
                if sm.invite_hash is None or not hmac.compare_digest(
                    hash_token(code), sm.invite_hash
                ):
                    raise TableError(403, "That invitation does not belong to this match.")
                if sm.token_hash1 != NO_TOKEN:
                    raise self._claimed(sm)
                token = secrets.token_urlsafe(32)
                new_hash = hash_token(token)
                joined_before = sm.joined
                sm.joined = True
                now = time.time()
                try:
                    await self._commit(t, 1, token_hash1=new_hash, joined_at=now)
                except _Stale:
                    continue  # changed elsewhere: rebuilt, so check the seat again
                except TableError:
                    sm.joined = joined_before
                    raise
                sm.token_hash1 = new_hash
                sm.joined_at = now
                t.state_cache.clear()
                self._broadcast(t)
            return {
                "id": sm.id,
                "seat": 1,
                "token": token,
                "url": f"/play/{sm.id}#token={token}",
            }
        raise TableError(409, "The table changed elsewhere: try the invitation again.")

    @staticmethod
    def _claimed(sm: StoredMatch) -> TableError:
        """409 for a used invitation, saying when the seat was taken, so a friend whose
        seat someone else claimed (even the creator, from another browser) can tell."""
        e = TableError(409, "This invitation has already been used.")
        if sm.joined_at is not None:
            when = time.strftime("%H:%M UTC", time.gmtime(sm.joined_at))
            e = TableError(409, f"This invitation has already been used. The seat was taken "
                                f"at {when}.")
            e.extra = {"claimed_at": sm.joined_at}
        return e

    # ------------------------------------------------------------------ lobby, records

    async def lookup(self, body: Any) -> dict[str, Any]:
        """``POST /api/matches/lookup``: summaries of the matches these tokens sit at."""
        if not isinstance(body, Mapping) or not isinstance(body.get("tokens"), list):
            raise TableError(400, "Send {\"tokens\": [\"...\", ...]}.")
        tokens = body["tokens"]
        if len(tokens) > MAX_LOOKUP_TOKENS:
            raise TableError(400, f"At most {MAX_LOOKUP_TOKENS} tokens at a time.")
        if not all(isinstance(x, str) and 0 < len(x) <= 200 for x in tokens):
            raise TableError(400, "Each token must be non-empty text.")
        by_hash = {hash_token(x): x for x in tokens}
        rows = await self._db(self.store.find_by_token_hashes, list(by_hash))
        out = []
        for sm in rows:
            for seat in (0, 1):
                tok = by_hash.get(sm.token_hash(seat))
                if tok is None:
                    continue
                out.append(
                    {
                        "id": sm.id,
                        "seat": seat,
                        "url": f"/play/{sm.id}#token={tok}",
                        "players": sm.players,
                        "opponent": sm.opponent,
                        "bot": sm.bot_level,
                        "options": sm.options,
                        "status": sm.status,
                        "scores": sm.scores,
                        "winner": sm.winner,
                        "hands": sm.hands_dealt,
                        "my_turn": sm.status == "playing" and sm.to_play == seat,
                        "created_at": sm.created_at,
                        "updated_at": sm.updated_at,
                    }
                )
        return {"matches": out}

    async def record(self, t: Table) -> dict[str, Any]:
        """The ``ginrummy/1`` record: the whole match once finished. Before that it shows no
        hand the rules never revealed (R11): no seed (it would tell the deals to come), no
        hand in play, and no dead hand (R7 shows neither hand); a record is a prefix of
        the match, so it stops at the first dead hand."""
        async with t.lock:
            rec = t.match.to_record()
            if not t.match.is_over():
                rec.pop("seed", None)
                rec["hands"] = list(
                    takewhile_revealed(rec["hands"], [h.result for h in t.match.hands])
                )
        return rec

    async def replay(self, t: Table, step: int | None) -> dict[str, Any]:
        """The whole table at one step of a finished match (both hands shown): all steps
        are built once, off the event loop, and cached (see :mod:`.replays`)."""
        async with t.lock:
            if not t.match.is_over():
                raise TableError(409, "The replay opens once the match is finished.")
            rec = t.match.to_record()
            sm = t.stored
        hands = [[(a["seat"], {k: v for k, v in a.items() if k != "seat"})
                  for a in h["actions"]] for h in rec["hands"]]
        frames = await self.replays.frames(
            sm.id, sm.options, sm.seed, sm.first_dealer, list(sm.players), hands
        )
        last = len(frames) - 1
        if step is None:
            step = 0
        if step < 0 or step > last:
            raise TableError(400, f"The step must be from 0 to {last}.")
        return frames[step]


def takewhile_revealed(
    hands: list[dict[str, Any]], results: list[HandResult | None]
) -> Iterator[dict[str, Any]]:
    """The record's hands up to (not including) the first that is not over or ended dead
    (R7): those are the hands whose cards the rules have shown both players."""
    for h, r in zip(hands, results, strict=True):
        if r is None or r.result == "dead":
            return
        yield h


def level_list() -> list[dict[str, str]]:
    """``GET /api/bots``: the levels offered to people."""
    return [{"name": lv, "label": label} for lv, label, _ in BOT_LEVELS]
