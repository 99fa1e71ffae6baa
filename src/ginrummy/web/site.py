"""The web table composed: each part made once, given the parts it calls, and started.

Parts call each other only through public methods, in one direction (the arrows of
docs/architecture.md); where a lower part must tell a higher one something (a table entered
memory, a change was stored, the database or the broker came back) it calls the listeners
that part registered. :class:`Site` is the one place that knows every part: the HTTP and
WebSocket routes (:mod:`.routes`) are given it and use the parts they need.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from .accounts.accounts import Accounts
from .accounts.hashing import PasswordPool
from .accounts.tokens import ApiTokens
from .backends.broker import Broker, LocalBroker, Outbox
from .backends.database import Database
from .backends.failures import LoginFailures
from .backends.limits import RateLimits
from .computer.driver import ComputerDriver
from .computer.timeouts import ClockKeeper
from .computer.turns import ComputerTurns, TurnClaims
from .guard import Limits, Settings
from .metrics import Metrics
from .online.arenas import Arenas
from .online.challenges import Challenges
from .online.chat import Chat
from .online.coaching import Coaching
from .online.daily import Daily, Entry
from .online.ladder import LEVELS, Ladder, level_id
from .online.moderation import Moderation
from .online.notices import RESTARTING, Notices
from .online.people import People
from .online.presence import Presence
from .online.ratings import Ratings
from .online.screening import Screening
from .online.seeks import Seeks
from .online.spectators import Spectators
from .records.games import GameExport
from .records.records import Records
from .reviews.jobs import ReviewJobs
from .store import Store
from .tables.committer import Committer
from .tables.lobby import Lobby
from .tables.play import Play
from .tables.registry import TableRegistry
from .tables.rematches import Rematches
from .tables.sockets import SocketHub
from .training.analysis import Analysis
from .training.coach import Coach
from .training.mistakes import Mistakes
from .training.puzzles import Puzzles

__all__ = ["Site"]

log = logging.getLogger("ginrummy.web")


class Site:
    """Every part of one server process (see the module docstring and
    docs/architecture.md)."""

    def __init__(
        self,
        store: Store,
        broker: Broker | None = None,
        driver: ComputerDriver | None = None,
        settings: Settings | None = None,
        limits: Limits | None = None,
        bot_delay: float | tuple[float, float] = (0.6, 1.2),
        resume: bool = True,
        idle_seconds: float = 600.0,
        lease_seconds: float = 3.0,
        scan_seconds: float = 1.0,
        rate_storage: str = "memory://",
        clock_scan_seconds: float = 0.25,
    ) -> None:
        self.settings = settings if settings is not None else Settings()
        self.limits = limits if limits is not None else Limits()
        self.broker = broker if broker is not None else LocalBroker()
        self.store = store
        self.resume = resume
        self.db = Database(store)
        self.outbox = Outbox(self.broker) if self.broker.distributed else None
        self.hub = SocketHub(self.limits, self.broker, paused=lambda: not self.db.available,
                             heartbeat_seconds=self.settings.ws_heartbeat_seconds)
        self.registry = TableRegistry(self.db, self.hub, self.broker, self.limits,
                                      idle_seconds=idle_seconds)
        self.committer = Committer(self.db, self.registry, self.hub, self.outbox)
        self.play = Play(self.registry, self.committer, self.db)
        self.driver = driver if driver is not None else ComputerDriver()
        self.claims = TurnClaims(self.broker, self.db, ttl=lease_seconds)
        self.turns = ComputerTurns(self.registry, self.play, self.driver, self.claims,
                                   bot_delay=bot_delay, scan_seconds=scan_seconds)
        self.clocks = ClockKeeper(self.registry, self.play, self.claims,
                                  scan_seconds=clock_scan_seconds,
                                  moved=self.outbox.put if self.outbox is not None else None)
        self.lobby = Lobby(self.registry, self.committer, self.db)
        self.rematches = Rematches(self.registry, self.lobby, self.db)
        self.records = Records(self.db)
        self.games = GameExport(self.db)
        self.reviews = ReviewJobs(self.db)
        self.rates = RateLimits(self.settings, rate_storage)
        self.passwords = PasswordPool(self.limits.password_workers, self.limits.password_queue)
        self.login_failures = LoginFailures(rate_storage)
        self.accounts = Accounts(self.db, self.rates, pool=self.passwords,
                                 failures=self.login_failures)
        self.ratings = Ratings(self.db, self.registry)
        self.committer.after_commit.append(self.ratings.after_commit)
        self.seeks = Seeks(self.db, self.lobby, self.registry)
        self.seeks.abort = lambda t: self.play.abort(t, 0)  # a stale pairing's match
        self.spectators = Spectators(self.db, self.registry)
        # challenges, API tokens, BOT accounts and the computer on the ladder
        self.tokens = ApiTokens(self.db, self.rates)
        self.ladder = Ladder(self.db)
        self.ratings.level_ratings = self.ladder.ratings
        self.ratings.level_ids = [level_id(lv) for lv in LEVELS]
        self.challenges = Challenges(self.db, self.lobby, self.registry)
        self.challenges.abort = lambda t: self.play.abort(t, 0)  # a stale acceptance's
        self.notices = Notices(self.db, self.broker, self.hub, self.challenges, self.accounts,
                               heartbeat_seconds=self.settings.ws_heartbeat_seconds)
        self.tokens.on_revoke.append(self.notices.revoked)
        self.broker.on_logout.append(self.hub.close_sessions)
        self.broker.on_logout.append(self.notices.close_sessions)  # on every process
        self.coach = Coach()
        self.analysis = Analysis(self.coach)
        self.puzzles = Puzzles(self.db)
        self.mistakes = Mistakes(self.db, self.coach)
        # arena tournaments and the daily deal
        self.arenas = Arenas(self.db, self.lobby, self.registry, self.play)
        self.committer.match_over.append(self.arenas.match_over)
        self.arenas.on_change.append(self.notices.poke)
        self.daily = Daily(self.db, self.lobby, Entry(self.settings.daily_min_days,
                                                      self.settings.daily_min_rated))
        self.records.withheld = self.daily.withheld
        self.committer.match_over.append(self.daily.match_over)  # suspicious results
        # fair play: the screening of rated matches, and the moderators
        self.screening = Screening(self.db)
        self.committer.match_over.append(self.screening.match_over)
        self.moderation = Moderation(self.db, self.screening)
        self.coaching = Coaching(self.db)
        self.coaching.daily_open = self.daily.review_closed
        # people: who is online, friends, blocks, and the chat
        self.presence = Presence(self.broker)
        self.people = People(self.db, self.presence)
        self.chat = Chat(self.db, self.broker, self.hub, self.people, self.rates)
        self.moderation.chat_report = self.chat.reported
        self.challenges.may_challenge = self.people.may_challenge
        self.challenges.blocked_between = self.people.blocked_between
        self.notices.extras.append(self.people.notices)
        self.arenas.on_created.append(self._arena_made)
        self.db.on_down.append(self._database_down)
        self.db.before_up.append(self.clocks.resume)  # clocks stand still in an outage
        self.db.on_up.append(self._database_up)
        self.metrics = self._metrics()
        self._tasks: set[asyncio.Task[None]] = set()

    def _metrics(self) -> Metrics:
        """What ``GET /metrics`` shows: counts kept here, and values the parts keep, read
        when scraped."""
        m = Metrics()
        m.counter("ginrummy_moves_committed_total",
                  "Changes committed to matches by this process (moves, timeouts, endings).")
        m.counter("ginrummy_matches_ended_total", "Matches whose ending this process committed.")
        self.committer.after_commit.append(
            lambda _t: m.inc("ginrummy_moves_committed_total"))
        self.committer.match_over.append(lambda _t: m.inc("ginrummy_matches_ended_total"))
        m.gauge("ginrummy_open_sockets", "WebSockets open on this process.",
                self.hub.open_count)
        m.gauge("ginrummy_tables_in_memory", "Matches held in this process's memory.",
                lambda: len(self.registry.tables))
        m.counter("ginrummy_computer_decisions_total",
                  "Computer decisions made in the worker pool.", lambda: self.driver.pooled)
        m.counter("ginrummy_computer_fallbacks_total",
                  "Computer decisions that fell back to the fast bot.",
                  lambda: self.driver.fallbacks)
        m.histogram("ginrummy_http_request_seconds", "HTTP request latency by route.")
        m.counter("ginrummy_database_errors_total", "Database calls that failed.",
                  lambda: self.db.errors)
        m.counter("ginrummy_database_outages_total", "Times the database went away.",
                  lambda: self.db.outages)
        m.counter("ginrummy_broker_errors_total", "Broker commands that failed.",
                  lambda: self.broker.errors)
        m.gauge("ginrummy_database_up", "1 while the database is reachable, else 0.",
                lambda: 1.0 if self.db.available else 0.0)
        m.gauge("ginrummy_broker_up", "1 while the broker is reachable, else 0.",
                lambda: 1.0 if self.broker.healthy else 0.0)
        m.gauge("ginrummy_moves_paused", "1 while moves are refused (the database is away).",
                lambda: 0.0 if self.db.available else 1.0)
        return m

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start(self) -> None:
        """Connect to the broker, start the background work (sweeping idle tables,
        heartbeats, enforcing the turn clocks, polling while the broker is away,
        publishing, taking over computer turns) and resume computer turns left pending by
        a stop."""
        await self.broker.start(self.registry.changed_elsewhere, self._broker_back,
                                self.notices.from_broker)
        await self.ladder.ensure()
        self._spawn(self.notices.run_forever())
        self._spawn(self.challenges.sweep_forever())
        try:  # no process ran for a while: the clocks stood still meanwhile
            await self.clocks.beat(force=True)
        except Exception as e:  # noqa: BLE001 - the database is away: the scan beats later
            log.warning("the clock beat waits for the database: %s",
                        getattr(e, "message", type(e).__name__))
        self._spawn(self.registry.sweep_forever())
        self._spawn(self.db.watch_forever())
        self._spawn(self.hub.heartbeat_forever(self.registry.peek))
        self._spawn(self.clocks.scan_forever())  # deadlines are in the database: any process
        self._spawn(self.ratings.scan_forever())
        self._spawn(self.seeks.sweep_forever())
        self._spawn(self.arenas.scan_forever())  # arenas are in the database: any process
        self._spawn(self.screening.scan_forever())  # queued in the database: any process
        self._spawn(self.presence.run_forever())
        self._spawn(self.chat.run_forever())
        if self.rates.shared is not None:
            self._spawn(self.rates.shared.sync_forever())
        if self.outbox is not None:
            self._spawn(self.outbox.run_forever())
            self._spawn(self.registry.poll_forever())
            self._spawn(self.turns.scan_forever())
        elif self.resume:
            self._spawn(self.turns.resume_all())

    async def stop(self) -> None:
        """Stop computer players and background work, close the sockets (the pages
        reconnect to another process), and release the database and the broker."""
        self.reviews.close()
        self.screening.close()
        self.mistakes.close()
        self.coach.close()
        stopping: list[asyncio.Task[Any]] = list(self.turns.stop())
        self.hub.close_all(RESTARTING)
        self.notices.stop()
        for task in list(self._tasks):
            task.cancel()
            stopping.append(task)
        if stopping:  # let them end while the loop runs (a computer turn hands its claim back)
            await asyncio.wait(stopping, timeout=2.0)
        self.registry.stop()
        if self.outbox is not None and len(self.outbox):
            # the last changes' events, if the broker takes them at once (else the other
            # processes catch up by polling)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.outbox.flush(), 2.0)
        await self.broker.close()
        if self.rates.shared is not None:
            await self.rates.shared.close()
        await self.login_failures.close()
        self.passwords.close()
        d = self.driver
        log.info("computer decisions: %d in the pool, %d by the fallback bot", d.pooled,
                 d.fallbacks)
        d.close()
        self.db.close()

    async def logged_out(self, account: str, session: str | None) -> None:
        """An account was logged out (``session``: one session's token hash; None: every
        session): close its session sockets here, of tables and of notices, and on every
        other process through the broker (a socket whose notice was lost finds its session
        gone at its next move, or before a push that would carry a seat token)."""
        self.hub.close_sessions(account, session)
        self.notices.close_sessions(account, session)
        try:
            await self.broker.publish_logout(account, session)
        except Exception as e:  # noqa: BLE001 - broker away: the sockets re-check
            log.warning("could not publish a logout (%s): sockets re-check their session", e)

    def _arena_made(self, creator: str) -> None:
        """An arena was made: its creator's followers are told (their notices)."""
        async def tell() -> None:
            try:
                self.notices.poke(await self.people.followers_of(creator))
            except Exception as e:  # noqa: BLE001 - their next refresh shows it anyway
                log.debug("followers not told of an arena: %s", e)
        self._spawn(tell())

    def _database_down(self) -> None:
        """Every seat is shown its last state, with moves paused."""
        self.hub.broadcast_all(self.registry.tables.values())

    def _database_up(self) -> None:
        """Every table catches up (a change in flight when the database went away may
        have been stored after all) and every seat is pushed its state: moves resume."""
        self.registry.refresh_all(force_push=True)

    def _broker_back(self) -> None:
        """Events may have been missed while the broker was away: catch every table up,
        and every account's notices."""
        self.registry.refresh_all()
        self.notices.refresh_all()
