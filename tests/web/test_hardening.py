"""A public server's defences (docs/deploy.md): each test fails without its fix.

Socket authentication by first message and no token in any log; a claimed seat is visible;
rate limits and caps; idle and header deadlines; pruning; deep JSON and large messages
get their documented 4xx; security headers, no-store and the WebSocket Origin check; the
SQLite file private and seeds encrypted; public replays cached and built off the loop.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ginrummy.bots import make_bot
from ginrummy.fairness import deal_for
from ginrummy.match import Match
from ginrummy.options import Options
from ginrummy.web import server
from ginrummy.web.app import create_app
from ginrummy.web.guard import Limits, Settings
from ginrummy.web.routes.sockets import TOKEN_IN_URL
from ginrummy.web.store import Change, Store, StoredAction, StoredMatch, hash_token
from ginrummy.web.store.seeds import KEY_ENV

from .cluster import Serve
from .conftest import (
    NO_RATE_LIMITS,
    auth,
    create,
    invite_code,
    invite_token,
    seat_socket,
    site,
    state,
)
from .online import sign_up


def _app(tmp_path: Path, settings: Settings = NO_RATE_LIMITS, **kw: Any) -> Any:
    return create_app(f"sqlite:///{tmp_path / 'h.sqlite3'}", bot_delay=0, settings=settings,
                      **kw)


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[TestClient]:
    """A client of a server with the default rate limits."""
    with TestClient(_app(tmp_path, Settings())) as c:
        yield c


# ---------------------------------------------------------------- socket auth, logs


def test_ws_takes_no_token_from_its_url(client: TestClient) -> None:
    """Issue 44 item 4: access logs keep URLs, so a seat token (or an API token) in the
    socket's URL is refused, whatever it opens, and the socket is closed."""
    m = create(client, opponent="friend")
    sign_up(client, "Ula")
    api_token = client.post("/api/tokens", json={"name": "x"},
                            headers={"Origin": "http://testserver"}).json()["token"]
    client.cookies.clear()
    for token in (m["token"], api_token):
        with client.websocket_connect(f"/api/matches/{m['id']}/ws?token={token}") as ws:
            err = ws.receive_json()
            assert err["type"] == "error" and err["message"] == TOKEN_IN_URL, err
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()


def test_ws_authenticates_with_its_first_message(client: TestClient) -> None:
    m = create(client, opponent="friend")
    with seat_socket(client, f"/api/matches/{m['id']}/ws") as ws:
        ws.send_json({"type": "auth", "token": m["token"]})
        msg = ws.receive_json()
        assert msg["type"] == "state" and msg["state"]["seat"] == 0
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
    with seat_socket(client, f"/api/matches/{m['id']}/ws") as ws:
        ws.send_json({"type": "auth", "token": "wrong"})
        assert ws.receive_json()["status"] == 403
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_json()
        assert e.value.code == 4403
    with seat_socket(client, f"/api/matches/{m['id']}/ws") as ws:
        ws.send_json({"type": "action", "action": {"act": "pass"}, "version": 0})
        err = ws.receive_json()
        assert err["status"] == 401 and "auth" in err["message"]


def test_no_token_in_any_log_line(serves: list[Serve], tmp_path: Path) -> None:
    ws_client = pytest.importorskip("websockets.sync.client")
    s = Serve("--db", str(tmp_path / "log.sqlite3"), "--log-level", "debug")
    serves.append(s)
    m = s.http.post("/api/matches", json={"opponent": "friend"}).json()
    code = invite_code(m)
    tok1 = s.http.post(f"/api/matches/{m['id']}/join", json={"invite": code}).json()["token"]
    s.get(m["id"], m["token"])
    url = f"{s.ws_base}/api/matches/{m['id']}/ws"
    with ws_client.connect(url) as ws:  # the page's way: the token in the first message
        ws.send(json.dumps({"type": "auth", "token": tok1}))
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
    with ws_client.connect(f"{url}?token={m['token']}") as ws:  # the old way: refused
        err = json.loads(ws.recv(timeout=10))
        assert err["type"] == "error" and err["message"] == TOKEN_IN_URL, err
    s.stop()
    log = s.output()
    assert f"/api/matches/{m['id']}/ws" in log  # the access log is on
    for secret in (m["token"], tok1, code):
        assert [line for line in log.splitlines() if secret in line] == []


