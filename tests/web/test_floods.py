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


def _bot_with_token(c: TestClient, name: str) -> str:
    """A BOT account signed up on ``c`` and an API token of it."""
    r = c.post("/api/accounts", json={"username": name, "password": "correct horse",
                                      "bot": True})
    assert r.status_code == 201, r.text
    r = c.post("/api/tokens", json={}, headers={"X-CSRF-Token": r.json()["csrf"]})
    assert r.status_code == 201, r.text
    c.cookies.clear()
    return str(r.json()["token"])


def test_the_notice_socket_has_the_tables_message_budget(tmp_path: Path) -> None:
    """Issue 44 item 8: ``WS /api/me/ws`` answered 200,000 pings in 20 s (no budget). An
    account's notice sockets now share a budget of ``rate_messages``, as a seat's sockets
    do: past it the socket is closed with 4429 and the reason, every one of them, and
    reconnecting does not reset it."""
    with _client(tmp_path, rate_messages="5/minute") as c:
        r = c.post("/api/accounts", json={"username": "pinger", "password": "correct horse"})
        assert r.status_code == 201, r.text
        with c.websocket_connect("/api/me/ws") as a, c.websocket_connect("/api/me/ws") as b:
            for ws in (a, b):
                ws.send_json({"type": "auth", "session": True})
                assert ws.receive_json()["type"] == "notices"
            for ws in (a, b, a, b, a):  # five between the account's two sockets
                ws.send_json({"type": "ping"})
                assert ws.receive_json() == {"type": "pong"}
            a.send_json({"type": "ping"})  # the sixth would wait a minute: closed now
            with pytest.raises(WebSocketDisconnect) as e:
                a.receive_json()
            assert e.value.code == 4429
            assert e.value.reason == ("Too many messages: at most 5 per 1 minute per "
                                      "account. Reconnect in a moment.")
            b.send_json({"type": "refresh"})
            with pytest.raises(WebSocketDisconnect) as e:
                b.receive_json()
            assert e.value.code == 4429
        with c.websocket_connect("/api/me/ws") as again:
            again.send_json({"type": "auth", "session": True})
            assert again.receive_json()["type"] == "notices"
            again.send_json({"type": "ping"})
            with pytest.raises(WebSocketDisconnect) as e:
                again.receive_json()
            assert e.value.code == 4429


def test_a_bots_token_socket_has_a_budget_for_fast_clocks(tmp_path: Path) -> None:
    """Issue 44 item 8: a ``ginrummy connect`` bot was held to a person's 120 messages a
    minute (124 moves took 158 s). A seat's socket opened with an API token counts against
    ``rate_bot_messages`` (600 a minute by default) instead: here a person's budget is 5,
    and the BOT's socket is answered 60 messages at once while the person's seat token
    socket is closed at its sixth; the BOT's budget is a limit too."""
    with _client(tmp_path, rate_messages="5/minute") as c:
        token = _bot_with_token(c, "fastbot")
        r = c.post("/api/matches", json={"opponent": "friend"},
                   headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201, r.text
        m = r.json()
        friend = invite_token(c, m)
        url = f"/api/matches/{m['id']}/ws"
        with c.websocket_connect(url) as bot, c.websocket_connect(url) as person:
            _auth(bot, token)
            _auth(person, friend)
            start = time.monotonic()
            for _ in range(60):
                bot.send_json({"type": "ping"})
            for _ in range(60):
                assert bot.receive_json() == {"type": "pong"}
            assert time.monotonic() - start < 4.0  # nothing waited for room
            for _ in range(5):
                person.send_json({"type": "ping"})
                assert person.receive_json() == {"type": "pong"}
            person.send_json({"type": "ping"})
            with pytest.raises(WebSocketDisconnect) as e:
                person.receive_json()
            assert e.value.code == 4429
    with _client(tmp_path, rate_messages="5/minute", rate_bot_messages="3/minute") as c:
        token = _bot_with_token(c, "slowbot")
        m = c.post("/api/matches", json={"opponent": "friend"},
                   headers={"Authorization": f"Bearer {token}"}).json()
        with c.websocket_connect(f"/api/matches/{m['id']}/ws") as bot:
            _auth(bot, token)
            for _ in range(3):
                bot.send_json({"type": "ping"})
                assert bot.receive_json() == {"type": "pong"}
            bot.send_json({"type": "ping"})
            with pytest.raises(WebSocketDisconnect) as e:
                bot.receive_json()
            assert e.value.code == 4429 and "at most 3 per 1 minute per seat" in e.value.reason
