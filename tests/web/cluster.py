"""Real PostgreSQL and Redis for the many-process tests, and ``ginrummy serve`` processes.

The servers come from the environment (``GINRUMMY_TEST_POSTGRES_URL``,
``GINRUMMY_TEST_REDIS_URL``, as CI sets them) or, where the binaries are installed, are
started here as throw-away instances on free loopback ports; otherwise the tests skip and
say why.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import ginrummy
from ginrummy.web.store.seeds import KEY_ENV, new_key_text

SRC = str(Path(ginrummy.__file__).resolve().parent.parent)
PG_ENV = "GINRUMMY_TEST_POSTGRES_URL"
REDIS_ENV = "GINRUMMY_TEST_REDIS_URL"


def open_rates() -> list[str]:
    """``ginrummy serve`` options that lift every rate limit: tests on one address share
    the broker's counters, so one test's requests must not count against the next's."""
    from ginrummy.web.server import build_parser

    out: list[str] = []
    for action in build_parser()._actions:
        flag = next((o for o in action.option_strings if o.startswith("--rate-")), None)
        if flag:
            out += [flag, "100000/minute"]
    return out


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[Any], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start")
        time.sleep(0.05)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL database URL: from the environment, or a throw-away cluster."""
    if os.environ.get(PG_ENV):
        yield os.environ[PG_ENV]
        return
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    initdb = bins[-1] if bins else shutil.which("initdb")
    if not initdb:
        pytest.skip(f"PostgreSQL is not installed (apt-get install postgresql) and {PG_ENV} "
                    "is not set")
    pg_bin = os.path.dirname(initdb)
    root = tempfile.mkdtemp(prefix="ginrummy-pg-")
    as_root = os.geteuid() == 0
    if as_root:
        shutil.chown(root, "postgres")

    def run(cmd: list[str]) -> subprocess.Popen[Any]:
        if as_root:
            cmd = ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(cmd)]
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    port = free_port()
    if run([f"{pg_bin}/initdb", "-D", f"{root}/data", "-A", "trust", "-U", "postgres"]).wait():
        pytest.skip("could not initialise a PostgreSQL cluster")
    proc = run([f"{pg_bin}/postgres", "-D", f"{root}/data", "-p", str(port), "-k", root,
                "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
    try:
        _wait_port(port, proc, "PostgreSQL")
        time.sleep(0.3)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        # pg_ctl stops the server itself: as root ``proc`` is ``su``, which may not pass a
        # signal on, and a server left running would outlive the tests
        stop = run([f"{pg_bin}/pg_ctl", "-D", f"{root}/data", "-m", "fast", "-w", "stop"])
        try:
            stop.wait(30)
        except subprocess.TimeoutExpired:
            stop.kill()
        proc.send_signal(signal.SIGINT)  # fast shutdown, if it still runs
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A Redis URL: from the environment, or a throw-away redis-server."""
    if os.environ.get(REDIS_ENV):
        yield os.environ[REDIS_ENV]
        return
    exe = shutil.which("redis-server")
    if not exe:
        pytest.skip(f"redis-server is not installed (apt-get install redis-server) and "
                    f"{REDIS_ENV} is not set")
    port = free_port()
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port, proc, "redis-server")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def live_in_group(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` still running (zombies, dead but not yet
    reaped, do not count); empty where ``/proc`` cannot say (not Linux)."""
    out = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue  # it ended while we looked
        fields = text[text.rindex(")") + 2:].split()  # after "pid (name) "
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            out.append(int(stat.split("/")[2]))
    return out


def end_group(proc: subprocess.Popen[Any], sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to every process of ``proc``'s group (the server and whatever it
    started: pool workers, a resource tracker), then reap ``proc``. ``proc`` must have
    been started with ``start_new_session=True``, so the group is its own."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def wait_group_gone(pgid: int, timeout: float = 10) -> list[int]:
    """Wait until no process of group ``pgid`` runs; the ones left at the timeout."""
    deadline = time.monotonic() + timeout
    while (left := live_in_group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


class Serve:
    """``ginrummy serve`` in a child process on a free loopback port, in a process group of
    its own: stopping or killing it ends everything it started, whatever the test did."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.args = args
        self.env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.env.update(env or {})
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(prefix="ginrummy-serve-", suffix=".log")  # noqa: SIM115
        self.start()

    def start(self) -> None:
        """Start (or start again, on the same port) and wait until it answers."""
        self.proc = subprocess.Popen(
            [sys.executable, "-c",
             "import sys; from ginrummy.web.server import main; sys.exit(main(sys.argv[1:]))",
             "--port", str(self.port), *self.args],
            env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self.http = httpx.Client(base_url=self.base, timeout=15)
        deadline = time.monotonic() + 40
        while True:
            try:
                if httpx.get(self.base + "/api/bots", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                end_group(self.proc)  # a server that never answered is not left running
                raise AssertionError(f"server did not start: {self.output()}")
            time.sleep(0.05)

    def output(self) -> str:
        """What the server printed so far (its log)."""
        return Path(self.log.name).read_text(errors="replace")

    def kill9(self) -> None:
        """Kill the server with SIGKILL, as a crashed machine would: no clean-up of any
        kind, and its worker processes die with it (orphans would outlive the tests)."""
        self.http.close()
        end_group(self.proc)

    def stop(self) -> None:
        """Stop the server if it still runs (SIGTERM: a clean shutdown), then kill whatever
        of its group is left."""
        self.http.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(15)
        end_group(self.proc)

    def get(self, mid: str, token: str) -> dict[str, Any]:
        """The seat's STATE."""
        r = self.http.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    def act(self, mid: str, token: str, action: Any, version: int) -> httpx.Response:
        """POST an action (the response, whatever its status)."""
        return self.http.post(f"/api/matches/{mid}/actions",
                              headers={"Authorization": f"Bearer {token}"},
                              json={"action": action, "version": version})


@pytest.fixture
def serves() -> Iterator[list[Serve]]:
    """Servers a test starts; all stopped at its end, whatever happened, and checked to
    have left no process behind."""
    started: list[Serve] = []
    try:
        yield started
    finally:
        for s in started:
            with contextlib.suppress(Exception):
                s.stop()
            s.log.close()
    for s in started:
        assert wait_group_gone(s.proc.pid) == [], "a server left processes running"


@contextlib.contextmanager
def deployment(postgres_url: str, redis_url: str, *args: str) -> Iterator[tuple[Serve, Serve]]:
    """Two ``ginrummy serve`` processes of one deployment: one seed key, one PostgreSQL
    database, one Redis broker, no computer delay, and ``args``; stopped at the end."""
    argv = ["--db", postgres_url, "--broker", redis_url, "--bot-delay", "0", *args]
    env = {KEY_ENV: new_key_text()}
    started: list[Serve] = []
    try:
        started.append(Serve(*argv, env=env))
        started.append(Serve(*argv, env=env))
        yield started[0], started[1]
    finally:
        for s in started:
            s.stop()
            s.log.close()


def next_message(ws: Any, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    """The next message of type ``kind`` on a (sync websockets) socket, others skipped."""
    deadline = time.monotonic() + timeout
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg["type"] == kind:
            return msg
