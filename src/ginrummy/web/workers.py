"""Worker processes (computer decisions, reviews, hints) that never outlive their server.

A server killed with -9 gets no chance to stop its pools, so each worker watches its
parent itself: when the process that started it is gone (the worker has been handed to
another parent), it exits within a second. Workers also run at a lower priority:
thinking waits, acknowledging a move does not.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["NICER", "NICEST", "new_pool", "worker_init"]

WATCH_SECONDS = 0.5
"""How often a worker checks that its parent is still there."""


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(0)  # the server is gone: nothing is left to do for it


NICER = 10
"""How much nicer than the server a worker runs."""
NICEST = 19
"""The guests' workers (:mod:`ginrummy.web.training.coach`, :mod:`ginrummy.web.reviews`):
the lowest priority, so they use only CPU that nobody else wants."""


def worker_init(parent: int, nicer: int = NICER) -> None:
    """Run in each new worker: lower its priority by ``nicer`` and start the thread that
    ends it when its parent ``parent`` (the server process) dies."""
    with contextlib.suppress(AttributeError, OSError):  # not on every platform
        os.nice(nicer)
    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch",
                     daemon=True).start()


def new_pool(workers: int, nicer: int = NICER) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started afresh (spawn: a forked copy of a server
    with threads and sockets is unsafe), each ending with this process and running
    ``nicer`` steps below the server's priority."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=worker_init, initargs=(os.getpid(), nicer))
