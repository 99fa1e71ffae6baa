"""How much of the learned search's raked pool is effective: the share (sum w)^2 /
(n sum w^2) of each opponent style's group, on real positions (``strong`` self-play), for
``Evaluator(sampler="learned")`` at ``--samples`` deals (docs/bots.md, "Learned belief
(stage 2)"). ::

    PYTHONPATH=src python3 scripts/belief_pool.py --positions 300 --seed 1 --samples 256
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from ginrummy.bench.evaluator import positions
from ginrummy.evaluator import Evaluator


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=256)
    ap.add_argument("--quick", type=float, default=0.75, help="the quick share (expert's prior)")
    args = ap.parse_args(argv)
    views = positions(random.Random(args.seed), args.positions)
    ev = Evaluator(samples=args.samples, seed=args.seed, sampler="learned", quick=args.quick)
    shares: dict[str, list[float]] = {"patient": [], "quick": []}
    for v in views:
        search = ev.search(v, list(v.legal[:2]))
        search.extend(args.samples)
        shares["patient"].append(search.ess[0])
        shares["quick"].append(search.ess[1])
    for name, xs in shares.items():
        xs.sort()
        print(f"{name}: mean {statistics.fmean(xs):.3f}, median {statistics.median(xs):.3f}, "
              f"P10 {xs[len(xs) // 10]:.3f}, lowest {xs[0]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
