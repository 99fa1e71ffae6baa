"""The Redis broker on a real Redis: changes published together arrive, in order, at
every other process (and a process ignores its own)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

pytest.importorskip("redis")

from ginrummy.web.backends.broker import RedisBroker  # noqa: E402

T = TypeVar("T")


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a fresh event loop in its own thread (another test may leave
    a loop running in this one)."""
    with ThreadPoolExecutor(1) as ex:
        return ex.submit(asyncio.run, coro).result()


def test_changes_published_together_arrive_in_order(redis_url: str) -> None:
    async def go() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        a, b = RedisBroker(redis_url), RedisBroker(redis_url)
        at_a: list[tuple[str, int]] = []
        at_b: list[tuple[str, int]] = []
        done = asyncio.Event()

        def to_b(mid: str, version: int) -> None:
            at_b.append((mid, version))
            if len(at_b) == 4:
                done.set()

        await a.start(lambda m, v: at_a.append((m, v)), lambda: None)
        await b.start(to_b, lambda: None)
        try:
            await a.publish_many([("x", 1), ("y", 7), ("x", 2)])
            await a.publish_many([("z", 3)])
            await asyncio.wait_for(done.wait(), 10)
            await asyncio.sleep(0.2)  # A's own echoes, had they been delivered
        finally:
            await a.close()
            await b.close()
        return at_a, at_b

    at_a, at_b = _run(go())
    assert at_b == [("x", 1), ("y", 7), ("x", 2), ("z", 3)]
    assert at_a == []
