"""What floods do to other tables: the move latency of a few friend tables on one
``ginrummy serve`` process while an attacker floods that process, with the server's own
default limits (nothing opened up).

Scenarios, each on fresh tables, one after the other on the same server:

* ``quiet``: the tables alone (the reference).
* ``sockets``: four sockets of one seat of another match (the most a seat may open), each
  sending ``{"type": "state"}`` in a loop as fast as the connection takes them, and
  reconnecting at once whenever the server closes it.
* ``accounts``: sign-ups (new usernames) and log-ins (wrong passwords) sent by
  ``--flood-concurrency`` connections at once, each request with a new
  ``X-Forwarded-For``, as a proxy forwarding a crowd of addresses would (the server trusts
  127.0.0.1 to forward, as its default ``FORWARDED_ALLOW_IPS`` says).

The attacker runs in a process of its own, at the lowest priority (its CPU would be
elsewhere in a real attack; here it shares the machine); the tables' seats each have an
address of their own (``X-Forwarded-For``), so their own moves stay well inside the
limits. A move is timed from its send to the moment the acting seat receives the state
showing it (as ``web_load.py`` does), over WebSockets; players pause ``--think`` seconds
before each move.
Reports, per scenario, the move latency (p50/p99/max), the number of moves, what the
attacker sent and got back, and the server's CPU time. The client shares the machine's
CPUs with the server: compare scenarios of one run, never runs on different machines.

    PYTHONPATH=src python3 benchmarks/web_floods.py --seconds 20
    PYTHONPATH=src python3 benchmarks/web_floods.py --db postgresql+psycopg://... \
        --broker redis://127.0.0.1:6379/0 --seconds 20 --json
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import multiprocessing
import os
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidHandshake, WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parent))
from web_load import (  # noqa: E402 - beside this script
    Stats,
    cpu_seconds,
    free_port,
    post_json,
    seat_loop,
    start_server,
    tail,
)

SCENARIOS = ("quiet", "sockets", "accounts")
WARM_UP = 2.0
"""Seconds the attacker runs before the tables are timed."""


def xff(address: str) -> dict[str, str]:
    """The header a trusted proxy adds for a client at ``address``."""
    return {"X-Forwarded-For": address}


# ---------------------------------------------------------------------- the tables


async def victim_tables(base: str, n: int, scenario: int) -> list[list[ClientConnection]]:
    """``n`` friend tables, each seat on a socket from an address of its own."""
    ws_base = base.replace("http://", "ws://")
    out = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for i in range(n):
            a0, a1 = f"10.{scenario}.{i}.1", f"10.{scenario}.{i}.2"
            r = await http.post("/api/matches", json={"opponent": "friend"}, headers=xff(a0))
            r.raise_for_status()
            m = r.json()
            code = m["invite_url"].split("#invite=", 1)[1]
            r = await http.post(f"/api/matches/{m['id']}/join", json={"invite": code},
                                headers=xff(a1))
            r.raise_for_status()
            socks = []
            for token, addr in ((m["token"], a0), (r.json()["token"], a1)):
                ws = await connect(f"{ws_base}/api/matches/{m['id']}/ws", max_size=2**20,
                                   additional_headers=xff(addr), open_timeout=30)
                await ws.send(json.dumps({"type": "auth", "token": token}))
                socks.append(ws)
            out.append(socks)
    return out


async def time_moves(base: str, tables: int, seconds: float, think: float,
                     scenario: int) -> Stats:
    """Play ``tables`` fresh friend tables for ``seconds``; their move latencies."""
    stats = Stats()
    socks = await victim_tables(base, tables, scenario)
    stats.tables = tables
    stats.ready_at = time.monotonic()
    deadline = stats.ready_at + seconds
    try:
        await asyncio.gather(*(
            seat_loop(ws, s, random.Random(i * 2 + s), stats, deadline, True, think)
            for i, pair in enumerate(socks) for s, ws in enumerate(pair)))
    finally:
        stats.end = time.monotonic()
        for pair in socks:
            for ws in pair:
                await ws.close()
    return stats


# ---------------------------------------------------------------------- the attackers


def _count(counts: dict[str, int], key: str, n: int = 1) -> None:
    counts[key] = counts.get(key, 0) + n


async def socket_flood(base: str, seconds: float, sockets: int = 4) -> dict[str, int]:
    """Four sockets of one seat asking for the state in a loop, reconnecting at once."""
    addr = "10.66.0.1"
    counts: dict[str, int] = {}
    async with httpx.AsyncClient(base_url=base, timeout=30, headers=xff(addr)) as http:
        m = await post_json(http, "/api/matches", {"opponent": "friend"})
    url = f"{base.replace('http://', 'ws://')}/api/matches/{m['id']}/ws"
    auth = json.dumps({"type": "auth", "token": m["token"]})
    ask = json.dumps({"type": "state"})
    deadline = time.monotonic() + seconds

    async def drain(ws: ClientConnection) -> None:
        async for text in ws:
            head = str(text)[:16]
            _count(counts, "states" if head.startswith('{"type":"state"') else
                   "errors" if head.startswith('{"type":"error"') else "other")

    async def one() -> None:
        while time.monotonic() < deadline:
            try:
                async with connect(url, max_size=2**20, additional_headers=xff(addr),
                                   open_timeout=10, close_timeout=1) as ws:
                    _count(counts, "connections")
                    await ws.send(auth)
                    reader = asyncio.create_task(drain(ws))
                    try:
                        while not reader.done() and time.monotonic() < deadline:
                            await ws.send(ask)
                            _count(counts, "sent")
                            await asyncio.sleep(0)
                    finally:
                        reader.cancel()
                    code = ws.close_code
                    if code is not None and time.monotonic() < deadline:
                        _count(counts, f"closed {code}")
            except (OSError, TimeoutError, InvalidHandshake, WebSocketException) as e:
                _count(counts, f"failed {type(e).__name__}")
                await asyncio.sleep(0.01)

    await asyncio.gather(*(one() for _ in range(sockets)))
    return counts


async def accounts_flood(base: str, seconds: float, concurrency: int) -> dict[str, int]:
    """Sign-ups and wrong log-ins from ``concurrency`` connections, a new address each."""
    counts: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    made: list[str] = ["nobody_here"]
    serial = 0
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async def worker(http: httpx.AsyncClient) -> None:
        nonlocal serial
        while time.monotonic() < deadline:
            serial += 1
            n = serial
            addr = f"10.{100 + n // 65536 % 100}.{n // 256 % 256}.{n % 256}"
            if n % 2:
                name = "f" + secrets.token_hex(8)
                kind, path = "sign-up", "/api/accounts"
                body = {"username": name, "password": secrets.token_urlsafe(12)}
            else:
                kind, path = "log-in", "/api/session"
                body = {"username": random.choice(made), "password": "wrong password"}
            try:
                r = await http.post(path, json=body, headers=xff(addr))
            except httpx.HTTPError as e:
                _count(counts, f"{kind} {type(e).__name__}")
                continue
            _count(counts, f"{kind} {r.status_code}")
            if kind == "sign-up" and r.status_code == 201:
                made.append(body["username"])

    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return counts


def attacker(scenario: str, base: str, seconds: float, concurrency: int,
             results: Any) -> None:
    """One attacker process: flood for ``seconds``, then send back what it counted. It runs
    at the lowest priority: an attacker's own CPU is elsewhere, and here it shares the
    server's, which would slow the tables whatever the server does."""
    with contextlib.suppress(AttributeError, OSError):
        os.nice(19)
    try:
        if scenario == "sockets":
            counts = asyncio.run(socket_flood(base, seconds))
        else:
            counts = asyncio.run(accounts_flood(base, seconds, concurrency))
        results.put(counts)
    except BaseException as e:
        results.put({f"attacker failed: {type(e).__name__}: {e}"[:200]: 1})
        raise


