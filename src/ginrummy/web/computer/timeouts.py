"""Turn clocks enforced: when a seat's time is out, the table plays the safe move for it.

The deadlines are set by the :class:`~.committer.Committer` with every change
(:mod:`.clock`) and live in the database (``matches.deadline``), so no process's memory
holds them: :class:`ClockKeeper` scans the database for expired ones every fraction of a
second, in every process, and plays each under the match's claim (the same
:class:`~.turns.TurnClaims` as computer turns: a Redis lease with expiry, a database claim
while the broker is away), so one process plays it, and a deadline set by a process that
was restarted or killed is enforced by whichever process scans next. The version check of
every commit makes a race harmless.

The safe move (what the apps do): at the up-card offer, pass; else draw from the stock and
discard the legal card that leaves the least deadwood (ties: the higher card goes; the
STATE's own ``best_discard``, :func:`~ginrummy.web.tables.views.best_discard`), never
knocking. Each is played with ``timeout`` (the record marks it; three turns in a row on
timeout lose the match, :data:`ginrummy.match.TIMEOUT_LIMIT`, unless either player has not
moved yet: then the match is aborted, :func:`ends_unplayed`).
Between hands, when the wait for "Next hand" runs out, the next hand is dealt (no timeout
is counted: nothing of the game was decided).

**Outages stop the clocks.** While the database is away moves are refused, so no deadline
may run out: while any clock runs, every scan first writes the clock beat
(:mod:`~ginrummy.web.store.clocks`, every :data:`BEAT_SECONDS`; nothing while none runs),
and a process that sees the database come back moves every running deadline on by the time
it stood still (since the last beat, or the match's last change when later):
:meth:`ClockKeeper.resume`, run before the process accepts a change again, once across
processes. A beat found more than :data:`STALE_SECONDS` old by a plain scan (no process
ran, or none reached the database) does the same.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from ...hand import DRAW_STOCK, PASS, Action
from ...match import TIMEOUT_LIMIT, Match
from ..errors import TableError
from ..tables.committer import Stale
from ..tables.play import Play
from ..tables.registry import TableRegistry
from ..tables.table import Table
from ..tables.views import best_discard
from .turns import TurnClaims

__all__ = ["BEAT_SECONDS", "PAUSE_SECONDS", "STALE_SECONDS", "ClockKeeper", "ends_unplayed",
           "safe_move"]

BEAT_SECONDS = 0.5
"""How often each process writes the clock beat (while any clock runs)."""
PAUSE_SECONDS = 1.5
"""After an outage this process saw, a beat older than this moves the deadlines on (an
outage shorter than this is not made up)."""
STALE_SECONDS = 5.0
"""A plain scan that finds the beat older than this moves the deadlines on (every process
was stopped, or stalled)."""

log = logging.getLogger("ginrummy.web")


def safe_move(t: Table) -> Action | None:
    """The move the table makes for the seat to play whose time is out (see the module
    docstring); None when nobody is to play."""
    m = t.match
    seat = m.to_play
    if seat is None or m.is_over() or m.awaiting_deal():
        return None
    v = m.view(seat)
    if PASS in v.legal:
        return PASS
    if DRAW_STOCK in v.legal:
        return DRAW_STOCK
    best = best_discard(v)
    return best if best is not None else v.legal[0]


def ends_unplayed(m: Match, seat: int, action: Action) -> bool:
    """Whether the safe move ``action`` would lose ``seat`` the match on time (its
    :data:`~ginrummy.match.TIMEOUT_LIMIT`-th turn in a row) while either player has not
    made a move of their own: the match is then aborted instead (no result), as any
    ending before both players have moved is."""
    return (action.act != "draw" and m.timeouts[seat] + 1 >= TIMEOUT_LIMIT
            and not (m.has_moved(0) and m.has_moved(1)))


class ClockKeeper:
    """Plays out-of-time decisions for their seats (see the module docstring)."""

    def __init__(self, registry: TableRegistry, play: Play, claims: TurnClaims,
                 scan_seconds: float = 0.25,
                 moved: Callable[[str, int], None] | None = None) -> None:
        self.registry = registry
        self.play = play
        self.claims = claims
        self.scan_seconds = scan_seconds
        self.moved = moved
        """Told of each match whose deadline a beat moved on, with its new version (the
        site tells the other processes)."""
        self.played = 0
        """Moves played here for seats whose time was out (for tests and logs)."""
        self.shifted = 0
        """Matches whose deadline this process moved on after an outage (for tests)."""
        self._skip: dict[str, float] = {}  # match id -> when the scan may retry it
        self._beat_at = 0.0  # monotonic: when this process last wrote the beat

    async def scan_forever(self) -> None:
        """Every ``scan_seconds``: enforce each expired deadline in the database."""
        db = self.play.db
        while True:
            await asyncio.sleep(self.scan_seconds)
            if not db.available:
                continue
            try:
                await self.scan_once()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - database away: try again
                log.warning("scanning the turn clocks failed: %s", e)

    async def beat(self, pause_after: float = STALE_SECONDS, force: bool = False) -> None:
        """Write the clock beat if a clock runs (at most every :data:`BEAT_SECONDS` unless
        ``force``), moving the running deadlines on if it was older than ``pause_after``."""
        now = time.monotonic()
        if not force and now - self._beat_at < BEAT_SECONDS:
            return
        db = self.play.db
        moved = await db.run(db.store.clocks.beat, time.time(), pause_after)
        self._beat_at = now
        if moved:
            log.warning("the turn clocks of %d matches moved on by the time the database "
                        "was away", len(moved))
            self.shifted += len(moved)
        for mid, version in moved:
            if self.moved is not None:
                self.moved(mid, version)
            if db.available:
                self.registry.changed_elsewhere(mid, version)

    async def resume(self) -> None:
        """The database is back (before any change is accepted here): the running
        deadlines move on by the outage, once across processes."""
        await self.beat(PAUSE_SECONDS, force=True)

    async def scan_once(self) -> int:
        """Enforce every deadline expired now (after the beat); returns how many matches
        were played."""
        db = self.play.db
        await self.beat()
        ids = await db.read(db.store.expired_clocks, time.time())
        done = 0
        now = time.monotonic()
        for mid in ids:
            if self._skip.get(mid, 0.0) > now:
                continue
            try:
                if await self.enforce(mid):
                    done += 1
            except TableError as e:  # this match only: the others still go on
                if e.status != 503:
                    self._skip[mid] = now + 60.0
                log.warning("cannot enforce the clock of match %s: %s", mid, e.message)
        return done

    async def enforce(self, mid: str) -> bool:
        """Under the match's claim: if its deadline has passed (as stored now), play the
        safe move for the seat (a whole turn: the draw and the discard), or deal the next
        hand when the wait between hands ran out. Returns whether anything was played."""
        if not await self.claims.acquire(mid):
            return False  # another process enforces it
        try:
            t = await self.registry.get(mid)
            async with t.lock:
                await self.registry.refresh(t)
                return await self._play_out(t)
        finally:
            await self.claims.release(mid)

    async def _play_out(self, t: Table) -> bool:
        """Play for the seat whose time is out until its turn ends (under the lock)."""
        sm = t.stored
        if sm.deadline is None or sm.deadline > time.time() or sm.status != "playing":
            return False  # played or changed meanwhile
        played = False
        for _ in range(3):  # at most a pass, or a draw and a discard
            m = t.match
            try:
                if m.awaiting_deal():
                    await self.play.deal_now(t)
                    return True
                seat = m.to_play
                action = safe_move(t)
                if seat is None or action is None:
                    return played
                if ends_unplayed(m, seat, action):
                    await self.play.end_locked(t, seat, abort=True)
                    self.played += 1
                    log.info("match %s: seat %d out of time before both players moved: "
                             "aborted", t.id, seat)
                    return True
                await self.play.apply(t, seat, action, timeout=True)
            except Stale:
                return played  # changed elsewhere meanwhile: the next scan looks again
            played = True
            self.played += 1
            log.info("match %s: seat %d out of time, the table played %s", t.id, seat,
                     action)
            if t.match.to_play != seat or action.act != "draw":
                return played
            # the same seat to discard after the draw: the table finishes the turn now
        return played
