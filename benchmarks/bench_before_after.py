"""Two versions of ``ginrummy bench``'s benchmarks in one process: an earlier checkout's
(its ``src`` folder given, imported as ``ginrummy_before``) and this one, each timing its
own benchmarks on the same inputs, the passes interleaved (before/after, then after/
before) so the ratio sees the same machine load; CPU time of this process.

    git worktree add /tmp/old <commit>        # or: git archive <commit> | tar -x -C /tmp/old
    PYTHONPATH=src python3 benchmarks/bench_before_after.py /tmp/old/src --only "kernel "

Prints one JSON object: per benchmark the median microseconds per operation before and
after, their ratio (after / before: below 1 is faster), and every pass.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path, help="the earlier checkout's src folder")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="benchmarks whose name contains TEXT (repeatable; default: all)")
    ap.add_argument("--number", type=int, default=2000, help="operations per pass")
    ap.add_argument("--repeat", type=int, default=5, help="passes of each version")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not (args.before / "ginrummy" / "__init__.py").is_file():
        print(f"{args.before} holds no ginrummy package.", file=sys.stderr)
        return 2
    links = tempfile.mkdtemp()
    (Path(links) / "ginrummy_before").symlink_to((args.before / "ginrummy").resolve())
    sys.path.insert(0, links)
    before = importlib.import_module("ginrummy_before.bench")
    after = importlib.import_module("ginrummy.bench")
    pairs: list[tuple[str, tuple[Any, Any]]] = []
    for b in before.BENCHMARKS:
        mine = next((a for a in after.BENCHMARKS if a.name == b.name), None)
        if mine is not None and (not args.only or any(t in b.name for t in args.only)):
            pairs.append((b.name, (b, mine)))
    mods = (before, after)
    rngs = {(name, i): mods[i].bench_rng(pair[i], args.seed) for name, pair in pairs
            for i in (0, 1)}
    runs: dict[tuple[str, int], list[float]] = {key: [] for key in rngs}
    for rep in range(args.repeat):
        for name, pair in pairs:
            for i in ((0, 1) if rep % 2 == 0 else (1, 0)):
                runs[name, i].append(mods[i]._time_pass(pair[i], rngs[name, i], args.number,
                                                         time.process_time))
    out = {}
    for name, _ in pairs:
        b, a = statistics.median(runs[name, 0]), statistics.median(runs[name, 1])
        out[name] = {"before_us": round(b, 2), "after_us": round(a, 2),
                     "after_over_before": round(a / b, 3),
                     "before_runs": [round(x, 1) for x in runs[name, 0]],
                     "after_runs": [round(x, 1) for x in runs[name, 1]]}
    print(json.dumps({"number": args.number, "repeat": args.repeat, "clock": "cpu",
                      "results": out}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
