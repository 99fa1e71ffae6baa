"""Many processes, one table (docs/deploy.md): two ``ginrummy serve`` processes on one real
PostgreSQL database and one real Redis broker, every request and socket landing on either.

Seats of one match on different processes get every push; two conflicting actions sent to
both at once: exactly one wins; a computer match whose driving process is killed with -9
mid-turn goes on, driven by the other; a process restarted mid-match loses nothing.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .cluster import Serve, open_rates

pytest.importorskip("redis")
ws_client = pytest.importorskip("websockets.sync.client")

pytestmark = pytest.mark.postgres

OPEN = open_rates()


def _pair(serves: list[Serve], pg: str, redis: str, delay: str = "0") -> tuple[Serve, Serve]:
    args = ["--db", pg, "--broker", redis, "--bot-delay", delay, *OPEN]
    env = {KEY_ENV: new_key_text()}  # every process of a deployment shares one seed key
    a = Serve(*args, env=env)
    serves.append(a)
    b = Serve(*args, env=env)
    serves.append(b)
    return a, b


@pytest.fixture(scope="module")
def two(postgres_url: str, redis_url: str) -> Iterator[tuple[Serve, Serve]]:
    """Two processes shared by this module's tests (starting one takes seconds)."""
    started: list[Serve] = []
    try:
        yield _pair(started, postgres_url, redis_url)
    finally:
        for s in started:
            s.stop()
            s.log.close()


