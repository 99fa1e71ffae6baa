"""The coach's worker processes for training (analysis requests and measuring a player's
own marked decisions) and their settings.

Evaluations run in a pool of their own (never on the event loop, apart from the table's
computer players and reviews), with a cap on the requests waiting for it: past the cap a
request is refused at once (503, "the coach is busy") rather than queued for minutes.

**Guests get a fair share, never the whole coach.** A guest's evaluation (a request with
no account) runs in a lane of its own: a smaller pool (``guest_workers``, at the lowest
priority, so it uses only CPU the tables and the accounts leave) with a smaller cap on
waiting requests (``guest_waiting``). However many guests ask, the accounts' pool and its
queue stay theirs, and a guests' flood costs the tables little.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from ...i18n import N_
from ...training.puzzles import PUZZLE_SAMPLES
from ..errors import TableError
from ..workers import NICEST, new_pool

__all__ = ["Coach", "TrainingSettings"]

log = logging.getLogger("ginrummy.web")

T = TypeVar("T")


@dataclass(frozen=True)
class TrainingSettings:
    """How much work training gets, from the environment (:meth:`from_env`):
    ``GINRUMMY_PUZZLE_SAMPLES`` (deals a player's own marked decision is measured on,
    default 4,096 as for every puzzle; tests set fewer), ``GINRUMMY_COACH_WORKERS``
    (worker processes, default 1), ``GINRUMMY_COACH_WAITING`` (requests waiting for
    them at most, default 8), and the guests' lane: ``GINRUMMY_COACH_GUEST_WORKERS``
    (default 1) and ``GINRUMMY_COACH_GUEST_WAITING`` (default 2)."""

    puzzle_samples: int = PUZZLE_SAMPLES
    workers: int = 1
    waiting: int = 8
    guest_workers: int = 1
    guest_waiting: int = 2

    @classmethod
    def from_env(cls) -> TrainingSettings:
        """The defaults, overridden by the variables that are set to a positive whole
        number (anything else is logged and the default kept)."""
        d = cls()

        def num(name: str, default: int) -> int:
            raw = os.environ.get(name, "").strip()
            if not raw:
                return default
            if raw.isdigit() and int(raw) > 0:
                return int(raw)
            log.warning("%s must be a positive whole number, not %r: using %s.", name, raw,
                        default)
            return default

        return cls(num("GINRUMMY_PUZZLE_SAMPLES", d.puzzle_samples),
                   num("GINRUMMY_COACH_WORKERS", d.workers),
                   num("GINRUMMY_COACH_WAITING", d.waiting),
                   num("GINRUMMY_COACH_GUEST_WORKERS", d.guest_workers),
                   num("GINRUMMY_COACH_GUEST_WAITING", d.guest_waiting))


class Coach:
    """Runs training's evaluations in worker processes of its own (module docstring)."""

    def __init__(self, settings: TrainingSettings | None = None) -> None:
        self.settings = settings if settings is not None else TrainingSettings.from_env()
        self._pool: ProcessPoolExecutor | None = None
        self._guest_pool: ProcessPoolExecutor | None = None
        self.waiting = 0
        """Accounts' requests in the coach's pool (running or waiting)."""
        self.guest_waiting = 0
        """Guests' requests in their own lane (running or waiting)."""

    def admit(self, guest: bool = False) -> None:
        """503 at once when the lane (``guest``: the guests') has no room now."""
        s = self.settings
        if guest and self.guest_waiting >= s.guest_waiting:
            raise TableError(503, N_("The coach is busy with guests' requests: ask again in "
                                     "a moment, or log in for a place of your own."))
        if not guest and self.waiting >= s.waiting:
            raise TableError(503, N_("The coach is busy: ask again in a moment."))

    async def run(self, fn: Callable[..., T], *args: Any, guest: bool = False) -> T:
        """``fn(*args)`` in a worker (``guest``: in the guests' lane); 503 when too many
        wait in that lane, or when its workers failed (the next request gets a fresh
        pool). An exception ``fn`` raises is raised here."""
        s = self.settings
        self.admit(guest)
        if guest:
            if self._guest_pool is None:
                self._guest_pool = new_pool(s.guest_workers, NICEST)
            pool = self._guest_pool
            self.guest_waiting += 1
        else:
            if self._pool is None:
                self._pool = new_pool(s.workers)
            pool = self._pool
            self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        except BrokenProcessPool:
            log.exception("a training worker died")
            if guest:
                self._guest_pool = None
            else:
                self._pool = None
            raise TableError(503, N_("The coach is not available right now: try again.")) \
                from None
        finally:
            if guest:
                self.guest_waiting -= 1
            else:
                self.waiting -= 1

    def close(self) -> None:
        """Stop the workers (an evaluation cut short is simply asked for again)."""
        pools = (self._pool, self._guest_pool)
        self._pool = self._guest_pool = None
        for pool in pools:
            if pool is not None:
                procs = list(getattr(pool, "_processes", {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for p in procs:
                    with contextlib.suppress(Exception):
                        p.terminate()
