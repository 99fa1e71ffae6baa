"""The computer's decisions, off the event loop: a thinking computer never slows other tables.

Fast bots (well under a millisecond a decision) decide in the serving process. Searching
bots (``expert``, the ``hard`` level: about 100 ms a decision) decide in a pool of worker
processes (threads would share one interpreter lock with the server). Each table has at
most one decision in flight. A decision is never cut short by the clock on the wall: a
searching bot decides by its samples, and the only time cap it has is CPU time
(:func:`ginrummy.evaluator.search.cpu_clock`), which a busy machine does not spend, so
the Hard computer plays as Hard however loaded the server is. Only when the pool is
saturated (more decisions waiting than ``queue_per_worker`` per worker) does a move come
from a faster fallback bot, so no table waits behind a queue it cannot see the end of;
each such move is counted and logged.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
from concurrent.futures import Executor
from dataclasses import dataclass

from ...bots import Bot, make_bot
from ...hand import Action, View
from ..workers import new_pool

__all__ = ["FAST_BOTS", "ComputerDriver", "Decision", "decide_once"]

log = logging.getLogger("ginrummy.web")

FAST_BOTS = frozenset({"random", "simple", "easy", "marjj", "medium", "strong", "strong-fast"})
"""Bots that decide in well under a millisecond: cheaper in-process than a trip to a worker."""


def decide_once(name: str, seed: int, seat: int, view: View) -> Action:
    """One decision by a fresh bot (run in a worker process; bots decide from the view
    alone, so a fresh bot per decision plays exactly as a long-lived one would)."""
    bot = make_bot(name, seed)
    bot.new_match(seat)
    return bot.decide(view)


@dataclass(frozen=True, slots=True)
class Decision:
    """A computer decision and which bot made it (the table's own, or the fallback)."""

    action: Action
    by: str


class ComputerDriver:
    """Decides computer moves: inline for fast bots, else in worker processes, with the
    saturation fallback described in the module docstring (and no wall-clock cap)."""

    def __init__(
        self,
        workers: int | None = None,
        queue_per_worker: int = 4,
        fallback: str = "strong",
        inline: frozenset[str] = FAST_BOTS,
    ) -> None:
        self.workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        self.queue_per_worker = queue_per_worker
        self.fallback = fallback
        self.inline = inline
        self.in_flight = 0
        self.pooled = 0
        """Decisions made in the pool (for the load benchmark and tests)."""
        self.fallbacks = 0
        """Decisions made by the fallback bot because the pool was saturated."""
        self._pool: Executor | None = None

    def _executor(self) -> Executor:
        if self._pool is None:
            self._pool = new_pool(self.workers)  # workers end with this process
        return self._pool

    def saturated(self) -> bool:
        """Whether a new decision would wait too long for a worker."""
        return self.in_flight >= self.workers * self.queue_per_worker

    def _fallback(self, name: str, view: View, seed: int) -> Decision:
        self.fallbacks += 1
        log.warning("computer %s: the pool is saturated (%d decisions waiting): the %s bot "
                    "moves instead", name, self.in_flight, self.fallback)
        return Decision(decide_once(self.fallback, seed, view.seat, view), self.fallback)

    async def decide(self, name: str, bot: Bot | None, seed: int, view: View) -> Decision:
        """The move of bot ``name`` at ``view``; ``bot`` is the table's own instance,
        used for inline bots. Any failure falls back to a legal move, never a stall."""
        try:
            if name in self.inline and bot is not None:
                return Decision(bot.decide(view), name)
            if self.saturated():
                return self._fallback(name, view, seed)
            loop = asyncio.get_running_loop()
            fut = loop.run_in_executor(self._executor(), decide_once, name, seed, view.seat, view)
            self.in_flight += 1
            fut.add_done_callback(self._done)
            # however long the wall clock says it takes: the bot's own budget is samples
            # (and CPU time), so waiting for it is waiting for the Hard computer's move
            action = await asyncio.shield(fut)
            self.pooled += 1
            return Decision(action, name)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a failing bot must not hang the table
            log.exception("computer %s failed", name)
            return Decision(random.Random(seed).choice(view.legal), "random")

    def _done(self, _: object) -> None:
        self.in_flight -= 1

    def close(self) -> None:
        """Stop the worker processes (decisions in flight are abandoned)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
