"""An arena on many processes: two ``ginrummy serve`` processes on one PostgreSQL database
and one Redis broker, four players (two on each process, played by a fast bot through the
API), a 45-second arena to 100 with a short clock. One process is killed with SIGKILL
while the first matches are in play (one of them, and the arena's start, are its): its
players go on through the other (as behind a load balancer), the other process goes on
pairing, every match is played once by two players who were free, the matches in play
when time is up finish and count, and the winner is shown."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.errors import DB_DOWN
from ginrummy.web.store.schema import (
    matches_table,
    tournament_matches_table,
    tournament_players_table,
)
from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .arena_play import both_play, play_until, read_arena, wait_arena
from .cluster import Serve, deployment
from .faults import OwnPostgres
from .test_challenges_cluster import OPEN

pytest.importorskip("redis")

pytestmark = pytest.mark.postgres


class HttpPlayer:
    """One account's browser against the deployment: its requests go to its process, and
    to the next one once that process is gone (as a load balancer would send them)."""

    def __init__(self, servers: list[Serve], first: int, name: str) -> None:
        self.servers = servers
        self.at = first
        r = httpx.post(f"{servers[first].base}/api/accounts", timeout=15,
                       json={"username": name, "password": "correct horse"})
        assert r.status_code == 201, r.text
        self.csrf = r.json()["csrf"]
        self.clients = [httpx.Client(base_url=s.base, timeout=15,
                                     cookies={COOKIE: r.cookies[COOKIE]}) for s in servers]
        self.failovers = 0

    def _call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        for _ in range(2 * len(self.servers)):
            try:
                return self.clients[self.at].request(
                    method, path, json=body,
                    headers={"X-CSRF-Token": self.csrf} if method != "GET" else {})
            except httpx.TransportError:
                self.at = (self.at + 1) % len(self.servers)  # that process is gone
                self.failovers += 1
        raise AssertionError("no process answers")

    def get(self, path: str) -> httpx.Response:
        return self._call("GET", path)

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self._call("POST", path, body)

    def close(self) -> None:
        for c in self.clients:
            c.close()


@pytest.fixture
def two(postgres_url: str, redis_url: str) -> Iterator[tuple[Serve, Serve]]:
    """Two processes of one deployment (stopped, or reaped once killed, at the end)."""
    with deployment(postgres_url, redis_url, *OPEN) as pair:
        yield pair


def test_an_arena_of_four_on_two_processes_survives_a_kill_9(
        two: tuple[Serve, Serve], postgres_url: str) -> None:
    a, b = two
    servers = [a, b]
    suffix = secrets.token_hex(3)
    names = [f"{n}_{suffix}" for n in ("ann", "bob", "cat", "dan")]
    players = {n: HttpPlayer(servers, i // 2, n) for i, n in enumerate(names)}
    ann, dan = players[names[0]], players[names[3]]
    try:
        r = ann.post("/api/tournaments", {"name": f"Kill nine {suffix}", "minutes": 0.75,
                                          "target": 100, "clock": {"move": 10, "bank": 30},
                                          "rated": True})
        assert r.status_code == 201, r.text
        aid = r.json()["id"]
        for n in names[1:]:
            assert players[n].post(f"/api/tournaments/{aid}/join").status_code == 200
        assert ann.post(f"/api/tournaments/{aid}/start").status_code == 200
        killed: list[float] = []

        def read() -> dict[str, Any]:
            got: dict[str, Any] = dan.get(f"/api/tournaments/{aid}").json()
            return got

        def between(arena: dict[str, Any]) -> None:
            busy = [x["username"] for x in arena["standings"] if x["playing"]]
            assert len(busy) == len(set(busy))
            if not killed and (len(busy) == 4 or time.monotonic() > t0 + 4):
                # the first round is in play: killed at once, so that its matches end with
                # time left to pair again even on a loaded machine (at 4 s in a half-minute
                # arena, a slow first round once left no pairing after the kill)
                a.kill9()
                killed.append(time.time())

        t0 = time.monotonic()
        final = play_until(read, players, lambda x: x["status"] == "finished", timeout=150,
                           between=between, parallel=True)
        took = time.monotonic() - t0
    finally:
        for p in players.values():
            p.close()
    assert killed
    assert players[names[0]].failovers and players[names[1]].failovers
    assert final["in_play"] == 0 and final["seconds_left"] == 0
    lines = final["standings"]
    assert final["winner"] == lines[0]["username"] and lines[0]["score"] > 0
    for x in lines:
        assert len(x["sheet"]) == x["matches"] and x["wins"] == x["sheet"].count("W")
    sheets = "".join(x["sheet"] for x in lines)
    # a win may score nothing (issue 44: over a quitter before its 6th move, or over one
    # opponent after two), so the winners' counts need not match the losers'
    assert sheets.count("W") <= sheets.count("L") and sheets.count("D") % 2 == 0

    # the database's account: every match finished; no player was ever in two at once;
    # matches were made after the kill (the other process kept pairing)
    engine = create_engine(postgres_url)
    tm, m = tournament_matches_table, matches_table
    with engine.connect() as conn:
        rows = conn.execute(
            select(tm.c.match_id, tm.c.account0, tm.c.account1, tm.c.created_at, m.c.status,
                   m.c.updated_at, m.c.end_reason)
            .join(m, m.c.id == tm.c.match_id).where(tm.c.tournament_id == aid)
            .order_by(tm.c.created_at)).all()
    engine.dispose()
    assert [r.match_id for r in rows] == final["matches"]
    assert all(r.status == "finished" for r in rows)
    assert any(r.created_at > killed[0] for r in rows), "no pairing after the kill"
    counted = sum(1 for r in rows if r.end_reason != "aborted")
    # every match played out counts for its loser (an L) or for both (a D each)
    assert sheets.count("L") + sheets.count("D") // 2 == counted
    for account in {r.account0 for r in rows} | {r.account1 for r in rows}:
        mine = [r for r in rows if account in (r.account0, r.account1)]
        for before, after in zip(mine, mine[1:], strict=False):
            assert before.updated_at <= after.created_at + 0.5, (before, after)
    print(f"arena of four across two processes, one killed: {took:.1f} s, "
          f"{len(rows)} matches")


def _pairs(arena: dict[str, Any]) -> set[frozenset[str]]:
    """The pairs of the matches in play, as sets of usernames."""
    by: dict[str, set[str]] = {}
    for line in arena["standings"]:
        if line["playing"]:
            by.setdefault(line["playing"], set()).add(line["username"])
    return {frozenset(v) for v in by.values()}


def test_pairing_stops_while_the_database_is_away_and_resumes(serves: list[Serve]) -> None:
    pg = OwnPostgres()
    try:
        s = Serve("--db", pg.url, "--bot-delay", "0", *OPEN, env={KEY_ENV: new_key_text()})
        serves.append(s)
        suffix = secrets.token_hex(3)
        names = [f"{n}_{suffix}" for n in ("ann", "bob", "cat", "dan")]
        players = {n: HttpPlayer([s], 0, n) for n in names}
        ann = players[names[0]]
        aid = ann.post("/api/tournaments", {"name": "Outage", "minutes": 30}).json()["id"]
        for n in names[1:]:
            players[n].post(f"/api/tournaments/{aid}/join")
        ann.post(f"/api/tournaments/{aid}/start")
        a = read_arena(ann, aid)
        x, y = sorted({line["playing"] for line in a["standings"]})
        who = {line["playing"]: line["username"] for line in a["standings"]}
        for m in (x, y):  # both matches played (a resignation before scores nothing)
            seated = [players[ln["username"]] for ln in a["standings"] if ln["playing"] == m]
            both_play((seated[0], seated[1]), m)
        # one match ends: its two players wait for the others (they have just met)
        assert players[who[x]].post(f"/api/matches/{x}/resign").status_code == 200
        pg.stop_immediate()
        r = players[who[y]].post(f"/api/matches/{y}/resign")
        assert (r.status_code, r.json()) == (503, {"error": DB_DOWN})
        time.sleep(5)  # two scans and more while the database is away
        r = ann.get(f"/api/tournaments/{aid}")
        assert (r.status_code, r.json()) == (503, {"error": DB_DOWN})
        assert s.proc.poll() is None
        pg.start()
        # back: the second match ends now, and all four are paired crosswise at once
        deadline = time.monotonic() + 20
        while (r := players[who[y]].post(f"/api/matches/{y}/resign")).status_code == 503:
            assert time.monotonic() < deadline, r.text
            time.sleep(0.2)
        assert r.status_code == 200, r.text
        after = wait_arena(ann, aid, lambda t: t["in_play"] == 2 and len(t["matches"]) == 4)
        assert sorted(line["sheet"] for line in after["standings"]) == ["L", "L", "W", "W"]
        assert _pairs(after).isdisjoint(_pairs(a))
        engine = create_engine(pg.url)
        tp = tournament_players_table
        with engine.connect() as conn:
            pending = conn.execute(select(tp.c.match_id).where(tp.c.tournament_id == aid)
                                   .where(tp.c.match_id.like("pending:%"))).all()
        engine.dispose()
        assert pending == []
        for p in players.values():
            p.close()
    finally:
        for srv in serves:
            srv.stop()
        pg.close()
