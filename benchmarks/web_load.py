"""Load test of the web table: N concurrent tables played over WebSockets on loopback.

Starts ``ginrummy serve`` itself on a free 127.0.0.1 port with a fresh SQLite file (or
``--db URL``), opens N friend tables and plays both seats of each with random legal moves
over two WebSockets per table (``--mode computer``: the server's computer plays seat 1
without delay and a client plays seat 0). Every action takes the real path: checked,
committed to the database, then pushed to both seats. Reports actions per second and the
latency of an action (send -> the acting seat receives the new state), p50/p99/max.
Bounded: at most 500 tables and 300 seconds; stops by itself and stops its server.

With ``--think 0`` (the default) every seat moves the instant it may: a saturation test
in which each table always has a move in flight, so the latency is about tables divided
by throughput. ``--think S`` pauses about S seconds before each move, as a person does.
The client runs on the same machine as the server and shares its CPU: read its figures
as a lower bound on what the server alone does. ``--server URL`` drives a server already
running (to profile or time it on its own).

    PYTHONPATH=src python3 benchmarks/web_load.py --tables 50 --seconds 20
    PYTHONPATH=src python3 benchmarks/web_load.py --tables 200 --seconds 20 --think 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

SRC = str(Path(__file__).resolve().parent.parent / "src")


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stats:
    """Latencies of acknowledged actions, refusals and the run's clock."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors: dict[str, int] = {}
        self.finished = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def seat_loop(
    ws: ClientConnection, seat: int, rng: random.Random, stats: Stats, deadline: float,
    acts: bool, think: float = 0.0,
) -> None:
    """Read this seat's states; when it may act, send a random legal move and time it."""
    pending: tuple[int, float, str, int, int] | None = None  # version, time, kind, hand, ops
    while time.monotonic() < deadline:
        try:
            text = await asyncio.wait_for(ws.recv(), timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            return
        msg = json.loads(text)
        if msg["type"] == "error":
            stats.error(f"{msg['status']} {msg['message'][:40]}")
            pending = None
            if "state" not in msg:
                continue
            st = msg["state"]
        elif msg["type"] == "state":
            st = msg["state"]
        else:
            continue
        if pending is not None and st["version"] > pending[0]:
            ho, hist = st["hand_over"], st["view"]["history"]
            if pending[2] == "next":
                done = ho is None or ho["ready"][seat]
            else:
                done = st["view"]["hand_index"] != pending[3] or len(hist) > pending[4]
            if done:  # this state shows our change (not just someone else's)
                stats.latencies.append(time.monotonic() - pending[1])
                pending = None
        if st["status"] == "finished":
            if seat == 0:
                stats.finished += 1
            return
        if not acts or pending is not None:
            continue
        ho = st["hand_over"]
        out: dict[str, Any]
        if st["my_turn"]:
            out = {"type": "action", "action": rng.choice(st["legal"]), "version": st["version"]}
        elif ho is not None and not ho["ready"][seat]:
            out = {"type": "next", "version": st["version"]}
        else:
            continue
        if think > 0:  # a person looks before moving; only the reply time is measured
            await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
        pending = (st["version"], time.monotonic(), out["type"], st["view"]["hand_index"],
                   len(st["view"]["history"]))
        await ws.send(json.dumps(out))


async def post_json(http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> Any:
    """POST with a few retries on a dropped keep-alive connection (the server may close an
    idle one just as it is reused)."""
    for attempt in range(5):
        try:
            r = await http.post(url, json=body)
            r.raise_for_status()
            return r.json()
        except httpx.TransportError:
            if attempt == 4:
                raise
            await asyncio.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


async def table(base: str, ws_base: str, mode: str, idx: int, stats: Stats,
                deadline: float, http: httpx.AsyncClient, think: float = 0.0) -> None:
    """Create one table and play it until the deadline or the match's end."""
    body: dict[str, Any] = {"opponent": "friend" if mode == "friend" else "computer",
                            "name": f"load{idx}"}
    if mode == "computer":
        body["bot"] = "easy"
    m = await post_json(http, base + "/api/matches", body)
    tokens = [m["token"]]
    if mode == "friend":
        code = m["invite_url"].split("#invite=", 1)[1]
        j = await post_json(http, f"{base}/api/matches/{m['id']}/join", {"invite": code})
        tokens.append(j["token"])
    rng = random.Random(idx)
    socks: list[ClientConnection] = []
    try:
        for t in reversed(tokens):  # the friend first: joining happens before play
            socks.insert(0, await connect(f"{ws_base}/api/matches/{m['id']}/ws?token={t}",
                                       max_size=2**20, open_timeout=30))
        await asyncio.gather(*(seat_loop(ws, s, rng, stats, deadline, True, think)
                               for s, ws in enumerate(socks)))
    finally:
        for ws in socks:
            await ws.close()


async def run(args: argparse.Namespace, base: str) -> Stats:
    """All tables at once; returns the measurements."""
    stats = Stats()
    ws_base = base.replace("http://", "ws://")
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        deadline = time.monotonic() + args.seconds
        await asyncio.gather(*(table(base, ws_base, args.mode, i, stats, deadline, http,
                                     args.think)
                               for i in range(args.tables)))
    return stats


def start_server(db_url: str, port: int) -> subprocess.Popen[str]:
    """``ginrummy serve`` on loopback, computer without delay; waits until it answers."""
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from ginrummy.web.server import main; sys.exit(main(sys.argv[1:]))",
         "--host", "127.0.0.1", "--port", str(port), "--db", db_url, "--bot-delay", "0"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/bots", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            err = proc.stderr.read() if proc.stderr else ""
            raise SystemExit(f"the server did not start: {err}")
        time.sleep(0.1)


def main(argv: list[str] | None = None) -> int:
    """Run the load test and print its numbers."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tables", type=int, default=50, help="concurrent tables (1-500)")
    p.add_argument("--seconds", type=float, default=20, help="how long to play (1-300)")
    p.add_argument("--mode", choices=["friend", "computer"], default="friend")
    p.add_argument("--think", type=float, default=0.0,
                   help="seconds a player pauses before each move (default 0: every seat "
                   "moves the moment it may, a saturation test where latency is about "
                   "tables / throughput; 1-3 s is a quick human)")
    p.add_argument("--db", default=None, help="database URL (default: a new SQLite file)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--server", default=None,
                   help="use this running server (e.g. http://127.0.0.1:8000) instead of "
                   "starting one (for profiling the server on its own)")
    args = p.parse_args(argv)
    if not 1 <= args.tables <= 500 or not 1 <= args.seconds <= 300:
        p.error("--tables must be 1-500 and --seconds 1-300")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        if args.server:
            t0 = time.monotonic()
            stats = asyncio.run(run(args, args.server.rstrip("/")))
            elapsed = time.monotonic() - t0
        else:
            db_url = args.db or f"sqlite:///{Path(tmp) / 'load.sqlite3'}"
            proc = start_server(db_url, port)
            try:
                t0 = time.monotonic()
                stats = asyncio.run(run(args, f"http://127.0.0.1:{port}"))
                elapsed = time.monotonic() - t0
            finally:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
    lat = sorted(stats.latencies)
    n = len(lat)

    def pct(q: float) -> float:
        return lat[min(n - 1, int(q * n))] * 1000 if n else float("nan")

    out = {
        "tables": args.tables,
        "mode": args.mode,
        "think_s": args.think,
        "db": "sqlite" if args.db is None else args.db.split(":", 1)[0],
        "seconds": round(elapsed, 1),
        "actions": n,
        "actions_per_second": round(n / elapsed, 1),
        "latency_ms": {"p50": round(pct(0.50), 1), "p99": round(pct(0.99), 1),
                       "max": round(lat[-1] * 1000, 1) if n else None,
                       "mean": round(statistics.fmean(lat) * 1000, 1) if n else None},
        "matches_finished": stats.finished,
        "errors": stats.errors,
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['tables']} {args.mode} tables over WebSockets (think {args.think} s), "
              f"{out['seconds']} s, "
              f"db {out['db']}: {n} actions acknowledged, {out['actions_per_second']} actions/s")
        lm = out["latency_ms"]
        print(f"action latency: p50 {lm['p50']} ms, p99 {lm['p99']} ms, max {lm['max']} ms; "
              f"matches finished {stats.finished}; refusals {stats.errors or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