# ---------------------------------------------------------------- seat claims


def test_a_claimed_seat_is_visible_to_both_browsers(client: TestClient) -> None:
    m = create(client, opponent="friend", name="Ann")
    mid = m["id"]
    assert state(client, mid, m["token"])["friend_joined_at"] is None
    t0 = time.time()
    invite_token(client, m)  # the creator takes the friend's seat from another browser
    s0 = state(client, mid, m["token"])
    assert t0 - 1 <= s0["friend_joined_at"] <= time.time() + 1  # "Friend joined at 14:02"
    r = client.post(f"/api/matches/{mid}/join", json={"invite": invite_code(m)})
    assert r.status_code == 409  # the real friend learns the seat was taken, and when
    assert r.json()["claimed_at"] == s0["friend_joined_at"]
    assert "taken at" in r.json()["error"]


# ---------------------------------------------------------------- rate limits, caps


def test_rate_limits_on_create_join_lookup_and_actions(limited: TestClient) -> None:
    made = [limited.post("/api/matches", json={"opponent": "friend"}) for _ in range(21)]
    assert [r.status_code for r in made[:20]] == [201] * 20
    assert made[20].status_code == 429 and "Too many requests" in made[20].json()["error"]
    m = made[0].json()
    codes = [limited.post(f"/api/matches/{m['id']}/join", json={"invite": "x"}).status_code
             for _ in range(31)]
    assert codes[:30] == [403] * 30 and codes[30] == 429
    looks = [limited.post("/api/matches/lookup", json={"tokens": []}).status_code
             for _ in range(61)]
    assert looks[:60] == [200] * 60 and looks[60] == 429
    gets = [limited.get(f"/api/matches/{m['id']}", headers=auth(m["token"])).status_code
            for _ in range(601)]
    assert gets[:600] == [200] * 600 and gets[600] == 429


def test_sockets_per_seat_are_capped(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path, limits=Limits(max_sockets_per_seat=2))) as c:
        m = create(c, opponent="friend")
        url = f"/api/matches/{m['id']}/ws?token={m['token']}"
        with seat_socket(c, url) as a, seat_socket(c, url) as b:
            assert a.receive_json()["type"] == b.receive_json()["type"] == "state"
            with seat_socket(c, url) as third:
                err = third.receive_json()
                assert err["status"] == 429 and "At most 2" in err["message"]
                with pytest.raises(WebSocketDisconnect) as e:
                    third.receive_json()
                assert e.value.code == 4429


def test_tables_in_memory_are_capped(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path, limits=Limits(max_tables=2))) as c:
        svc = site(c).registry
        ms = [create(c, opponent="friend") for _ in range(3)]
        assert len(svc.tables) <= 2  # idle ones made room
        for m in ms:  # each still works: rebuilt from the database when needed
            assert state(c, m["id"], m["token"])["status"] == "waiting"
        u0 = f"/api/matches/{ms[0]['id']}/ws?token={ms[0]['token']}"
        u1 = f"/api/matches/{ms[1]['id']}/ws?token={ms[1]['token']}"
        with seat_socket(c, u0) as a, seat_socket(c, u1) as b:
            a.receive_json()
            b.receive_json()
            r = c.get(f"/api/matches/{ms[2]['id']}", headers=auth(ms[2]["token"]))
            assert r.status_code == 503 and "full" in r.json()["error"]


def test_idle_websocket_is_closed(tmp_path: Path) -> None:
    settings = Settings(**{**NO_RATE_LIMITS.__dict__, "ws_idle_seconds": 0.3})
    with TestClient(_app(tmp_path, settings)) as c:
        m = create(c, opponent="friend")
        with seat_socket(c, f"/api/matches/{m['id']}/ws?token={m['token']}") as ws:
            assert ws.receive_json()["type"] == "state"
            with pytest.raises(WebSocketDisconnect) as e:
                ws.receive_json()
            assert e.value.code == 1012  # reconnect when you come back


