"""Review jobs and hints at the web table (docs/web-api.md, "Reviews and hints").

:class:`ReviewJobs` starts the review a seat may see (see :mod:`.reviews`) unless it is
stored or running, reports where it stands, and gives the evaluator's suggestion for a
seat's decision at hand (tables against the computer only), recording that the decision
was hinted. Whether the coach may answer at all (rated play) is asked before, by the
routes (:mod:`ginrummy.web.online.coaching`). Every computation runs in worker processes of
its own (which end with the server), never on the event loop; at most one job runs per
match, claimed in the database.

**Guests get a fair share.** A review a guest starts (no account: a guest's seat, or
anyone reading a finished public match) runs in a worker of the guests' own, at the lowest
priority, at most :data:`GUEST_JOBS` at a time on a process (meanwhile another guest's
start is answered 202 ``queued``: its page polls on and the job starts when there is
room); guests' hints take at most :data:`GUEST_HINTS_WAITING` of the hint worker's places
(then 503, with a sentence). A
review is graded the same whoever starts it (it is stored once for the match's players
too), so what a guest may cost is bounded by the lane, not by grading less.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ... import i18n
from ...i18n import N_
from ...match import Match
from ...review.grade import styles_at
from ..backends.database import Database
from ..errors import TableError
from ..tables.table import Table
from ..workers import NICEST, new_pool
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
GUEST_HINTS_WAITING = 2
"""Of those, the most a guest's hints may take: the rest are kept for accounts."""
GUEST_JOBS = 1
"""Review jobs guests started that a process runs (or waits on) at once."""
GUESTS_BUSY = N_("The coach is busy with guests' reviews and hints: try again in a minute, "
                 "or log in for a place of your own.")
BUSY = N_("The coach is busy: ask again in a moment.")
UNAVAILABLE = N_("The coach is not available right now: try again.")
FAILED = N_("The review failed ({error}); try again.")
"""A failed job's sentence, stored in English (``{error}``: the exception's name) and said
in the reader's language when it is sent (:func:`failure_words`)."""
_FAILED = re.compile(r"The review failed \((\w+)\); try again\.")


