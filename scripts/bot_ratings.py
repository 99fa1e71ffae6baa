"""Fit the computer levels' published ratings from their results against each other.

Plays every pair of the levels offered to people (the bots behind ``easy``, ``medium``
and ``hard``, :func:`ginrummy.web.tables.levels.resolve_bot`) with ``ginrummy match`` (paired
deals, seats swapped) and fits one rating per level on the players' Glicko scale: the
expected score of level i against level j is ``1 / (1 + 10 ** ((r_j - r_i) / 400))``
(Glicko-2's expected score for opponents with a settled deviation), fitted by weighted
least squares on each pair's log-odds, anchored so that ``medium`` plays at 1500 (a
newcomer's rating). Scores are smoothed by one win and one loss per pair, so a level that
won every match still gets a finite gap. The numbers the web table publishes
(``ginrummy.web.online.ratings.BOT_RATINGS``) come from::

    python scripts/bot_ratings.py --matches 400 --hard-matches 300 --seed 31

which printed (five minutes on both cores of a two-core machine)::

    easy (easy) v medium (medium): score share 0.013 over 400 matches
    easy (easy) v hard (expert): score share 0.020 over 300 matches
    medium (medium) v hard (expert): score share 0.247 over 300 matches
    {"easy": 910, "hard": 1680, "medium": 1500}

The hard-medium gap rests on 300 matches (a score share good to about 0.025, so about
fifty rating points; `expert` scored 0.807 against `marjj` over 2,000, docs/bots.md,
which alone would put the gap near 250); easy's rests on few results (score shares of
0.013 and 0.020). Rerun with more matches and update the constants.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

LEVELS = ("easy", "medium", "hard")
ANCHOR = ("medium", 1500.0)


def play(a: str, b: str, matches: int, seed: int, jobs: int) -> dict[str, float]:
    """One ``ginrummy match`` between two bots; its JSON summary."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(
        [sys.executable, "-m", "ginrummy.cli", "match", a, b, "--matches", str(matches),
         "--seed", str(seed), "--jobs", str(jobs), "--json"],
        check=True, capture_output=True, text=True, env=env)
    result: dict[str, float] = json.loads(out.stdout)
    return result


def fit(results: list[tuple[str, str, float, int]]) -> dict[str, float]:
    """Ratings from (level a, level b, a's score share, matches): weighted least squares
    on the smoothed log-odds, ``ANCHOR`` fixed."""
    names = sorted({x for r in results for x in r[:2]})
    free = [n for n in names if n != ANCHOR[0]]
    idx = {n: i for i, n in enumerate(free)}
    k = len(free)
    ata = [[0.0] * k for _ in range(k)]
    atb = [0.0] * k
    for a, b, share, n in results:
        p = (share * n + 1.0) / (n + 2.0)
        gap = 400.0 * math.log10(p / (1.0 - p))  # r_a - r_b
        w = n * p * (1.0 - p)  # the log-odds' precision
        row = [0.0] * k
        rhs = gap
        for name, sign in ((a, 1.0), (b, -1.0)):
            if name == ANCHOR[0]:
                rhs -= sign * ANCHOR[1]
            else:
                row[idx[name]] += sign
        for i in range(k):
            atb[i] += w * row[i] * rhs
            for j in range(k):
                ata[i][j] += w * row[i] * row[j]
    # solve the small normal equations (Gauss-Jordan)
    m = [ata[i] + [atb[i]] for i in range(k)]
    for c in range(k):
        piv = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[piv] = m[piv], m[c]
        for r in range(k):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    out = {ANCHOR[0]: ANCHOR[1]}
    for n, i in idx.items():
        out[n] = m[i][k] / m[i][i]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=40, help="matches per pair (even)")
    p.add_argument("--hard-matches", type=int, default=16,
                   help="matches per pair involving the hard level (its bot searches)")
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    from ginrummy.web.tables.levels import resolve_bot

    bots = {lv: resolve_bot(lv) for lv in LEVELS}
    results = []
    for a, b in itertools.combinations(LEVELS, 2):
        n = args.hard_matches if "hard" in (a, b) else args.matches
        r = play(bots[a], bots[b], n, args.seed, args.jobs)
        share = float(r["win_rate"])
        results.append((a, b, share, int(r["matches"])))
        print(f"{a} ({bots[a]}) v {b} ({bots[b]}): score share {share:.3f} over "
              f"{r['matches']} matches", flush=True)
    ratings = fit(results)
    print(json.dumps({k: round(v / 10) * 10 for k, v in sorted(ratings.items())}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
