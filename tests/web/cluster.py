"""Real PostgreSQL and Redis for the many-process tests, and ``ginrummy serve`` processes.

The servers come from the environment (``GINRUMMY_TEST_POSTGRES_URL``,
``GINRUMMY_TEST_REDIS_URL``, as CI sets them) or, where the binaries are installed, are
started here as throw-away instances on free loopback ports; otherwise the tests skip and
say why.
"""

from __future__ import annotations

import glob
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

SRC = str(Path(ginrummy.__file__).resolve().parent.parent)
PG_ENV = "GINRUMMY_TEST_POSTGRES_URL"
REDIS_ENV = "GINRUMMY_TEST_REDIS_URL"


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


class Serve:
    """``ginrummy serve`` in a child process on a free loopback port."""

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
            env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 40
        while True:
            try:
                if httpx.get(self.base + "/api/bots", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {self.output()}")
            time.sleep(0.05)
        self.http = httpx.Client(base_url=self.base, timeout=15)

    def output(self) -> str:
        """What the server printed so far (its log)."""
        return Path(self.log.name).read_text(errors="replace")

    def kill9(self) -> None:
        """Kill the process with SIGKILL (no clean-up of any kind)."""
        self.http.close()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """Stop the process if it still runs."""
        self.http.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

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
    """Servers a test starts; all stopped at its end."""
    started: list[Serve] = []
    yield started
    for s in started:
        s.stop()
        s.log.close()
