"""Screening: every finished rated match graded in the background, and accounts whose play
agrees with the engine beyond honest play flagged for a moderator (docs/fair-play.md).

**What is screened.** When a match the coach stays away from ends (rated, arena or daily:
``no_coach``, or linked as rated), :meth:`Screening.match_over` queues it in the database
(``screen_jobs``); a scan on every process also queues any such match a stopped process
left unqueued. Every process takes queued matches one at a time (a conditional update: one
process screens a match; a job whose process died goes stale and is taken again, at most
three tries) and grades each seat an account played, BOT accounts and seats played by
programs aside, in a worker process of its own at low priority: every decision as the
review grades it, with its samples and seed and no time limit, so the figures are the same
on any machine and under any load (:func:`ginrummy.review.screening.screen_match`). The
figures are stored per account and match (``screenings``).

**The rule.** After each screened match, each of its accounts' most recent matches are
summed until they hold :data:`WINDOW` decisions (all of them for a newer account), and
:func:`ginrummy.review.screening.verdict` says whether that is beyond what the calibration
allows; if so the account is flagged (``flags``) with the figures and the matches behind
them. A flag is for a person to judge (:mod:`.moderation`), never a ban. A flag a moderator
cleared is raised again only by play after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ...match import Match
from ...review.screening import Figures, screen_match, verdict
from ..backends.database import Database
from ..errors import TableError
from ..tables.table import Table, build_match
from ..workers import new_pool

__all__ = ["WINDOW", "Screening", "ScreeningSettings", "screen_record"]

log = logging.getLogger("ginrummy.web")

DAILY = "Daily deal:"
"""How a flag raised by the daily deal's judgement begins (:mod:`.daily`)."""
WINDOW = 600
"""Decisions of an account's most recent matches the rule judges together."""


@dataclass(frozen=True, slots=True)
class ScreeningSettings:
    """How the screening runs: its scan's period, the seconds after which a taken job
    whose process stopped beating is taken again, and whether it runs at all."""

    scan_seconds: float = 5.0
    stale_seconds: float = 120.0
    enabled: bool = True

    @classmethod
    def from_env(cls) -> ScreeningSettings:
        """``GINRUMMY_SCREENING=off`` turns it off (a site that screens elsewhere);
        ``GINRUMMY_SCREEN_SCAN`` sets the scan's period in seconds."""
        scan = os.environ.get("GINRUMMY_SCREEN_SCAN")
        return cls(scan_seconds=float(scan) if scan else 5.0,
                   enabled=os.environ.get("GINRUMMY_SCREENING", "on").lower() != "off")


def screen_record(record: dict[str, Any], seats: list[int]) -> list[dict[str, Any]]:
    """The screening figures of ``seats`` in the match of ``record`` (run in a worker)."""
    match = Match.from_record(record)
    return [screen_match(match, seat).to_json() for seat in seats]


