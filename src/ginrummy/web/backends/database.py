"""The database as the event loop sees it: store calls off the loop, group commits, and
whether the database is there at all.

Every call of the :class:`~.store.Store` runs in a worker thread (one for SQLite, whose
writes are serial anyway), so a slow disk or a far database never stalls other tables.
Changes go through one group-commit writer: changes that arrive while a transaction is
being synced go together in the next one (one disk sync for many tables), each still
acknowledged only after its commit.

When the database cannot be reached, :class:`Database` says so once (``on_down``),
refuses changes at once with 503 and :data:`~.errors.DB_DOWN` (nothing changed: a change
is acknowledged only once committed), and probes the database until it answers again;
then, once what must come first is done (``before_up``: the turn clocks moved on by the
outage), it says so (``on_up``) and the tables catch up by themselves. Reads of tables
already in memory go on meanwhile: players see the last state, with moves paused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ...i18n import N_, t
from ..errors import DB_DOWN, DB_ERROR, TableError
from ..store import Change, StaleVersionError, Store, StoreError

__all__ = ["Database"]

log = logging.getLogger("ginrummy.web")

T = TypeVar("T")


def _rolled_back(e: BaseException) -> bool:
    """Whether the database rolled one transaction back (a deadlock victim, a serialization
    failure: SQLSTATE class 40): that call failed, the database is there."""
    state = getattr(getattr(e, "orig", None), "sqlstate", None)
    return isinstance(state, str) and state.startswith("40")


def _unreachable(e: BaseException) -> bool:
    """Whether an error means the database is away (not merely that one call failed)."""
    if _rolled_back(e):
        return False
    if isinstance(e, OperationalError | InterfaceError):
        return True
    return isinstance(e, DBAPIError) and bool(e.connection_invalidated)


def _one_line(e: BaseException) -> str:
    """An error in one log line: its type and the first line of its message (a driver's
    message goes on with the statement and its parameters)."""
    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {first[:300]}" if first else type(e).__name__


def _bad_data(e: BaseException) -> bool:
    """Whether the database refused a value (DB-API ``DataError``: text it cannot hold, a
    number out of range), not the request's form or its own state."""
    return any(c.__name__ == "DataError" for x in (e, getattr(e, "orig", None))
               if x is not None for c in type(x).__mro__)