# ---------------------------------------------------------------------- a run


def run_scenario(name: str, index: int, base: str, args: argparse.Namespace,
                 pid: int) -> dict[str, Any]:
    """Time the tables while ``name``'s attacker runs (none for ``quiet``)."""
    proc = None
    results: Any = None
    if name != "quiet":
        ctx = multiprocessing.get_context("spawn")
        results = ctx.Queue()
        proc = ctx.Process(target=attacker, args=(
            name, base, args.seconds + WARM_UP + 1, args.flood_concurrency, results))
        proc.start()
        time.sleep(WARM_UP)
    cpu0 = cpu_seconds(pid)
    stats = asyncio.run(time_moves(base, args.tables, args.seconds, args.think, index))
    cpu1 = cpu_seconds(pid)
    counts: dict[str, int] = {}
    if proc is not None:
        counts = results.get(timeout=args.seconds + 120)
        proc.join(30)
    lat = sorted(stats.latencies)
    n = len(lat)

    def pct(q: float) -> float | None:
        return round(lat[min(n - 1, int(q * n))] * 1000, 1) if n else None

    return {
        "moves": n,
        "latency_ms": {"p50": pct(0.50), "p99": pct(0.99),
                       "max": round(lat[-1] * 1000, 1) if n else None},
        "refusals": stats.errors,
        "server_cpu_s": (round(cpu1 - cpu0, 1) if cpu0 is not None and cpu1 is not None
                         else None),
        "attacker": dict(sorted(counts.items())),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the scenarios and print what they measured."""
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    numbers: list[tuple[str, type, float, str]] = [
        ("--seconds", float, 20, "timed seconds per scenario (1-600)"),
        ("--tables", int, 4, "friend tables timed (1-50)"),
        ("--think", float, 0.2, "seconds a player pauses before each move"),
        ("--flood-concurrency", int, 16, "requests in flight at once in the accounts flood"),
    ]
    for flag, kind, default, what in numbers:
        p.add_argument(flag, type=kind, default=default, help=f"{what} (default {default})")
    p.add_argument("--scenario", action="append", choices=SCENARIOS, default=[],
                   help="run only these (repeat); default all three")
    p.add_argument("--db", default=None, help="database URL (default: a new SQLite file)")
    p.add_argument("--broker", default=None, help="Redis URL (with a PostgreSQL --db)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if not 1 <= args.seconds <= 600 or not 1 <= args.tables <= 50:
        p.error("--seconds must be 1-600 and --tables 1-50")
    if not 1 <= args.flood_concurrency <= 256:
        p.error("--flood-concurrency must be 1-256")
    scenarios = [s for s in SCENARIOS if s in args.scenario] or list(SCENARIOS)
    out: dict[str, Any] = {"seconds": args.seconds, "tables": args.tables,
                           "think_s": args.think,
                           "db": "sqlite" if args.db is None else args.db.split(":", 1)[0],
                           "broker": bool(args.broker), "scenarios": {}}
    with tempfile.TemporaryDirectory() as tmp:
        db_url = args.db or f"sqlite:///{Path(tmp) / 'floods.sqlite3'}"
        key = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
        port = free_port()
        log = Path(tmp) / "serve.log"
        server = start_server(db_url, port, log, args.broker, {"GINRUMMY_SEED_KEY": key},
                              limits=[])
        base = f"http://127.0.0.1:{port}"
        try:
            for i, name in enumerate(scenarios):
                out["scenarios"][name] = run_scenario(name, i + 1, base, args, server.pid)
                if not args.json:
                    r = out["scenarios"][name]
                    lm = r["latency_ms"]
                    print(f"{name}: {r['moves']} moves, latency p50 {lm['p50']} ms, p99 "
                          f"{lm['p99']} ms, max {lm['max']} ms; refusals "
                          f"{r['refusals'] or 'none'}; server CPU {r['server_cpu_s']} s; "
                          f"attacker {r['attacker'] or '-'}", flush=True)
        except BaseException:
            print(f"--- server log:\n{tail(log, 30)}", file=sys.stderr)
            raise
        finally:
            server.terminate()
            try:
                server.wait(10)
            except Exception:  # noqa: BLE001 - a server that will not stop is killed
                server.kill()
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
