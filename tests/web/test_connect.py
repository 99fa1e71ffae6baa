"""``ginrummy connect`` against a real server process (``ginrummy serve``): a BOT account's
bot accepts a person's challenge and plays the whole match against the person's seat
(driven through the HTTP API), across a restart of the server in the middle; a token
revoked mid-match stops it with one clear line (status 1); Ctrl-C stops it with 130.
The bot of the first test is docs/example_bot.py, run unchanged as an ``exec:`` bot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .cluster import SRC, Serve, open_rates
from .online import quick_move

pytest.importorskip("websockets")

ROOT = Path(__file__).resolve().parents[2]
OPEN = open_rates()  # the person's seat is played as fast as the server answers


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Serve]:
    """One server process on an SQLite file (it survives a restart of the process)."""
    s = Serve("--db", str(tmp_path / "gin.sqlite3"), "--bot-delay", "0", *OPEN,
              env={KEY_ENV: new_key_text()})
    try:
        yield s
    finally:
        s.stop()
        s.log.close()


class Connect:
    """``ginrummy connect`` in a child process, its output in files."""

    def __init__(self, *args: str) -> None:
        self.out = tempfile.NamedTemporaryFile(prefix="connect-", suffix=".out")  # noqa: SIM115
        self.err = tempfile.NamedTemporaryFile(prefix="connect-", suffix=".err")  # noqa: SIM115
        env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from ginrummy.cli import main; "
             "sys.exit(main(sys.argv[1:]))", "connect", *args],
            stdout=self.out, stderr=self.err, env=env, cwd=ROOT)

    def output(self) -> str:
        return Path(self.out.name).read_text()

    def errors(self) -> str:
        return Path(self.err.name).read_text()

    def wait_for(self, text: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output():
            assert self.proc.poll() is None or text in self.output(), (
                f"connect ended ({self.proc.returncode}): {self.output()}{self.errors()}")
            assert time.monotonic() < deadline, f"no {text!r} in: {self.output()}"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.out.close()
        self.err.close()


def account(base: str, name: str, bot: bool = False) -> tuple[httpx.Client, str]:
    """A signed-up account's client and CSRF token."""
    c = httpx.Client(base_url=base, timeout=15)
    r = c.post("/api/accounts", json={"username": name, "password": "correct horse",
                                      "bot": bot})
    assert r.status_code == 201, r.text
    return c, str(r.json()["csrf"])


