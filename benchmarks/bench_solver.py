"""Solver benchmarks from a checkout: a thin wrapper around ``ginrummy bench``.

    python3 benchmarks/bench_solver.py [--json] [--number N] [--repeat R] [--only TEXT]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from ginrummy.bench import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
