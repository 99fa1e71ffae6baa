"""The fault suite: two ``ginrummy serve`` processes on one PostgreSQL and one Redis, with
seats of one friend match on both and a match against the computer, while their services
fail and come back (docs/deploy.md, "What failures do to players"):

* Redis killed with -9 mid-match and started again (empty);
* PostgreSQL stopped at once (``-m immediate``) mid-match and started again;
* a serve process killed with -9 during a computer turn (and its worker processes end
  with it).

In each: play goes on where it can (or is refused with 503, changing nothing, while the
database is away), within 5 s of the service coming back every seat has the latest
state, no acknowledged move is lost or duplicated (checked against the database), and no
socket stays silent and open (the servers beat every second here).
"""

from __future__ import annotations

import base64
import os
import random
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from ginrummy.web.errors import DB_DOWN
from ginrummy.web.store import Store
from ginrummy.web.store.seeds import KEY_ENV, SeedCipher, new_key_text

from .cluster import SRC, Serve, end_group, live_in_group, wait_group_gone
from .faults import LiveSeat, OwnPostgres, OwnRedis

pytest.importorskip("redis")

pytestmark = pytest.mark.postgres

OPEN = ["--rate-create", "100000/minute", "--rate-join", "100000/minute",
        "--rate-lookup", "100000/minute", "--rate-actions", "100000/minute",
        "--rate-messages", "100000/minute",
        "--rate-reads", "100000/minute", "--rate-sockets", "100000/minute",
        "--rate-auth", "100000/minute"]
RECOVERY = 8.0
"""Every seat has the latest state this long after its service is back."""
SILENCE = 6.0
"""No open socket goes without a message longer than this (beats come every second;
the margin is for a loaded machine)."""


class Table:
    """One match under test: its seats, and every change they had acknowledged."""

    def __init__(self, mid: str, seats: list[LiveSeat], rng: random.Random) -> None:
        self.mid = mid
        self.seats = seats
        self.rng = rng
        self.acked: list[tuple[int, int, int, dict[str, Any]]] = []
        """(hand, index in the hand, seat, action) of every move shown as done."""

    def freshest(self) -> dict[str, Any]:
        return max((s.last() for s in self.seats), key=lambda st: st["version"])

    def step(self, timeout: float = 10.0) -> bool:
        """One change by whichever person may make one (a move, or ``next``), over that
        seat's socket; True once it is shown done, False when it was refused."""
        for seat in self.seats:
            st = seat.last()
            v = st["version"]
            ho = st["hand_over"]
            if st["status"] == "finished":
                return False
            if ho is not None and not ho["ready"][st["seat"]]:
                msg: dict[str, Any] = {"type": "next", "version": v}
                action = None
            elif st["my_turn"]:
                action = self.rng.choice(st["legal"])
                msg = {"type": "action", "action": action, "version": v}
            else:
                continue
            errors = len(seat.errors)
            if not seat.send(msg):
                return False
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                now = seat.last()
                if now["version"] > v:
                    if action is not None:
                        h = st["view"]["hand_index"]
                        k = len(st["view"]["history"])
                        assert now["view"]["history"][k]["act"] == action["act"]
                        self.acked.append((h, k, st["seat"], action))
                    return True
                if len(seat.errors) > errors:
                    return False
                time.sleep(0.02)
            return False
        return False

    def play(self, changes: int, timeout: float = 10.0) -> None:
        """``changes`` changes, each shown to every seat of the match."""
        for _ in range(changes):
            assert self.step(timeout), f"a change at {self.mid} was not made"
            v = self.freshest()["version"]
            for seat in self.seats:
                seat.wait(lambda st, v=v: st["version"] >= v, timeout)

    def check_stored(self, store: Store) -> None:
        """Every acknowledged move is stored, once, where it was played; the seats show
        the stored version."""
        sm = store.load(self.mid)
        assert sm is not None
        by_hand: dict[int, list[tuple[int, dict[str, Any]]]] = {}
        for a in sm.actions:
            by_hand.setdefault(a.hand, []).append((a.seat, a.action))
        assert [a.seq for a in sm.actions] == list(range(len(sm.actions)))
        for h, k, seat, action in self.acked:
            assert by_hand[h][k] == (seat, action), (h, k)
        for seat in self.seats:
            assert seat.last()["version"] == sm.version


