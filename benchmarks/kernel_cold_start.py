"""The compiled kernel's cold start: how long a fresh process takes to its first
evaluation when numba must compile the kernel (an empty cache), when it loads it from the
disk cache (every later process: a web worker's first decision), and with the
pure-Python kernel, as wall-clock and CPU seconds per fresh process (median of
``--runs``; CPU: the process's user and system time, steadier on a busy machine).

With an empty cache two cases: ``GINRUMMY_KERNEL=numba`` waits for the compile before the
first evaluation (what ``make run`` and the Docker image do at set-up: the cost of the
compile itself), and the default, where the first evaluations run on the Python build
while the kernel compiles on a thread of its own (:data:`ginrummy.kernel.WAIT_SECONDS`).
For each case: the wall clock and CPU seconds from the interpreter's start to the first
evaluation (``first``: CPU of all the process's threads, the compile's included, by then)
and of the whole process (``process``: a process whose compile is still going on when its
work is done finishes the compile before it exits, so the disk cache gets it).

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
print(e.KERNEL, time.perf_counter() - t0, time.process_time())
"""

CASES = ("numba, empty cache, waiting for the compile (GINRUMMY_KERNEL=numba)",
         "default, empty cache (python build while it compiles)",
         "numba, disk cache (loads)",
         "python kernel")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _once(env: dict[str, str]) -> dict[str, object]:
    """The build of the first evaluation, wall-clock and CPU seconds to it (from the
    interpreter's start, as the process measures them) and of the whole process."""
    start, cpu = time.perf_counter(), _cpu()
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, check=True, timeout=900)
    total = time.perf_counter() - start
    kernel, first, first_cpu = out.stdout.split()
    return {"kernel": kernel, "first_s": float(first), "first_cpu_s": float(first_cpu),
            "process_s": total, "process_cpu_s": _cpu() - cpu}


def _median(rows: list[dict[str, object]], key: str) -> float:
    return round(statistics.median(float(r[key]) for r in rows), 2)  # type: ignore[arg-type]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per case")
    args = ap.parse_args(argv)
    base = {**os.environ}
    base.pop("GINRUMMY_KERNEL", None)
    rows: dict[str, list[dict[str, object]]] = {name: [] for name in CASES}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            run = _once({**base, "NUMBA_CACHE_DIR": cache, "GINRUMMY_KERNEL": "numba"})
            if run["kernel"] != "numba":
                print("numba is not available here: nothing to measure.", file=sys.stderr)
                return 1
            rows[CASES[0]].append(run)
            rows[CASES[2]].append(_once({**base, "NUMBA_CACHE_DIR": cache}))
        with tempfile.TemporaryDirectory() as cache:
            rows[CASES[1]].append(_once({**base, "NUMBA_CACHE_DIR": cache}))
        rows[CASES[3]].append(_once({**base, "GINRUMMY_KERNEL": "python"}))
    keys = ("first_s", "first_cpu_s", "process_s", "process_cpu_s")
    print(json.dumps({name: {"first_kernel": sorted({str(r["kernel"]) for r in xs}),
                             **{f"median_{k}": _median(xs, k) for k in keys},
                             "runs": [[round(float(r[k]), 2) for k in keys]  # type: ignore[arg-type]
                                      for r in xs]}
                      for name, xs in rows.items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
