"""How fast the coach labels decisions (docs/research.md, "Speed"): the records of a
``games.jsonl.zst`` (a dataset's or a month's export) labelled again as ``ginrummy export``
labels them, on one process, with worker processes (``--jobs``) or on Ray (``--ray``),
and the decisions labelled a second (wall clock, from the first match sent to the last
labelled). Only the labelling is timed: no play, no file written.

    python scripts/label_speed.py DIR/games.jsonl.zst --samples 64 --jobs 2
    python scripts/label_speed.py DIR/games.jsonl.zst --samples 64 --ray local
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from typing import Any

from ginrummy.arena import RayUnavailable, connect_ray
from ginrummy.research.files import require
from ginrummy.research.labels import DEFAULT_SAMPLES, label_record
from ginrummy.research.work import ordered_map


def records(path: str) -> list[tuple[str, dict[str, Any]]]:
    """(id, record) of every line of a ``.jsonl.zst`` file (ids by line number when the
    records carry none)."""
    zstd = require("zstandard")
    with open(path, "rb") as f, zstd.ZstdDecompressor().stream_reader(f) as reader:
        lines = io.TextIOWrapper(reader, encoding="utf-8").read().splitlines()
    out = []
    for i, line in enumerate(lines):
        rec = json.loads(line)
        out.append((str(rec.pop("id", i + 1)), rec))
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", help="a games.jsonl.zst (ginrummy dataset or ginrummy export)")
    p.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--ray", metavar="ADDRESS", default=None)
    p.add_argument("--matches", type=int, default=None, help="the first N only")
    args = p.parse_args(argv)
    items = [(mid, rec, args.seed, args.samples)
             for mid, rec in records(args.file)[:args.matches]]
    if args.ray is not None:  # start (or join) the cluster before the clock starts
        try:
            connect_ray(args.ray, args.jobs)
        except RayUnavailable as e:
            print(f"label_speed: {e}", file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    decisions = sum(len(rows) for _, rows in ordered_map(
        label_record, items, jobs=args.jobs, ray_address=args.ray))
    seconds = time.perf_counter() - t0
    where = f"Ray {args.ray}" if args.ray else f"--jobs {args.jobs}"
    print(json.dumps({"matches": len(items), "decisions": decisions, "samples": args.samples,
                      "where": where, "seconds": round(seconds, 2),
                      "decisions_per_second": round(decisions / seconds, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
