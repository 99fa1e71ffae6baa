"""The computer's turns: driven by one process at a time, taken over when its driver dies,
resumed after a restart, and going on while the broker is away.

Decisions come from the :class:`~.computer.ComputerDriver` (off the event loop) and go
through the same path as a person's moves (:meth:`.play.Play.apply`). With many processes,
only the holder of a match's claim drives its turn: :class:`TurnClaims` takes it from the
broker (a Redis lease with expiry, renewed while held) and, while the broker is away, from
the database (a row with the same expiry), so computer turns never stand still. Another
process that finds a turn waiting with nobody's claim takes it over within seconds; the
version check of every commit makes a race between two drivers harmless.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from typing import Any

from ...bots import bot_names, make_bot
from ..backends.broker import Broker
from ..backends.database import Database
from ..errors import TableError
from ..tables.committer import Stale
from ..tables.levels import resolve_bot
from ..tables.play import Play
from ..tables.registry import TableRegistry
from ..tables.table import Table
from .driver import ComputerDriver

__all__ = ["ComputerTurns", "TurnClaims", "bot_seed", "position_seed"]

log = logging.getLogger("ginrummy.web")


class TurnClaims:
    """Who drives a match's computer turn: the broker's leases, or the database's claim
    rows while the broker cannot be reached (see the module docstring)."""

    def __init__(self, broker: Broker, db: Database, ttl: float = 3.0) -> None:
        self.broker = broker
        self.db = db
        self.ttl = ttl
        self.holder = broker.process_id
        self.fallbacks = 0
        """Claims taken in the database because the broker was away."""
        self._in_db: set[str] = set()

    async def acquire(self, match_id: str) -> bool:
        """Take the claim unless another process holds it."""
        if not self.broker.distributed:
            return await self.broker.acquire(match_id, self.ttl)
        try:
            return await self.broker.acquire(match_id, self.ttl)
        except Exception as e:  # noqa: BLE001 - broker away: claim in the database
            log.debug("lease of %s from the broker failed (%s): database claim", match_id, e)
        self.fallbacks += 1
        return await self._db_claim(match_id)

    async def renew(self, match_id: str) -> bool:
        """Keep the claim (taking it again where it lapsed and nobody took it); False
        when another process holds it now."""
        if not self.broker.distributed:
            return await self.broker.renew(match_id, self.ttl)
        try:
            return await self.broker.renew(match_id, self.ttl)
        except Exception:  # noqa: BLE001 - broker away: claim in the database
            return await self._db_claim(match_id)

    async def release(self, match_id: str) -> None:
        """Give the claim back (wherever it was taken)."""
        with contextlib.suppress(Exception):  # else the lease expires by itself
            await self.broker.release(match_id)
        if match_id in self._in_db:
            self._in_db.discard(match_id)
            with contextlib.suppress(TableError):  # else the claim expires by itself
                await self.db.run(self.db.store.claims.release, match_id, self.holder)

    async def _db_claim(self, match_id: str) -> bool:
        try:
            ok = await self.db.run(self.db.store.claims.acquire, match_id, self.holder,
                                   self.ttl)
        except TableError:
            return False  # neither is there: nobody can store the move anyway
        if ok:
            self._in_db.add(match_id)
        return ok


def position_seed(seed: int, match_id: str, seq: int) -> int:
    """The computer's seed in match ``match_id`` (dealt from the secret ``seed``) before
    its action ``seq``: a pure function of the three, so every process finds the same one.

    The match's id is in it because matches may share a seed: every daily match of a day
    is dealt from the day's seed (the same deals for everyone), and with the seed alone the
    ``hard`` computer would play the same line against everyone, so a second account
    replaying the first's moves would meet the same table. With the id, each match (each
    player's one daily match) meets a computer whose choices are drawn for it alone; the
    secret seed keeps them unknown to the players until the seed opens."""
    return random.Random(f"{seed}:{match_id}:bot:{seq}").randrange(2**62)


def bot_seed(t: Table) -> int:
    """The computer's seed at the table's current position (:func:`position_seed`: the
    same in any process, so a turn taken over elsewhere is decided the same way)."""
    return position_seed(t.stored.seed, t.id, t.next_seq)


class ComputerTurns:
    """Plays the computer's seat of every computer match in memory here."""

    def __init__(self, registry: TableRegistry, play: Play, driver: ComputerDriver,
                 claims: TurnClaims, bot_delay: float | tuple[float, float] = (0.6, 1.2),
                 scan_seconds: float = 1.0) -> None:
        self.registry = registry
        self.play = play
        self.driver = driver
        self.claims = claims
        self.bot_delay = bot_delay
        self.scan_seconds = scan_seconds
        self._scan_skip: dict[str, float] = {}  # match id -> when the scan may retry it
        self.stopping = False
        registry.on_table.append(self.kick)
        play.committer.after_commit.append(self.kick)

    @staticmethod
    def to_move(t: Table) -> bool:
        """Whether the computer is to play at ``t``."""
        m = t.match
        return (t.bot_seat is not None and not m.is_over() and not m.awaiting_deal()
                and m.to_play == t.bot_seat)

    def _delay(self) -> float:
        d = self.bot_delay
        if isinstance(d, tuple):
            return random.uniform(d[0], d[1])
        return float(d)

    def attach_bot(self, t: Table) -> None:
        """Give a computer table its bot (the level's registered bot, seeded for the
        table's position)."""
        sm = t.stored
        name = sm.bot_name or "random"
        if name not in bot_names():
            name = resolve_bot(sm.bot_level or "medium")
        t.bot_name = name
        t.bot = make_bot(name, bot_seed(t))
        t.bot_seat = 1
        t.bot.new_match(1)

    def stop(self) -> list[asyncio.Task[None]]:
        """Cancel every computer move in progress here and start no more (the server is
        stopping: another process takes the turns over); returns the cancelled tasks,
        for the caller to let them end (each hands its claim back)."""
        self.stopping = True
        cancelled = []
        for t in list(self.registry.tables.values()):
            if t.bot_task is not None and not t.bot_task.done():
                t.bot_task.cancel()
                cancelled.append(t.bot_task)
        return cancelled

    def kick(self, t: Table) -> None:
        """Start the computer's move if it is to play and not already thinking."""
        if self.stopping or (t.bot_task is not None and not t.bot_task.done()):
            return
        if self.registry.peek(t.id) is not t or not self.to_move(t):
            return
        if t.bot is None:
            self.attach_bot(t)
        t.bot_task = asyncio.get_running_loop().create_task(self._drive(t))

    async def _drive(self, t: Table) -> None:
        """Play the computer's moves while it is to play, each after a short delay, holding
        the match's claim (renewed meanwhile: a dead holder's turn is taken over)."""
        claims = self.claims
        if not await claims.acquire(t.id):
            return
        lost = asyncio.Event()
        me = asyncio.current_task()
        assert me is not None
        renewer = asyncio.get_running_loop().create_task(self._keep_claim(t.id, lost, me))
        try:
            while self.registry.peek(t.id) is t and self.to_move(t):
                version = t.version
                delay = self._delay()
                if delay > 0:
                    await asyncio.sleep(delay)
                if t.version != version or not self.to_move(t):
                    continue
                assert t.bot is not None and t.bot_seat is not None
                view = t.match.view(t.bot_seat)
                decision = await self.driver.decide(t.bot_name, t.bot, bot_seed(t), view)
                action = decision.action
                if action not in view.legal:
                    log.error("bot %s chose an illegal %s", decision.by, action)
                    action = random.choice(view.legal)
                async with t.lock:
                    if t.version != version or not self.to_move(t):
                        continue
                    if lost.is_set():
                        log.warning("lost the computer-turn claim of %s", t.id)
                        return
                    try:
                        await self.play.apply(t, t.bot_seat, action)
                    except Stale:
                        continue  # rebuilt: think again about the table as it is
        except asyncio.CancelledError:
            raise
        except TableError as e:
            log.warning("computer move in match %s failed: %s", t.id, e.message)
        except Exception:  # noqa: BLE001 - keep the server up; the move is retried later
            log.exception("computer move in match %s failed", t.id)
        finally:
            renewer.cancel()
            await claims.release(t.id)
            if not self.stopping:
                # a change made while this was ending found it still running: look again
                asyncio.get_running_loop().call_soon(self.kick, t)

    async def _keep_claim(self, match_id: str, lost: asyncio.Event,
                          driver: asyncio.Task[Any]) -> None:
        """Renew the claim every third of its life while ``driver`` runs; set ``lost``
        when another process has it."""
        while True:
            await asyncio.sleep(self.claims.ttl / 3)
            if driver.done():
                return  # never outlive the drive (a claim kept for nobody blocks the turn)
            if not await self.claims.renew(match_id):
                lost.set()
                return

    # ------------------------------------------------------------------ take-over

    async def resume_all(self) -> None:
        """After a start: drive every computer turn left waiting (one process alone)."""
        try:
            ids = await self.play.db.run(self.play.db.store.ids_with_status, "playing",
                                         "computer")
        except TableError as e:
            log.error("Cannot resume computer turns: %s", e.message)
            return
        for mid in ids:
            try:
                await self.registry.get(mid)  # told to this part: kicked if due
            except TableError as e:
                log.error("Cannot resume match %s: %s", mid, e.message)

    async def scan_forever(self) -> None:
        """Many processes: take over computer turns whose driver is gone. A turn left
        waiting longer than a moment whose claim nobody holds is driven here (the claim
        makes sure by one process only)."""
        db = self.play.db
        while True:
            await asyncio.sleep(self.scan_seconds)
            if not db.available:
                continue
            try:
                ids = await db.run(db.store.computer_turns, time.time() - self.scan_seconds)
                now = time.monotonic()
                for mid in ids:
                    if self._scan_skip.get(mid, 0.0) > now:
                        continue
                    try:
                        await self._take_over(mid)
                    except TableError as e:  # this match only: the others still go on
                        if e.status != 503:  # (the database away: tried again next scan)
                            self._scan_skip[mid] = now + 60.0
                        log.warning("cannot drive computer turn of match %s: %s", mid,
                                    e.message)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - database away: try again
                log.warning("scanning for computer turns failed: %s", e)

    async def _take_over(self, mid: str) -> None:
        """Drive the computer's waiting turn in ``mid`` here, unless its driver lives on."""
        t = self.registry.peek(mid)
        if t is not None and t.bot_task is not None and not t.bot_task.done():
            return
        if not await self.claims.acquire(mid):
            return
        await self.claims.release(mid)  # the driver takes it again for itself
        t = await self.registry.get(mid)
        async with t.lock:
            await self.registry.refresh(t)
        self.kick(t)
