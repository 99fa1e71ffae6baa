"""Reviews across server processes (PostgreSQL + Redis, docs/deploy.md): a review asked on
one process and polled on another is one job, and a job whose process is killed does not
stay "running": once its heartbeat is stale another process takes it over and finishes."""

from __future__ import annotations

import random
import time
from typing import Any

from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .cluster import Serve, wait_group_gone
from .test_reviews import _move

OPEN = ["--rate-create", "100000/minute", "--rate-join", "100000/minute",
        "--rate-lookup", "100000/minute", "--rate-actions", "100000/minute",
        "--rate-messages", "100000/minute"]
FAST = {"GINRUMMY_REVIEW_SAMPLES": "2", "GINRUMMY_REVIEW_BUDGET_MS": "3",
        "GINRUMMY_REVIEW_STALE_S": "2"}


def _review(srv: Serve, mid: str, token: str) -> tuple[int, dict[str, Any]]:
    r = srv.http.post(f"/api/matches/{mid}/review", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code in (200, 202), r.text
    body: dict[str, Any] = r.json()
    return r.status_code, body


def _until_done(srv: Serve, mid: str, token: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        _, body = _review(srv, mid, token)
        if body["status"] == "done":
            return body
        assert body["status"] == "running" and time.monotonic() < deadline, body
        time.sleep(0.1)


def test_review_jobs_across_processes_and_a_killed_one(
    serves: list[Serve], postgres_url: str, redis_url: str
) -> None:
    env = {KEY_ENV: new_key_text(), **FAST}
    args = ["--db", postgres_url, "--broker", redis_url, "--bot-delay", "0", *OPEN]
    a = Serve(*args, env=env)
    serves.append(a)
    b = Serve(*args, env=env)
    serves.append(b)
    m = a.http.post("/api/matches", json={"opponent": "friend", "name": "Ann"}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    mid = m["id"]
    toks = [m["token"], b.http.post(f"/api/matches/{mid}/join",
                                    json={"invite": code}).json()["token"]]
    rng = random.Random(5)
    s = a.get(mid, toks[0])
    deadline = time.monotonic() + 30
    while s["friend_joined_at"] is None:  # the join on B reaches A by the broker
        assert time.monotonic() < deadline, "the join on B never reached A"
        time.sleep(0.05)
        s = a.get(mid, toks[0])
    while s["hand_over"] is None:
        seat = s["view"]["to_play"]
        s = a.get(mid, toks[seat])
        r = a.act(mid, toks[seat], _move(s, rng), s["version"])
        assert r.status_code == 200, r.text
        s = r.json()

    # Asked on A, then on B at once: one job (B's request joins it), polled on B.
    first, body_a = _review(a, mid, toks[0])
    second, body_b = _review(b, mid, toks[0])
    assert first == 202 and body_a["status"] == "running"
    assert body_b["status"] in ("running", "done")
    done = _until_done(b, mid, toks[0])
    assert {d["seat"] for h in done["review"]["hands"] for d in h["decisions"]} == {0}
    assert f"review of {mid} failed" not in a.output() + b.output()

    # Seat 1's review starts on A, and A is killed: B reports it running until its
    # heartbeat is stale (2 s here), then takes it over and finishes it.
    status, _ = _review(a, mid, toks[1])
    assert status == 202
    a.kill9()
    assert wait_group_gone(a.proc.pid) == []  # its review worker died with it
    status, body = _review(b, mid, toks[1])
    assert status == 202 and body["status"] == "running"  # A's job, not yet stale
    done = _until_done(b, mid, toks[1], timeout=90)
    assert {d["seat"] for h in done["review"]["hands"] for d in h["decisions"]} == {1}
