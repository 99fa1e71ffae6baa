"""People on many processes: two ``ginrummy serve`` processes on one PostgreSQL database
and one Redis broker (issue 45, "Done means"). A message said on one process reaches the
other seat's socket on the other at once; presence follows a notice socket opened and
closed on either process within seconds; a process killed with SIGKILL loses no message it
acknowledged; and while Redis is down, messages are delayed (pushed by the periodic pass)
but none that was acknowledged is lost."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import httpx
import pytest

from .cluster import Serve, next_message, open_rates
from .online import sign_up

pytest.importorskip("redis")
ws_client = pytest.importorskip("websockets.sync.client")

pytestmark = pytest.mark.postgres


def _two(serves: list[Serve], postgres_url: str, redis_url: str) -> tuple[Serve, Serve]:
    from ginrummy.web.store.seeds import KEY_ENV, new_key_text

    args = ["--db", postgres_url, "--broker", redis_url, "--bot-delay", "0", *open_rates()]
    env = {KEY_ENV: new_key_text()}
    for _ in range(2):
        serves.append(Serve(*args, env=env))
    return serves[-2], serves[-1]


def _match(a: Serve, b: Serve) -> tuple[str, dict[str, str], dict[str, str], list[str],
                                         list[str]]:
    """Ann on ``a`` challenges Bob on ``b``, who accepts: the match id, each seat's
    headers, the names and each one's session cookie header."""
    suffix = secrets.token_hex(3)
    names = [f"ann_{suffix}", f"bob_{suffix}"]
    ann, bob = a.http, b.http
    csrf = [sign_up(ann, names[0])["csrf"], sign_up(bob, names[1])["csrf"]]
    cid = ann.post("/api/challenges", json={"to": names[1]},
                   headers={"X-CSRF-Token": csrf[0]}).json()["challenge"]
    mine = bob.post(f"/api/challenges/{cid}/accept", headers={"X-CSRF-Token": csrf[1]}).json()
    theirs = ann.get(f"/api/challenges/{cid}").json()["match"]
    cookies = [f"ginrummy_session={c.cookies['ginrummy_session']}" for c in (ann, bob)]
    return (mine["match"]["id"], {"Authorization": f"Bearer {theirs['token']}"},
            {"Authorization": f"Bearer {mine['match']['token']}"}, names, cookies)


def test_chat_and_presence_cross_processes(serves: list[Serve], postgres_url: str,
                                           redis_url: str) -> None:
    a, b = _two(serves, postgres_url, redis_url)
    mid, ann, bob, names, cookies = _match(a, b)
    with ws_client.connect(f"{b.ws_base}/api/matches/{mid}/ws", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "auth", "token": bob["Authorization"][7:]}))
        next_message(ws, "state")
        t0 = time.monotonic()
        r = httpx.post(f"{a.base}/api/matches/{mid}/chat", json={"text": "hello from a"},
                       headers=ann, timeout=15)
        assert r.status_code == 201, r.text
        got = next_message(ws, "chat", 4.0)  # said on process a, pushed by process b
        assert got["text"] == "hello from a" and time.monotonic() - t0 < 4.0
    # Ann follows Bob; Bob's page opens its notice socket on process b: online on a
    csrf_a = sign_in_csrf(a, cookies[0])
    assert httpx.post(f"{a.base}/api/follow/{names[1]}", headers={
        "Cookie": cookies[0], "X-CSRF-Token": csrf_a}, timeout=15).status_code == 200

    def online() -> bool:
        r = httpx.get(f"{a.base}/api/me/following", headers={"Cookie": cookies[0]},
                      timeout=15)
        return bool(r.json()["following"][0]["online"])

    assert not online()
    with ws_client.connect(f"{b.ws_base}/api/me/ws", open_timeout=10,
                           additional_headers={"Cookie": cookies[1]}) as notices:
        notices.send(json.dumps({"type": "auth", "session": True}))
        next_message(notices, "notices")
        t0 = time.monotonic()
        while not online():
            assert time.monotonic() - t0 < 5, "not online on the other process"
            time.sleep(0.1)
    t0 = time.monotonic()
    while online():
        assert time.monotonic() - t0 < 5, "still online after the socket closed"
        time.sleep(0.1)


def sign_in_csrf(s: Serve, cookie: str) -> str:
    """The CSRF token of a session (``GET /api/me``)."""
    r = httpx.get(f"{s.base}/api/me", headers={"Cookie": cookie}, timeout=15)
    return str(r.json()["csrf"])


def test_no_acknowledged_message_is_lost_to_sigkill_or_a_redis_outage(
        serves: list[Serve], postgres_url: str, redis: Any) -> None:
    a, b = _two(serves, postgres_url, redis.url)
    mid, ann, bob, _, _ = _match(a, b)
    acknowledged: list[int] = []
    with ws_client.connect(f"{b.ws_base}/api/matches/{mid}/ws", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "auth", "token": bob["Authorization"][7:]}))
        next_message(ws, "state")
        for i in range(20):
            r = httpx.post(f"{a.base}/api/matches/{mid}/chat", json={"text": f"m{i}"},
                           headers=ann, timeout=15)
            assert r.status_code == 201, r.text
            acknowledged.append(r.json()["message"]["id"])
        a.kill9()  # the process that acknowledged them dies at once
        pushed = [next_message(ws, "chat")["id"] for _ in range(20)]
        assert pushed == acknowledged
        a.start()
        redis.kill9()  # the broker goes away: the processes cannot tell each other
        time.sleep(1.5)  # (they have noticed)
        during: list[int] = []
        for i in range(10):
            r = httpx.post(f"{a.base}/api/matches/{mid}/chat", json={"text": f"r{i}"},
                           headers=ann, timeout=15)
            assert r.status_code == 201, r.text
            during.append(r.json()["message"]["id"])
        late = [next_message(ws, "chat", 15.0)["id"] for _ in range(10)]  # the periodic pass
        assert late == during
    stored = httpx.get(f"{b.base}/api/matches/{mid}/chat", headers=bob, timeout=15).json()
    assert [m["id"] for m in stored["messages"]] == acknowledged + during
