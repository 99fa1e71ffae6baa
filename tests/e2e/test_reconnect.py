"""The table page keeps its live connection by itself (docs/web-api.md, the WebSocket): when
the server dies the page says it is reconnecting, and once a server answers again it
reconnects, shows the latest state (a move made meanwhile included) and clears the line."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(base: str, path: str, body: Any = None, token: str | None = None) -> Any:
    req = urllib.request.Request(
        base + path, method="POST" if body is not None else "GET",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json",
                 **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


class Server:
    """``ginrummy serve`` on a fixed port and database, to kill and start again."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep
                        + os.environ.get("PYTHONPATH", ""),
                        GINRUMMY_SEED_KEY=base64.urlsafe_b64encode(os.urandom(32)).decode())
        self.args = [sys.executable, "-m", "ginrummy.cli", "serve", "--port", str(self.port),
                     "--db", f"sqlite:///{tmp_path / 'r.sqlite3'}", "--bot-delay", "0"]
        self.log = (tmp_path / "server.log").open("a")
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(self.args, env=self.env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                _call(self.base, "/api/bots")
                return
            except OSError:
                assert self.proc.poll() is None and time.monotonic() < deadline, "no server"
                time.sleep(0.1)

    def kill9(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()


def test_the_page_says_reconnecting_and_recovers_by_itself(tmp_path: Path,
                                                           browser: Any) -> None:
    srv = Server(tmp_path)
    try:
        m = _call(srv.base, "/api/matches", {"opponent": "friend", "name": "Ann"})
        code = m["invite_url"].split("#invite=", 1)[1]
        friend = _call(srv.base, f"/api/matches/{m['id']}/join", {"invite": code})
        tokens = [m["token"], friend["token"]]
        page = browser.new_context().new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{srv.base}/play/{m['id']}#token={m['token']}")
        page.wait_for_function("() => Number(document.body.dataset.version) >= 1")
        shown = int(page.evaluate("Number(document.body.dataset.version)"))
        line = page.locator("[data-testid=connection]")
        srv.kill9()
        line.wait_for(state="visible")
        assert "reconnecting" in line.inner_text().lower()
        srv.start()  # the same port and database: as a supervisor restarts it
        st = _call(srv.base, f"/api/matches/{m['id']}", token=tokens[0])
        seat = st["view"]["to_play"]
        me = _call(srv.base, f"/api/matches/{m['id']}", token=tokens[seat])
        moved = _call(srv.base, f"/api/matches/{m['id']}/actions",
                      {"action": me["legal"][0], "version": me["version"]}, tokens[seat])
        assert moved["version"] > shown
        page.wait_for_function("v => Number(document.body.dataset.version) >= v",
                               arg=moved["version"], timeout=30_000)
        line.wait_for(state="hidden", timeout=30_000)
        assert errors == []
    finally:
        srv.stop()