def _store(url: str, key: str) -> Store:
    """The servers' database, read with their seed key."""
    return Store(url, SeedCipher(base64.urlsafe_b64decode(key.encode())), migrate=False)


def _servers(serves: list[Serve], db: str, broker: str, key: str,
             delay: str = "0.3") -> tuple[Serve, Serve]:
    args = ["--db", db, "--broker", broker, "--bot-delay", delay, "--ws-heartbeat", "1", *OPEN]
    a = Serve(*args, env={KEY_ENV: key})
    serves.append(a)
    b = Serve(*args, env={KEY_ENV: key})
    serves.append(b)
    return a, b


def _friend(a: Serve, b: Serve, rng: random.Random) -> Table:
    """A friend match made on A and joined on B; seat 0's socket on A, seat 1's on B."""
    m = a.http.post("/api/matches", json={"opponent": "friend", "name": "Ann"}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    j = b.http.post(f"/api/matches/{m['id']}/join", json={"invite": code})
    assert j.status_code == 200, j.text
    seats = [LiveSeat([a, b], m["id"], m["token"], "ann"),
             LiveSeat([b, a], m["id"], j.json()["token"], "friend")]
    for s in seats:
        s.wait(lambda st: st["friend_joined_at"] is not None, 10)
    return Table(m["id"], seats, rng)


def _computer(a: Serve, servers: list[list[Serve]], rng: random.Random) -> Table:
    """A match against the computer made on A, its person's sockets on the given servers
    (the first one's moves drive it)."""
    m = a.http.post("/api/matches", json={"opponent": "computer", "bot": "easy"}).json()
    seats = [LiveSeat(order, m["id"], m["token"], f"human-{i}")
             for i, order in enumerate(servers)]
    return Table(m["id"], seats, rng)


def _human_turn(t: Table, timeout: float = 10.0) -> None:
    """Wait until the person may make a change (the computer has played)."""
    t.seats[0].wait(lambda st: st["my_turn"] or st["status"] == "finished" or (
        st["hand_over"] is not None and not st["hand_over"]["ready"][0]), timeout)


def _play_computer(t: Table, changes: int) -> None:
    for _ in range(changes):
        _human_turn(t)
        assert t.step(), "the person's move was not made"


def _all_latest(tables: list[Table], store: Store, deadline: float) -> None:
    """By ``deadline``, every seat shows its match's stored version, moves not paused."""
    for t in tables:
        sm = store.load(t.mid)
        assert sm is not None
        for seat in t.seats:
            left = max(0.1, deadline - time.monotonic())
            seat.wait(lambda st, v=sm.version: st["version"] == v and st["paused"] is None,
                      left)


def _close(tables: list[Table], servers: tuple[Serve, ...] = ()) -> None:
    for t in tables:
        for s in t.seats:
            s.close()
    for srv in servers:  # shown when the test failed
        print(f"--- server on port {srv.port}:\n{srv.output()[-4000:]}")


def _silent(tables: list[Table]) -> list[tuple[str, float]]:
    return [(s.name, round(s.max_silence, 1)) for t in tables for s in t.seats
            if s.max_silence > SILENCE]


def test_redis_killed_mid_match(serves: list[Serve], postgres_url: str,
                                redis: OwnRedis) -> None:
    key = new_key_text()
    a, b = _servers(serves, postgres_url, redis.url, key)
    rng = random.Random(11)
    friend = _friend(a, b, rng)
    computer = _computer(a, [[b, a]], rng)
    tables = [friend, computer]
    store = _store(postgres_url, key)
    try:
        friend.play(4)
        _play_computer(computer, 2)
        for s in friend.seats + computer.seats:
            s.reset_silence()
        redis.kill9()
        # Without the broker: each change still reaches the seat on the other process
        # (polled), and the computer still plays (claimed in the database).
        friend.play(6, timeout=8)
        _play_computer(computer, 3)
        redis.start()
        back = time.monotonic()
        _all_latest(tables, store, back + RECOVERY)
        friend.play(4, timeout=6)  # pushed through the broker again
        _play_computer(computer, 2)
        for t in tables:
            t.check_stored(store)
        assert _silent(tables) == []
        assert "could not publish" in a.output() + b.output()  # the outage was felt
    finally:
        _close(tables, (a, b))
        store.close()


def test_postgres_stopped_mid_match(serves: list[Serve], postgres: OwnPostgres,
                                    redis: OwnRedis) -> None:
    key = new_key_text()
    a, b = _servers(serves, postgres.url, redis.url, key, delay="1")
    rng = random.Random(12)
    friend = _friend(a, b, rng)
    computer = _computer(a, [[a, b]], rng)
    tables = [friend, computer]
    store = _store(postgres.url, key)
    try:
        friend.play(4)
        _play_computer(computer, 2)
        _human_turn(computer)
        assert computer.step()  # the computer is to move: it pauses a second first
        for s in friend.seats + computer.seats:
            s.reset_silence()
        before = {t.mid: t.freshest()["version"] for t in tables}
        postgres.stop_immediate()
        # Every seat is shown its last state with moves paused, on both processes.
        for t in tables:
            for seat in t.seats:
                seat.wait(lambda st: st["paused"] == DB_DOWN, 8)
        for srv, t in ((a, friend), (b, friend), (a, computer)):
            st = srv.get(t.mid, t.seats[0].token)
            assert st["paused"] == DB_DOWN and st["version"] == before[t.mid]
        # A change is refused with 503 and changes nothing.
        assert not friend.step(timeout=5)
        refused = [e for seat in friend.seats for e in seat.errors]
        assert refused and refused[-1]["status"] == 503 and refused[-1]["message"] == DB_DOWN
        time.sleep(2)
        postgres.start()
        back = time.monotonic()
        _all_latest(tables, store, back + RECOVERY)
        assert all(t.freshest()["version"] >= before[t.mid] for t in tables)
        friend.play(4)  # play resumes by itself
        _play_computer(computer, 2)
        for t in tables:
            t.check_stored(store)
        assert _silent(tables) == []
    finally:
        _close(tables, (a, b))
        store.close()


def test_serve_killed_during_a_computer_turn(serves: list[Serve], postgres_url: str,
                                             redis: OwnRedis) -> None:
    key = new_key_text()
    a, b = _servers(serves, postgres_url, redis.url, key, delay="2")
    rng = random.Random(13)
    friend = _friend(a, b, rng)
    computer = _computer(a, [[a, b], [b, a]], rng)  # one tab on each process
    tables = [friend, computer]
    store = _store(postgres_url, key)
    try:
        friend.play(3)
        _human_turn(computer, 15)
        while not computer.seats[0].last()["waiting_for_opponent"]:
            assert computer.step()  # until the computer is to move (A drives it)
        moved = computer.freshest()["version"]
        for s in friend.seats + computer.seats:
            s.reset_silence()
        os.kill(a.proc.pid, signal.SIGKILL)  # mid-turn: A is in its 2 s pause
        killed = time.monotonic()
        for seat in computer.seats:  # B takes the turn over; A's tab reconnects to B
            seat.wait(lambda st: st["version"] > moved, 15)
        assert time.monotonic() - killed < 12
        friend.play(4)  # the seat that was on A plays on through B
        a.start()
        back = time.monotonic()
        _all_latest(tables, store, back + RECOVERY)
        friend.play(2)
        _play_computer(computer, 2)
        for t in tables:
            t.check_stored(store)
        assert all(s.connects >= 2 for s in (friend.seats[0], computer.seats[0]))
        assert _silent(tables) == []
    finally:
        _close(tables, (a, b))
        store.close()


BUSY_POOL = """
import sys, time
from ginrummy.web.workers import new_pool
pool = new_pool(1)
pool.submit(time.sleep, 120)  # a worker busy for long (a review, a slow decision)
time.sleep(1.0)
print("busy", flush=True)
time.sleep(120)
"""


def test_worker_processes_end_with_their_server() -> None:
    """kill -9 of a server (its process alone, not its group) while its worker is busy:
    the worker notices that its parent is gone and ends by itself within a second or so,
    instead of finishing its work for nobody."""
    proc = subprocess.Popen([sys.executable, "-c", BUSY_POOL], stdout=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=SRC),
                            start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "busy"
        group = live_in_group(proc.pid)
        assert len(group) >= 2  # the server and its worker (and a resource tracker)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert wait_group_gone(proc.pid, 5) == []
    finally:
        end_group(proc)
