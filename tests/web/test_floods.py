"""Floods that used to slow every table (issue 36, item 5): socket messages have a budget
per seat (all its sockets, across processes) and per address, and a socket over it is read
no further, then closed with a reason; sign-ups and log-ins from a crowd of forwarded
addresses are held to the site's limits on every process. The latencies themselves are
measured by benchmarks/web_floods.py, not asserted here."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ginrummy.web.app import create_app
from ginrummy.web.guard import Settings
from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .cluster import Serve
from .conftest import NO_RATE_LIMITS, create, invite_token

ws_client = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed  # noqa: E402

OPEN = "100000/minute"


def _client(tmp_path: Path, **rates: str) -> TestClient:
    settings = Settings(**{**NO_RATE_LIMITS.__dict__, **rates})
    return TestClient(create_app(f"sqlite:///{tmp_path / 'f.sqlite3'}", bot_delay=0,
                                 settings=settings))


def _auth(ws: Any, token: str) -> None:
    ws.send_json({"type": "auth", "token": token})
    assert ws.receive_json()["type"] == "state"


def test_a_seat_past_its_message_budget_is_closed_with_a_reason_on_every_socket(
        tmp_path: Path) -> None:
    with _client(tmp_path, rate_messages="5/minute") as c:
        m = create(c, opponent="friend")
        other = invite_token(c, m)
        url = f"/api/matches/{m['id']}/ws"
        with c.websocket_connect(url) as a, c.websocket_connect(url) as b, \
                c.websocket_connect(url) as friend:
            _auth(a, m["token"])
            _auth(b, m["token"])
            _auth(friend, other)
            for ws in (a, a, b, a, b):  # five between the seat's two sockets
                ws.send_json({"type": "state"})
                assert ws.receive_json()["type"] == "state"
            a.send_json({"type": "state"})  # the sixth: a minute's wait, so closed now
            with pytest.raises(WebSocketDisconnect) as e:
                a.receive_json()
            assert e.value.code == 4429
            assert e.value.reason == ("Too many messages: at most 5 per 1 minute per seat. "
                                      "Reconnect in a moment.")
            b.send_json({"type": "ping"})  # the seat's other socket shares the budget
            with pytest.raises(WebSocketDisconnect) as e:
                b.receive_json()
            assert e.value.code == 4429
            friend.send_json({"type": "ping"})  # the other seat has its own
            assert friend.receive_json() == {"type": "pong"}
        with c.websocket_connect(url) as again:  # reconnecting does not reset it
            _auth(again, m["token"])
            again.send_json({"type": "ping"})
            with pytest.raises(WebSocketDisconnect) as e:
                again.receive_json()
            assert e.value.code == 4429


def test_a_socket_a_little_over_its_budget_is_slowed_not_closed(tmp_path: Path) -> None:
    """With room coming back within seconds, the next message waits (unread) for it."""
    with _client(tmp_path, rate_messages="2/second") as c:
        m = create(c, opponent="friend")
        with c.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
            _auth(ws, m["token"])
            start = time.monotonic()
            for _ in range(6):
                ws.send_json({"type": "ping"})
            for _ in range(6):
                assert ws.receive_json() == {"type": "pong"}
            assert time.monotonic() - start >= 1.9  # 2 at once, then 2 a second


def test_the_address_budget_counts_socket_messages_with_requests(tmp_path: Path) -> None:
    with _client(tmp_path, rate_actions="4/minute") as c:
        m = create(c, opponent="friend")
        r = c.get(f"/api/matches/{m['id']}", headers={"Authorization": f"Bearer {m['token']}"})
        assert r.status_code == 200
        with c.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
            _auth(ws, m["token"])
            for _ in range(3):
                ws.send_json({"type": "ping"})
                assert ws.receive_json() == {"type": "pong"}
            ws.send_json({"type": "ping"})
            with pytest.raises(WebSocketDisconnect) as e:
                ws.receive_json()
            assert e.value.code == 4429 and "from one address" in str(e.value.reason)


@pytest.mark.postgres
def test_floods_are_held_to_the_budgets_on_every_process(
        serves: list[Serve], postgres_url: str, redis_url: str) -> None:
    """Two processes on PostgreSQL and Redis: a seat's sockets on both share its message
    budget; sign-ups and log-ins each from a new forwarded address, all sent to one
    process, use up the site's budget on the other too."""
    import redis

    own = redis_url.rsplit("/", 1)[0] + "/13"  # the site's counters start empty
    redis.Redis.from_url(own).flushdb()
    env = {KEY_ENV: new_key_text()}
    args = ["--db", postgres_url, "--broker", own, "--rate-create", OPEN,
            "--rate-actions", OPEN, "--rate-sockets", OPEN, "--rate-messages", "6/minute",
            "--rate-signup-site", "4/minute", "--rate-login-site", "5/minute"]
    a = Serve(*args, env=env)
    serves.append(a)
    b = Serve(*args, env=env)
    serves.append(b)
    m = a.http.post("/api/matches", json={"opponent": "friend"}).json()
    auth = json.dumps({"type": "auth", "token": m["token"]})
    with ws_client.connect(f"{a.ws_base}/api/matches/{m['id']}/ws") as wa, \
            ws_client.connect(f"{b.ws_base}/api/matches/{m['id']}/ws") as wb:
        for ws in (wa, wb):
            ws.send(auth)
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
        for _ in range(4):
            wa.send('{"type": "ping"}')
            assert json.loads(wa.recv(timeout=10)) == {"type": "pong"}
        time.sleep(2.5)  # the processes share their counts every half second (margin:
        for _ in range(2):  # a loaded machine); the fifth and sixth, B learning the count
            wb.send('{"type": "ping"}')
            assert json.loads(wb.recv(timeout=10)) == {"type": "pong"}
            time.sleep(2.5)
        wb.send('{"type": "ping"}')  # the seventh waits for room, then is closed
        with pytest.raises(ConnectionClosed) as e:
            wb.recv(timeout=10)
        assert e.value.rcvd is not None and e.value.rcvd.code == 4429
    stamp = time.time_ns() % 10**8
    for n in range(4):
        r = a.http.post("/api/accounts", json={"username": f"f{stamp}x{n}",
                                               "password": "correct horse"},
                        headers={"X-Forwarded-For": f"10.60.0.{n + 1}"})
        assert r.status_code == 201, r.text
    for n in range(5):
        r = a.http.post("/api/session", json={"username": f"nobody{n}",
                                              "password": "correct horse"},
                        headers={"X-Forwarded-For": f"10.61.0.{n + 1}"})
        assert r.status_code == 401, r.text
    time.sleep(1.2)
    r = b.http.post("/api/accounts", json={"username": f"g{stamp}", "password": "correct horse"},
                    headers={"X-Forwarded-For": "10.62.0.1"})
    assert r.status_code == 429 and "across the site" in r.json()["error"], r.text
    r = b.http.post("/api/session", json={"username": f"f{stamp}x0", "password": "correct horse"},
                    headers={"X-Forwarded-For": "10.62.0.2"})
    assert r.status_code == 429 and "across the site" in r.json()["error"], r.text