class Seat:
    """One seat's WebSocket (authenticated with its first message), collecting states."""

    def __init__(self, server: Serve, mid: str, token: str) -> None:
        conn = ws_client.connect(f"{server.ws_base}/api/matches/{mid}/ws", open_timeout=10)
        self.ws = conn.__enter__()  # closed by close()
        self.ws.send(json.dumps({"type": "auth", "token": token}))
        self.versions: list[int] = []
        self.last: dict[str, Any] = self.until(lambda s: True)

    def until(self, pred: Any, timeout: float = 15.0) -> dict[str, Any]:
        """Receive until a state satisfies ``pred``; every state's version is kept."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no such state arrived; versions seen {self.versions}"
            msg = json.loads(self.ws.recv(timeout=left))
            if msg["type"] == "state":
                self.last = msg["state"]
                self.versions.append(self.last["version"])
                if pred(self.last):
                    return self.last

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send(json.dumps(msg))

    def close(self) -> None:
        self.ws.close()


def _friend(a: Serve, b: Serve) -> tuple[str, list[str]]:
    """A friend match made on A and joined on B."""
    m = a.http.post("/api/matches", json={"opponent": "friend", "name": "Ann"}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    j = b.http.post(f"/api/matches/{m['id']}/join", json={"invite": code})
    assert j.status_code == 200, j.text
    return m["id"], [m["token"], j.json()["token"]]


def _play(seats: list[Seat], servers: list[Serve], mid: str, toks: list[str],
          rng: random.Random, moves: int) -> None:
    """Play ``moves`` changes, alternating WebSocket and HTTP and the process used; after
    each, both seats (on different processes) must be pushed the new version."""
    for i in range(moves):
        newest = max(seat.last["version"] for seat in seats)
        for seat in seats:  # a push through the other process may still be on its way
            if seat.last["version"] < newest:
                seat.until(lambda x, newest=newest: x["version"] >= newest)
        st = seats[0].last
        v = st["version"]
        if st["hand_over"] is not None:
            if st["status"] == "finished":
                return
            for s in (0, 1):
                seats[s].send({"type": "next", "version": v})
            for seat in seats:
                seat.until(lambda x: x["hand_over"] is None)
            continue
        turn = st["view"]["to_play"]
        me = seats[turn].last
        assert me["version"] == v
        action = rng.choice(me["legal"])
        if i % 2:
            seats[turn].send({"type": "action", "action": action, "version": v})
        else:  # over HTTP, on the process the seat is NOT connected to
            r = servers[1 - turn].act(mid, toks[turn], action, v)
            assert r.status_code == 200, r.text
        for seat in seats:
            seat.until(lambda x, v=v: x["version"] > v)


def test_friend_match_with_seats_on_two_processes(two: tuple[Serve, Serve]) -> None:
    a, b = two
    mid, toks = _friend(a, b)
    seats = [Seat(a, mid, toks[0]), Seat(b, mid, toks[1])]
    try:
        if seats[0].last["friend_joined_at"] is None:  # the join on B reaches A by the
            seats[0].until(lambda s: s["friend_joined_at"] is not None)  # broker: pushed
        assert seats[0].last["status"] == seats[1].last["status"] == "playing"
        start = seats[0].last["version"]
        _play(seats, [a, b], mid, toks, random.Random(3), 40)
        end = seats[0].last["version"]
        for seat in seats:  # every change was pushed to both processes' seats, in order
            got = [v for v in seat.versions if v > start]
            assert got == sorted(set(got)) and set(got) == set(range(start + 1, end + 1))
        assert a.get(mid, toks[0]) == seats[0].last and b.get(mid, toks[1]) == seats[1].last
        assert set(seats[0].last["view"]["hand"]).isdisjoint(seats[1].last["view"]["hand"])
    finally:
        for s in seats:
            s.close()


def test_conflicting_actions_on_two_processes_exactly_one_wins(
    two: tuple[Serve, Serve],
) -> None:
    a, b = two
    for trial in range(6):
        mid, toks = _friend(a, b)
        st = a.get(mid, toks[0])
        deadline = time.monotonic() + 15
        while st["friend_joined_at"] is None:  # the join on B (a version bump that makes
            assert time.monotonic() < deadline  # no move stale) reaches A by the broker;
            time.sleep(0.05)  # read the version after it, or the winner's move is 2 past it
            st = a.get(mid, toks[0])
        turn = st["view"]["to_play"]
        me = a.get(mid, toks[turn])
        b.get(mid, toks[turn])  # both processes hold the table in memory
        legal = me["legal"]
        acts = [legal[0], legal[-1]]  # different moves where there is a choice
        out: list[Any] = [None, None]
        go = threading.Barrier(2)

        def send(i: int, srv: Serve, tok: str, v: int, acts: list[Any], out: list[Any],
                 go: threading.Barrier, mid: str) -> None:
            go.wait()
            out[i] = srv.act(mid, tok, acts[i], v)

        threads = [
            threading.Thread(target=send,
                             args=(i, s, toks[turn], me["version"], acts, out, go, mid))
            for i, s in enumerate((a, b))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        codes = sorted(r.status_code for r in out)
        assert codes == [200, 409], (trial, [r.text for r in out])
        won = next(i for i, r in enumerate(out) if r.status_code == 200)
        lost = out[1 - won].json()
        assert lost["state"]["version"] == me["version"] + 1  # the loser sees the winner
        final = [srv.get(mid, toks[turn]) for srv in (a, b)]
        assert final[0] == final[1] and final[0]["version"] == me["version"] + 1
        assert final[0]["view"]["history"][-1]["act"] == acts[won]["act"]


def _to_computer_turn(srv: Serve) -> tuple[str, str, dict[str, Any]]:
    """A new match against the computer on ``srv``, played until the computer is to move:
    its id, the human's token and the human's last STATE."""
    c = srv.http.post("/api/matches", json={"opponent": "computer", "bot": "easy"}).json()
    cid, tok = c["id"], c["token"]
    st = srv.get(cid, tok)
    deadline = time.monotonic() + 20
    while not st["my_turn"]:  # wait for the computer's opening move (if it has one)
        assert time.monotonic() < deadline
        time.sleep(0.1)
        st = srv.get(cid, tok)
    while st["my_turn"]:  # e.g. draw, then discard: then the computer is to play
        r = srv.act(cid, tok, st["legal"][0], st["version"])
        assert r.status_code == 200, r.text
        st = r.json()
    if st["hand_over"] is not None:
        pytest.skip("this deal gave the computer no turn to interrupt")
    return cid, tok, st


def test_computer_match_survives_kill_9_of_its_driving_process(
    serves: list[Serve], postgres_url: str, redis_url: str
) -> None:
    # A computer turn this deployment cannot read (its seed sealed with another key) waits
    # in the same database first: the take-over scan must pass it by, not stall on it.
    other = Serve("--db", postgres_url, "--broker", redis_url, "--bot-delay", "5", *OPEN,
                  env={KEY_ENV: new_key_text()})
    serves.append(other)
    _to_computer_turn(other)
    other.kill9()
    a, b = _pair(serves, postgres_url, redis_url, delay="2")
    cid, tok, moved = _to_computer_turn(a)
    a.kill9()  # A holds the computer's turn: it is thinking (its 2 s pause)
    killed_at = time.monotonic()
    # Not played yet. B may show an older version still: A's "changed" event for the
    # human's last move can die with A (B catches up by its poll or the take-over), and a
    # read is never a promise of the latest version, only of no lost move.
    assert b.get(cid, tok)["version"] <= moved["version"]
    while True:
        now = b.get(cid, tok)
        if now["version"] > moved["version"]:
            break
        assert time.monotonic() - killed_at < 15, "the other process never took over"
        time.sleep(0.1)
    took = time.monotonic() - killed_at
    assert took < 12
    history = now["view"]["history"]
    assert history[: len(moved["view"]["history"])] == moved["view"]["history"]
    assert history[len(moved["view"]["history"])]["seat"] == 1  # the computer's move


def test_process_restarted_mid_match_loses_nothing(two: tuple[Serve, Serve]) -> None:
    a, b = two
    mid, toks = _friend(a, b)
    seats = [Seat(a, mid, toks[0]), Seat(b, mid, toks[1])]
    rng = random.Random(8)
    try:
        _play(seats, [a, b], mid, toks, rng, 12)
        before = [a.get(mid, t) for t in toks]
        seats[1].close()
        b.kill9()
        b.start()
        after = [b.get(mid, t) for t in toks]
        assert after == before
        seats[1] = Seat(b, mid, toks[1])
        assert seats[1].last == before[1]
        _play(seats, [a, b], mid, toks, rng, 6)
        assert a.get(mid, toks[0]) == b.get(mid, toks[0])
    finally:
        for s in seats:
            s.close()


def test_a_seat_claimed_through_another_process_is_known_at_once(
    serves: list[Serve], postgres_url: str
) -> None:
    """No broker, so no "changed" event ever reaches A: a token that A's copy of the table
    does not know is checked again against the database before it is refused."""
    env = {KEY_ENV: new_key_text()}
    a = Serve("--db", postgres_url, *OPEN, env=env)
    serves.append(a)
    b = Serve("--db", postgres_url, *OPEN, env=env)
    serves.append(b)
    m = a.http.post("/api/matches", json={"opponent": "friend", "name": "Ann"}).json()
    assert a.get(m["id"], m["token"])["status"] == "waiting"  # A now holds the table
    code = m["invite_url"].split("#invite=", 1)[1]
    j = b.http.post(f"/api/matches/{m['id']}/join", json={"invite": code})
    assert j.status_code == 200, j.text
    assert a.get(m["id"], j.json()["token"])["view"]["seat"] == 1
    wrong = a.http.get(f"/api/matches/{m['id']}",
                       headers={"Authorization": "Bearer not-a-seat-token"})
    assert wrong.status_code == 403


_SLOW_RENAME = [
    """CREATE OR REPLACE FUNCTION gr_test_slow_rename() RETURNS trigger AS $$
       BEGIN PERFORM pg_sleep(0.8); RETURN NEW; END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER gr_test_slow_rename BEFORE UPDATE ON matches FOR EACH ROW
       WHEN (OLD.players IS DISTINCT FROM NEW.players)
       EXECUTE FUNCTION gr_test_slow_rename()""",
]


def test_friend_named_on_one_process_is_shown_on_the_other(
    two: tuple[Serve, Serve], postgres_url: str, redis_url: str
) -> None:
    """The friend joins on A giving a name; the host's socket on B is pushed the new name,
    B's record of the match carries it, and the broker carried only "table changed"
    (match, version, process), never a view. Storing a name is slowed down (a trigger),
    so B has surely read the joined match before the name: only news of the rename can
    bring it the name."""
    import redis
    from sqlalchemy import create_engine, text

    from ginrummy.web.backends.broker import CHANNEL

    a, b = two
    db = create_engine(postgres_url)
    listener = redis.Redis.from_url(redis_url).pubsub(ignore_subscribe_messages=True)
    try:
        with db.begin() as conn:
            for statement in _SLOW_RENAME:
                conn.execute(text(statement))
        listener.subscribe(CHANNEL)
        listener.get_message(timeout=5)  # the subscription's confirmation
        m = a.http.post("/api/matches", json={"opponent": "friend", "name": "Ann"}).json()
        mid = m["id"]
        host = Seat(b, mid, m["token"])
        try:
            assert host.last["players"] == ["Ann", "Friend"]
            code = m["invite_url"].split("#invite=", 1)[1]
            j = a.http.post(f"/api/matches/{mid}/join", json={"invite": code, "name": "Zoe"})
            assert j.status_code == 200, j.text
            host.until(lambda s: s["players"] == ["Ann", "Zoe"], timeout=10)
            assert b.get(mid, j.json()["token"])["players"] == ["Ann", "Zoe"]
            assert b.http.get(f"/api/matches/{mid}/record", headers={
                "Authorization": f"Bearer {m['token']}"}).json()["players"] == ["Ann", "Zoe"]
        finally:
            host.close()
        seen = []
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            msg = listener.get_message(timeout=0.2)
            if msg is not None:
                seen.append(json.loads(msg["data"]))
        assert mid in {x["m"] for x in seen}
        assert all(set(x) == {"m", "v", "p"} for x in seen)
    finally:
        listener.close()
        with db.begin() as conn:
            conn.execute(text("DROP TRIGGER IF EXISTS gr_test_slow_rename ON matches"))
            conn.execute(text("DROP FUNCTION IF EXISTS gr_test_slow_rename()"))
        db.dispose()