class Screening:
    """The background screening of finished rated matches (see the module docstring)."""

    def __init__(self, db: Database, settings: ScreeningSettings | None = None) -> None:
        self.db = db
        self.settings = settings if settings is not None else ScreeningSettings.from_env()
        self.holder = secrets.token_hex(8)
        self._pool: ProcessPoolExecutor | None = None
        self._kick = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self.screened = 0
        """Matches this process has screened (for ``/metrics`` and tests)."""

    def close(self) -> None:
        """Stop the worker (a job cut short is taken again once its heartbeat is stale)."""
        for task in list(self._tasks):
            task.cancel()
        if self._pool is not None:
            procs = list(getattr(self._pool, "_processes", {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                with contextlib.suppress(Exception):
                    p.terminate()
            self._pool = None

    def match_over(self, t: Table) -> None:
        """The committer's listener: queue a match that just ended, if it is screened."""
        task = asyncio.get_running_loop().create_task(self._queue(t))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _queue(self, t: Table) -> None:
        try:
            links = await self.db.read(self.db.store.accounts.links, [t.id])
            link = links.get(t.id)
            if link is None or not (link.rated or t.stored.no_coach):
                return
            if not any(link.accounts):
                return
            await self.db.run(self.db.store.fairplay.enqueue, t.id)
            self._kick.set()
        except TableError as e:
            log.warning("match %s not queued for screening yet: %s", t.id, e.message)

    async def scan_forever(self) -> None:
        """Queue what a stopped process left, then screen queued matches, every
        ``scan_seconds`` (at once after a match of this process ends)."""
        if not self.settings.enabled:
            return
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._kick.wait(), self.settings.scan_seconds)
            self._kick.clear()
            try:
                await self.scan()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the next scan tries again
                log.exception("screening scan failed")

    async def scan(self) -> int:
        """Queue unqueued finished rated matches and screen every queued one this process
        can take; how many it screened."""
        fp = self.db.store.fairplay
        for left in await self.db.read(fp.unqueued):
            await self.db.run(fp.enqueue, left)
        n = 0
        while True:
            mid: str | None = await self.db.run(fp.take_job, self.holder, time.time(),
                                                self.settings.stale_seconds)
            if mid is None:
                return n
            await self.screen(mid)
            n += 1

    async def screen(self, match_id: str) -> None:
        """Screen one taken match: grade its people's seats, store the figures, and judge
        each account again."""
        fp = self.db.store.fairplay
        beat = asyncio.get_running_loop().create_task(self._beat(match_id))
        try:
            rows = await self._figures(match_id)
            if await self.db.run(fp.finish_job, match_id, self.holder, rows, time.time()):
                self.screened += 1
                for account_id, _, _ in rows:
                    await self.judge(account_id)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a failed job is tried again later
            log.exception("screening of %s failed", match_id)
            if isinstance(e, BrokenProcessPool):
                self._pool = None
            with contextlib.suppress(Exception):
                await self.db.run(fp.release_job, match_id, self.holder)
        finally:
            beat.cancel()

    async def _figures(self, match_id: str) -> list[tuple[str, int, dict[str, Any]]]:
        """(account, seat, figures) of each seat of the match a person's account played
        (not a BOT account, not a seat a program played)."""
        stored = await self.db.read(self.db.store.load, match_id)
        links = await self.db.read(self.db.store.accounts.links, [match_id])
        link = links.get(match_id)
        if stored is None or link is None:
            return []
        held = {s: str(a) for s, a in enumerate(link.accounts)
                if a and not stored.bot_seats[s]}
        accounts = await self.db.read(self.db.store.accounts.by_ids, list(held.values()))
        seats = [s for s, a in held.items() if a in accounts and not accounts[a].bot]
        if not seats:
            return []
        match = await asyncio.to_thread(build_match, stored)
        if self._pool is None:
            self._pool = new_pool(1)
        figures = await asyncio.get_running_loop().run_in_executor(
            self._pool, screen_record, match.to_record(), seats)
        return [(held[s], s, f) for s, f in zip(seats, figures, strict=True)]

    async def _beat(self, match_id: str) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.settings.stale_seconds / 4))
            with contextlib.suppress(Exception):
                if not await self.db.run(self.db.store.fairplay.beat_job, match_id,
                                         self.holder):
                    return

    async def judge(self, account_id: str) -> str | None:
        """Apply the rule to the account's most recent screened decisions (after a flag
        a moderator cleared, only to play after it); flag the account if it says so. The
        reason, or None."""
        fp = self.db.store.fairplay
        flag = await self.db.read(fp.flag_of, account_id)
        since = flag.closed_at if flag is not None and flag.status == "cleared" else 0.0
        rows = await self.db.read(fp.screenings, account_id, since or 0.0)
        total = Figures()
        matches: list[str] = []
        for r in rows:  # newest first
            if total.decisions >= WINDOW:
                break
            total = total + Figures.from_json(r.figures)
            matches.append(r.match_id)
        reason = verdict(total)
        if reason is not None:
            if flag is not None and flag.status == "open" and DAILY in flag.reason:
                # an open flag from the daily deal keeps its sentence and match
                reason = f"{reason}. Also open: {flag.reason[flag.reason.index(DAILY):]}"
                matches += [m for m in flag.matches if m not in matches]
            await self.db.run(fp.flag, account_id, reason, total.to_json(), matches,
                              time.time())
            log.info("account %s flagged: %s", account_id, reason)
        return reason
