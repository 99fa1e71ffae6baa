"""People and programs on many processes (issue 44, item 7): two ``ginrummy serve``
processes on one PostgreSQL database and one Redis broker. A seat played through an API
token on one process is marked a program's in the stored match, and the opponent, whose
table lives on the other process, sees it as a bot with the next change (the other
process brings its copy forward with the mark, not only the moves)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .cluster import Serve, deployment
from .online import sign_up
from .test_challenges_cluster import OPEN

pytest.importorskip("redis")

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def two(postgres_url: str, redis_url: str) -> Iterator[tuple[Serve, Serve]]:
    """Two processes of one deployment (one seed key, one database, one broker)."""
    with deployment(postgres_url, redis_url, *OPEN) as pair:
        yield pair


def _state(c: httpx.Client, mid: str, token: str) -> dict[str, Any]:
    r = c.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_seat_played_through_a_token_is_a_bot_to_the_opponent_on_another_process(
        two: tuple[Serve, Serve]) -> None:
    a, b = two
    suffix = secrets.token_hex(3)
    with httpx.Client(base_url=a.base, timeout=15) as ann, \
            httpx.Client(base_url=b.base, timeout=15) as bob:
        names = [f"ann_{suffix}", f"bob_{suffix}"]
        csrf = [sign_up(ann, names[0])["csrf"], sign_up(bob, names[1])["csrf"]]
        made = ann.post("/api/challenges", json={"to": names[1], "rated": True},
                        headers={"X-CSRF-Token": csrf[0]}).json()
        token = bob.post("/api/tokens", json={"name": "connect"},
                         headers={"X-CSRF-Token": csrf[1]}).json()["token"]
        # accepted in Bob's browser (a person so far), on process b
        r = bob.post(f"/api/challenges/{made['challenge']}/accept",
                     headers={"X-CSRF-Token": csrf[1]})
        assert r.status_code == 200, r.text
        mid = r.json()["match"]["id"]
        seat0 = made["token"]
        s = _state(ann, mid, seat0)  # Ann's table lives on process a
        assert s["bots"] == [False, False]
        if s["view"]["to_play"] == 0:
            r = ann.post(f"/api/matches/{mid}/actions",
                         headers={"Authorization": f"Bearer {seat0}"},
                         json={"action": {"act": "pass"}, "version": s["version"]})
            assert r.status_code == 200, r.text
        # then Bob's program plays his seat through the API token, on process b
        with httpx.Client(base_url=b.base, timeout=15) as program:
            deadline = time.monotonic() + 10
            while True:
                mine = program.get(f"/api/matches/{mid}",
                                   headers={"Authorization": f"Bearer {token}"}).json()
                if mine["view"]["to_play"] == 1 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            r = program.post(f"/api/matches/{mid}/actions",
                             headers={"Authorization": f"Bearer {token}"},
                             json={"action": {"act": "pass"}, "version": mine["version"]})
            assert r.status_code == 200, r.text
            assert r.json()["bots"] == [False, True]
            moved = r.json()["version"]
        # process a brings Ann's copy forward with the move, and with the mark
        deadline = time.monotonic() + 10
        while (s := _state(ann, mid, seat0))["version"] < moved:
            assert time.monotonic() < deadline, s
            time.sleep(0.1)
        assert s["bots"] == [False, True]
        watched = ann.get(f"/api/matches/{mid}/watch").json()
        assert watched["bots"] == [False, True]
        profile = ann.get(f"/api/players/{names[1]}").json()
        assert profile["program"] is True
