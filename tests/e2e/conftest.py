"""Fixtures for the browser end-to-end tests: a live ``ginrummy serve`` and headless chromium.

The tests drive the Debian ``chromium`` binary through Playwright (``executable_path``), since
``playwright install`` cannot download browsers; ``scripts/e2e_deps.sh`` installs both.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing() -> str | None:
    """Why the e2e tests cannot run here, or None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (run scripts/e2e_deps.sh)"
    if shutil.which("chromium") is None:
        return "the chromium binary is not on PATH (run scripts/e2e_deps.sh)"
    for mod in ("fastapi", "uvicorn", "sqlalchemy"):
        if importlib.util.find_spec(mod) is None:
            return f"{mod} is not installed (pip install '.[web]')"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every e2e test, with the reason, when the browser stack is missing."""
    reason = _missing()
    if reason is None:
        return
    for item in items:
        if "e2e" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[str]:
    """A fresh table server on a free port over a throwaway SQLite file; yields its base URL.

    The computer's pause before each move is cut to 50 ms so a hand takes seconds.
    """
    with serve(tmp_path) as base:
        yield base


@contextlib.contextmanager
def serve(tmp_path: Path, *extra: str) -> Iterator[str]:
    """:func:`server`'s server in the folder ``tmp_path``, for fixtures of a wider scope
    (a module's tests that share one site); ``extra`` are more of ``serve``'s options."""
    port = _free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    log = (tmp_path / "server.log").open("w")
    cmd = [
        sys.executable,
        "-m",
        "ginrummy.cli",
        "serve",
        "--port",
        str(port),
        "--db",
        f"sqlite:///{tmp_path / 'table.sqlite3'}",
        "--bot-delay",
        "0.05",
        # the tests drive whole matches over HTTP much faster than a person plays
        "--rate-actions",
        "100000/minute",
        "--rate-messages",
        "100000/minute",
        "--rate-coach",  # hints at every decision, analyses refined four times each
        "100000/minute",
        "--rate-create",
        "1000/minute",
        # the training tests store their own puzzles (tests/web/test_starter_puzzles.py
        # checks the set a new site is given)
        "--no-starter-puzzles",
        # the tests' new accounts play the daily deal (the entry rule for established
        # accounts is tested in tests/web/test_daily_fair.py)
        "--daily-min-days",
        "0",
        "--daily-min-rated",
        "0",
        *extra,
    ]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                log.flush()
                text = (tmp_path / "server.log").read_text()
                pytest.fail(f"the server exited with status {proc.returncode}:\n{text}")
            try:
                with urllib.request.urlopen(base + "/api/bots", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail("the server did not answer within 30 seconds")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Debian chromium for the whole session."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            with contextlib.suppress(Exception):
                b.close()


@pytest.fixture(autouse=True)
def close_what_the_test_opened(request: pytest.FixtureRequest) -> Iterator[None]:
    """Close every browser context a test opened and left open (and so its pages) when it
    ends. A page left open keeps its scripts running (clocks, polls, presence): left by
    dozens of tests, they held a core of the machine busy for the rest of the session and
    slowed every later test. Contexts of wider fixtures (made before the test) stay."""
    if "browser" not in request.fixturenames:
        yield
        return
    b = request.getfixturevalue("browser")
    before = list(b.contexts)
    yield
    for ctx in list(b.contexts):
        if not any(ctx is old for old in before):
            with contextlib.suppress(Exception):
                ctx.close()


@pytest.fixture()
def artifacts() -> Path:
    """Where screenshots go (kept as test artifacts)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
