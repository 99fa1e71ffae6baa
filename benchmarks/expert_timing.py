"""Time per decision of the ``expert`` bot on real positions (every phase, from seeded
``strong`` self-play): median, 90th and 99th percentile and maximum, as wall-clock time
and as CPU time of the deciding thread (one core's time, whatever else the machine runs).

    PYTHONPATH=src python3 benchmarks/expert_timing.py --decisions 300 --seed 1
"""

from __future__ import annotations

import argparse
import json
import sys

from ginrummy.bench.evaluator import decision_times, summary


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=None, help="override the bot's samples")
    ap.add_argument("--sampler", default=None, choices=("heuristic", "learned"),
                    help="override the bot's sampler of the opponent's hand")
    ap.add_argument("--deep", type=int, default=0,
                    help="race close, costly decisions on up to this many deals")
    ap.add_argument("--deep-ms", type=float, default=60.0,
                    help="the CPU time a deeper race may take (ms)")
    args = ap.parse_args(argv)
    wall, cpu = decision_times(args.decisions, args.seed, args.samples, args.sampler,
                               args.deep, args.deep_ms)
    print(json.dumps({"wall": summary(wall), "cpu": summary(cpu)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
