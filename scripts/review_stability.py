"""How the review's grades hold still as the samples grow: the share of decisions whose
mark changes between two review seeds, and the time a whole review takes, for several
screening sample counts (the source of ``DEFAULT_SAMPLES``, docs/review.md "Stable
grades").

Records come from seeded bot-vs-bot matches (several pairings); each is reviewed whole,
both seats, once with ``--seed 0`` and once with ``--seed 1`` at each sample count.

    python scripts/review_stability.py --samples 16,32,64,128 --matches 3 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from ginrummy.arena import play_match
from ginrummy.bots import make_bot
from ginrummy.match import Match
from ginrummy.review import review_match

PAIRINGS = (("strong", "marjj"), ("expert", "simple"), ("easy", "strong"))


def records(matches: int, seed: int) -> list[Match]:
    """``matches`` finished matches spread over :data:`PAIRINGS`."""
    out = []
    for i in range(matches):
        a, b = PAIRINGS[i % len(PAIRINGS)]
        _, match = play_match(make_bot(a, seed + i), make_bot(b, seed + 100 + i),
                              seed=seed * 1000 + i, first_dealer=i % 2)
        out.append(match)
    return out


def marks(match: Match, samples: int, seed: int, jobs: int) -> tuple[list[str | None], float]:
    """Every decision's mark, and the review's wall-clock seconds."""
    t = time.perf_counter()
    review = review_match(match, samples=samples, budget_ms=None, seed=seed, jobs=jobs)
    return [g.mark for g in review.graded], time.perf_counter() - t


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", default="16,32,64,128", help="screening samples to try")
    ap.add_argument("--matches", type=int, default=3, help="records (bot matches)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the matches")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes per review")
    args = ap.parse_args(argv)
    games = records(args.matches, args.seed)
    decisions = None
    for s in (int(x) for x in args.samples.split(",")):
        flips = marked = total = 0
        seconds = []
        for m in games:
            a, ta = marks(m, s, 0, args.jobs)
            b, tb = marks(m, s, 1, args.jobs)
            seconds += [ta, tb]
            total += len(a)
            flips += sum(x != y for x, y in zip(a, b, strict=True))
            marked += sum(x is not None for x in a + b)
        decisions = total
        per_hand = sum(seconds) / len(seconds) / (sum(len(m.hands) for m in games) / len(games))
        print(json.dumps({"samples": s, "decisions": total,
                          "marks_changed": flips, "share_changed": round(flips / total, 4),
                          "marked_share": round(marked / (2 * total), 4),
                          "seconds_per_review": round(sum(seconds) / len(seconds), 2),
                          "seconds_per_hand": round(per_hand, 3)}), flush=True)
    return 0 if decisions else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
