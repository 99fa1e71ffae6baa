"""Issue 48, item 3: one generation of the distilled play-out policy, screened.

Generation 0 is ``expert`` as shipped (its play-outs discard by today's rule); generation 1
searches with the play-out discard fitted to generation 0's discards (``expert-distilled``,
the kernel's ``DISTILLED_WEIGHTS``); generation k + 1 with the weights fitted to generation
k's own games. This plays ``expert`` whose play-outs discard by ``--weights`` (the six
whole numbers ``scripts/distill_playout.py --records DIR --gate --kernel`` prints, its
``over_margin`` left out) against ``--opponent`` in duplicate matches, and can keep the
records (``--records DIR``) that the next generation is fitted to. With ``--net FILE``
the play-outs discard by a small network fitted to expert's discards instead (the
kernel's ``DISTILLED_NET``, from ``scripts/distill_playout.py --mlp 16 --layers 1
--kernel --export FILE``).

    ginrummy match expert-distilled expert-distilled --matches 400 --seed 4803 --jobs 2 \\
        --records gen1-rec
    PYTHONPATH=src python3 scripts/distill_playout.py --records gen1-rec --gate --kernel
    PYTHONPATH=src python3 scripts/playout_generation.py --weights 100,-92,46,91,158,186 \\
        --matches 400 --seed 4804 --jobs 2

The weights are the kernel's ``DISTILLED_WEIGHTS``, set here before the compiled build is
made, so numba's disk cache for this run is a folder of its own per weights (the shipped
cache is keyed by the sources, which do not change); before any match the script checks
that the compiled discard follows the new weights on 2,000 random hands. A research
screen: nothing here changes the package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import zlib
from pathlib import Path


def weights_arg(text: str) -> tuple[int, ...]:
    """Six whole numbers, comma-separated: the deadwood, outs, points, live partners, hand
    partners and the opponent's picks' partners weights (the deadwood's positive)."""
    try:
        w = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not whole numbers: {text!r}") from None
    if len(w) != 6 or w[0] <= 0:
        raise argparse.ArgumentTypeError("six whole numbers, the first (deadwood) above 0")
    return w


def install(weights: tuple[int, ...] | None, net_file: Path | None,
            seed: int = 0) -> float | None:
    """Make the kernel's ``DISTILLED`` discard use ``weights`` (linear) or the network in
    ``net_file``: call before anything builds the compiled kernel (numba's disk cache goes
    to a folder of its own for these numbers). Checks on 2,000 random hands that the
    compiled build follows them (None, with a message, if not); the share of those hands
    whose discard differs from the shipped ``DISTILLED_WEIGHTS``'."""
    net: tuple[int, ...] = ()
    if net_file is not None:
        net = tuple(json.loads(net_file.read_text())["net"])
        tag = f"net{zlib.crc32(repr(net).encode()):08x}"
    else:
        assert weights is not None
        tag = "_".join(str(x) for x in weights).replace("-", "m")
    os.environ["NUMBA_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / f"gr-gen-{tag}")

    import random

    from ginrummy import kernel
    from ginrummy.kernel import playout, spec
    from ginrummy.kernel.solver import deadwood_by_discard

    shipped = spec.DISTILLED_WEIGHTS
    units = len(net) // spec.NET_ROW
    if net:
        spec.DISTILLED_NET = playout.DISTILLED_NET = net  # type: ignore[attr-defined]
    else:
        spec.DISTILLED_WEIGHTS = playout.DISTILLED_WEIGHTS = weights  # type: ignore
    fast = kernel.backend("numba")
    rng = random.Random(seed)
    moved = 0
    for _ in range(2000):
        h = sum(1 << k for k in rng.sample(range(52), 11))
        took = sum(1 << k for k in rng.sample(range(52), 3)) & ~h
        tab = [0] * 52
        deadwood_by_discard(h, tab)
        want = (playout.net_discard(h, tab, -1, 0, took, net, units) if net
                else playout.weighted_discard(h, tab, -1, 0, took, weights))
        got = fast.k.distilled_discard(h, fast.ints(tab), -1, 0, took)
        if tuple(int(x) for x in got) != want:
            print(f"the compiled build ignores the new discard: {got} against {want}",
                  file=sys.stderr)
            return None
        moved += want != playout.weighted_discard(h, tab, -1, 0, took, shipped)
    return moved / 2000


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--weights", type=weights_arg,
                   help="the linear discard's six weights (the kernel's DISTILLED_WEIGHTS)")
    p.add_argument("--net", type=Path,
                   help="or a network's (`scripts/distill_playout.py --mlp H --layers 1 "
                        "--kernel --export FILE`): the kernel's DISTILLED_NET")
    p.add_argument("--opponent", default="expert")
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--seed", type=int, default=4804)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--records", type=Path, help="keep the matches' records here")
    args = p.parse_args(argv)
    if (args.weights is None) == (args.net is None):
        p.error("give --weights or --net")
    moved = install(args.weights, args.net, args.seed)
    if moved is None:
        return 1

    from ginrummy.arena import run_matches, summarize
    from ginrummy.bots import BOTS
    from ginrummy.bots.expert import ExpertBot
    from ginrummy.kernel import spec

    name = "expert-gen"
    BOTS[name] = lambda seed: ExpertBot(seed, style=spec.DISTILLED)
    t = time.perf_counter()
    results = run_matches(name, args.opponent, args.matches, args.seed, jobs=args.jobs,
                          records=str(args.records) if args.records else None)
    s = summarize([name, args.opponent], results, time.perf_counter() - t, args.seed)
    keep = ("players", "matches", "win_rate", "ci95", "points_per_hand", "seconds", "knocks",
            "gins", "undercuts", "forfeits", "decision_ms", "seed")
    print(json.dumps({"weights": args.weights, "net": str(args.net) if args.net else None,
                      "unlike_shipped_distilled": moved,
                      **{k: s[k] for k in keep if k in s}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
