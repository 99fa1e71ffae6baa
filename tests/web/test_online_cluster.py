"""Online play on many processes: two ``ginrummy serve`` processes on one PostgreSQL
database and one Redis broker. Two accounts seeking on different processes are paired,
play a rated match to its end, and both ratings move as Glicko-2 says under the rules of
fair rated play (two fresh accounts from one address: each moved by at most CAP); many seeks sent to
both processes at once are each taken exactly once."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ginrummy.ratings import DEFAULT, match_update
from ginrummy.web.online.fairplay import rated_result

from .cluster import Serve, deployment
from .online import play_to_end, sign_up, wait_paired

pytest.importorskip("redis")

pytestmark = pytest.mark.postgres

OPEN = ["--rate-create", "100000/minute", "--rate-join", "100000/minute",
        "--rate-lookup", "100000/minute", "--rate-actions", "100000/minute",
        "--rate-messages", "100000/minute",
        "--rate-reads", "100000/minute"]


@pytest.fixture(scope="module")
def two(postgres_url: str, redis_url: str) -> Iterator[tuple[Serve, Serve]]:
    """Two processes of one deployment (one seed key, one database, one broker)."""
    with deployment(postgres_url, redis_url, *OPEN) as pair:
        yield pair


def test_two_accounts_on_two_processes_play_rated(two: tuple[Serve, Serve]) -> None:
    a, b = two
    suffix = secrets.token_hex(3)
    with httpx.Client(base_url=a.base, timeout=15) as hana, \
            httpx.Client(base_url=b.base, timeout=15) as ivo:
        names = [f"hana_{suffix}", f"ivo_{suffix}"]
        csrf = [sign_up(hana, names[0])["csrf"], sign_up(ivo, names[1])["csrf"]]
        r = hana.post("/api/seeks", json={"rated": True}, headers={"X-CSRF-Token": csrf[0]})
        assert r.status_code == 201, r.text
        seek = r.json()["seek"]
        r = ivo.post("/api/seeks", json={"rated": True}, headers={"X-CSRF-Token": csrf[1]})
        assert r.status_code == 200, r.text  # paired at once, on the other process
        mine = r.json()["match"]
        theirs = wait_paired(hana, seek)
        assert theirs["id"] == mine["id"] and {theirs["seat"], mine["seat"]} == {0, 1}
        mid = mine["id"]
        assert mid in [m["id"] for m in ivo.get("/api/live").json()["matches"]]
        end = play_to_end([hana, ivo], mid, [theirs["token"], mine["token"]])
        assert end["winner"] in (0, 1)
        score0 = 1.0 if end["winner"] == 0 else 0.0
        want = rated_result(DEFAULT, DEFAULT, score0, same_address=True)  # both 127.0.0.1
        assert want[0].deviation == match_update(DEFAULT, DEFAULT, score0)[0].deviation
        deadline = time.monotonic() + 10
        for seat, (name, c) in enumerate(zip(names, (ivo, hana), strict=True)):
            while True:  # asked of the other process than the one that played the seat
                p = c.get(f"/api/players/{name}").json()
                if p["history"] or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert p["rating"] == pytest.approx(want[seat].rating, abs=0.05), p
            assert p["deviation"] == pytest.approx(want[seat].deviation, abs=0.05)
            assert p["volatility"] == pytest.approx(want[seat].volatility, abs=1e-6)
            assert [h["match"] for h in p["history"]] == [mid]


def test_concurrent_seeks_on_two_processes_are_each_taken_once(
        two: tuple[Serve, Serve]) -> None:
    a, b = two
    opts: dict[str, Any] = {"target": 150, "gin_only": True, "oklahoma": False,
                            "clock": {"move": 13, "bank": 47}}  # options no other test seeks
    n = 8
    results: list[dict[str, Any]] = [{} for _ in range(n)]
    go = threading.Barrier(n)

    def seeker(i: int) -> None:
        server = (a, b)[i % 2]
        with httpx.Client(base_url=server.base, timeout=15) as c:
            go.wait()
            r = c.post("/api/seeks", json=opts)
            assert r.status_code in (200, 201), r.text
            body = r.json()
            results[i] = body["match"] if "match" in body else wait_paired(c, body["seek"])

    threads = [threading.Thread(target=seeker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    seats: dict[str, list[int]] = {}
    for m in results:
        assert m, "a seeker got no match"
        seats.setdefault(m["id"], []).append(m["seat"])
    assert len(seats) == n // 2 and all(sorted(s) == [0, 1] for s in seats.values()), seats
