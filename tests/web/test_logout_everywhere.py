"""Log out everywhere (issue 36, item 9): the account's sockets opened with a session close
too, on every process, and a socket whose session ended cannot move or read the seat any
more even when the notice never reached its process."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ginrummy.web.accounts.accounts import COOKIE, csrf_of
from ginrummy.web.store import hash_token
from ginrummy.web.store.seeds import KEY_ENV, new_key_text
from ginrummy.web.tables.sockets import LOGGED_OUT

from .cluster import Serve, open_rates
from .conftest import invite_token, site, state
from .online import sign_up

ws_client = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed  # noqa: E402

OWN = {"Origin": "http://testserver"}
GOOD = "correct horse"


def _as(c: TestClient, cookie: str | None) -> None:
    c.cookies.clear()
    if cookie is not None:
        c.cookies.set(COOKIE, cookie)


def _account_match(c: TestClient, name: str) -> tuple[dict[str, Any], str, str]:
    """``name`` signs up and starts a friend table kept in the account (seat 0); a guest
    joins. The match, the session cookie and the friend's seat token."""
    sign_up(c, name, GOOD)
    cookie = c.cookies[COOKIE]
    r = c.post("/api/matches", json={"opponent": "friend"}, headers=OWN)
    assert r.status_code == 201, r.text
    m = r.json()
    _as(c, None)
    friend = invite_token(c, m)
    return m, cookie, friend


def _session_socket(c: TestClient, mid: str) -> Any:
    ws = c.websocket_connect(f"/api/matches/{mid}/ws").__enter__()
    ws.send_json({"type": "auth", "session": True})
    msg = ws.receive_json()
    assert msg["type"] == "state" and msg["state"]["seat"] == 0
    return ws


def test_log_out_everywhere_closes_the_sockets_opened_before(client: TestClient) -> None:
    m, first, friend = _account_match(client, "Eve")
    _as(client, first)
    ws = _session_socket(client, m["id"])
    _as(client, None)  # another browser, logged in as Eve too
    r = client.post("/api/session", json={"username": "eve", "password": GOOD})
    second = client.cookies[COOKIE]
    r = client.delete("/api/session?all=1", headers={"X-CSRF-Token": r.json()["csrf"]})
    assert r.json() == {"ended": 2}
    ws.send_json({"type": "ping"})
    with pytest.raises(WebSocketDisconnect) as e:
        ws.receive_json()
    assert e.value.code == 4401 and e.value.reason == LOGGED_OUT
    ws.__exit__(None, None, None)
    _as(client, second)
    assert client.get(f"/api/matches/{m['id']}").status_code == 401
    assert state(client, m["id"], friend)["version"] >= 1  # the friend plays on


def test_a_session_socket_rechecks_its_session_before_each_move(client: TestClient) -> None:
    """The notice may be lost (the broker away): the socket finds the session gone."""
    m, cookie, friend = _account_match(client, "Fay")
    _as(client, cookie)
    ws = _session_socket(client, m["id"])
    ended = client.portal.call(  # type: ignore[union-attr]
        site(client).db.run, site(client).store.accounts.end_session, hash_token(cookie),
        True)
    assert ended == 1
    before = state(client, m["id"], friend)["version"]
    ws.send_json({"type": "action", "action": {"act": "pass"}, "version": before})
    with pytest.raises(WebSocketDisconnect) as e:
        ws.receive_json()
    assert e.value.code == 4401
    ws.__exit__(None, None, None)
    assert state(client, m["id"], friend)["version"] == before  # no move was made


def test_logging_out_one_browser_closes_only_its_sockets(client: TestClient) -> None:
    m, first, _ = _account_match(client, "Gil")
    _as(client, None)
    r = client.post("/api/session", json={"username": "gil", "password": GOOD})
    second = client.cookies[COOKIE]
    _as(client, first)
    one = _session_socket(client, m["id"])
    _as(client, second)
    two = _session_socket(client, m["id"])
    _as(client, first)
    r = client.delete("/api/session", headers={"X-CSRF-Token": csrf_of(first)})
    assert r.json() == {"ended": 1}
    one.send_json({"type": "ping"})
    with pytest.raises(WebSocketDisconnect) as e:
        one.receive_json()
    assert e.value.code == 4401
    two.send_json({"type": "ping"})
    assert two.receive_json() == {"type": "pong"}
    for ws in (one, two):
        ws.__exit__(None, None, None)


