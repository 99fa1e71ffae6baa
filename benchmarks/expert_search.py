"""Duplicate matches of ``expert`` search variants against a project bot: how strength
moves with the deals sampled per decision and how they are spent (a tuning tool and the
source of docs/bots.md's samples curve, not a test). The opponent may be a variant too
(head to head). Every variant after the first also gets its win rate minus the first
variant's on the same deals, paired by duplicate pair (``minus_first``).

A variant is ``NAME`` or ``NAME:key=value,key=value`` with ``ExpertBot`` keyword
arguments (numbers, ``true``/``false``, ``none``, words), e.g.
``expert:samples=512,race=true`` or ``expert:sampler=learned``.
Each variant plays ``--matches`` matches (duplicate pairs: the same deals with the seats
swapped) against the opponent on the same deals as every other variant, and one JSON
line per variant gives its win rate with a 95% interval, points per hand and decision
times (wall clock, medians and maxima).

    PYTHONPATH=src python3 benchmarks/expert_search.py strong --matches 400 --seed 5 \\
        --jobs 2 expert expert:race=true,samples=512,shortlist=none
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from typing import Any

from ginrummy.arena import MatchStats, run_matches, summarize
from ginrummy.bots import BOTS
from ginrummy.bots.base import Bot
from ginrummy.bots.expert import ExpertBot


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text  # a word: sampler=learned


def parse_variant(spec: str) -> dict[str, Any]:
    """``expert:samples=512,race=true`` -> ``{"samples": 512, "race": True}``."""
    _, _, rest = spec.partition(":")
    out: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        key, eq, val = part.partition("=")
        if not eq:
            raise SystemExit(f"expert_search: {part!r} is not key=value.")
        out[key.strip()] = _value(val.strip())
    return out


def register(spec: str) -> str:
    """Make ``spec`` a bot name in this process (and in forked workers)."""
    if spec in BOTS:
        return spec
    kwargs = parse_variant(spec)

    def factory(seed: int | None) -> Bot:
        return ExpertBot(seed, **kwargs)

    factory(0)  # a bad keyword fails here, before any match
    BOTS[spec] = factory
    return spec


def paired(a: list[MatchStats], b: list[MatchStats]) -> dict[str, Any]:
    """Variant ``a``'s win rate minus ``b``'s on the same deals: the mean over duplicate
    pairs of the difference of their pair scores, with a 95% interval from the pairs'
    spread (the deals' luck cancels where both met it)."""
    d = [(a[i].score_a + a[i + 1].score_a - b[i].score_a - b[i + 1].score_a) / 2
         for i in range(0, min(len(a), len(b)) - 1, 2)]
    mean = statistics.fmean(d)
    half = 1.959963984540054 * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 \
        else math.inf
    return {"difference": round(mean, 4), "ci95": [round(mean - half, 4),
                                                    round(mean + half, 4)], "pairs": len(d)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("opponent", help="a project bot name, e.g. strong, marjj, simple, or an "
                    "expert variant (head to head), e.g. expert:sampler=heuristic")
    ap.add_argument("variants", nargs="+", help="expert variants (see the module docstring)")
    ap.add_argument("--matches", type=int, default=200, help="matches per variant (even)")
    ap.add_argument("--seed", type=int, default=1, help="deals seed (default 1)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = ap.parse_args(argv)
    register(args.opponent)
    first: list[MatchStats] | None = None
    for spec in args.variants:
        name = register(spec)
        t = time.perf_counter()
        results = run_matches(name, args.opponent, args.matches, args.seed, jobs=args.jobs)
        s = summarize([spec, args.opponent], results, time.perf_counter() - t, args.seed)
        keep = ("players", "matches", "win_rate", "ci95", "points_per_hand", "seconds",
                "knocks", "gins", "undercuts", "forfeits", "decision_ms", "seed")
        if any(s["forfeits"]):
            print(f"expert_search: {spec} forfeited matches (a bot raised): "
                  f"{s['forfeits']}", file=sys.stderr)
        out = {k: s[k] for k in keep}
        if first is None:
            first = results
        else:  # the same deals as the first variant: the paired difference
            out["minus_first"] = paired(results, first)
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