def bot_token(base: str) -> tuple[httpx.Client, str, dict[str, Any]]:
    """A BOT account ``robo`` and a fresh API token of it."""
    c, csrf = account(base, "robo", bot=True)
    r = c.post("/api/tokens", json={"name": "test"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    return c, csrf, r.json()


def challenge(person: httpx.Client, csrf: str) -> dict[str, Any]:
    """The person challenges robo; the match object once the bot has accepted."""
    r = person.post("/api/challenges", json={"to": "robo"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    cid = r.json()["challenge"]
    deadline = time.monotonic() + 120  # a loaded machine: the bot may take a while to start
    while True:
        got = person.get(f"/api/challenges/{cid}").json()
        if "match" in got:
            out: dict[str, Any] = got["match"]
            return out
        assert got["status"] == "open" and time.monotonic() < deadline, got
        time.sleep(0.1)


def play_seat(base: str, match: dict[str, Any], moves: int | None = None,
              timeout: float = 120) -> dict[str, Any]:
    """Play the person's seat through the HTTP API (quick moves) until the match is over,
    or ``moves`` moves were made; the last STATE. Rides out a server restart."""
    mid, auth = match["id"], {"Authorization": f"Bearer {match['token']}"}
    made = 0
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=base, timeout=5) as c:
        while time.monotonic() < deadline:
            try:
                s = c.get(f"/api/matches/{mid}", headers=auth).json()
                if s["status"] == "finished" or (moves is not None and made >= moves):
                    return dict(s)
                if s["hand_over"] is not None and not s["hand_over"]["ready"][s["seat"]]:
                    c.post(f"/api/matches/{mid}/next", json={"version": s["version"]},
                           headers=auth)
                elif s["my_turn"]:
                    r = c.post(f"/api/matches/{mid}/actions", headers=auth,
                               json={"action": quick_move(s), "version": s["version"]})
                    made += r.status_code == 200
                else:
                    time.sleep(0.01)
            except (httpx.HTTPError, KeyError, ValueError):
                time.sleep(0.2)  # the server is restarting
    raise AssertionError("the match did not end in time")


def test_a_bot_plays_a_whole_match_online_across_a_server_restart(server: Serve) -> None:
    _, _, token = bot_token(server.base)
    person, csrf = account(server.base, "ann")
    bot = Connect(server.base, "exec:python3 docs/example_bot.py", "--token",
                  token["token"], "--max-matches", "1")
    try:
        bot.wait_for("connected to")
        match = challenge(person, csrf)
        play_seat(server.base, match, moves=6)
        server.stop()  # mid-match: the bot's sockets drop
        bot.wait_for("reconnecting in")
        server.start()  # the same database and port
        # it says when it is back, on the notice socket and the seat's (issue 44)
        bot.wait_for("notices: connected again")
        bot.wait_for(f"match {match['id']}: connected again")
        end = play_seat(server.base, match)
        assert end["status"] == "finished" and end["winner"] in (0, 1)
        assert end["players"] == ["ann", "robo"] and end["bots"] == [False, True]
        bot.proc.wait(30)
        out = bot.output()
        assert bot.proc.returncode == 0, out + bot.errors()
        assert "BOT robo" in out.splitlines()[0]
        assert f"accepted: match {match['id']}" in out and f"match {match['id']}: over:" in out
        assert "the bot failed" not in out  # the example bot played every move itself
        assert bot.errors() == ""
    finally:
        bot.stop()
        person.close()


class Playing:
    """A BOT account with a token, ``connect`` running it (``random``), and a person
    whose challenge it accepted, a few moves into the match."""

    def __init__(self, server: Serve, moves: int) -> None:
        self.owner, self.owner_csrf, self.token = bot_token(server.base)
        self.person, csrf = account(server.base, "ann")
        self.bot = Connect(server.base, "random", "--token", self.token["token"])
        self.bot.wait_for("connected to")
        self.match = challenge(self.person, csrf)
        play_seat(server.base, self.match, moves=moves)

    def close(self) -> None:
        self.bot.stop()
        self.owner.close()
        self.person.close()


def test_a_token_revoked_mid_match_stops_the_bot_with_one_line(server: Serve) -> None:
    playing = Playing(server, moves=3)
    owner, owner_csrf, token, bot = (playing.owner, playing.owner_csrf, playing.token,
                                     playing.bot)
    try:
        r = owner.delete(f"/api/tokens/{token['id']}", headers={"X-CSRF-Token": owner_csrf})
        assert r.status_code == 200
        assert bot.proc.wait(30) == 1
        assert bot.errors() == ("ginrummy connect: the server refused the token: This API "
                                "token has been revoked: make a new one on the account "
                                "page.\n")
    finally:
        playing.close()


def _stops_on_ctrl_c(bot: Connect) -> None:
    """Ctrl-C, then: status 130 within 30 s (``connect`` bounds its own stop at 3 s, so
    this holds on a machine at load 13), one line saying so, no traceback."""
    bot.proc.send_signal(signal.SIGINT)
    assert bot.proc.wait(30) == 130, bot.output() + bot.errors()
    assert "Traceback" not in bot.errors(), bot.errors()
    assert bot.output().count("stopped (Ctrl-C)") == 1, bot.output()


def test_ctrl_c_stops_connect_with_130(server: Serve) -> None:
    playing = Playing(server, moves=2)
    try:
        _stops_on_ctrl_c(playing.bot)
    finally:
        playing.close()


SLEEPER = """
import json, os, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "sleeper"}), flush=True)
    elif msg["type"] == "decide":  # thinks for an hour
        with open(sys.argv[1], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(3600)
    elif msg["type"] == "bye":
        break
"""


def test_ctrl_c_stops_connect_while_its_bot_thinks(server: Serve, tmp_path: Path) -> None:
    """Issue 44 item 8: Ctrl-C must stop ``connect`` at once whatever it waits on. Here an
    ``exec:`` bot never answers its decision (its time limit is an hour): Ctrl-C while it
    thinks ends ``connect`` with 130 all the same (its decision was waited for in a thread
    the shutdown joined), and the bot's program does not outlive it."""
    script = tmp_path / "sleeper.py"
    script.write_text(SLEEPER)
    marker = tmp_path / "thinking"
    _, _, token = bot_token(server.base)
    person, csrf = account(server.base, "ann")
    bot = Connect(server.base, f"exec:{sys.executable} {script} {marker}", "--token",
                  token["token"], "--time-limit", "3600")
    try:
        bot.wait_for("connected to")
        match = challenge(person, csrf)
        # the bot's turn comes: at once if its seat has the first decision (R5), else
        # after the person's first move
        auth = {"Authorization": f"Bearer {match['token']}"}
        deadline = time.monotonic() + 120
        with httpx.Client(base_url=server.base, timeout=5) as c:
            while not marker.exists() or not marker.read_text():
                assert time.monotonic() < deadline, bot.output() + bot.errors()
                s = c.get(f"/api/matches/{match['id']}", headers=auth).json()
                if s["my_turn"]:
                    c.post(f"/api/matches/{match['id']}/actions", headers=auth,
                           json={"action": quick_move(s), "version": s["version"]})
                time.sleep(0.05)
        thinker = int(marker.read_text())
        _stops_on_ctrl_c(bot)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{thinker}").exists() and "zombie" not in _status(thinker):
            assert time.monotonic() < deadline, "the bot's program outlived connect"
            time.sleep(0.05)
    finally:
        bot.stop()
        person.close()


def _status(pid: int) -> str:
    """The state line of a process (empty once it is gone)."""
    try:
        return next((line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                     if line.startswith("State:")), "")
    except OSError:
        return ""


def test_ctrl_c_stops_connect_while_it_waits_to_reconnect(server: Serve) -> None:
    """The server went away mid-match: Ctrl-C during the waits between reconnections
    stops ``connect`` at once too."""
    playing = Playing(server, moves=2)
    try:
        server.stop()
        playing.bot.wait_for("reconnecting in")
        _stops_on_ctrl_c(playing.bot)
    finally:
        server.start()  # (the fixture stops it)
        playing.close()


def test_a_refused_token_at_start_and_a_wrong_command_line(server: Serve) -> None:
    fake = "ginrummy." + "A" * 43
    bot = Connect(server.base, "random", "--token", fake)
    try:
        assert bot.proc.wait(30) == 1
        assert bot.errors() == ("ginrummy connect: the server refused the token: This API "
                                "token is not valid here: it was never issued by this "
                                "site.\n")
    finally:
        bot.stop()
    for args, text in ((["random", "--token", "nope"], "--token: an API token is"),
                       (["nobot", "--token", fake], "Unknown bot"),
                       (["random", "--token", fake, "--accept", "blitz"], "--accept takes"),
                       (["exec:/no/such/program", "--token", fake], "cannot start")):
        bad = Connect(server.base, *args)
        try:
            assert bad.proc.wait(30) == 2, bad.errors()
            assert text in bad.errors() and "Traceback" not in bad.errors()
        finally:
            bad.stop()