class Database:
    """The :class:`Store` off the event loop, with group commits and the database's health
    (see the module docstring)."""

    errors = 0
    """Calls that failed (the database away, busy or refusing), for ``/metrics``."""
    outages = 0
    """Times the database went away, for ``/metrics``."""

    def __init__(self, store: Store, probe_seconds: float = 0.5,
                 watch_seconds: float = 2.0, gather_seconds: float = 0.003) -> None:
        self.store = store
        self.gather_seconds = gather_seconds
        """Under load (a commit ended moments ago), how long the writer waits for more
        changes before committing: one disk sync then covers more of them."""
        self._last_commit = 0.0
        self.probe_seconds = probe_seconds
        self.watch_seconds = watch_seconds
        self.available = True
        """False from a failure that shows the database is away until a probe reaches it."""
        self.on_down: list[Callable[[], None]] = []
        """Called (on the event loop) when the database goes away."""
        self.on_up: list[Callable[[], None]] = []
        """Called (on the event loop) when the database is back."""
        self.before_up: list[Callable[[], Awaitable[None]]] = []
        """Awaited when a probe reaches the database again, before any change is accepted
        (e.g. the turn clocks moved on by the outage): one that fails keeps the database
        counted away, and the probe tries again."""
        self._executor = ThreadPoolExecutor(
            max_workers=1 if store.is_sqlite else 8, thread_name_prefix="ginrummy-db"
        )
        self._pending: list[tuple[Change, asyncio.Future[int]]] = []
        self._writer: asyncio.Task[None] | None = None
        self._prober: asyncio.Task[None] | None = None

    def close(self) -> None:
        """Stop probing, wait for calls under way, and release the database."""
        if self._prober is not None:
            self._prober.cancel()
        self._executor.shutdown(wait=True)
        self.store.close()

    # ------------------------------------------------------------------ calls

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` (a store method) in the database thread. StaleVersionError passes
        through; any other failure is a TableError 503 with a sentence, never a traceback
        (and a failure showing that the database is away starts the probe)."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, fn, *args)
        except StaleVersionError:
            raise
        except BaseException as e:
            raise self._refusal(e) from None

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """:meth:`run` for a read: refused at once while the database is known to be away
        (the caller shows what it has in memory)."""
        if not self.available:
            raise TableError(503, DB_DOWN)
        return await self.run(fn, *args)

    def _refusal(self, e: BaseException) -> BaseException:
        if isinstance(e, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
            return e
        if isinstance(e, TableError):
            return e
        self.errors += 1
        if _unreachable(e):
            log.warning("the database is not available: %s", str(e).strip().splitlines()[0]
                        if str(e).strip() else type(e).__name__)
            self.went_down()
            return TableError(503, DB_DOWN)
        if isinstance(e, StoreError):
            return TableError(503, t("The database is not available: {error}", error=str(e)))
        if isinstance(e, PoolTimeout) or _rolled_back(e):
            return TableError(503, N_("The database is busy: try again in a moment."))
        log.error("database error: %s", _one_line(e))  # one line: no traceback spam
        if _bad_data(e):  # a value it cannot store (checks should have refused it first)
            return TableError(400, N_("The request holds a value the database cannot "
                                      "store."))
        return TableError(503, DB_ERROR)

    # ------------------------------------------------------------------ writes

    async def write(self, change: Change) -> int:
        """Commit one change through the group-commit writer; its new version. Raises
        StaleVersionError (nothing stored) when the match moved on, TableError 503 when
        the database is away (nothing stored; refused at once while it is known away)."""
        if not self.available:
            raise TableError(503, DB_DOWN)
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append((change, fut))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._writer_loop())
        return await fut

    async def _writer_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            if loop.time() - self._last_commit < 4 * self.gather_seconds:
                await asyncio.sleep(self.gather_seconds)  # busy: gather a larger batch
            batch, self._pending = self._pending, []
            try:
                results = await self.run(self.store.commit_batch, [c for c, _ in batch])
            except BaseException as e:
                err = e if isinstance(e, TableError) else TableError(503, DB_DOWN)
                for _, f in batch:
                    if not f.done():
                        f.set_exception(TableError(err.status, err.message))
                if isinstance(e, asyncio.CancelledError):
                    raise
                continue
            self._last_commit = loop.time()
            for (c, f), r in zip(batch, results, strict=True):
                if f.done():
                    continue
                if r is None:
                    f.set_exception(StaleVersionError(
                        f"Match {c.match_id} is no longer at version {c.expected_version}."))
                else:
                    f.set_result(r)

    # ------------------------------------------------------------------ health

    async def ping(self, timeout: float = 1.0) -> bool:
        """Whether the database answers a ``SELECT 1`` within ``timeout`` seconds now (for
        ``/readyz``; it changes nothing, the watch and the probe keep :attr:`available`)."""
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(self._executor, self.store.ping),
                                   timeout)
        except asyncio.CancelledError:
            raise
        except BaseException:  # noqa: BLE001 - any failure means "not ready"
            return False
        return True

    def went_down(self) -> None:
        """The database is away: refuse changes, tell the listeners, probe until back."""
        if not self.available:
            return
        self.available = False
        self.outages += 1
        for cb in list(self.on_down):
            try:
                cb()
            except Exception:  # noqa: BLE001 - one listener never stops the others
                log.exception("database-down listener failed")
        self._prober = asyncio.get_running_loop().create_task(self._probe())

    async def watch_forever(self) -> None:
        """Look at the database every ``watch_seconds`` while it is there (one ``SELECT
        1``), so its going away is noticed, and shown, even while nobody plays."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.watch_seconds)
            if not self.available:
                continue
            try:
                await loop.run_in_executor(self._executor, self.store.ping)
            except asyncio.CancelledError:
                raise
            except BaseException as e:
                self._refusal(e)

    async def _probe(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.probe_seconds)
            try:
                await loop.run_in_executor(self._executor, self.store.ping)
            except Exception:  # noqa: BLE001 - still away: probe again
                continue
            with contextlib.suppress(Exception):
                await loop.run_in_executor(self._executor, self.store.reconnect)
            try:
                for hook in list(self.before_up):
                    await hook()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - not ready yet: probe again
                log.warning("the database answers, but resuming failed: %s",
                            e.message if isinstance(e, TableError) else type(e).__name__)
                continue
            break
        log.warning("the database is back")
        self.available = True
        self._prober = None
        for cb in list(self.on_up):
            try:
                cb()
            except Exception:  # noqa: BLE001 - one listener never stops the others
                log.exception("database-up listener failed")
