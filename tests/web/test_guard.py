"""The rate counters: moving windows in this process (O(1) a hit, expired clients swept
once in a while, not after every hit), and with Redis shared across processes but never
lapsing while Redis is away."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

pytest.importorskip("limits")

from ginrummy.web.backends.limits import LocalWindows, RateLimits  # noqa: E402
from ginrummy.web.guard import Settings  # noqa: E402

T = TypeVar("T")


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a fresh event loop in its own thread (another test may leave
    a loop running in this one)."""
    with ThreadPoolExecutor(1) as ex:
        return ex.submit(asyncio.run, coro).result()


def test_window_holds_and_moves_on() -> None:
    w = LocalWindows()
    key = ("actions", "10.0.0.1")
    assert [w.hit(key, 3, 1.0, now=100.0 + i / 10) for i in range(4)] == [True] * 3 + [False]
    assert not w.test(key, 3, 1.0, now=100.5)
    assert w.hit(key, 3, 1.0, now=101.05)  # the first hit has aged out
    assert w.hit(("actions", "10.0.0.2"), 3, 1.0, now=101.05)  # others count apart


def test_expired_clients_are_swept_once_in_a_while() -> None:
    w = LocalWindows()
    for i in range(50):
        w.hit(("actions", f"10.0.{i}.1"), 5, 1.0, now=100.0)
    assert len(w) == 50
    w.hit(("actions", "10.9.9.9"), 5, 1.0, now=100.5)  # swept at the first hit only
    assert len(w) == 51
    w.hit(("actions", "10.9.9.9"), 5, 1.0, now=111.0)  # SWEEP_SECONDS later
    assert len(w) == 1


def test_limit_counts_locally_when_the_shared_counter_is_away() -> None:
    """A broker URL nobody answers on: every hit is still counted, here."""
    rate = RateLimits(Settings(rate_actions="3/minute"), "redis://127.0.0.1:1/0")

    async def play() -> list[bool]:
        return [await rate.hit("actions", "10.0.0.1") for _ in range(4)]

    assert _run(play()) == [True, True, True, False]
    assert rate.describe("actions") == "3 per 1 minute"


def test_limits_hold_across_processes_through_redis(redis_url: str) -> None:
    """Two processes' counters (two RateLimits) on one Redis: hits on either count against
    one limit once they have synced; a new client starts afresh."""
    client = f"10.{os.getpid() % 250}.{int(time.time()) % 250}.7"  # fresh in a shared Redis
    a = RateLimits(Settings(rate_actions="4/minute"), redis_url)
    b = RateLimits(Settings(rate_actions="4/minute"), redis_url)

    async def play() -> list[bool]:
        out = [await a.hit("actions", client), await a.hit("actions", client),
               await b.hit("actions", client)]
        assert a.shared is not None and b.shared is not None
        await a.shared.sync()
        await b.shared.sync()
        out.append(await b.hit("actions", client))  # the 4th, counted on b
        await b.shared.sync()
        await a.shared.sync()
        out.append(await a.hit("actions", client))  # a 5th, on a, which counted only 2
        out.append(await a.hit("actions", client + "0"))
        await a.shared.close()
        await b.shared.close()
        return out

    assert _run(play()) == [True, True, True, True, False, True]


def test_site_wide_limits_are_exact_across_processes_with_no_sync(redis_url: str) -> None:
    """The site-wide log-in limit is counted in Redis at every attempt: two processes
    alternating, with no sync between, let exactly the limit through (a count shared a sync
    late let each process spend it); a refused attempt is not counted."""
    import redis

    own = redis_url.rsplit("/", 1)[0] + "/13"
    store = redis.Redis.from_url(own)
    store.flushdb()
    a = RateLimits(Settings(rate_login_site="5/minute"), own)
    b = RateLimits(Settings(rate_login_site="5/minute"), own)

    async def play() -> list[bool]:
        out = [await (a, b)[i % 2].hit("login_site", "site") for i in range(12)]
        assert a.shared is not None and b.shared is not None
        await a.shared.close()
        await b.shared.close()
        return out

    assert _run(play()) == [True] * 5 + [False] * 7
    buckets = store.mget(store.keys("ginrummy:rate:login_site:site:*"))
    assert sum(int(v) for v in buckets if v) == 5


def test_site_wide_limits_count_locally_when_the_shared_counter_is_away() -> None:
    """Redis away: the site-wide limit still holds, by this process's count."""
    rate = RateLimits(Settings(rate_login_site="3/minute"), "redis://127.0.0.1:1/0")

    async def play() -> list[bool]:
        return [await rate.hit("login_site", "site") for _ in range(4)]

    assert _run(play()) == [True, True, True, False]
    assert rate.shared is not None and not rate.shared.available
