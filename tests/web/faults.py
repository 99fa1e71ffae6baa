"""What the fault tests break and watch: throw-away Redis and PostgreSQL servers of their
own (killed and started again on the same port; the shared servers of the other tests are
never touched), and seats that keep a live socket the way the page does.

A :class:`LiveSeat` reads its socket in a thread, records every message with the time it
came, asks for the state when a beat shows a version it has not seen, and when its socket
closes it reconnects (to the first server that answers, as the page behind a load
balancer would). The tests read from it whether the seat has the latest state and how
long its open socket ever stayed silent.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .cluster import Serve, _wait_port, free_port

try:
    from websockets.sync import client as ws_client
except ImportError:  # pragma: no cover - a dev dependency; LiveSeat skips without it
    ws_client = None


class OwnRedis:
    """A redis-server of the test's own (no persistence: a restart comes back empty, as a
    cache server killed and restarted does)."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if not exe:
            pytest.skip("redis-server is not installed (apt-get install redis-server)")
        self.exe = exe
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[Any] | None = None
        self.start()

    def start(self) -> None:
        """Start (again) on the same port; returns once it accepts connections."""
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        _wait_port(self.port, self.proc, "redis-server")

    def kill9(self) -> None:
        """Kill it with SIGKILL."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def close(self) -> None:
        """Stop it for good."""
        self.kill9()


class OwnPostgres:
    """A PostgreSQL cluster of the test's own (initdb in a temporary folder), stopped with
    ``-m immediate`` (no shutdown checkpoint: a crash, as far as clients can tell) and
    started again on the same port."""

    def __init__(self) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        initdb = bins[-1] if bins else shutil.which("initdb")
        if not initdb:
            pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = os.path.dirname(initdb)
        self.root = tempfile.mkdtemp(prefix="ginrummy-faults-pg-")
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.root, "postgres")
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        if self._run("initdb", "-D", f"{self.root}/data", "-A", "trust", "-U", "postgres"):
            pytest.skip("could not initialise a PostgreSQL cluster")
        self.start()

    def _run(self, tool: str, *args: str) -> int:
        cmd = [f"{self.bin}/{tool}", *args]
        if self.as_root:
            cmd = ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(cmd)]
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=60, check=False).returncode

    def start(self) -> None:
        """Start (again) on the same port; returns once it accepts connections."""
        rc = self._run("pg_ctl", "-D", f"{self.root}/data", "-l", f"{self.root}/log", "-w",
                       "-o", f"'-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                       "-c fsync=off'", "start")
        assert rc == 0, Path(f"{self.root}/log").read_text(errors="replace")[-2000:]

    def stop_immediate(self) -> None:
        """Stop at once: every connection is cut, nothing is shut down cleanly."""
        self._run("pg_ctl", "-D", f"{self.root}/data", "-m", "immediate", "-w", "stop")

    def close(self) -> None:
        """Stop it for good and remove its files."""
        self._run("pg_ctl", "-D", f"{self.root}/data", "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def redis() -> Iterator[OwnRedis]:
    """A redis-server of the test's own, stopped at the end."""
    r = OwnRedis()
    try:
        yield r
    finally:
        r.close()


@pytest.fixture
def postgres() -> Iterator[OwnPostgres]:
    """A PostgreSQL cluster of the test's own, removed at the end."""
    pg = OwnPostgres()
    try:
        yield pg
    finally:
        pg.close()


class LiveSeat:
    """One seat's socket kept open the way the page keeps it (see the module docstring)."""

    def __init__(self, servers: list[Serve], mid: str, token: str, name: str) -> None:
        if ws_client is None:
            pytest.skip("websockets is not installed")
        self.servers = servers
        self.mid = mid
        self.token = token
        self.name = name
        self.lock = threading.Lock()
        self.state: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self.connects = 0
        self.closes: list[tuple[int | None, str]] = []
        self.max_silence = 0.0
        """Longest time an open socket of this seat went without any message (s)."""
        self._conn: Any = None
        self._last_heard = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"seat-{name}", daemon=True)
        self._thread.start()
        self.wait(lambda s: True, 20)

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        while not self._stop.is_set():
            for srv in self.servers:
                if self._stop.is_set():
                    return
                try:
                    conn = ws_client.connect(f"{srv.ws_base}/api/matches/{self.mid}/ws",
                                             open_timeout=3).__enter__()
                except Exception:  # noqa: BLE001 - that server is down: try the next
                    continue
                self._serve(conn)
            time.sleep(0.3)

    def _serve(self, conn: Any) -> None:
        with self.lock:
            self._conn = conn
            self.connects += 1
            self._last_heard = time.monotonic()
        try:
            conn.send(json.dumps({"type": "auth", "token": self.token}))
            while not self._stop.is_set():
                try:
                    text = conn.recv(timeout=0.25)
                except TimeoutError:
                    self._note_silence()
                    continue
                self._on_message(json.loads(text))
        except Exception as e:  # noqa: BLE001 - closed (by either side): reconnect
            code = getattr(getattr(e, "rcvd", None), "code", None)
            reason = getattr(getattr(e, "rcvd", None), "reason", "")
            with self.lock:
                self.closes.append((code, reason))
        finally:
            with self.lock:
                self._conn = None
            with contextlib.suppress(Exception):
                conn.close()

    def _note_silence(self) -> None:
        with self.lock:
            self.max_silence = max(self.max_silence, time.monotonic() - self._last_heard)

    def _on_message(self, msg: dict[str, Any]) -> None:
        with self.lock:
            self.max_silence = max(self.max_silence, time.monotonic() - self._last_heard)
            self._last_heard = time.monotonic()
            if msg["type"] == "state":
                if self.state is None or msg["state"]["version"] >= self.state["version"] \
                        or msg["state"].get("paused") != self.state.get("paused"):
                    self.state = msg["state"]
            elif msg["type"] == "error":
                self.errors.append(msg)
            elif msg["type"] == "beat" and self.state is not None \
                    and msg["version"] > self.state["version"] and self._conn is not None:
                self._conn.send(json.dumps({"type": "state"}))  # as the page does

    # ------------------------------------------------------------------ the test's side

    def send(self, msg: dict[str, Any]) -> bool:
        """Send on the open socket; False when it is not open just now."""
        with self.lock:
            conn = self._conn
        if conn is None:
            return False
        try:
            conn.send(json.dumps(msg))
        except Exception:  # noqa: BLE001 - closing: the caller tries again later
            return False
        return True

    def last(self) -> dict[str, Any]:
        """The latest state this seat was shown."""
        with self.lock:
            assert self.state is not None
            return self.state

    def wait(self, pred: Any, timeout: float) -> dict[str, Any]:
        """Wait until the seat's latest state satisfies ``pred``."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                st = self.state
            if st is not None and pred(st):
                return st
            if time.monotonic() > deadline:
                raise AssertionError(f"seat {self.name}: no such state in {timeout} s; last "
                                     f"version {st and st['version']}, paused "
                                     f"{st and st.get('paused')}, errors {self.errors[-3:]}")
            time.sleep(0.05)

    def is_open(self) -> bool:
        """Whether the seat's socket is open now."""
        with self.lock:
            return self._conn is not None

    def reset_silence(self) -> None:
        """Start measuring silence afresh (e.g. after an outage was set up)."""
        with self.lock:
            self.max_silence = 0.0
            self._last_heard = time.monotonic()

    def close(self) -> None:
        """Stop the thread and close the socket."""
        self._stop.set()
        with self.lock:
            conn = self._conn
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
        self._thread.join(5)
