"""Load test of the web table: N concurrent tables played over WebSockets on loopback.

Starts ``ginrummy serve`` itself on free 127.0.0.1 ports (``--servers N`` processes; more
than one needs a shared ``--db postgresql+psycopg://...`` and ``--broker redis://...``),
sets the tables up (a few at a time), then plays both seats of each at once with random
legal moves over two WebSockets per table (``--mode computer``: the server's computer
plays seat 1 without delay and a client plays seat 0). With several processes, each
table's two seats sit on different processes, so every push to one of them crosses the
broker. Every action takes the real path: checked, committed to the database, then
pushed to both seats. Only the play is timed. Reports actions per second, the latency of
an action (send -> the acting seat receives the new state: p50/p90/p99/max), the CPU
time per action of the servers (with their computer workers) and of the client, stale
versions (409 "the table has moved on") apart from other refusals, and in computer mode
the computer's decisions per second and how many came from the pool or its fallback.
Bounded: at most 2,000 tables and 600 seconds; stops by itself and stops its servers.

With ``--think 0`` (the default) every seat moves the instant it may: a saturation test
in which each table always has a move in flight, so the latency is about tables divided
by throughput. ``--think S`` pauses about S seconds before each move, as a person does.
The client runs on the same machine as the servers and shares its CPU: read its figures
as a lower bound on what the servers alone do. ``--client-procs N`` splits the tables
over N client processes (one event loop each). ``--server URL`` (repeatable) drives
servers already running (then their CPU time is not measured).

    PYTHONPATH=src python3 benchmarks/web_load.py --tables 50 --seconds 20
    PYTHONPATH=src python3 benchmarks/web_load.py --tables 1000 --seconds 60 --think 2
    PYTHONPATH=src python3 benchmarks/web_load.py --servers 2 --db postgresql+psycopg://... \
        --broker redis://127.0.0.1:6379/0 --tables 1000 --think 2
    PYTHONPATH=src python3 benchmarks/web_load.py --mode computer --bot hard --tables 200 \
        --think 2 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import multiprocessing
import os
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

try:
    from orjson import loads
except ImportError:  # optional: only lightens the client
    from json import loads  # type: ignore[assignment]

SRC = str(Path(__file__).resolve().parent.parent / "src")


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) used so far by a process and all its descendants (e.g. a
    computer pool's workers), from /proc; None where there is no /proc."""
    try:
        tick = os.sysconf("SC_CLK_TCK")
        children: dict[int, list[int]] = {}
        times: dict[int, float] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            children.setdefault(int(fields[1]), []).append(int(entry))
            times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    except (OSError, ValueError, IndexError):
        return None
    if pid not in times:
        return None
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += times.get(p, 0.0)
        todo += children.get(p, [])
    return total


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stats:
    """Latencies of acknowledged actions, refusals and the run's clock."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.tables = 0
        self.setup_seconds = 0.0
        self.ready_at = 0.0
        self.end = 0.0
        self.errors: dict[str, int] = {}
        self.stale = 0
        """409 "the table has moved on": the move was based on a state already replaced."""
        self.finished = 0
        self.opponent_moves = 0
        """Moves by the other seat seen in the states while playing (``--mode computer``:
        the computer's decisions)."""
        self.client_cpu = 0.0
        """CPU seconds the client processes used while playing."""
        self.server_cpu: float | None = None
        """CPU seconds the servers (started here) used while playing; None if unknown."""

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def seat_loop(
    ws: ClientConnection, seat: int, rng: random.Random, stats: Stats, deadline: float,
    acts: bool, think: float = 0.0,
) -> None:
    """Read this seat's states; when it may act, send a random legal move and time it."""
    pending: tuple[int, float, str, int, int] | None = None  # version, time, kind, hand, ops
    seen: tuple[int, int] | None = None  # hand index and length of its history last shown
    while time.monotonic() < deadline:
        try:
            text = await asyncio.wait_for(ws.recv(), timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            return
        msg = loads(text)
        if msg["type"] == "error":
            if msg["status"] == 409 and "moved on" in msg["message"]:
                stats.stale += 1
            else:
                stats.error(f"{msg['status']} {msg['message'][:40]}")
            pending = None
            if "state" not in msg:
                continue
            st = msg["state"]
        elif msg["type"] == "state":
            st = msg["state"]
        else:
            continue
        hist, hand_index = st["view"]["history"], st["view"]["hand_index"]
        if seen is not None:
            new = hist[seen[1]:] if hand_index == seen[0] else hist
            stats.opponent_moves += sum(1 for op in new if op["seat"] != seat)
        seen = (hand_index, len(hist))
        if pending is not None and st["version"] > pending[0]:
            ho = st["hand_over"]
            if pending[2] == "next":
                done = ho is None or ho["ready"][seat]
            else:
                done = hand_index != pending[3] or len(hist) > pending[4]
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


def _clock(text: str | None) -> dict[str, int] | None:
    """``--clock MOVE+BANK`` as the ``clock`` table option (None: no clock)."""
    if text is None:
        return None
    move, _, bank = text.partition("+")
    return {"move": int(move), "bank": int(bank or 0)}


async def set_up(bases: list[str], mode: str, idx: int, http: httpx.AsyncClient,
                 bot: str = "easy", clock: dict[str, int] | None = None
                 ) -> list[ClientConnection]:
    """Create table ``idx`` (with a turn ``clock`` if given) and open its seats' sockets
    (seat 0 first in the list); with several servers, seat s of table i talks to server
    (i + s) mod N."""
    n = len(bases)
    base = bases[idx % n]
    body: dict[str, Any] = {"opponent": "friend" if mode == "friend" else "computer",
                            "name": f"load{idx}"}
    if mode == "computer":
        body["bot"] = bot
    if clock is not None:
        body["clock"] = clock
    m = await post_json(http, base + "/api/matches", body)
    tokens = [m["token"]]
    if mode == "friend":
        code = m["invite_url"].split("#invite=", 1)[1]
        j = await post_json(http, f"{bases[(idx + 1) % n]}/api/matches/{m['id']}/join",
                            {"invite": code})
        tokens.append(j["token"])
    socks: list[ClientConnection] = []
    try:
        for seat in reversed(range(len(tokens))):  # the friend first: joining comes first
            ws_base = bases[(idx + seat) % n].replace("http://", "ws://")
            ws = await connect(f"{ws_base}/api/matches/{m['id']}/ws", max_size=2**20,
                               open_timeout=60)
            await ws.send(json.dumps({"type": "auth", "token": tokens[seat]}))
            socks.insert(0, ws)
    except BaseException:
        for ws in socks:
            await ws.close()
        raise
    return socks


SETUP_CONCURRENCY = 32
"""Tables being set up at once: more only queue inside the HTTP client's pool, whose
bookkeeping grows with the queue (it dominated the client's CPU at 1,000 at once)."""


async def run(args: argparse.Namespace, bases: list[str], part: int = 0, parts: int = 1,
              barrier: Any = None, server_pids: tuple[int, ...] = ()) -> Stats:
    """Set up this part's tables (table i belongs to part i mod parts), a few at a time;
    then (after every client process is ready, with ``barrier``) play them all at once
    for ``args.seconds``. Only the play is timed."""
    stats = Stats()
    ids = range(part, args.tables, parts)
    stats.tables = len(ids)
    limits = httpx.Limits(max_connections=SETUP_CONCURRENCY)
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)
    t0 = time.monotonic()

    async def one(i: int) -> list[ClientConnection]:
        async with gate:
            return await set_up(bases, args.mode, i, http, args.bot, _clock(args.clock))

    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        tables = await asyncio.gather(*(one(i) for i in ids))
    stats.setup_seconds = time.monotonic() - t0
    if barrier is not None:
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
    stats.ready_at = time.monotonic()
    deadline = stats.ready_at + args.seconds
    cpu0 = time.process_time()
    meter = asyncio.create_task(server_cpu_during(server_pids, args.seconds))
    try:
        await asyncio.gather(*(
            seat_loop(ws, s, random.Random(i * 2 + s), stats, deadline, True, args.think)
            for i, socks in zip(ids, tables, strict=True) for s, ws in enumerate(socks)))
    finally:
        stats.end = time.monotonic()
        stats.client_cpu = time.process_time() - cpu0
        stats.server_cpu = await meter
        for socks in tables:
            for ws in socks:
                await ws.close()
    return stats


async def server_cpu_during(pids: tuple[int, ...], seconds: float) -> float | None:
    """CPU seconds the processes ``pids`` use in the next ``seconds`` (None if unknown)."""
    if not pids:
        return None
    before = [cpu_seconds(p) for p in pids]
    await asyncio.sleep(seconds)
    after = [cpu_seconds(p) for p in pids]
    total = 0.0
    for a, b in zip(after, before, strict=True):
        if a is None or b is None:
            return None
        total += a - b
    return total


def client_part(args: argparse.Namespace, bases: list[str], part: int, parts: int,
                barrier: Any, results: Any) -> None:
    """One client process: its share of the tables; sends back what it measured."""
    try:
        stats = asyncio.run(run(args, bases, part, parts, barrier))
        results.put(stats.__dict__)
    except BaseException as e:
        barrier.abort()
        results.put({"failed": f"{type(e).__name__}: {e}"})
        raise


def run_clients(args: argparse.Namespace, bases: list[str],
                server_pids: tuple[int, ...] = ()) -> Stats:
    """Play with ``--client-procs`` processes (one event loop each) and merge their
    measurements; one process runs in this one."""
    n = args.client_procs
    if n == 1:
        return asyncio.run(run(args, bases, server_pids=server_pids))
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(n + 1)  # and this process, which measures the servers' CPU
    results = ctx.Queue()
    procs = [ctx.Process(target=client_part, args=(args, bases, k, n, barrier, results))
             for k in range(n)]
    for pr in procs:
        pr.start()
    try:
        barrier.wait()
        server_cpu = asyncio.run(server_cpu_during(server_pids, args.seconds))
    except threading.BrokenBarrierError:
        server_cpu = None
    parts = [results.get() for _ in procs]
    for pr in procs:
        pr.join()
    failed = [d["failed"] for d in parts if "failed" in d]
    if failed:
        raise SystemExit(f"a client process failed: {failed[0]}")
    stats = Stats()
    for d in parts:
        stats.latencies += d["latencies"]
        stats.tables += d["tables"]
        stats.finished += d["finished"]
        stats.stale += d["stale"]
        stats.setup_seconds = max(stats.setup_seconds, d["setup_seconds"])
        stats.client_cpu += d["client_cpu"]
        stats.opponent_moves += d["opponent_moves"]
        for k, v in d["errors"].items():
            stats.errors[k] = stats.errors.get(k, 0) + v
    stats.ready_at = min(d["ready_at"] for d in parts)
    stats.end = max(d["end"] for d in parts)
    stats.server_cpu = server_cpu
    return stats


OPEN_LIMITS = ["--rate-create", "1000000/minute", "--rate-join", "1000000/minute",
               "--rate-lookup", "1000000/minute", "--rate-actions", "1000000/minute",
               "--rate-reads", "1000000/minute", "--rate-sockets", "1000000/minute",
               "--rate-auth", "1000000/minute", "--rate-messages", "1000000/minute",
               "--max-sockets-per-seat", "4",
               "--max-sockets-per-address", "100000", "--max-connections-per-address",
               "100000", "--max-tables", "100000"]
"""The client is one address playing thousands of seats: rate limits off for the test."""


def tail(log: Path, lines: int = 15) -> str:
    """The end of a server's log."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def pool_counts(logs: list[Path]) -> dict[str, int] | None:
    """Computer decisions made in the servers' pools and by their fallback bot over the
    whole run, from the line each server logs when it stops (None if none did)."""
    pooled = fallbacks = found = 0
    for log in logs:
        try:
            text = log.read_text(errors="replace")
        except OSError:
            continue
        for m in re.finditer(r"computer decisions: (\d+) in the pool, (\d+) by the", text):
            pooled += int(m.group(1))
            fallbacks += int(m.group(2))
            found += 1
    return {"pooled": pooled, "fallbacks": fallbacks} if found else None


def start_server(db_url: str, port: int, log: Path, broker: str | None = None,
                 env_extra: dict[str, str] | None = None,
                 limits: list[str] | None = None) -> subprocess.Popen[str]:
    """``ginrummy serve`` on loopback, computer without delay, its log in ``log`` (a pipe
    nobody reads would stall a server that logs a lot); waits until it answers. ``limits``:
    its limit flags (default :data:`OPEN_LIMITS`; ``[]`` keeps the server's defaults)."""
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(env_extra or {})
    cmd = [sys.executable, "-c",
           "import sys; from ginrummy.web.server import main; sys.exit(main(sys.argv[1:]))",
           "--host", "127.0.0.1", "--port", str(port), "--db", db_url, "--bot-delay", "0",
           "--log-level", "info", *(OPEN_LIMITS if limits is None else limits)]
    if broker:
        cmd += ["--broker", broker]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=out, text=True)
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/bots", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"the server did not start: {tail(log)}")
        time.sleep(0.1)


def main(argv: list[str] | None = None) -> int:
    """Run the load test and print its numbers."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tables", type=int, default=50, help="concurrent tables (1-2000)")
    p.add_argument("--seconds", type=float, default=20, help="how long to play (1-600)")
    p.add_argument("--mode", choices=["friend", "computer"], default="friend")
    p.add_argument("--clock", default=None, metavar="MOVE+BANK",
                   help="give every table a turn clock, e.g. 20+120 (seconds): what the "
                        "clocks' deadlines and their scan cost")
    p.add_argument("--bot", default="easy", help="computer level in --mode computer "
                   "(easy, medium, hard)")
    p.add_argument("--think", type=float, default=0.0,
                   help="seconds a player pauses before each move (default 0: every seat "
                   "moves the moment it may, a saturation test where latency is about "
                   "tables / throughput; 1-3 s is a quick human)")
    p.add_argument("--servers", type=int, default=1,
                   help="serve processes to start (more than 1 needs --db and --broker)")
    p.add_argument("--db", default=None, help="database URL (default: a new SQLite file)")
    p.add_argument("--broker", default=None, help="Redis URL shared by the processes")
    p.add_argument("--client-procs", type=int, default=1,
                   help="client processes sharing the tables (one event loop each; 1-16)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--server", action="append", default=[],
                   help="use this running server (e.g. http://127.0.0.1:8000) instead of "
                   "starting one; repeat for several")
    args = p.parse_args(argv)
    if not 1 <= args.tables <= 2000 or not 1 <= args.seconds <= 600:
        p.error("--tables must be 1-2000 and --seconds 1-600")
    if not 1 <= args.client_procs <= min(16, args.tables):
        p.error("--client-procs must be 1-16 and at most --tables")
    try:
        _clock(args.clock)
    except ValueError:
        p.error("--clock is MOVE+BANK in whole seconds, e.g. 20+120")
    if not args.server and args.servers > 1 and not (args.db and args.broker):
        p.error("--servers above 1 needs a shared --db postgresql+psycopg://... and --broker")
    pool: dict[str, int] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.server:
            stats = run_clients(args, [u.rstrip("/") for u in args.server])
        else:
            db_url = args.db or f"sqlite:///{Path(tmp) / 'load.sqlite3'}"
            key = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
            ports = [free_port() for _ in range(args.servers)]
            logs = [Path(tmp) / f"serve{i}.log" for i in range(len(ports))]
            procs = [start_server(db_url, port, log, args.broker, {"GINRUMMY_SEED_KEY": key})
                     for port, log in zip(ports, logs, strict=True)]
            try:
                stats = run_clients(args, [f"http://127.0.0.1:{p}" for p in ports],
                                    tuple(proc.pid for proc in procs))
            except BaseException:
                for log in logs:
                    print(f"--- {log.name}:\n{tail(log)}", file=sys.stderr)
                raise
            finally:
                for proc in procs:
                    proc.terminate()
                for proc in procs:
                    try:
                        proc.wait(10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
            pool = pool_counts(logs)
    lat = sorted(stats.latencies)
    n = len(lat)
    window = max(1e-9, stats.end - stats.ready_at)

    def pct(q: float) -> float:
        return lat[min(n - 1, int(q * n))] * 1000 if n else float("nan")

    out = {
        "tables": args.tables,
        "servers": len(args.server) or args.servers,
        "client_procs": args.client_procs,
        "mode": args.mode,
        "clock": args.clock,
        "bot": args.bot if args.mode == "computer" else None,
        "cpus": os.cpu_count(),
        "note": "client and servers share these CPUs",
        "think_s": args.think,
        "db": "sqlite" if args.db is None else args.db.split(":", 1)[0],
        "setup_seconds": round(stats.setup_seconds, 1),
        "seconds": round(window, 1),
        "actions": n,
        "actions_per_second": round(n / window, 1),
        "latency_ms": {"p50": round(pct(0.50), 1), "p90": round(pct(0.90), 1),
                       "p99": round(pct(0.99), 1),
                       "max": round(lat[-1] * 1000, 1) if n else None,
                       "mean": round(statistics.fmean(lat) * 1000, 1) if n else None},
        "cpu_ms_per_action": {
            "servers": round(stats.server_cpu / n * 1000, 2) if n and stats.server_cpu else None,
            "client": round(stats.client_cpu / n * 1000, 2) if n else None},
        "computer_decisions_per_second": (round(stats.opponent_moves / window, 1)
                                          if args.mode == "computer" else None),
        "computer_pool": pool,
        "matches_finished": stats.finished,
        "stale_409": stats.stale,
        "errors": stats.errors,
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['tables']} {args.mode} tables on {out['servers']} process(es) over "
              f"WebSockets, {args.client_procs} client process(es) (think {args.think} s; the "
              f"client shares the {os.cpu_count()} CPUs), db {out['db']}; set up in "
              f"{out['setup_seconds']} s, then played {out['seconds']} s: {n} actions "
              f"acknowledged, {out['actions_per_second']} actions/s")
        lm = out["latency_ms"]
        print(f"action latency: p50 {lm['p50']} ms, p90 {lm['p90']} ms, p99 {lm['p99']} ms, "
              f"max {lm['max']} ms; matches finished {stats.finished}; stale versions (409 "
              f"moved on) {stats.stale}; other refusals {stats.errors or 'none'}")
        if args.mode == "computer":
            print(f"computer decisions while playing: {stats.opponent_moves} "
                  f"({out['computer_decisions_per_second']}/s); whole run, by the servers' "
                  f"logs: {pool or 'unknown'}")
        cpu = out["cpu_ms_per_action"]
        print(f"CPU per acknowledged action: servers {cpu['servers']} ms, client "
              f"{cpu['client']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
