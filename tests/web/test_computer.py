"""The computer driver: decisions in worker processes, a cap per decision, and a faster
fallback when the pool is saturated, so no table waits on a busy pool."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ginrummy.match import Match
from ginrummy.web.computer.driver import ComputerDriver, decide_once

T = TypeVar("T")


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a fresh event loop in its own thread (another test may leave
    a loop running in this one)."""
    with ThreadPoolExecutor(1) as ex:
        return ex.submit(asyncio.run, coro).result()


def _view() -> object:
    m = Match(seed=4)
    assert m.to_play is not None
    return m.view(m.to_play)


def test_pool_decides_like_the_bot_in_process() -> None:
    view = _view()
    # a generous cap: the first decision waits for the worker process to start, which
    # takes seconds on a loaded machine (the cap's own behaviour is tested below)
    driver = ComputerDriver(workers=1, inline=frozenset(), decision_timeout=120.0)
    try:
        d = _run(driver.decide("simple", None, 7, view))  # type: ignore[arg-type]
    finally:
        driver.close()
    assert d.by == "simple" and driver.pooled == 1 and driver.fallbacks == 0
    assert d.action == decide_once("simple", 7, view.seat, view)  # type: ignore[attr-defined]


def test_saturated_pool_falls_back_at_once() -> None:
    view = _view()
    driver = ComputerDriver(workers=1, queue_per_worker=0, inline=frozenset(),
                            fallback="random")
    d = _run(driver.decide("simple", None, 7, view))  # type: ignore[arg-type]
    assert d.by == "random" and driver.fallbacks == 1 and driver.pooled == 0
    assert d.action in view.legal  # type: ignore[attr-defined]
    assert driver._pool is None  # no worker was even started


def test_decision_past_its_cap_falls_back() -> None:
    view = _view()
    driver = ComputerDriver(workers=1, decision_timeout=0.0, inline=frozenset(),
                            fallback="random")
    try:
        d = _run(driver.decide("simple", None, 7, view))  # type: ignore[arg-type]
    finally:
        driver.close()
    assert d.by == "random" and driver.fallbacks == 1
    assert d.action in view.legal  # type: ignore[attr-defined]
