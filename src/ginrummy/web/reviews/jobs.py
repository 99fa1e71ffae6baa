"""Review jobs and hints at the web table (docs/web-api.md, "Reviews and hints").

:class:`ReviewJobs` starts the review a seat may see (see :mod:`.reviews`) unless it is
stored or running, reports where it stands, and gives the evaluator's suggestion for a
seat's decision at hand (tables against the computer only), recording that the decision
was hinted. Every computation runs in worker processes of its own (which end with the
server), never on the event loop; at most one job runs per match, claimed in the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ...match import Match
from ...review.grade import styles_at
from ..backends.database import Database
from ..errors import TableError
from ..tables.table import Table
from ..workers import new_pool
from .grading import (
    ReviewSettings,
    assemble,
    hint_once,
    part_key,
    review_frames,
    review_scope,
    run_job,
)

__all__ = ["ReviewJobs"]

log = logging.getLogger("ginrummy.web")

MAX_HINTS_WAITING = 8
"""Hints queued for the hint worker at most; more are refused with 503 (try again)."""


class ReviewJobs:
    """Runs review jobs (one per match at a time, claimed in the database) and hints in
    worker processes of its own, and answers the endpoints from what is stored."""

    def __init__(self, db: Database, settings: ReviewSettings | None = None) -> None:
        self.db = db
        self.settings = settings if settings is not None else ReviewSettings.from_env()
        self.store = db.store.reviews
        self.db_url = db.store.url
        self._pool: ProcessPoolExecutor | None = None
        self._hint_pool: ProcessPoolExecutor | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.hints_waiting = 0
        self.no_hints: Callable[[str], Awaitable[str | None]] | None = None
        """Why a match gets no hints, or None (the daily deal: everyone plays it alone)."""

    def close(self) -> None:
        """Stop the workers; a job cut short is re-run by the next request once its
        heartbeat is stale."""
        for task in list(self._tasks):
            task.cancel()
        for pool in (self._pool, self._hint_pool):
            if pool is not None:
                procs = list(getattr(pool, "_processes", {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for p in procs:  # a review may run for minutes: do not wait for it
                    with contextlib.suppress(Exception):
                        p.terminate()
        self._pool = self._hint_pool = None

    async def _snapshot(self, t: Table) -> Match:
        """A private copy of the table's match (the live one changes under the lock)."""
        async with t.lock:
            rec = t.match.to_record()
        return await asyncio.to_thread(Match.from_record, rec)

    # ------------------------------------------------------------------ reviews

    async def review(self, t: Table, seat: int | None, start: bool
                     ) -> tuple[int, dict[str, Any]]:
        """The seat's review if stored (status ``done``), else its progress; with
        ``start``, a job is started for what is missing unless one runs for this match.
        ``seat`` None: a reader with no seat at a finished public match (both seats, seen
        from seat 0's side of the table)."""
        match = await self._snapshot(t)
        if seat is None and not match.is_over():
            raise TableError(401, "This review is open to its players until the match is over.")
        scope = review_scope(match, 0 if seat is None else seat)
        store = self.store
        row = await self._db(store.row, t.id)
        parts: dict[str, Any] = row["parts"] if row else {}
        missing = [p for p in scope.parts() if part_key(*p) not in parts]
        head: dict[str, Any] = {
            "id": t.id, "seat": seat, "players": list(t.stored.players),
            "scope": {"seats": list(scope.seats), "hands": list(scope.hands),
                      "match_over": scope.over},
        }
        if not missing:
            hinted = await self._db(store.hinted, t.id)
            frames = await asyncio.to_thread(review_frames, match, scope,
                                             0 if seat is None else seat)
            return 200, head | {
                "status": "done",
                "progress": {"done": 1, "total": 1},
                "review": assemble(match, scope, parts, hinted),
                "hands": frames,
                "scores": list(match.scores),
                "winner": match.winner,
                "options": match.options.to_json(),
            }
        now = time.time()
        stale = self.settings.stale_seconds
        running = bool(row and row["status"] == "running" and (row["beat_at"] or 0) >= now - stale)
        failed = bool(row and row["status"] == "failed" and (row["beat_at"] or 0) >= now - stale)
        if start and not running and not failed:
            job = await self._db(store.claim, t.id, 0, now, stale)
            if job is not None:
                self._launch(t.id, job, match.to_record(), missing)
                running = True
                row = await self._db(store.row, t.id)
        status = "running" if running else "failed" if failed else "none"
        out = head | {
            "status": status,
            "progress": {"done": int(row["done"]) if row else 0,
                         "total": int(row["total"]) if row else 0},
        }
        if failed and row is not None:
            out["error"] = row["error"]
        return (202 if running else 200), out

    async def _db(self, fn: Any, *args: Any) -> Any:
        return await self.db.run(fn, *args)

    def _launch(self, mid: str, job: str, record: dict[str, Any],
                parts: list[tuple[int, int]]) -> None:
        task = asyncio.get_running_loop().create_task(self._run(mid, job, record, parts))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, mid: str, job: str, record: dict[str, Any],
                   parts: list[tuple[int, int]]) -> None:
        loop = asyncio.get_running_loop()
        s = self.settings
        beat = loop.create_task(self._beat(mid, job))
        try:
            if self._pool is None:
                self._pool = new_pool(max(1, s.workers))
            await loop.run_in_executor(self._pool, run_job, self.db_url, mid, job, record,
                                       parts, s.budget_ms, s.samples)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a failed job is reported, never raised
            log.exception("review of %s failed", mid)
            if isinstance(e, BrokenProcessPool):
                self._pool = None  # a worker died: the next job gets a fresh pool
            with contextlib.suppress(Exception):
                await self.db.run(self.store.finish, mid, job,
                                  f"The review failed ({type(e).__name__}); try again.")
        finally:
            beat.cancel()

    async def _beat(self, mid: str, job: str) -> None:
        """Renew the job's heartbeat while this process holds it (also while it waits for
        a worker): a job whose process died goes stale and is re-run."""
        while True:
            await asyncio.sleep(max(0.2, self.settings.stale_seconds / 4))
            with contextlib.suppress(Exception):
                if not await self.db.run(self.store.beat, mid, job):
                    return

    # ------------------------------------------------------------------ hints

    async def hint(self, t: Table, seat: int) -> dict[str, Any]:
        """The coach's verdict on the seat's decision now (from its view only, R11): the
        review's own, given early (:func:`.grading.hint_once`), recorded as hinted; 409
        when there is no decision of this seat's to hint."""
        if t.stored.opponent != "computer":
            raise TableError(409, "Hints are offered only at tables against the computer.")
        if self.no_hints is not None:
            why = await self.no_hints(t.id)
            if why is not None:
                raise TableError(409, why)
        async with t.lock:
            m = t.match
            if m.is_over():
                raise TableError(409, "The match is over: there is nothing to hint.")
            if m.awaiting_deal() or m.hand.result is not None:
                raise TableError(409, "The hand is over: there is nothing to hint.")
            view = m.view(seat)
            if not view.legal:
                raise TableError(409, "It is not your turn: there is nothing to hint yet.")
            hand_i = len(m.hands) - 1
            action_i = len(m.hand.history)
            version = t.stored.version
            rec = m.to_record() if len(view.legal) >= 2 else None
        where = {"hand": hand_i, "action": action_i, "version": version}
        if rec is None:
            only = view.legal[0].to_json()
            return where | {"best": only, "win": None, "next": None, "either": False,
                            "text": "Only one move is possible here."}
        if self.hints_waiting >= MAX_HINTS_WAITING:
            raise TableError(503, "The coach is busy: ask again in a moment.")
        if self._hint_pool is None:
            self._hint_pool = new_pool(1)
        s = self.settings
        self.hints_waiting += 1
        try:
            # the opponent as the seat saw it in the hands before (R11), as the review
            # samples it: worked out here, so the worker is given the seat's view only
            styles = await asyncio.to_thread(_styles, rec, seat)
            got = await asyncio.get_running_loop().run_in_executor(
                self._hint_pool, hint_once, view, styles, s.samples, s.budget_ms)
        except Exception as e:  # noqa: BLE001 - the coach failed: say so, never a traceback
            log.exception("hint for %s failed", t.id)
            if isinstance(e, BrokenProcessPool):
                self._hint_pool = None
            raise TableError(503, "The coach is not available right now: try again.") from None
        finally:
            self.hints_waiting -= 1
        await self._db(self.store.record_hint, t.id, hand_i, action_i, seat, got["best"])
        return where | got


def _styles(record: dict[str, Any], seat: int) -> tuple[float, float]:
    """:func:`ginrummy.review.grade.styles_at` of a match given as its record."""
    return styles_at(Match.from_record(record), seat)
