"""Nothing is ever lost: a real server (uvicorn in its own process) is killed with SIGKILL
in the middle of a hand and started again on the same database; every match continues
exactly where it was, a computer turn that was pending when it died is played, and a turn
clock's deadline it set is enforced."""

from __future__ import annotations

import contextlib
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import ginrummy

from .cluster import end_group, wait_group_gone

SRC = str(Path(ginrummy.__file__).resolve().parent.parent)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``ginrummy serve`` in a child process on a free loopback port."""

    def __init__(self, db: Path, bot_delay: str) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-c",
             "import sys; from ginrummy.web.server import main; sys.exit(main(sys.argv[1:]))",
             "--port", str(self.port), "--db", f"sqlite:///{db}", "--bot-delay", bot_delay],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,  # its own process group: end_group ends all it started
        )
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        if f"http://127.0.0.1:{self.port}/" not in first:
            end_group(self.proc)
            raise AssertionError(f"server did not start: {first}{self.proc.stdout.read()}")
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(self.base + "/api/bots", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                end_group(self.proc)
                raise AssertionError(f"server did not start: {self.proc.stdout.read()}")
            time.sleep(0.05)
        self.http = httpx.Client(base_url=self.base, timeout=10)

    def kill9(self) -> None:
        """SIGKILL to the server and anything it started, as a crashed machine."""
        self.http.close()
        end_group(self.proc)

    def stop(self) -> None:
        """A clean shutdown (SIGTERM), then whatever of its group is left is killed."""
        self.http.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
        end_group(self.proc)
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def get(self, mid: str, token: str) -> dict[str, Any]:
        r = self.http.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    def act(self, mid: str, token: str, action: Any, version: int) -> dict[str, Any]:
        r = self.http.post(f"/api/matches/{mid}/actions",
                           headers={"Authorization": f"Bearer {token}"},
                           json={"action": action, "version": version})
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    """Servers a test starts; all stopped at its end, and none leaves a process behind."""
    started: list[Server] = []
    try:
        yield started
    finally:
        for s in started:
            s.stop()
    for s in started:
        assert wait_group_gone(s.proc.pid) == []


def test_kill_9_mid_hand_then_restart_continues_exactly(
    tmp_path: Path, servers: list[Server]
) -> None:
    db = tmp_path / "restart.sqlite3"
    a = Server(db, bot_delay="3")  # slow computer: its turn is pending when we kill
    servers.append(a)
    rng = random.Random(12)
    # a friend match, several moves into hand 0
    m = a.http.post("/api/matches", json={"opponent": "friend", "name": "Ann"}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    joined = a.http.post(f"/api/matches/{m['id']}/join", json={"invite": code})
    assert joined.status_code == 200, joined.text
    fid, ftoks = m["id"], [m["token"], joined.json()["token"]]
    for _ in range(9):
        s = a.get(fid, ftoks[0])
        seat = s["view"]["to_play"]
        me = a.get(fid, ftoks[seat])
        a.act(fid, ftoks[seat], rng.choice(me["legal"]), me["version"])
    # a computer match where the computer is to move
    c = a.http.post("/api/matches", json={"opponent": "computer", "bot": "easy"}).json()
    cid, ctok = c["id"], c["token"]
    cs = a.get(cid, ctok)
    if cs["my_turn"]:
        cs = a.act(cid, ctok, cs["legal"][0], cs["version"])
    assert cs["view"]["to_play"] == 1 and not cs["my_turn"]
    before = [a.get(fid, t) for t in ftoks]
    assert before[0]["hand_over"] is None and len(before[0]["view"]["history"]) == 9
    a.kill9()  # mid-hand, computer turn pending

    b = Server(db, bot_delay="0")
    servers.append(b)
    after = [b.get(fid, t) for t in ftoks]
    assert after == before  # the same hands, discards, history, version, legal moves
    seat = after[0]["view"]["to_play"]
    nxt = b.act(fid, ftoks[seat], after[seat]["legal"][0], after[seat]["version"])
    assert nxt["version"] == before[0]["version"] + 1
    # the computer's pending turn was resumed and stored
    deadline = time.monotonic() + 20
    while True:
        now = b.get(cid, ctok)
        if now["version"] > cs["version"] and (now["my_turn"] or now["hand_over"]):
            break
        assert time.monotonic() < deadline, now
        time.sleep(0.05)
    history = now["view"]["history"]
    assert history[: len(cs["view"]["history"])] == cs["view"]["history"]
    assert any(h["seat"] == 1 for h in history[len(cs["view"]["history"]):])


def test_a_clock_deadline_survives_kill_9_and_a_restart(
    tmp_path: Path, servers: list[Server]
) -> None:
    """One process on SQLite: the deadline it set is in the database, so the process
    started again after a kill -9 plays the out-of-time move (the safe pass, marked)."""
    db = tmp_path / "clock.sqlite3"
    a = Server(db, bot_delay="0")
    servers.append(a)
    m = a.http.post("/api/matches", json={"opponent": "friend",
                                          "clock": {"move": 2, "bank": 0}}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    joined = a.http.post(f"/api/matches/{m['id']}/join", json={"invite": code})
    assert joined.status_code == 200, joined.text
    mid, toks = m["id"], [m["token"], joined.json()["token"]]
    s = a.get(mid, toks[0])
    deadline, idle = s["clock"]["deadline"], s["view"]["to_play"]
    assert deadline is not None and s["view"]["history"] == []
    a.kill9()  # before the deadline comes
    b = Server(db, bot_delay="0")
    servers.append(b)
    end = time.monotonic() + 15
    while not (s := b.get(mid, toks[idle]))["view"]["history"]:
        assert time.monotonic() < end, s
        time.sleep(0.05)
    first = s["view"]["history"][0]
    assert first == {"seat": idle, "act": "pass", "timeout": True}
    assert time.time() >= deadline and s["clock"]["timeouts"][idle] == 1