def test_header_trickling_connection_is_closed(serves: list[Serve], tmp_path: Path
                                               ) -> None:
    s = Serve("--db", str(tmp_path / "t.sqlite3"), "--header-timeout", "1")
    serves.append(s)
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as conn:
        conn.sendall(b"GET /api/bots HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        closed = False
        for _ in range(20):  # one header line every 0.25 s, never finishing
            time.sleep(0.25)
            try:
                conn.sendall(b"X-Slow: 1\r\n")
            except OSError:
                closed = True
                break
            conn.settimeout(0.01)
            try:
                if conn.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                pass
        assert closed and time.monotonic() - started < 4


def test_abandoned_matches_are_pruned(client: TestClient) -> None:
    svc = site(client)
    old = create(client, opponent="friend")
    new = create(client, opponent="friend")
    later = time.time() + (svc.limits.abandoned_days + 1) * 86400
    with svc.store.engine.begin() as conn:  # the new one was touched just now
        from sqlalchemy import text

        conn.execute(text("UPDATE matches SET updated_at = :t WHERE id = :i"),
                     {"t": later - 60, "i": new["id"]})
    assert client.portal.call(svc.registry.prune, later) == 1  # type: ignore[union-attr]
    r = client.get(f"/api/matches/{old['id']}", headers=auth(old["token"]))
    assert r.status_code == 404
    assert state(client, new["id"], new["token"])["status"] == "waiting"


# ---------------------------------------------------------------- bad input


def test_deeply_nested_json_is_400_on_http_and_ws(client: TestClient) -> None:
    m = create(client, opponent="friend")
    deep = "[" * 1000 + "]" * 1000
    r = client.post(f"/api/matches/{m['id']}/actions", headers=auth(m["token"]), content=deep)
    assert r.status_code == 400 and "nested too deeply" in r.json()["error"]
    r = client.post("/api/matches", content='{"options": ' + "{\"a\":" * 900 + "1" + "}" * 901)
    assert r.status_code == 400
    with seat_socket(client, f"/api/matches/{m['id']}/ws?token={m['token']}") as ws:
        ws.receive_json()
        ws.send_text(deep)
        err = ws.receive_json()
        assert err["status"] == 400 and "nested too deeply" in err["message"]
        ws.send_json({"type": "ping"})  # the socket stays open
        assert ws.receive_json() == {"type": "pong"}


def test_ws_message_over_16_kib_gets_413_and_socket_stays(serves: list[Serve],
                                                          tmp_path: Path) -> None:
    ws_client = pytest.importorskip("websockets.sync.client")
    s = Serve("--db", str(tmp_path / "w.sqlite3"))
    serves.append(s)
    m = s.http.post("/api/matches", json={"opponent": "friend"}).json()
    with ws_client.connect(f"{s.ws_base}/api/matches/{m['id']}/ws") as ws:
        ws.send(json.dumps({"type": "auth", "token": m["token"]}))
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        ws.send(json.dumps({"type": "ping", "pad": "x" * 20000}))
        err = json.loads(ws.recv(timeout=10))
        assert err["type"] == "error" and err["status"] == 413
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}


# ---------------------------------------------------------------- headers, origins


def test_security_headers_and_no_store_on_the_api(client: TestClient) -> None:
    for path in ("/", "/api/bots"):
        h = client.get(path).headers
        assert "frame-ancestors 'none'" in h["content-security-policy"]
        assert "default-src 'self'" in h["content-security-policy"]
        assert h["x-content-type-options"] == "nosniff"
        assert h["referrer-policy"] == "no-referrer"
    assert client.get("/api/bots").headers["cache-control"] == "no-store"
    m = create(client)
    assert client.get(f"/api/matches/{m['id']}", headers=auth(m["token"])).headers[
        "cache-control"] == "no-store"


