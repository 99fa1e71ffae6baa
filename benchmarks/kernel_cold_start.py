"""The compiled kernel's cold start: how long a fresh process takes to its first
evaluation when numba must compile the kernel (an empty cache), when it loads it from the
disk cache (every later process: a web worker's first decision), and with the
pure-Python kernel, as wall-clock seconds per fresh process (median of ``--runs``).

    PYTHONPATH=src python3 benchmarks/kernel_cold_start.py --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

PROBE = """
import time
t0 = time.perf_counter()
from ginrummy.match import Match
from ginrummy.evaluator import Evaluator
import ginrummy.evaluator as e
m = Match(seed=4)
Evaluator(samples=64, seed=1).evaluate(m.view(m.to_play))
print(e.KERNEL, time.perf_counter() - t0)
"""


def _once(env: dict[str, str]) -> tuple[str, float, float]:
    """(kernel, seconds from the interpreter's start, seconds inside the probe)."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, check=True, timeout=900)
    total = time.perf_counter() - start
    kernel, inside = out.stdout.split()
    return kernel, total, float(inside)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per case")
    args = ap.parse_args(argv)
    base = {**os.environ}
    base.pop("GINRUMMY_KERNEL", None)
    rows: dict[str, list[float]] = {"numba, empty cache (compiles)": [],
                                    "numba, disk cache (loads)": [],
                                    "python kernel": []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            env = {**base, "NUMBA_CACHE_DIR": cache}
            kernel, cold, _ = _once(env)
            if kernel != "numba":
                print("numba is not available here: nothing to measure.", file=sys.stderr)
                return 1
            rows["numba, empty cache (compiles)"].append(cold)
            rows["numba, disk cache (loads)"].append(_once(env)[1])
        rows["python kernel"].append(_once({**base, "GINRUMMY_KERNEL": "python"})[1])
    print(json.dumps({name: {"median_s": round(statistics.median(xs), 2),
                             "runs": [round(x, 2) for x in xs]}
                      for name, xs in rows.items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
