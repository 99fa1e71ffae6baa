"""The load benchmark itself (``benchmarks/web_load.py``), run tiny: it starts a server,
sets tables up, plays them from two client processes and reports what it measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("websockets")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "web_load.py"


def test_web_load_plays_and_reports() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--tables", "4", "--seconds", "2", "--client-procs",
         "2", "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout)
    assert r["tables"] == 4 and r["client_procs"] == 2 and r["actions"] > 0
    assert r["latency_ms"]["p50"] <= r["latency_ms"]["p99"] <= r["latency_ms"]["max"]
    assert r["stale_409"] == 0 and r["errors"] == {}
    assert r["cpu_ms_per_action"]["client"] > 0
    if sys.platform.startswith("linux"):
        assert r["cpu_ms_per_action"]["servers"] > 0


def test_web_load_refuses_bad_arguments() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--tables", "2", "--client-procs", "3"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert out.returncode == 2 and "--client-procs must be" in out.stderr
