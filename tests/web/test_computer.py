"""The computer driver: decisions in worker processes, no cap on the wall clock (a busy
machine never makes the computer play a weaker bot), and a faster fallback only when the
pool is saturated, so no table waits behind a queue."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from ginrummy.hand import View
from ginrummy.match import Match
from ginrummy.web.computer.driver import ComputerDriver, Decision, decide_once

T = TypeVar("T")


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a fresh event loop in its own thread (another test may leave
    a loop running in this one)."""
    with ThreadPoolExecutor(1) as ex:
        return ex.submit(asyncio.run, coro).result()


def _view() -> View:
    m = Match(seed=4)
    assert m.to_play is not None
    return m.view(m.to_play)


def test_pool_decides_like_the_bot_in_process() -> None:
    view = _view()
    driver = ComputerDriver(workers=1, inline=frozenset())
    try:
        d = _run(driver.decide("simple", None, 7, view))
    finally:
        driver.close()
    assert d.by == "simple" and driver.pooled == 1 and driver.fallbacks == 0
    assert d.action == decide_once("simple", 7, view.seat, view)


def test_saturated_pool_falls_back_at_once() -> None:
    view = _view()
    driver = ComputerDriver(workers=1, queue_per_worker=0, inline=frozenset(),
                            fallback="random")
    d = _run(driver.decide("simple", None, 7, view))
    assert d.by == "random" and driver.fallbacks == 1 and driver.pooled == 0
    assert d.action in view.legal
    assert driver._pool is None  # no worker was even started


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs POSIX job control")
def test_a_slow_wall_clock_never_makes_a_weaker_move() -> None:
    """Issue 36: under load the Hard computer "ran past 3.0 s: fallback move". The worker
    deciding is stopped for longer than that (a starved machine); the move is still the
    table's own bot's, exactly as it decides unhindered."""
    view = _view()
    driver = ComputerDriver(workers=1, inline=frozenset(), fallback="random")

    async def starved() -> Decision:
        await driver.decide("simple", None, 7, view)  # (started)
        assert driver._pool is not None
        pid = next(iter(driver._pool._processes))  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGSTOP)
        try:
            task = asyncio.create_task(driver.decide("simple", None, 8, view))
            await asyncio.sleep(4.0)  # past any cap the driver ever had
            assert not task.done()  # waiting for the table's own bot, not falling back
        finally:
            os.kill(pid, signal.SIGCONT)
        return await task

    try:
        d = _run(starved())
    finally:
        driver.close()
    assert d.by == "simple" and driver.fallbacks == 0 and driver.pooled == 2
    assert d.action == decide_once("simple", 8, view.seat, view)
