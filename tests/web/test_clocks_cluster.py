"""Clocks and endings on many processes (same PostgreSQL, same Redis): a resignation
stored by one process is known at once to another holding the table; a turn clock's
deadline lives in the database: the process that set it is killed with SIGKILL, and
another process plays the out-of-time move when it comes (docs/web-api.md)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .cluster import Serve, open_rates
from .online import both_move, friend_match

pytest.importorskip("redis")

pytestmark = pytest.mark.postgres


def _resign_on_one_is_known_on_the_other(a: Serve, b: Serve) -> None:
    """A resignation is no action: the other process learns it from the stored row."""
    mid, tokens = friend_match(a.http)
    assert a.get(mid, tokens[1])["status"] == "playing"  # A holds the table in memory
    both_move(a.http, mid, tokens)  # played: a resignation is one
    r = b.http.post(f"/api/matches/{mid}/resign", headers={"Authorization":
                                                           f"Bearer {tokens[1]}"})
    assert r.status_code == 200 and r.json()["end"] == "resigned", r.text
    end = time.monotonic() + 10
    while (s := a.get(mid, tokens[0]))["status"] != "finished" and time.monotonic() < end:
        time.sleep(0.05)
    assert s["status"] == "finished" and s["end"] == "resigned"
    assert s["winner"] == 0 and s["ended_by"] == 1
    r = a.http.post(f"/api/matches/{mid}/abort", headers={"Authorization":
                                                          f"Bearer {tokens[0]}"})
    assert r.status_code == 409 and r.json()["error"] == "The match is over."


def test_deadline_survives_kill_9_of_the_process_that_set_it(
        serves: list[Serve], postgres_url: str, redis_url: str) -> None:
    args = ["--db", postgres_url, "--broker", redis_url, "--bot-delay", "0", *open_rates()]
    env = {KEY_ENV: new_key_text()}
    a = Serve(*args, env=env)
    serves.append(a)
    b = Serve(*args, env=env)
    serves.append(b)
    _resign_on_one_is_known_on_the_other(a, b)  # (before the clock below starts running)
    r = a.http.post("/api/matches", json={"opponent": "friend", "clock": {"move": 2,
                                                                         "bank": 0}})
    assert r.status_code == 201, r.text
    made = r.json()
    mid, tok0 = made["id"], made["token"]
    code = made["invite_url"].split("#invite=", 1)[1]
    r = a.http.post(f"/api/matches/{mid}/join", json={"invite": code})
    assert r.status_code == 200, r.text
    tok1 = r.json()["token"]
    s = a.get(mid, tok0)  # A stored the join, and with it the first deadline
    deadline = s["clock"]["deadline"]
    assert deadline is not None and deadline <= time.time() + 2.5
    idle = s["view"]["to_play"]
    a.kill9()  # the process that set the deadline dies before it comes
    tokens = [tok0, tok1]
    end = time.monotonic() + 15
    last: dict[str, Any] = {}
    while time.monotonic() < end:
        last = b.get(mid, tokens[idle])
        if last["view"]["history"]:
            break
        time.sleep(0.1)
    hist = last["view"]["history"]
    assert hist, f"nobody enforced the deadline: {last}"
    assert hist[0]["seat"] == idle and hist[0]["act"] == "pass" and hist[0]["timeout"] is True
    assert time.time() >= deadline  # not before its time
    c = last["clock"]
    assert c["timeouts"][idle] == 1 and c["deadline"] is not None  # B set the next one
