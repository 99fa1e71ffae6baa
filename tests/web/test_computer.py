"""The computer driver: decisions in worker processes, no cap on the wall clock (a busy
machine never makes the computer play a weaker bot), and a faster fallback only when the
pool is saturated, so no table waits behind a queue."""

from __future__ import annotations

import asyncio
import os
import signal
import time
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


def test_a_server_stopping_mid_computer_turn_ends_it_and_hands_its_claim_back(
        tmp_path: Any) -> None:
    """Stopping (a restart, a deploy) while the computer is thinking: the turn's task ends
    before the event loop does (no move left half-run to be torn down later) and gives
    its claim back at once, so another process takes the turn over without waiting out the
    lease; nothing new starts while stopping."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from ginrummy.web.app import create_app

    from .conftest import NO_RATE_LIMITS, auth, create, site

    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=60,
                     settings=NO_RATE_LIMITS)
    with TestClient(app) as c:
        s = site(c)
        m = create(c, opponent="computer", bot="easy")
        state = c.get(f"/api/matches/{m['id']}", headers=auth(m["token"])).json()
        while state["view"]["to_play"] == 0:  # the player's moves until the computer's
            legal = state["legal"]
            move = next((a for a in legal if a["act"] in ("pass", "draw")),
                        next(a for a in legal if not a.get("knock")))
            r = c.post(f"/api/matches/{m['id']}/actions", headers=auth(m["token"]),
                       json={"action": move, "version": state["version"]})
            assert r.status_code == 200, r.text
            state = r.json()
        t = s.registry.peek(m["id"])
        assert t is not None and t.bot_task is not None
        deadline = time.monotonic() + 10
        while m["id"] not in s.broker._leases and time.monotonic() < deadline:  # type: ignore[attr-defined]
            time.sleep(0.01)
        assert m["id"] in s.broker._leases  # type: ignore[attr-defined] - thinking (60 s)
        task = t.bot_task
    assert task.done()  # ended inside the server's stop, on the running loop
    assert m["id"] not in s.broker._leases  # type: ignore[attr-defined] - handed back
    assert s.turns.stopping
    s.turns.kick(t)
    assert t.bot_task is task  # no new turn started by a late change
