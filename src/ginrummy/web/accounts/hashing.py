"""Password hashing kept away from the tables: argon2id runs in a small pool of threads at a
lower priority, with a cap on the checks waiting for it.

An argon2id hash costs tens of milliseconds of CPU by design. Run on the event loop's
default executor, a flood of sign-ups and log-ins (each from a new address, so no
per-address limit applies) had as many hashes running at once as that executor has threads,
and took the CPU from the tables. Here at most ``workers`` hashes run at once (argon2
releases the GIL while it hashes), each pool thread lowers its own scheduling priority (on
Linux a thread's nice value is its own), so a move is served first whenever both are
ready, and at most ``queue`` checks wait: one more is refused at once with 503 and
:data:`BUSY`, costing nothing. A check for a known device or address of the account
(``reserved``: see :meth:`~.accounts.Accounts.log_in`) may also take one of ``reserve``
places beyond the queue, so a flood that fills the queue never keeps the owner out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ...i18n import N_
from ..errors import TableError

__all__ = ["BUSY", "PasswordPool"]

T = TypeVar("T")

BUSY = N_("The server is busy checking passwords: try again in a moment.")
"""The 503 sentence when :attr:`PasswordPool.queue` checks are waiting already."""


NICER = 10
"""How much nicer than the server a hashing thread runs (as worker processes do:
:mod:`ginrummy.web.workers`)."""


def _lower_priority() -> None:
    """Run in each pool thread: :data:`NICER` steps below the server's priority, for this
    thread alone (Linux: a thread's nice value is its own); elsewhere, nothing."""
    with contextlib.suppress(AttributeError, OSError):
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + NICER))


class PasswordPool:
    """Hashing and verifying passwords off the event loop (see the module docstring)."""

    def __init__(self, workers: int = 1, queue: int = 8, reserve: int = 4) -> None:
        self.workers = max(1, workers)
        self.queue = max(1, queue)
        """Most checks in the pool at once (running or waiting); more are refused (503)."""
        self.reserve = max(0, reserve)
        """Places beyond :attr:`queue` kept for known devices' checks."""
        self.pending = 0
        self.refused = 0
        """Checks refused because the pool was full (since the start)."""
        self._executor: ThreadPoolExecutor | None = None

    @property
    def full(self) -> bool:
        """Whether a check not ``reserved`` would be refused now."""
        return self.pending >= self.queue

    async def run(self, fn: Callable[..., T], *args: object, reserved: bool = False) -> T:
        """``fn(*args)`` in a pool thread; TableError 503 :data:`BUSY` at once when
        :attr:`queue` checks are in the pool already (``reserved``: :attr:`queue` plus
        :attr:`reserve`)."""
        if self.pending >= self.queue + (self.reserve if reserved else 0):
            self.refused += 1
            raise TableError(503, BUSY)
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="ginrummy-hash",
                                                initializer=_lower_priority)
        self.pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        finally:
            self.pending -= 1

    def close(self) -> None:
        """Stop the threads (the checks under way finish first)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
