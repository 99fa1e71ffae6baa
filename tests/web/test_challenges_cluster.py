"""Challenges on many processes: two ``ginrummy serve`` processes on one PostgreSQL
database and one Redis broker. A challenge made on one process reaches the challenged
player's notice socket on the other at once; accepted there, the challenger finds the
match on the first; an open link taken by many at once on both processes is accepted
exactly once; and an API token revoked on one process closes its sockets on the other."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ginrummy.web.accounts.tokens import REVOKED

from .cluster import Serve, deployment
from .online import sign_up

pytest.importorskip("redis")
ws_client = pytest.importorskip("websockets.sync.client")
ws_exceptions = pytest.importorskip("websockets.exceptions")

pytestmark = pytest.mark.postgres

OPEN = ["--rate-create", "100000/minute", "--rate-join", "100000/minute",
        "--rate-lookup", "100000/minute", "--rate-actions", "100000/minute",
        "--rate-reads", "100000/minute", "--rate-signup", "100000/minute"]


@pytest.fixture(scope="module")
def two(postgres_url: str, redis_url: str) -> Iterator[tuple[Serve, Serve]]:
    """Two processes of one deployment (one seed key, one database, one broker)."""
    with deployment(postgres_url, redis_url, *OPEN) as pair:
        yield pair


def _next(ws: Any, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    """The next message of type ``kind`` (beats skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg["type"] == kind:
            return msg


def test_a_challenge_crosses_processes_at_once(two: tuple[Serve, Serve]) -> None:
    a, b = two
    suffix = secrets.token_hex(3)
    with httpx.Client(base_url=a.base, timeout=15) as ann, \
            httpx.Client(base_url=b.base, timeout=15) as bob:
        names = [f"ann_{suffix}", f"bob_{suffix}"]
        csrf = [sign_up(ann, names[0])["csrf"], sign_up(bob, names[1])["csrf"]]
        cookie = f"ginrummy_session={bob.cookies['ginrummy_session']}"
        with ws_client.connect(f"{b.ws_base}/api/me/ws", open_timeout=10,
                               additional_headers={"Cookie": cookie}) as ws:
            ws.send(json.dumps({"type": "auth", "session": True}))
            assert _next(ws, "notices")["in"] == []
            t0 = time.monotonic()
            r = ann.post("/api/challenges", json={"to": names[1], "rated": True},
                         headers={"X-CSRF-Token": csrf[0]})
            assert r.status_code == 201, r.text
            cid = r.json()["challenge"]
            pushed = _next(ws, "notices", 9.0)  # made on process a, pushed by process b
            took = time.monotonic() - t0
            assert [c["id"] for c in pushed["in"]] == [cid], pushed
            assert took < 8.0, f"the notice took {took:.1f} s"  # not the 10 s safety pass
            r = bob.post(f"/api/challenges/{cid}/accept", headers={"X-CSRF-Token": csrf[1]})
            assert r.status_code == 200, r.text
            mine = r.json()["match"]
            theirs = ann.get(f"/api/challenges/{cid}").json()["match"]
            assert theirs["id"] == mine["id"] and theirs["seat"] == 0
            s = ann.get(f"/api/matches/{mine['id']}",
                        headers={"Authorization": f"Bearer {theirs['token']}"}).json()
            assert s["players"] == names and s["status"] == "playing"
            assert _next(ws, "notices")["in"] == []


def test_an_open_link_is_accepted_once_across_processes(two: tuple[Serve, Serve]) -> None:
    a, b = two
    link = httpx.post(f"{a.base}/api/challenges", json={}, timeout=15).json()
    results: list[int] = []
    barrier = threading.Barrier(8)

    def take(base: str) -> None:
        with httpx.Client(base_url=base, timeout=15) as c:
            barrier.wait()
            results.append(c.post(f"/api/challenges/{link['challenge']}/accept").status_code)

    threads = [threading.Thread(target=take, args=(s.base,)) for s in (a, b) * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results).count(200) == 1, results
    assert set(results) <= {200, 409}, results


def test_a_token_revoked_on_one_process_closes_its_socket_on_the_other(
        two: tuple[Serve, Serve]) -> None:
    a, b = two
    name = f"bot_{secrets.token_hex(3)}"
    with httpx.Client(base_url=a.base, timeout=15) as owner:
        r = owner.post("/api/accounts", json={"username": name, "password": "correct horse",
                                              "bot": True})
        csrf = r.json()["csrf"]
        made = owner.post("/api/tokens", json={}, headers={"X-CSRF-Token": csrf}).json()
        with ws_client.connect(f"{b.ws_base}/api/me/ws", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "auth", "token": made["token"]}))
            _next(ws, "notices")
            r = owner.delete(f"/api/tokens/{made['id']}", headers={"X-CSRF-Token": csrf})
            assert r.status_code == 200
            with pytest.raises(ws_exceptions.ConnectionClosed) as e:
                _next(ws, "never", timeout=9)  # (pushed, not the 10 s safety pass)
            assert e.value.rcvd is not None and e.value.rcvd.code == 4401
            assert e.value.rcvd.reason == REVOKED
