"""The web table's service: every change checked, stored, then shown, on one or many processes.

The server is authoritative. Each accepted action is checked (seat, token, version,
phase, legality), committed with its version bump in one transaction, and only then
acknowledged and pushed to each seat as that seat's own STATE (R11). The pieces: a
:class:`~.table.Table` session per match in memory, the :class:`~.store.Store` (the
single source of truth), the :class:`~.computer.ComputerDriver` (computer decisions off
the event loop) and the :class:`~.broker.Broker` (other processes' "table changed"
events and computer-turn leases). After a restart, pending computer turns resume.

:class:`Service` is built in layers, one module each: :mod:`.views` (each seat's STATE
and its push), :mod:`.sessions` (tables in memory, the database calls, other processes'
changes), :mod:`.actions` (the action path), :mod:`.turns` (the computer's turns and
their take-over) and :mod:`.lobby` (creation, joining, lookup, records, replays).
"""

from __future__ import annotations

import logging

from .levels import BOT_LEVELS, level_list, resolve_bot
from .lobby import MAX_NAME, Lobby
from .sessions import Limits
from .table import Subscriber, Table, TableError, build_match, deal_for

__all__ = [
    "BOT_LEVELS",
    "Limits",
    "MAX_NAME",
    "Service",
    "Subscriber",
    "Table",
    "TableError",
    "build_match",
    "deal_for",
    "level_list",
    "resolve_bot",
]

log = logging.getLogger("ginrummy.web")


class Service(Lobby):
    """Every table of the server. Async methods run on the event loop; database calls
    run in a worker thread (one for SQLite, whose writes are serial anyway); computer
    decisions in the :class:`ComputerDriver`; other processes' changes arrive through
    the :class:`Broker`."""

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
        d = self.driver
        log.info("computer decisions: %d in the pool, %d by the fallback bot", d.pooled,
                 d.fallbacks)
        d.close()
        self._executor.shutdown(wait=True)
        self.store.close()

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
