"""Play-outs a second of the evaluator with the deciding seat's play-outs in each style:
today's patient rule against the discard distilled from expert (issue 48), in one run, on
the same positions, rounds alternating (CPU time of this thread).

    PYTHONPATH=src python3 benchmarks/playout_speed.py --positions 200 --rounds 3
    PYTHONPATH=src python3 benchmarks/playout_speed.py --positions 200 --rounds 3 \
        --net net16.json   # the distilled seat discarding by a network (issue 48)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--samples", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--net", type=Path, help="the distilled seat discards by this network "
                    "(scripts/distill_playout.py --export), not the linear weights")
    args = ap.parse_args(argv)
    if args.net is not None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
        from playout_generation import install

        if install(None, args.net) is None:
            return 1

    from ginrummy.bench.evaluator import positions
    from ginrummy.evaluator import Evaluator
    from ginrummy.kernel.spec import DISTILLED, PATIENT

    views = positions(random.Random(args.seed), args.positions)
    styles = {"patient": PATIENT, "distilled": DISTILLED}
    evaluators = {name: Evaluator(samples=args.samples, seed=args.seed, style=style)
                  for name, style in styles.items()}
    for ev in evaluators.values():
        ev.evaluate(views[0])  # loading (or compiling) the kernel is not timed
    played = {name: 0 for name in styles}
    seconds = {name: 0.0 for name in styles}
    for _ in range(args.rounds):
        for name, ev in evaluators.items():
            for v in views:
                start = time.thread_time()
                e = ev.evaluate(v)
                seconds[name] += time.thread_time() - start
                played[name] += e.samples * len(e.values)
    out = {name: {"play_outs": played[name], "cpu_s": round(seconds[name], 2),
                  "per_second": round(played[name] / seconds[name])} for name in styles}
    out["ratio"] = round(out["distilled"]["per_second"] / out["patient"]["per_second"], 3)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
