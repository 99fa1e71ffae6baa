"""Work spread over processes or a Ray cluster, results in the order of the work.

:func:`ordered_map` runs a function on items in worker processes (``jobs``), or as Ray
tasks (``ray_address``, connected as ``ginrummy match --ray`` connects:
:func:`ginrummy.arena.connect_ray`), and yields the results in the items' order: the
files written from them are then the same whatever ran them. At most ``window`` items
are in flight (read from ``items`` only as room frees up), so a long stream of work
(a month of matches) is never all in memory.
"""

from __future__ import annotations

import importlib
import multiprocessing
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.pool import AsyncResult
from typing import Any, TypeVar

from .. import exits
from ..arena import RAY_INSTALL, RayUnavailable, connect_ray

__all__ = ["check_ray", "ordered_map"]

T = TypeVar("T")
R = TypeVar("R")


def check_ray() -> None:
    """Before any work: :class:`RayUnavailable` (one line, how to install it) unless Ray
    can be imported."""
    try:
        importlib.import_module("ray")
    except ImportError:
        raise RayUnavailable(f"--ray needs Ray: {RAY_INSTALL}") from None


def ordered_map(func: Callable[[T], R], items: Iterable[T], *, jobs: int = 1,
                ray_address: str | None = None, window: int | None = None
                ) -> Iterator[tuple[T, R]]:
    """``(item, func(item))`` for each item, in order (see the module docstring).

    ``func`` must be a module-level function (worker processes and Ray tasks import it).
    Ctrl-C is left to this process (workers ignore it and end with the pool), so an
    interrupted run stops quietly. Raises :class:`ginrummy.arena.RayUnavailable` when Ray
    is missing or its cluster cannot be reached.
    """
    if ray_address is not None:
        yield from _on_ray(func, items, ray_address, jobs, window)
    elif jobs <= 1:
        for item in items:
            yield item, func(item)
    else:
        yield from _on_pool(func, items, jobs, window or 4 * jobs)


def _on_pool(func: Callable[[T], R], items: Iterable[T], jobs: int, room: int
             ) -> Iterator[tuple[T, R]]:
    ctx = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
    with ctx.Pool(jobs, initializer=exits.ignore_interrupts) as pool:
        pending: deque[tuple[T, AsyncResult[R]]] = deque()
        for item in items:
            pending.append((item, pool.apply_async(func, (item,))))
            if len(pending) >= room:
                first, result = pending.popleft()
                yield first, result.get()
        while pending:
            first, result = pending.popleft()
            yield first, result.get()


def _on_ray(func: Callable[[T], R], items: Iterable[T], address: str, jobs: int,
            window: int | None) -> Iterator[tuple[T, R]]:
    """As Ray tasks, four in flight per CPU of the cluster unless ``window`` says; a
    connection made here is closed at the end (one already open, a caller's, is used and
    left open)."""
    ray, started = connect_ray(address, jobs)
    try:
        room = window or 4 * max(1, int(ray.cluster_resources().get("CPU", 1)))
        task = ray.remote(func)
        pending: deque[tuple[T, Any]] = deque()
        for item in items:
            pending.append((item, task.remote(item)))
            if len(pending) >= room:
                first, ref = pending.popleft()
                yield first, ray.get(ref)
        while pending:
            first, ref = pending.popleft()
            yield first, ray.get(ref)
    finally:
        if started:
            ray.shutdown()
