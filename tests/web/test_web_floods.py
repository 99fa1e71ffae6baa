"""The flood benchmark itself (``benchmarks/web_floods.py``), run tiny: it starts a server
with its default limits, times a table alone and under the socket flood, and reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("websockets")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "web_floods.py"


def test_web_floods_times_a_table_alone_and_under_a_socket_flood() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--seconds", "2", "--tables", "1", "--scenario",
         "quiet", "--scenario", "sockets", "--json"],
        capture_output=True, text=True, timeout=180, check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout)
    assert set(r["scenarios"]) == {"quiet", "sockets"}
    for s in r["scenarios"].values():
        assert s["moves"] > 0 and s["latency_ms"]["p50"] <= s["latency_ms"]["p99"]
    flood = r["scenarios"]["sockets"]["attacker"]
    assert flood["connections"] >= 4 and flood["sent"] > 0
