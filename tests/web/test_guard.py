"""The in-memory rate counters: limits still hold, and their sweep of expired entries runs
once in a while, not after every hit (it visits every client's counter)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

pytest.importorskip("limits")

from ginrummy.web import guard  # noqa: E402
from ginrummy.web.guard import RateLimits, Settings  # noqa: E402

T = TypeVar("T")


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a fresh event loop in its own thread (another test may leave
    a loop running in this one)."""
    with ThreadPoolExecutor(1) as ex:
        return ex.submit(asyncio.run, coro).result()


def test_sweep_runs_once_per_period_not_per_hit(monkeypatch: pytest.MonkeyPatch) -> None:
    rate = RateLimits(Settings(rate_actions="1000/minute"))
    storage = rate.storage
    sweeps = 0
    original = storage._MemoryStorage__expire_events  # type: ignore[attr-defined]

    async def counted() -> None:
        nonlocal sweeps
        sweeps += 1
        await original()

    monkeypatch.setattr(storage, "_MemoryStorage__expire_events", counted)

    async def play() -> list[bool]:
        out = []
        for i in range(300):
            out.append(await rate.hit("actions", f"10.0.{i % 50}.1"))
            await asyncio.sleep(0)  # let a scheduled sweep run, as between real requests
        return out

    assert all(_run(play()))
    assert sweeps == 1  # the library alone starts a new sweep as soon as one ends (6 here)


def test_limit_holds_and_expired_entries_go(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "SWEEP_SECONDS", 0.0)
    rate = RateLimits(Settings(rate_actions="3/second"))

    async def play() -> tuple[list[bool], bool, int]:
        first = [await rate.hit("actions", "10.0.0.1") for _ in range(4)]
        await asyncio.sleep(1.1)
        again = await rate.hit("actions", "10.0.0.1")
        for _ in range(20):  # the sweep after that hit runs in the background
            await asyncio.sleep(0.01)
        events = rate.storage.events  # type: ignore[attr-defined]
        return first, again, sum(len(v) for v in events.values())

    first, again, kept = _run(play())
    assert first == [True, True, True, False]  # R: 3 a second, the 4th refused
    assert again  # a second later the window has moved on
    assert kept <= 1  # the three expired entries were swept