def test_ws_origin_allow_list(tmp_path: Path) -> None:
    settings = Settings(**{**NO_RATE_LIMITS.__dict__,
                           "allowed_origins": ("https://app.example",)})
    with TestClient(_app(tmp_path, settings)) as c:
        m = create(c, opponent="friend")
        url = f"/api/matches/{m['id']}/ws?token={m['token']}"
        with pytest.raises(WebSocketDisconnect) as e, seat_socket(c,
            url, headers={"origin": "https://evil.example"}
        ):
            pass
        assert e.value.code == 4403
        for origin in ("http://testserver", "https://app.example"):
            with seat_socket(c, url, headers={"origin": origin}) as ws:
                assert ws.receive_json()["type"] == "state"


# ---------------------------------------------------------------- data at rest


def test_sqlite_file_is_private_and_seeds_are_encrypted(client: TestClient,
                                                        tmp_path: Path) -> None:
    m = create(client, opponent="computer", bot="easy")
    seed = site(client).registry.tables[m["id"]].stored.seed
    db = tmp_path / "web.sqlite3"
    for f in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        if f.exists():
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    row = sqlite3.connect(db).execute(
        "SELECT seed, seed_enc FROM matches WHERE id = ?", (m["id"],)).fetchone()
    assert row[0] == 0 and row[1].startswith("v1:") and str(seed) not in row[1]


def test_single_process_makes_its_own_key_file(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    with TestClient(_app(tmp_path)) as c:
        m = create(c)
    key = tmp_path / "h.sqlite3.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    with TestClient(_app(tmp_path)) as c:  # the same key opens the same seeds next time
        assert state(c, m["id"], m["token"])["status"] == "playing"


def test_many_processes_without_a_seed_key_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(KEY_ENV)
    rc = server.main(["--db", "postgresql+psycopg://u@127.0.0.1:1/x",
                      "--broker", "redis://127.0.0.1:1/0"])
    err = capsys.readouterr().err
    assert rc == 2 and KEY_ENV in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- replays


def _finished_match(store: Store) -> str:
    """Store a whole match played by two quick bots (as the server would have stored
    it, from the same seed-derived deals); returns its id."""
    seed = 99
    m = Match(Options(), seed=seed, first_dealer=0, players=("A", "B"), auto_deal=False)
    bots = [make_bot("simple", 1), make_bot("simple", 2)]
    acts: list[StoredAction] = []
    while not m.is_over():
        m.start_hand(deal_for(seed, len(m.hands)))
        while not m.hand.is_over():
            seat = m.to_play
            assert seat is not None
            a = bots[seat].decide(m.view(seat))
            m.play(a, seat)
            acts.append(StoredAction(len(acts), len(m.hands) - 1, seat, a.to_json()))
    sm = StoredMatch(id=secrets.token_urlsafe(9), token_hash0=hash_token("a"),
                     token_hash1=hash_token("b"), options=Options().to_json(),
                     players=["A", "B"], seed=seed, first_dealer=0, opponent="friend",
                     bot_level=None, bot_name=None)
    store.create(sm)
    store.commit_batch([
        Change(match_id=sm.id, expected_version=i, action=a,
               status="finished" if i == len(acts) - 1 else "playing", joined=True,
               hands_dealt=a.hand + 1, ready=(False, False), scores=tuple(m.scores),
               winner=m.winner, to_play=None)
        for i, a in enumerate(acts)
    ])
    return sm.id


def test_public_replay_is_cached_and_built_off_the_event_loop(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ginrummy.web.records import replays

    svc = site(client)
    mid = _finished_match(svc.store)
    m = {"id": mid}
    threads: list[str] = []
    real = replays.replay_frames

    def spy(*a: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*a)

    monkeypatch.setattr(replays, "replay_frames", spy)
    first = client.get(f"/api/matches/{m['id']}/replay?step=0").json()
    last = client.get(f"/api/matches/{m['id']}/replay?step={first['steps']}").json()
    for k in range(first["steps"] + 1):
        assert client.get(f"/api/matches/{m['id']}/replay?step={k}").status_code == 200
    assert len(threads) == 1 and svc.records.replays.builds == 1  # built once, then cached
    assert threads[0] != threading.main_thread().name
    loop_thread = client.portal.call(lambda: threading.current_thread().name)  # type: ignore[union-attr]
    assert threads[0] != loop_thread
    assert last["result"] is not None and last["step"] == first["steps"]
    assert os.environ.get(KEY_ENV)
