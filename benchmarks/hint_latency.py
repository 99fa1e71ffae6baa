"""How long a player waits for a hint at the web table: the time from pressing Hint to the
answer, over HTTP, on a real ``ginrummy serve`` (SQLite), at every decision of whole matches
against the computer, optionally with the machine kept busy.

``--busy N`` starts N processes that spin on the CPU at normal priority for the whole run
(on a 2-core machine, ``--busy 2`` leaves the server no idle core). Reports the median, 95th
and 99th percentile and maximum in milliseconds, and the number of hints.

    PYTHONPATH=src python3 benchmarks/hint_latency.py --hints 200 --busy 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

SRC = str(Path(__file__).resolve().parents[1] / "src")


def spin(stop_at: float) -> None:
    """Hold one core until ``stop_at`` (a busy neighbour)."""
    x = 0
    while time.time() < stop_at:
        x = (x * 31 + 7) % 1000003


def free_port() -> int:
    """A free loopback port for the server."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hints", type=int, default=200, help="hints to time (default 200)")
    ap.add_argument("--busy", type=int, default=2, help="spinning processes (default 2)")
    ap.add_argument("--level", default="hard", help="the computer level (default hard)")
    args = ap.parse_args(argv)

    port = free_port()
    tmp = tempfile.TemporaryDirectory()
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    opened = ["--rate-create", "100000/minute", "--rate-actions", "100000/minute",
              "--rate-lookup", "100000/minute", "--rate-join", "100000/minute"]
    server = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from ginrummy.web.server import main; sys.exit(main(sys.argv[1:]))",
         "--port", str(port), "--db", f"sqlite:///{tmp.name}/hints.sqlite3",
         "--bot-delay", "0", *opened],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp.name)
    base = f"http://127.0.0.1:{port}"
    http = httpx.Client(base_url=base, timeout=60)
    spinners: list[multiprocessing.Process] = []
    times: list[float] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if http.get("/api/bots").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        # one hint before the clock starts: the worker's first call loads the kernel
        warm = True
        stop_at = time.time() + 3600
        for _ in range(args.busy):
            p = multiprocessing.Process(target=spin, args=(stop_at,), daemon=True)
            p.start()
            spinners.append(p)
        while len(times) < args.hints:
            m = http.post("/api/matches", json={"opponent": "computer", "bot": args.level,
                                                "name": "Bench"}).json()
            if "id" not in m:
                raise SystemExit(f"could not open a table: {m}")
            mid, head = m["id"], {"Authorization": f"Bearer {m['token']}"}
            while len(times) < args.hints:
                s: dict[str, Any] = http.get(f"/api/matches/{mid}", headers=head).json()
                if s["end_reason"] is not None:
                    break
                if s["hand_over"] is not None:
                    if s["waiting_for_opponent"]:
                        time.sleep(0.02)
                        continue
                    r = http.post(f"/api/matches/{mid}/next", headers=head,
                                  json={"version": s["version"]})
                    if r.status_code >= 400:
                        break
                    continue
                if not s["my_turn"]:
                    time.sleep(0.02)
                    continue
                move = s["legal"][0]
                if len(s["legal"]) >= 2:
                    t0 = time.perf_counter()
                    h = http.post(f"/api/matches/{mid}/hint", headers=head)
                    dt = (time.perf_counter() - t0) * 1000
                    if h.status_code == 200:
                        if not warm:
                            times.append(dt)
                        warm = False
                        move = h.json()["best"]
                r = http.post(f"/api/matches/{mid}/actions", headers=head,
                              json={"action": move, "version": s["version"]})
                if r.status_code >= 400:
                    break
    finally:
        for p in spinners:
            p.terminate()
        server.terminate()
        server.wait(10)
        tmp.cleanup()
    print(json.dumps({
        "hints": len(times), "busy": args.busy,
        "ms": {"median": round(percentile(times, 0.5), 1),
               "p95": round(percentile(times, 0.95), 1),
               "p99": round(percentile(times, 0.99), 1),
               "max": round(max(times), 1)},
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
