"""Puzzles and the analysis board, measured (docs/training.md, "Measured").

1. Matches: ``--matches`` (50) finished matches of expert self-play for ``--seed``, played
   once and kept as records in ``--cache`` (reused when there: not timed).
2. Generation: how long :func:`~ginrummy.training.puzzles.find_puzzles` takes over those
   matches (every decision screened on 256 deals, the promising ones measured on 4,096),
   with the puzzles found and the seconds per 100 puzzles; and how long until the first
   100 (``limit=100``).
3. Confirmation: the first ``--confirm`` (200) puzzles measured afresh on 4 times their
   deals with another seed: the share whose best move is confirmed, and the ones that flip
   (to drop).
4. Analysis: the time to answer one ``POST /api/analysis`` at the default samples (1,024)
   over HTTP on a real ``ginrummy serve`` (SQLite, one coach worker), for ``--positions``
   (100) decisions of the matches sent as position objects without their history (the
   analysis board's case: the server searches for a hand that reaches them): median and
   95th percentile, after one warm-up request. Also the evaluation alone, in this process.

Run in the background with nice, e.g.::

    PYTHONPATH=src nice python3 benchmarks/puzzles.py --cache /tmp/puzzle-matches \\
        --out /tmp/puzzles-bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from ginrummy.match import Match
from ginrummy.review.grade import moments
from ginrummy.training.analysis import DEFAULT_SAMPLES, analyze_position
from ginrummy.training.position import position_of
from ginrummy.training.puzzles import find_puzzles, measure, source_seed
from ginrummy.training.sources import self_play

SRC = str(Path(__file__).resolve().parents[1] / "src")


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def matches_for(n: int, seed: int, cache: Path) -> list[tuple[str, Match]]:
    """The self-play matches, from the cache or played now (and cached)."""
    cache.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        f = cache / f"self-play-{seed}-{i}.json"
        if f.exists():
            out.append((f"self-play/expert/{seed}/{i}", Match.from_record(json.loads(
                f.read_text()))))
            continue
        t = time.perf_counter()
        (source, m), = self_play(1, seed * 1000 + i)
        f.write_text(json.dumps(m.to_record()))
        out.append((f"self-play/expert/{seed}/{i}", m))
        log(f"match {i + 1}/{n}: {len(m.hands)} hands in {time.perf_counter() - t:.0f} s")
    return out


def wait_until_up(http: httpx.Client, seconds: float = 60) -> None:
    """Return once the server answers (SystemExit if it does not start in time)."""
    for _ in range(int(seconds * 10)):
        try:
            http.get("/api/bots")
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def analysis_over_http(positions: list[dict[str, Any]]) -> list[float]:
    """Milliseconds per ``POST /api/analysis`` on a real server (after a warm-up)."""
    port = free_port()
    tmp = tempfile.TemporaryDirectory()
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    server = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from ginrummy.web.server import main; sys.exit(main(sys.argv[1:]))",
         "--port", str(port), "--db", f"sqlite:///{tmp.name}/a.sqlite3",
         "--rate-reads", "100000/minute"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp.name)
    http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120)
    times: list[float] = []
    try:
        wait_until_up(http)
        r = http.post("/api/analysis", json=positions[0])  # loads the worker's kernel
        assert r.status_code == 200, r.text
        for p in positions:
            t0 = time.perf_counter()
            r = http.post("/api/analysis", json=p)
            times.append((time.perf_counter() - t0) * 1000)
            assert r.status_code == 200, r.text
    finally:
        server.terminate()
        server.wait(10)
        tmp.cleanup()
    return times


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", default="benchmarks/.puzzle-matches")
    ap.add_argument("--confirm", type=int, default=200)
    ap.add_argument("--factor", type=int, default=4)
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default=None, help="also write the report here")
    ap.add_argument("--skip", action="append", default=[],
                    choices=["generation", "confirmation", "analysis"])
    args = ap.parse_args(argv)
    report: dict[str, Any] = {"matches": args.matches, "seed": args.seed, "jobs": args.jobs}
    matches = matches_for(args.matches, args.seed, Path(args.cache))
    report["decisions"] = sum(len(moments(m, range(len(m.hands)), (0, 1)))
                              for _, m in matches)

    def save() -> None:
        if args.out:
            Path(args.out).write_text(json.dumps(report, indent=2))

    puzzles = []
    if "generation" not in args.skip or "confirmation" not in args.skip:
        t = time.perf_counter()
        marks: dict[str, float] = {}

        def progress(done: int, total: int, found: int) -> None:
            if found >= 100 and "first_100" not in marks:
                marks["first_100"] = time.perf_counter() - t
            if done % 500 == 0:
                log(f"  {done}/{total} decisions, {found} puzzles, "
                    f"{time.perf_counter() - t:.0f} s")

        puzzles = find_puzzles(matches, seed=args.seed, jobs=args.jobs, progress=progress)
        full = time.perf_counter() - t
        report["generation"] = {
            "seconds_all": round(full, 1), "puzzles": len(puzzles),
            "seconds_per_100": round(100 * full / max(1, len(puzzles)), 1),
            "seconds_first_100": round(marks.get("first_100", float("nan")), 1),
            "themes": {th: sum(th in p.themes for p in puzzles)
                       for th in sorted({t for p in puzzles for t in p.themes})},
            "phases": {ph: sum(p.view.phase.value == ph for p in puzzles)
                       for ph in ("offer", "draw", "discard")},
        }
        log(f"generation: {report['generation']}")
        save()
    if "confirmation" not in args.skip:
        todo = puzzles[:args.confirm]
        flips = []
        t = time.perf_counter()
        for p in todo:
            fresh = measure(p.view, args.factor * p.answer.samples,
                            source_seed(args.seed + 1, "confirm/" + p.key, p.hand, p.action))
            if fresh.best != p.answer.best:
                flips.append({"key": p.key, "best": str(p.answer.best),
                              "fresh": str(fresh.best), "margin": round(p.answer.margin, 4),
                              "margin_se": round(p.answer.margin_se, 4)})
        report["confirmation"] = {
            "checked": len(todo), "confirmed": len(todo) - len(flips),
            "share": round((len(todo) - len(flips)) / max(1, len(todo)), 4),
            "flipped": flips, "factor": args.factor,
            "seconds": round(time.perf_counter() - t, 1)}
        log(f"confirmation: {report['confirmation']}")
        save()
    if "analysis" not in args.skip:
        rng = random.Random(args.seed)
        views = [mo.view for _, m in matches for mo in moments(m, range(len(m.hands)), (0, 1))]
        chosen = rng.sample(views, min(args.positions, len(views)))
        positions = []
        for v in chosen:
            pos = position_of(v)
            pos.pop("history")
            positions.append(pos | {"seed": 0})
        inproc = []
        for p in positions:
            t0 = time.perf_counter()
            analyze_position(p)
            inproc.append((time.perf_counter() - t0) * 1000)
        http_ms = analysis_over_http(positions)
        report["analysis"] = {
            "positions": len(positions), "samples": DEFAULT_SAMPLES,
            "http_ms": {"median": round(percentile(http_ms, 0.5), 1),
                        "p95": round(percentile(http_ms, 0.95), 1),
                        "max": round(max(http_ms), 1)},
            "in_process_ms": {"median": round(percentile(inproc, 0.5), 1),
                              "p95": round(percentile(inproc, 0.95), 1)},
            "discards": sum(p["to_play"] == "discard" for p in positions)}
        log(f"analysis: {report['analysis']}")
        save()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
