"""The compiled kernel's cold start: how long a fresh process takes to its first
evaluation when numba must compile the kernel (an empty cache), when it loads it from the
disk cache (every later process: a web worker's first decision), and with the
pure-Python kernel, as wall-clock and CPU seconds per fresh process (median of
``--runs``; CPU: the process's user and system time, steadier on a busy machine).

    PYTHONPATH=src python3 benchmarks/kernel_cold_start.py --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _once(env: dict[str, str]) -> tuple[str, float, float]:
    """(kernel, wall-clock seconds from the interpreter's start, its CPU seconds)."""
    start, cpu = time.perf_counter(), _cpu()
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, check=True, timeout=900)
    total = time.perf_counter() - start
    kernel, _ = out.stdout.split()
    return kernel, total, _cpu() - cpu


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per case")
    args = ap.parse_args(argv)
    base = {**os.environ}
    base.pop("GINRUMMY_KERNEL", None)
    names = ("numba, empty cache (compiles)", "numba, disk cache (loads)", "python kernel")
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            env = {**base, "NUMBA_CACHE_DIR": cache}
            kernel, cold, cold_cpu = _once(env)
            if kernel != "numba":
                print("numba is not available here: nothing to measure.", file=sys.stderr)
                return 1
            rows[names[0]].append((cold, cold_cpu))
            rows[names[1]].append(_once(env)[1:])
        rows[names[2]].append(_once({**base, "GINRUMMY_KERNEL": "python"})[1:])
    print(json.dumps({name: {"median_s": round(statistics.median(w for w, _ in xs), 2),
                             "median_cpu_s": round(statistics.median(c for _, c in xs), 2),
                             "runs": [[round(w, 2), round(c, 2)] for w, c in xs]}
                      for name, xs in rows.items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