@pytest.mark.postgres
def test_log_out_everywhere_reaches_the_sockets_of_other_processes(
        serves: list[Serve], postgres_url: str, redis_url: str) -> None:
    env = {KEY_ENV: new_key_text()}
    args = ["--db", postgres_url, "--broker", redis_url, *open_rates()]
    a = Serve(*args, env=env)
    serves.append(a)
    b = Serve(*args, env=env)
    serves.append(b)
    name = f"h{new_key_text()[:8].replace('-', 'x').replace('_', 'y')}"
    r = a.http.post("/api/accounts", json={"username": name, "password": GOOD})
    assert r.status_code == 201, r.text
    cookie, csrf = a.http.cookies[COOKIE], r.json()["csrf"]
    m = a.http.post("/api/matches", json={"opponent": "friend"},
                    headers={"X-CSRF-Token": csrf}).json()
    with ws_client.connect(f"{b.ws_base}/api/matches/{m['id']}/ws",
                           additional_headers={"Cookie": f"{COOKIE}={cookie}"}) as ws:
        ws.send('{"type": "auth", "session": true}')
        assert json.loads(ws.recv(timeout=10))["state"]["seat"] == 0
        with httpx.Client(base_url=a.base, timeout=15, cookies={COOKIE: cookie}) as other:
            r = other.delete("/api/session?all=1", headers={"X-CSRF-Token": csrf})
            assert r.json() == {"ended": 1}
        with pytest.raises(ConnectionClosed) as e:  # closed by the notice: nothing sent
            while True:
                assert json.loads(ws.recv(timeout=10))["type"] in ("state", "beat")
        assert e.value.rcvd is not None and e.value.rcvd.code == 4401


@pytest.mark.postgres
def test_logging_out_closes_the_notice_sockets_of_other_processes_at_once(
        serves: list[Serve], postgres_url: str, redis_url: str) -> None:
    """Issue 44 item 8: after a log-out on one process, the account's notice socket on
    another lived up to 9 s (the periodic pass) and was still pushed its challenges. The
    log-out's news closes it at once (4401), before a challenge made next reaches it."""
    import time

    env = {KEY_ENV: new_key_text()}
    args = ["--db", postgres_url, "--broker", redis_url, *open_rates()]
    a = Serve(*args, env=env)
    serves.append(a)
    b = Serve(*args, env=env)
    serves.append(b)
    tag = new_key_text()[:8].replace("-", "x").replace("_", "y")
    r = a.http.post("/api/accounts", json={"username": f"n{tag}", "password": GOOD})
    assert r.status_code == 201, r.text
    cookie, csrf = a.http.cookies[COOKIE], r.json()["csrf"]
    with httpx.Client(base_url=b.base, timeout=15) as other:
        other_csrf = sign_up(other, f"o{tag}")["csrf"]
        with ws_client.connect(f"{b.ws_base}/api/me/ws",
                               additional_headers={"Cookie": f"{COOKIE}={cookie}"}) as ws:
            ws.send('{"type": "auth", "session": true}')
            assert json.loads(ws.recv(timeout=10))["type"] == "notices"
            with httpx.Client(base_url=a.base, timeout=15, cookies={COOKIE: cookie}) as me:
                t0 = time.monotonic()
                assert me.delete("/api/session", headers={"X-CSRF-Token": csrf}).json() == {
                    "ended": 1}
            r = other.post("/api/challenges", json={"to": f"n{tag}"},
                           headers={"X-CSRF-Token": other_csrf})
            assert r.status_code == 201, r.text
            with pytest.raises(ConnectionClosed) as e:
                while True:
                    msg = json.loads(ws.recv(timeout=10))
                    assert msg["type"] == "beat" or msg.get("in") == [], msg
            assert e.value.rcvd is not None and e.value.rcvd.code == 4401
            assert time.monotonic() - t0 < 5.0  # the news, not the 10 s pass
