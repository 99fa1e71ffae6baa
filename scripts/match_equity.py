"""Regenerate the match-equity data (src/ginrummy/data/match_equity.json) by self-play.

Plays whole matches of ``strong`` against ``strong`` for each table variant (standard,
gin only, Oklahoma) and counts how the hands ended, from the dealer's point of view:
the dealer scored p points, the non-dealer scored p points, or the hand was dead.
``ginrummy.equity`` turns those counts into an exact match-equity table for every target
(R10) with a dynamic programme, so only the counts are shipped.

    python3 scripts/match_equity.py --matches 800 --seed 2026 --jobs 2
    python3 scripts/match_equity.py --summary     # the tables in docs/equity.md

Same arguments, same file (the matches are seeded like ``ginrummy match``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ginrummy.arena import derive_seed, play_match
from ginrummy.bots import make_bot
from ginrummy.equity import DATA_FORMAT, DATA_PATH, variant_key
from ginrummy.options import Options

VARIANTS = {
    "standard": Options(),
    "gin_only": Options(gin_only=True),
    "oklahoma": Options(oklahoma=True),
}
BOT = "strong"


def play(args: tuple[str, int, int]) -> dict[str, Any]:
    """Counts of hand outcomes over one match of BOT vs BOT (variant, seed, match index)."""
    name, seed, index = args
    options = VARIANTS[name]
    stats, match = play_match(
        make_bot(BOT, derive_seed(seed, index, 0)),
        make_bot(BOT, derive_seed(seed, index, 1)),
        seed=derive_seed(seed, "deals", index),
        first_dealer=index % 2,
        options=options,
        index=index,
    )
    dealer: Counter[int] = Counter()
    non_dealer: Counter[int] = Counter()
    dead = 0
    for hand in match.hands:
        r = hand.result
        if r is None:
            continue
        if r.scorer is None:
            dead += 1
        elif r.scorer == hand.dealer:
            dealer[r.points] += 1
        else:
            non_dealer[r.points] += 1
    return {"dealer": dealer, "non_dealer": non_dealer, "dead": dead,
            "hands": len(match.hands), "hit_limit": int(match.outcome().reason == "hand_limit")}


def gather(name: str, matches: int, seed: int, jobs: int) -> dict[str, Any]:
    """One variant's counts over ``matches`` self-play matches."""
    work = [(name, seed, i) for i in range(matches)]
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            parts = pool.map(play, work, chunksize=8)
    else:
        parts = [play(w) for w in work]
    dealer: Counter[int] = Counter()
    non_dealer: Counter[int] = Counter()
    for p in parts:
        dealer.update(p["dealer"])
        non_dealer.update(p["non_dealer"])
    opts = VARIANTS[name]
    return {
        "options": {"gin_only": opts.gin_only, "oklahoma": opts.oklahoma},
        "matches": matches,
        "hands": sum(p["hands"] for p in parts),
        "matches_at_hand_limit": sum(p["hit_limit"] for p in parts),
        "dead": sum(p["dead"] for p in parts),
        "dealer": {str(k): dealer[k] for k in sorted(dealer)},
        "non_dealer": {str(k): non_dealer[k] for k in sorted(non_dealer)},
    }


def summary() -> str:
    """Markdown tables of the shipped data (for docs/equity.md)."""
    from ginrummy.equity import hand_outcomes, win_chance

    lines = ["| variant | hands | dead | dealer scores | non-dealer scores | mean points |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, opts in VARIANTS.items():
        o = hand_outcomes(opts)
        pd, pn = sum(o.dealer), sum(o.non_dealer)
        pairs = zip(o.dealer, o.non_dealer, strict=True)
        mean = sum(p * (a + b) for p, (a, b) in enumerate(pairs, 1))
        lines.append(f"| {name} | {o.hands} | {o.dead:.3f} | {pd:.3f} | {pn:.3f} | "
                     f"{mean / (pd + pn):.1f} |")
    lines += ["", "Chance that the player who plays first (the non-dealer) wins from 0-0:", "",
              "| target | standard | gin only | Oklahoma |", "| ---: | ---: | ---: | ---: |"]
    for t in (100, 150, 200, 250):
        row = [win_chance((0, 0), 0, 1, Options(target=t, gin_only=o.gin_only,
                                                 oklahoma=o.oklahoma))
               for o in VARIANTS.values()]
        lines.append(f"| {t} | " + " | ".join(f"{w:.3f}" for w in row) + " |")
    cols = [0, 20, 40, 60, 80, 90]
    lines += ["", "Standard table, target 100: chance that seat A wins, A about to deal "
              "(rows: A's score, columns: the opponent's):", "",
              "| A \\ B | " + " | ".join(map(str, cols)) + " |",
              "| ---: | " + " | ".join("---:" for _ in cols) + " |"]
    for a in cols:
        lines.append(f"| {a} | " + " | ".join(
            f"{win_chance((a, b), 0, 0, Options()):.3f}" for b in cols) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--summary", action="store_true",
                    help="print markdown tables of the shipped data and exit")
    ap.add_argument("--matches", type=int, default=800, help="matches per variant")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=DATA_PATH)
    a = ap.parse_args()
    if a.summary:
        print(summary())
        return
    variants: dict[str, Any] = {}
    for name, opts in VARIANTS.items():
        t = time.perf_counter()
        variants[variant_key(opts)] = gather(name, a.matches, a.seed, a.jobs)
        v = variants[variant_key(opts)]
        print(f"{name}: {v['hands']} hands in {time.perf_counter() - t:.0f} s",
              file=sys.stderr, flush=True)
    data = {
        "format": DATA_FORMAT,
        "about": "Hand outcomes from the dealer's point of view in self-play "
                 f"({BOT} vs {BOT}), counted over whole matches to 100. "
                 "Regenerate: python3 scripts/match_equity.py "
                 f"--matches {a.matches} --seed {a.seed}",
        "bot": BOT,
        "seed": a.seed,
        "variants": variants,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
