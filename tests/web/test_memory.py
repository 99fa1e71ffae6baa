"""Idle tables leave memory and come back from the database unchanged: untouched ones after
``idle_seconds``, finished ones sooner, never one with a live WebSocket. A rebuilt table
shows each seat exactly what it showed before (R11 views included) and play goes on."""

from __future__ import annotations

import random
import time
from typing import Any

from fastapi.testclient import TestClient

from ginrummy.web.tables.registry import TableRegistry

from .conftest import auth, create, invite_token, seat_socket, site, state


def _service(c: TestClient) -> TableRegistry:
    return site(c).registry


def _play(c: TestClient, mid: str, toks: list[str], rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        s = state(c, mid, toks[0])
        assert s["hand_over"] is None
        me = state(c, mid, toks[s["view"]["to_play"]])
        r = c.post(f"/api/matches/{mid}/actions", headers=auth(toks[me["seat"]]),
                   json={"action": rng.choice(me["legal"]), "version": me["version"]})
        assert r.status_code == 200, r.text


def test_idle_table_is_evicted_and_rebuilt_exactly(client: TestClient) -> None:
    svc = _service(client)
    m = create(client, opponent="friend", name="Ann")
    mid, toks = m["id"], [m["token"], invite_token(client, m)]
    rng = random.Random(3)
    _play(client, mid, toks, rng, 7)
    before: list[dict[str, Any]] = [state(client, mid, t) for t in toks]

    # Recently used: stays.
    assert svc.evict_idle() == [] and mid in svc.tables
    later = time.monotonic() + svc.idle_seconds + 1

    # A connected WebSocket keeps the table in memory however long it idles.
    with seat_socket(client, f"/api/matches/{mid}/ws?token={toks[0]}") as ws:
        assert ws.receive_json()["type"] == "state"
        assert svc.evict_idle(now=later) == [] and mid in svc.tables
    deadline = time.monotonic() + 5
    while site(client).hub.has_open(mid):
        assert time.monotonic() < deadline
        time.sleep(0.01)

    old = svc.tables[mid]
    assert svc.evict_idle(now=later) == [mid] and mid not in svc.tables
    after = [state(client, mid, t) for t in toks]  # rebuilt from the database
    assert svc.tables[mid] is not old
    assert after == before
    _play(client, mid, toks, rng, 3)  # and play goes on from the rebuilt table
    assert state(client, mid, toks[0])["version"] == before[0]["version"] + 3


def test_playing_table_waits_the_full_idle_time(client: TestClient) -> None:
    """Finished tables go after ``finished_idle_seconds`` (checked at the end of
    test_api.test_finished_record_and_replay); one still being played waits longer."""
    svc = _service(client)
    assert svc.finished_idle_seconds < svc.idle_seconds
    m = create(client, opponent="friend")
    mid, toks = m["id"], [m["token"], invite_token(client, m)]
    now = time.monotonic()
    assert svc.evict_idle(now=now + svc.finished_idle_seconds + 1) == []
    assert svc.evict_idle(now=now + svc.idle_seconds + 1) == [mid]
    assert state(client, mid, toks[1])["seat"] == 1 and mid in svc.tables