def failure_words(stored: str | None) -> str | None:
    """A failed job's stored sentence in the language of the moment (any other text as it
    is).

    >>> failure_words("The review failed (ValueError); try again.")
    'The review failed (ValueError); try again.'
    """
    found = _FAILED.fullmatch(stored or "")
    return stored if found is None else i18n.t(FAILED, error=found[1])


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
        self._guest_pool: ProcessPoolExecutor | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.hints_waiting = 0
        self.guest_hints = 0
        """Guests' hints among :attr:`hints_waiting`."""
        self.guest_jobs = 0
        """Review jobs started by guests, running or waiting, on this process."""

    def close(self) -> None:
        """Stop the workers; a job cut short is re-run by the next request once its
        heartbeat is stale."""
        for task in list(self._tasks):
            task.cancel()
        for pool in (self._pool, self._hint_pool, self._guest_pool):
            if pool is not None:
                procs = list(getattr(pool, "_processes", {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for p in procs:  # a review may run for minutes: do not wait for it
                    with contextlib.suppress(Exception):
                        p.terminate()
        self._pool = self._hint_pool = self._guest_pool = None

    async def _snapshot(self, t: Table) -> Match:
        """A private copy of the table's match (the live one changes under the lock)."""
        async with t.lock:
            rec = t.match.to_record()
        return await asyncio.to_thread(Match.from_record, rec)

    # ------------------------------------------------------------------ reviews

    async def review(self, t: Table, seat: int | None, start: bool, guest: bool = False,
                     admit: Callable[[], Awaitable[None]] | None = None
                     ) -> tuple[int, dict[str, Any]]:
        """The seat's review if stored (status ``done``), else its progress; with
        ``start``, a job is started for what is missing unless one runs for this match.
        ``seat`` None: a reader with no seat at a finished public match (both seats, seen
        from seat 0's side of the table). ``guest``: a reader with no account (its job
        runs in the guests' lane; while that is full the answer is 202 ``queued``, and a
        later poll starts it); ``admit``: asked just before a job is started (it raises to
        refuse: the coach's rate limit)."""
        match = await self._snapshot(t)
        if seat is None and not match.is_over():
            raise TableError(401, N_("This review is open to its players until the match is "
                                     "over."))
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
            if guest and self.guest_jobs >= GUEST_JOBS:  # queued: the next poll tries again
                return 202, head | {"status": "queued", "progress": {"done": 0, "total": 0}}
            if admit is not None:
                await admit()
            job = await self._db(store.claim, t.id, 0, now, stale)
            if job is not None:
                self._launch(t.id, job, match.to_record(), missing, guest)
                running = True
                row = await self._db(store.row, t.id)
        status = "running" if running else "failed" if failed else "none"
        out = head | {
            "status": status,
            "progress": {"done": int(row["done"]) if row else 0,
                         "total": int(row["total"]) if row else 0},
        }
        if failed and row is not None:
            out["error"] = failure_words(row["error"])
        return (202 if running else 200), out

    async def _db(self, fn: Any, *args: Any) -> Any:
        return await self.db.run(fn, *args)

    def _launch(self, mid: str, job: str, record: dict[str, Any],
                parts: list[tuple[int, int]], guest: bool = False) -> None:
        if guest:
            self.guest_jobs += 1  # counted at once: the next guest's start sees it
        task = asyncio.get_running_loop().create_task(
            self._run(mid, job, record, parts, guest))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, mid: str, job: str, record: dict[str, Any],
                   parts: list[tuple[int, int]], guest: bool = False) -> None:
        loop = asyncio.get_running_loop()
        s = self.settings
        beat = loop.create_task(self._beat(mid, job))
        try:
            if guest:  # the guests' own worker, at the lowest priority
                if self._guest_pool is None:
                    self._guest_pool = new_pool(1, NICEST)
                pool = self._guest_pool
            else:
                if self._pool is None:
                    self._pool = new_pool(max(1, s.workers))
                pool = self._pool
            await loop.run_in_executor(pool, run_job, self.db_url, mid, job, record,
                                       parts, s.budget_ms, s.samples)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a failed job is reported, never raised
            log.exception("review of %s failed", mid)
            if isinstance(e, BrokenProcessPool):  # a worker died: the next job gets a fresh pool
                if guest:
                    self._guest_pool = None
                else:
                    self._pool = None
            with contextlib.suppress(Exception):
                await self.db.run(self.store.finish, mid, job,
                                  FAILED.format(error=type(e).__name__))
        finally:
            beat.cancel()
            if guest:
                self.guest_jobs -= 1

    async def _beat(self, mid: str, job: str) -> None:
        """Renew the job's heartbeat while this process holds it (also while it waits for
        a worker): a job whose process died goes stale and is re-run."""
        while True:
            await asyncio.sleep(max(0.2, self.settings.stale_seconds / 4))
            with contextlib.suppress(Exception):
                if not await self.db.run(self.store.beat, mid, job):
                    return

    # ------------------------------------------------------------------ hints

    async def hint(self, t: Table, seat: int, guest: bool = False) -> dict[str, Any]:
        """The coach's verdict on the seat's decision now (from its view only, R11): the
        review's own, given early (:func:`.grading.hint_once`), recorded as hinted; 409
        when there is no decision of this seat's to hint. ``guest``: a seat with no
        account (at most :data:`GUEST_HINTS_WAITING` of the places)."""
        if t.stored.opponent != "computer":
            raise TableError(409, N_("Hints are offered only at tables against the computer."))
        async with t.lock:
            m = t.match
            if m.is_over():
                raise TableError(409, N_("The match is over: there is nothing to hint."))
            if m.awaiting_deal() or m.hand.result is not None:
                raise TableError(409, N_("The hand is over: there is nothing to hint."))
            view = m.view(seat)
            if not view.legal:
                raise TableError(409, N_("It is not your turn: there is nothing to hint "
                                         "yet."))
            hand_i = len(m.hands) - 1
            action_i = len(m.hand.history)
            version = t.stored.version
            rec = m.to_record() if len(view.legal) >= 2 else None
        where = {"hand": hand_i, "action": action_i, "version": version}
        if rec is None:
            only = view.legal[0].to_json()
            return where | {"best": only, "win": None, "next": None, "either": False,
                            "text": i18n.t("Only one move is possible here.")}
        if self.hints_waiting >= MAX_HINTS_WAITING:
            raise TableError(503, BUSY)
        if guest and self.guest_hints >= GUEST_HINTS_WAITING:
            raise TableError(503, GUESTS_BUSY)
        if self._hint_pool is None:
            self._hint_pool = new_pool(1)
        s = self.settings
        self.hints_waiting += 1
        self.guest_hints += guest
        try:
            # the opponent as the seat saw it in the hands before (R11), as the review
            # samples it: worked out here, so the worker is given the seat's view only
            styles = await asyncio.to_thread(_styles, rec, seat)
            got = await asyncio.get_running_loop().run_in_executor(
                self._hint_pool, hint_once, view, styles, s.samples, s.budget_ms,
                i18n.language())
        except Exception as e:  # noqa: BLE001 - the coach failed: say so, never a traceback
            log.exception("hint for %s failed", t.id)
            if isinstance(e, BrokenProcessPool):
                self._hint_pool = None
            raise TableError(503, UNAVAILABLE) from None
        finally:
            self.hints_waiting -= 1
            self.guest_hints -= guest
        await self._db(self.store.record_hint, t.id, hand_i, action_i, seat, got["best"])
        return where | got


def _styles(record: dict[str, Any], seat: int) -> tuple[float, float]:
    """:func:`ginrummy.review.grade.styles_at` of a match given as its record."""
    return styles_at(Match.from_record(record), seat)
