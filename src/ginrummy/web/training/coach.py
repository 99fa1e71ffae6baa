"""The coach's worker processes for training (analysis requests and measuring a player's
own marked decisions) and their settings.

Evaluations run in a pool of their own (never on the event loop, apart from the table's
computer players and reviews), with a cap on the requests waiting for it: past the cap a
request is refused at once (503, "the coach is busy") rather than queued for minutes.
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

from ...training.puzzles import PUZZLE_SAMPLES
from ..errors import TableError
from ..workers import new_pool

__all__ = ["Coach", "TrainingSettings"]

log = logging.getLogger("ginrummy.web")

T = TypeVar("T")


@dataclass(frozen=True)
class TrainingSettings:
    """How much work training gets, from the environment (:meth:`from_env`):
    ``GINRUMMY_PUZZLE_SAMPLES`` (deals a player's own marked decision is measured on,
    default 4,096 as for every puzzle; tests set fewer), ``GINRUMMY_COACH_WORKERS``
    (worker processes, default 1) and ``GINRUMMY_COACH_WAITING`` (requests waiting for
    them at most, default 8)."""

    puzzle_samples: int = PUZZLE_SAMPLES
    workers: int = 1
    waiting: int = 8

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
                   num("GINRUMMY_COACH_WAITING", d.waiting))


class Coach:
    """Runs training's evaluations in worker processes of its own (module docstring)."""

    def __init__(self, settings: TrainingSettings | None = None) -> None:
        self.settings = settings if settings is not None else TrainingSettings.from_env()
        self._pool: ProcessPoolExecutor | None = None
        self.waiting = 0

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker; 503 when too many wait, or when the workers failed
        (the next request gets a fresh pool). An exception ``fn`` raises is raised here."""
        if self.waiting >= self.settings.waiting:
            raise TableError(503, "The coach is busy: ask again in a moment.")
        if self._pool is None:
            self._pool = new_pool(self.settings.workers)
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)
        except BrokenProcessPool:
            log.exception("a training worker died")
            self._pool = None
            raise TableError(503, "The coach is not available right now: try again.") from None
        finally:
            self.waiting -= 1

    def close(self) -> None:
        """Stop the workers (an evaluation cut short is simply asked for again)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            procs = list(getattr(pool, "_processes", {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                with contextlib.suppress(Exception):
                    p.terminate()
