"""Every endpoint and socket is limited, one test per limit (docs/web-api.md, "Limits and
headers"): each kind of request per address, socket connections and refused seat tokens
per address, open sockets per seat (across processes) and per address, connections per
address, a deadline on request bodies, the Origin check (scheme and host), and secrets at
rest (invite codes hashed, salts encrypted)."""

from __future__ import annotations

import hashlib
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ginrummy.web.app import create_app, request_kind
from ginrummy.web.guard import Limits, Settings
from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .cluster import Serve
from .conftest import NO_RATE_LIMITS, auth, create, invite_code, seat_socket

pytest.importorskip("redis")
ws_client = pytest.importorskip("websockets.sync.client")

OPEN = "100000/minute"


def _app(tmp_path: Path, settings: Settings = NO_RATE_LIMITS, **kw: Any) -> Any:
    return create_app(f"sqlite:///{tmp_path / 'l.sqlite3'}", bot_delay=0, settings=settings,
                      **kw)


def _only(kind: str, rate: str = "3/minute") -> Settings:
    """Settings with every rate open but ``kind``'s."""
    return Settings(**{**NO_RATE_LIMITS.__dict__, f"rate_{kind}": rate})


@pytest.fixture
def made(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, Any]]]:
    """A client whose ``reads``, ``pages``, ``lookup`` and ``actions`` are 3 a minute (each
    test uses one kind), with a friend match made."""
    settings = Settings(**{**NO_RATE_LIMITS.__dict__, "rate_reads": "3/minute",
                           "rate_pages": "3/minute", "rate_lookup": "3/minute",
                           "rate_actions": "3/minute"})
    with TestClient(_app(tmp_path, settings)) as c:
        yield c, create(c, opponent="friend")


KIND_REQUESTS = {
    "reads": [("GET", "/api/matches/{id}/record"), ("GET", "/api/matches/{id}/fairness"),
              ("GET", "/api/matches/{id}/replay?step=0"), ("GET", "/api/bots")],
    "pages": [("GET", "/"), ("GET", "/rules"), ("GET", "/play/{id}"), ("GET", "/record")],
    "lookup": [("POST", "/api/record"), ("POST", "/api/matches/lookup"),
               ("POST", "/api/record"), ("POST", "/api/record")],
    "actions": [("GET", "/api/matches/{id}/rematch"), ("GET", "/api/matches/{id}"),
                ("GET", "/api/matches/{id}/review"), ("POST", "/api/matches/{id}/hint")],
}


@pytest.mark.parametrize("kind", sorted(KIND_REQUESTS))
def test_every_endpoint_is_limited_by_its_kind(
    made: tuple[TestClient, dict[str, Any]], kind: str
) -> None:
    c, m = made
    codes = []
    for method, path in KIND_REQUESTS[kind]:
        assert request_kind(method, path.split("?")[0]) == kind
        r = c.request(method, path.format(id=m["id"]), headers=auth(m["token"]),
                      json={"tokens": []} if method == "POST" else None)
        codes.append(r.status_code)
    assert all(code != 429 for code in codes[:3]), codes
    assert codes[3] == 429, codes
    r = c.request(*KIND_REQUESTS[kind][-1][:1], KIND_REQUESTS[kind][-1][1].format(id=m["id"]))
    assert "at most 3 per 1 minute" in r.json()["error"]


def test_the_rematch_chain_counts_against_the_create_limit(tmp_path: Path) -> None:
    """Issue 44 item 8: resigning and asking "Play again" made 300 tables a minute from one
    address (a rematch was counted as a move). Each ``POST .../rematch`` counts as a new
    match: the first table and 19 rematches are the 20 a minute, the next is refused
    (429, the sentence, a Retry-After) and makes no table."""
    settings = Settings(**{**NO_RATE_LIMITS.__dict__, "rate_create": "20/minute"})
    with TestClient(_app(tmp_path, settings)) as c:
        m = create(c, opponent="computer", bot="easy")
        made = 1
        for _ in range(25):
            r = c.post(f"/api/matches/{m['id']}/resign", headers=auth(m["token"]))
            assert r.status_code == 200, r.text
            r = c.post(f"/api/matches/{m['id']}/rematch", headers=auth(m["token"]))
            if r.status_code != 200:
                break
            m = r.json()
            made += 1
        assert made == 20
        assert r.status_code == 429 and "at most 20 per 1 minute" in r.json()["error"]
        assert int(r.headers["retry-after"]) >= 1
        site = c.app.state.site  # type: ignore[attr-defined]
        with site.store.engine.connect() as conn:
            tables = conn.exec_driver_sql("SELECT count(*) FROM matches").scalar_one()
        assert tables == 20


def test_socket_connections_per_address_are_limited(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path, _only("sockets", "2/minute"))) as c:
        m = create(c, opponent="friend")
        url = f"/api/matches/{m['id']}/ws"
        for _ in range(2):
            with seat_socket(c, url) as ws:
                ws.send_json({"type": "auth", "token": m["token"]})
                assert ws.receive_json()["type"] == "state"
        with seat_socket(c, url) as ws:
            err = ws.receive_json()
            assert err["status"] == 429 and "connections" in err["message"]
            with pytest.raises(WebSocketDisconnect) as e:
                ws.receive_json()
            assert e.value.code == 4429


