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
* ``chat``: the tables, seat 0 of each flooding its own table's chat (two requests in
  flight, a 110-character message each) as it plays: the attacker's statuses are the
  answers its messages got (201 said, 429 past the seat's budget), and the moves timed are
  its opponent's and its own, against ``quiet``.
* ``board``: the tables, and a signed-in player using the analysis board (a request on
  1,024 deals every half second, its answers and their latency reported): the reference
  for ``coach``.
* ``coach``: the same, while guests (``--flood-concurrency`` connections, a new
  forwarded address each request) ask the analysis board for the most deals a guest may
  (16,384; where the server refuses that to guests, the most it allows them), as fast as
  they are answered.

The attacker runs in a process of its own, at the lowest priority (its CPU would be
elsewhere in a real attack; here it shares the machine); the tables' seats each have an
address of their own (``X-Forwarded-For``), so their own moves stay well inside the
limits. A move is timed from its send to the moment the acting seat receives the state
showing it (as ``web_load.py`` does), over WebSockets; players pause ``--think`` seconds
before each move.
Reports, per scenario, the move latency (p50/p99/max), the number of moves, what the
attacker sent and got back, the server's CPU time (its worker processes included) and,
for ``board`` and ``coach``, what the signed-in player's board requests got. The client
shares the machine's CPUs with the server: compare scenarios of one run, never runs on
different machines.

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

SCENARIOS = ("quiet", "sockets", "accounts", "board", "coach", "chat")
POSITION: dict[str, Any] = {
    "hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H 3H", "pile": "TD 5S", "opponent_took": [],
    "opponent_discarded": ["5S"], "opponent_passed": ["TD"], "stock": 29,
    "to_play": "discard", "scores": [10, 35], "seed": 7,
}
"""The position the board is asked about (a discard: eleven actions to evaluate)."""
WARM_UP = 2.0
"""Seconds the attacker runs before the tables are timed."""


def xff(address: str) -> dict[str, str]:
    """The header a trusted proxy adds for a client at ``address``."""
    return {"X-Forwarded-For": address}


# ---------------------------------------------------------------------- the tables


SEATS: dict[int, tuple[str, str, str]] = {}
"""Seat 0 of each victim table made last: (match id, token, address), by table index (the
``chat`` scenario floods from it)."""


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
            SEATS[i] = (m["id"], m["token"], f"10.{scenario}.{i}.3")  # the seat's chat
            # comes from an address of its own: the flood's requests count against that
            # address's limits, not the seat's socket's
            for token, addr in ((m["token"], a0), (r.json()["token"], a1)):
                ws = await connect(f"{ws_base}/api/matches/{m['id']}/ws", max_size=2**20,
                                   additional_headers=xff(addr), open_timeout=30)
                await ws.send(json.dumps({"type": "auth", "token": token}))
                socks.append(ws)
            out.append(socks)
    return out


async def time_moves(base: str, tables: int, seconds: float, think: float,
                     scenario: int, chat: dict[str, int] | None = None) -> Stats:
    """Play ``tables`` fresh friend tables for ``seconds``; their move latencies. With
    ``chat`` (counts filled in), seat 0 of each table floods the table's chat as it plays
    (:func:`chat_flood`): its opponent's moves are timed under the flood."""
    stats = Stats()
    socks = await victim_tables(base, tables, scenario)
    stats.tables = tables
    stats.ready_at = time.monotonic()
    deadline = stats.ready_at + seconds
    floods = [chat_flood(base, *SEATS[i], deadline, chat) for i in range(tables)
              ] if chat is not None else []
    try:
        await asyncio.gather(*(
            seat_loop(ws, s, random.Random(i * 2 + s), stats, deadline, True, think)
            for i, pair in enumerate(socks) for s, ws in enumerate(pair)), *floods)
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


async def chat_flood(base: str, mid: str, token: str, address: str, deadline: float,
                     counts: dict[str, int]) -> None:
    """One seat sending chat messages to its table as fast as they are answered (two in
    flight), from another address than its socket's, until ``deadline``: answers counted
    by status."""
    headers = {**xff(address), "Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, timeout=30, headers=headers) as http:

        async def one() -> None:
            n = 0
            while time.monotonic() < deadline:
                n += 1
                try:
                    r = await http.post(f"/api/matches/{mid}/chat",
                                        json={"text": f"flood {n} " + "x" * 100})
                    _count(counts, str(r.status_code))
                except httpx.HTTPError as e:
                    _count(counts, f"failed {type(e).__name__}")

        await asyncio.gather(one(), one())


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


async def coach_flood(base: str, seconds: float, concurrency: int) -> dict[str, int]:
    """Guests' analyses on the most deals a guest is allowed (16,384, or the server's cap
    for guests once it refuses that), from ``concurrency`` connections, a new address
    each request."""
    counts: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    samples = 16384
    serial = 0
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async def worker(http: httpx.AsyncClient) -> None:
        nonlocal serial, samples
        while time.monotonic() < deadline:
            serial += 1
            n = serial
            addr = f"10.{150 + n // 65536 % 100}.{n // 256 % 256}.{n % 256}"
            asked = samples
            try:
                r = await http.post("/api/analysis", json=POSITION | {"samples": asked},
                                    headers=xff(addr))
            except httpx.HTTPError as e:
                _count(counts, f"analysis {type(e).__name__}")
                continue
            _count(counts, f"analysis {asked} {r.status_code}")
            if r.status_code == 403 and samples > 4096:
                samples = 4096  # the most the server gives a guest
            elif r.status_code in (429, 503):
                await asyncio.sleep(0.05)

    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return counts


async def board_probe(base: str, seconds: float) -> dict[str, Any]:
    """A signed-in player on the analysis board: a request on 1,024 deals every half
    second for ``seconds``; how many were answered or refused, and the latency of the
    answers."""
    addr = "10.77.0.1"
    got: dict[str, int] = {}
    lat: list[float] = []
    async with httpx.AsyncClient(base_url=base, timeout=120, headers=xff(addr)) as http:
        r = await http.post("/api/accounts", json={
            "username": "b" + secrets.token_hex(6), "password": secrets.token_urlsafe(12)})
        r.raise_for_status()
        head = {"X-CSRF-Token": r.json()["csrf"]}
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            t0 = time.monotonic()
            try:
                r = await http.post("/api/analysis", json=POSITION | {"samples": 1024},
                                    headers=head)
                _count(got, str(r.status_code))
                if r.status_code == 200:
                    lat.append(time.monotonic() - t0)
            except httpx.HTTPError as e:
                _count(got, type(e).__name__)
            await asyncio.sleep(max(0.0, 0.5 - (time.monotonic() - t0)))
    lat.sort()
    n = len(lat)
    return {"requests": sum(got.values()), "statuses": dict(sorted(got.items())),
            "answered_pct": round(100 * got.get("200", 0) / max(1, sum(got.values())), 1),
            "latency_ms": {"p50": round(lat[n // 2] * 1000) if n else None,
                           "p99": round(lat[min(n - 1, int(0.99 * n))] * 1000) if n else None}}


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
        elif scenario == "coach":
            counts = asyncio.run(coach_flood(base, seconds, concurrency))
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
    if name not in ("quiet", "board", "chat"):
        ctx = multiprocessing.get_context("spawn")
        results = ctx.Queue()
        proc = ctx.Process(target=attacker, args=(
            name, base, args.seconds + WARM_UP + 1, args.flood_concurrency, results))
        proc.start()
        time.sleep(WARM_UP)
    cpu0 = cpu_seconds(pid)
    chat_counts: dict[str, int] = {}
    board: dict[str, Any] | None = None
    if name in ("board", "coach"):  # a signed-in player on the board, beside the tables

        async def both() -> Stats:
            nonlocal board
            stats, board = await asyncio.gather(
                time_moves(base, args.tables, args.seconds, args.think, index),
                board_probe(base, args.seconds))
            return stats

        stats = asyncio.run(both())
    else:
        stats = asyncio.run(time_moves(base, args.tables, args.seconds, args.think, index,
                                       chat_counts if name == "chat" else None))
    cpu1 = cpu_seconds(pid)
    counts: dict[str, int] = chat_counts
    if proc is not None:
        counts = results.get(timeout=args.seconds + 120)
        proc.join(30)
    lat = sorted(stats.latencies)
    n = len(lat)

    def pct(q: float) -> float | None:
        return round(lat[min(n - 1, int(q * n))] * 1000, 1) if n else None

    out: dict[str, Any] = {
        "moves": n,
        "latency_ms": {"p50": pct(0.50), "p99": pct(0.99),
                       "max": round(lat[-1] * 1000, 1) if n else None},
        "refusals": stats.errors,
        "server_cpu_s": (round(cpu1 - cpu0, 1) if cpu0 is not None and cpu1 is not None
                         else None),
        "attacker": dict(sorted(counts.items())),
    }
    if board is not None:
        out["board"] = board
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the scenarios and print what they measured."""
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    numbers: list[tuple[str, type, float, str]] = [
        ("--seconds", float, 20, "timed seconds per scenario (1-600)"),
        ("--tables", int, 4, "friend tables timed (1-50)"),
        ("--think", float, 0.2, "seconds a player pauses before each move"),
        ("--flood-concurrency", int, 16, "requests in flight at once in a flood"),
    ]
    for flag, kind, default, what in numbers:
        p.add_argument(flag, type=kind, default=default, help=f"{what} (default {default})")
    p.add_argument("--scenario", action="append", choices=SCENARIOS, default=[],
                   help="run only these (repeat); default all")
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
                    board = r.get("board")
                    said = (f"; the board: {board['answered_pct']}% of {board['requests']} "
                            f"answered {board['statuses']}, p50 {board['latency_ms']['p50']} "
                            f"ms, p99 {board['latency_ms']['p99']} ms" if board else "")
                    print(f"{name}: {r['moves']} moves, latency p50 {lm['p50']} ms, p99 "
                          f"{lm['p99']} ms, max {lm['max']} ms; refusals "
                          f"{r['refusals'] or 'none'}; server CPU {r['server_cpu_s']} s; "
                          f"attacker {r['attacker'] or '-'}{said}", flush=True)
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
