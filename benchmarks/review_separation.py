"""Does one match's review tell a strong player from a weak one? For each pair of the same
deals, ``expert`` and ``easy`` each play a match against ``strong`` (the same seat, the
same first dealer, the same deals), and the review grades the ``expert`` or ``easy``
seat; the pair counts when expert's error rate is below easy's. Also: expert's blunders
per 100 decisions, and how often each single match's rating interval (docs/review.md)
covers the band the player belongs to.

    PYTHONPATH=src python3 benchmarks/review_separation.py --pairs 20 --seed 1 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ginrummy.arena import play_match
from ginrummy.bots import make_bot
from ginrummy.match import Match
from ginrummy.review import review_match


def one(player: str, pair: int, seed: int, samples: int, jobs: int) -> dict[str, Any]:
    """``player`` (seat 0) against ``strong`` on pair ``pair``'s deals, reviewed."""
    deal_seed = seed * 10_000 + pair
    _, match = play_match(make_bot(player, seed + pair), make_bot("strong", seed + 500 + pair),
                          seed=deal_seed, first_dealer=pair % 2)
    assert isinstance(match, Match)
    review = review_match(match, seats=(0,), samples=samples, budget_ms=None, seed=pair,
                          jobs=jobs)
    s = review.seat_summary(0)
    return {"player": player, "pair": pair, "decisions": s["decisions"],
            "error_rate": s["error_rate_normalized"], "rating": s["rating"],
            "interval": s.get("rating_interval"), "blunders": s["blunders"],
            "won": match.outcome().winner == 0 if match.outcome() else None}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=None, help="review samples (default: "
                    "the review's)")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    from ginrummy.review import DEFAULT_SAMPLES

    samples = args.samples or DEFAULT_SAMPLES
    rows = []
    ahead = 0
    for p in range(args.pairs):
        e = one("expert", p, args.seed, samples, args.jobs)
        w = one("easy", p, args.seed, samples, args.jobs)
        ahead += e["error_rate"] < w["error_rate"]
        rows += [e, w]
        print(json.dumps({"pair": p, "expert": e, "easy": w}), flush=True)
    exp = [r for r in rows if r["player"] == "expert"]
    blunders = sum(r["blunders"] for r in exp)
    decisions = sum(r["decisions"] for r in exp)
    print(json.dumps({"pairs": args.pairs, "expert_rated_above_easy": ahead,
                      "expert_blunders_per_100": round(100 * blunders / max(decisions, 1), 3),
                      "samples": samples}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