def test_refused_seat_tokens_per_address_are_limited(tmp_path: Path) -> None:
    """Past the limit, tokens from that address are refused untried: the right one too,
    over HTTP and on sockets, and no table is read again for them."""
    with TestClient(_app(tmp_path, _only("auth", "3/minute"))) as c:
        m = create(c, opponent="friend")
        wrong = [c.get(f"/api/matches/{m['id']}", headers=auth("wrong")).status_code
                 for _ in range(3)]
        assert wrong == [403] * 3
        r = c.get(f"/api/matches/{m['id']}", headers=auth(m["token"]))
        assert r.status_code == 429 and "refused seat tokens" in r.json()["error"]
        with seat_socket(c, f"/api/matches/{m['id']}/ws") as ws:
            ws.send_json({"type": "auth", "token": m["token"]})
            assert ws.receive_json()["status"] == 429
            with pytest.raises(WebSocketDisconnect) as e:
                ws.receive_json()
            assert e.value.code == 4429


def test_open_sockets_per_address_are_capped(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path, limits=Limits(max_sockets_per_address=2))) as c:
        ms = [create(c, opponent="friend") for _ in range(3)]
        urls = [f"/api/matches/{m['id']}/ws?token={m['token']}" for m in ms]
        with seat_socket(c, urls[0]) as a, seat_socket(c, urls[1]) as b:
            assert a.receive_json()["type"] == b.receive_json()["type"] == "state"
            with seat_socket(c, urls[2]) as third:
                err = third.receive_json()
                assert err["status"] == 429 and "from one address" in err["message"]
        with seat_socket(c, urls[2]) as again:  # the others closed: room again
            assert again.receive_json()["type"] == "state"


def test_sockets_per_seat_are_capped_across_processes(
    serves: list[Serve], postgres_url: str, redis_url: str
) -> None:
    env = {KEY_ENV: new_key_text()}
    args = ["--db", postgres_url, "--broker", redis_url, "--max-sockets-per-seat", "2",
            "--rate-create", OPEN, "--rate-sockets", OPEN]
    a = Serve(*args, env=env)
    serves.append(a)
    b = Serve(*args, env=env)
    serves.append(b)
    m = a.http.post("/api/matches", json={"opponent": "friend"}).json()
    opened = []
    try:
        for srv in (a, b):
            ws = ws_client.connect(f"{srv.ws_base}/api/matches/{m['id']}/ws").__enter__()
            ws.send(f'{{"type": "auth", "token": "{m["token"]}"}}')
            assert '"state"' in ws.recv(timeout=10)
            opened.append(ws)
        for srv in (a, b):  # a third on either process is one too many
            with ws_client.connect(f"{srv.ws_base}/api/matches/{m['id']}/ws") as ws:
                ws.send(f'{{"type": "auth", "token": "{m["token"]}"}}')
                assert '"status":429' in ws.recv(timeout=10).replace(" ", "")
    finally:
        for ws in opened:
            ws.close()


def test_connections_per_address_are_capped(serves: list[Serve], tmp_path: Path) -> None:
    """Loopback is not a trusted proxy here, so it is capped like any client."""
    s = Serve("--db", str(tmp_path / "c.sqlite3"), "--max-connections-per-address", "3",
              env={"FORWARDED_ALLOW_IPS": "10.255.255.1"})
    serves.append(s)
    def ask() -> bytes:
        """A request on a new connection: the answer's first bytes, or b"" if refused."""
        with socket.create_connection(("127.0.0.1", s.port), timeout=5) as conn:
            try:
                conn.sendall(b"GET /api/bots HTTP/1.1\r\nHost: x\r\n\r\n")
                return conn.recv(100)
            except ConnectionResetError:
                return b""

    idle = [socket.create_connection(("127.0.0.1", s.port), timeout=5) for _ in range(3)]
    try:
        end = time.monotonic() + 10  # (until the server has taken the three in)
        while (got := ask()) != b"" and time.monotonic() < end:
            time.sleep(0.1)
        assert got == b""  # closed at once, unanswered
    finally:
        for conn in idle:
            conn.close()
    end = time.monotonic() + 10  # (until the server has seen the three closed)
    while not (got := ask()).startswith(b"HTTP/1.1 200") and time.monotonic() < end:
        time.sleep(0.1)
    assert got.startswith(b"HTTP/1.1 200"), got


def test_slow_request_body_is_timed_out(serves: list[Serve], tmp_path: Path) -> None:
    s = Serve("--db", str(tmp_path / "b.sqlite3"), "--body-timeout", "1")
    serves.append(s)
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as conn:
        conn.sendall(b"POST /api/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nContent-Length: 40\r\n\r\n{")
        started = time.monotonic()
        answer = b""
        conn.settimeout(0.25)
        while time.monotonic() - started < 10 and b"\r\n\r\n" not in answer:
            try:
                conn.sendall(b" ")  # one byte at a time, never finishing
                answer += conn.recv(4096)
            except (TimeoutError, OSError):
                continue
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert time.monotonic() - started < 8  # the 1 s body timeout, not a later one


def test_origin_check_compares_scheme_and_host(client: TestClient) -> None:
    m = create(client, opponent="friend")
    url = f"/api/matches/{m['id']}/ws?token={m['token']}"
    for origin in ("https://testserver", "http://testserver:8080", "http://other"):
        with pytest.raises(WebSocketDisconnect) as e, seat_socket(client,
                url, headers={"origin": origin}):
            pass
        assert e.value.code == 4403, origin
    with seat_socket(client, url, headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "state"


def test_invite_codes_are_hashed_and_salts_encrypted(client: TestClient,
                                                     tmp_path: Path) -> None:
    m = create(client, opponent="friend")
    code = invite_code(m)
    db = sqlite3.connect(tmp_path / "web.sqlite3")
    dump = "\n".join(db.iterdump())
    assert code not in dump
    row = db.execute("SELECT invite_hash FROM matches WHERE id = ?", (m["id"],)).fetchone()
    assert row[0] == hashlib.sha256(code.encode()).hexdigest()
    salt, enc = db.execute("SELECT salt, salt_enc FROM deal_salts WHERE match_id = ?",
                           (m["id"],)).fetchone()
    assert salt == "" and enc.startswith("v1:")
