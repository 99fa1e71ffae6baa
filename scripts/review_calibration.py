"""Calibrate the review's marks and ratings: review bots of known strength.

Each bot plays whole matches against itself (the first dealer alternating, deals seeded
like ``ginrummy match``), so the match stays even and every decision still matters to
the match-winning chance (against a much stronger opponent a weak bot soon trails so far
that nothing it does moves its chance, which hides its errors); every decision of both
seats is graded at the review's default sample count with no time limit (so the figures
do not depend on the machine). The losses are written to docs/review_calibration.json;
``--summary`` prints the tables of docs/review.md from it.

    python3 scripts/review_calibration.py --decisions 300 --jobs 2
    python3 scripts/review_calibration.py --summary
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from ginrummy.arena import derive_seed, play_match
from ginrummy.bots import make_bot
from ginrummy.review import BLUNDER, DEFAULT_SAMPLES, INACCURACY, MISTAKE, review_match
from ginrummy.review.report import RATINGS

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "review_calibration.json"
BOTS = ["expert", "strong", "marjj", "simple", "easy", "random"]


def calibrate(bot: str, decisions: int, seed: int, jobs: int) -> dict[str, Any]:
    """Review ``bot``'s self-play matches (both seats) until ``decisions`` are graded."""
    losses: list[float] = []
    matches = hands = 0
    i = 0
    while len(losses) < decisions:
        _, match = play_match(make_bot(bot, derive_seed(seed, bot, i, 0)),
                              make_bot(bot, derive_seed(seed, bot, i, 1)),
                              seed=derive_seed(seed, "deals", i), first_dealer=i % 2)
        for h in range(len(match.hands)):  # hand by hand: random's matches are long
            review = review_match(match, hands=[h], samples=DEFAULT_SAMPLES, budget_ms=None,
                                  seed=i, jobs=jobs)
            losses += [g.loss for g in review.graded]
            hands += 1
            if len(losses) >= decisions:
                break
        matches += 1
        i += 1
        print(f"  {bot}: match {i}, {len(losses)} decisions", file=sys.stderr, flush=True)
    return {"opponent": bot, "matches": matches, "hands": hands,
            "decisions": len(losses), "losses": [round(x, 4) for x in losses]}


def summary(data: dict[str, Any]) -> str:
    """Markdown: each bot's error rate and marks per 100 decisions, at the shipped
    thresholds; then the rating scale."""
    lines = ["| bot | matches | decisions | error rate | 95% CI | ?! /100 | ? /100 | ?? /100 |",
             "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |"]
    for bot in BOTS:
        d = data["bots"].get(bot)
        if not d:
            continue
        xs = d["losses"]
        n = len(xs)
        mean = sum(xs) / n
        se = statistics.stdev(xs) / n ** 0.5 if n > 1 else 0.0
        inac = sum(1 for x in xs if INACCURACY <= x < MISTAKE)
        mist = sum(1 for x in xs if MISTAKE <= x < BLUNDER)
        blun = sum(1 for x in xs if x >= BLUNDER)
        lines.append(f"| {bot} | {d['matches']} | {n} | {100 * mean:.2f}% | "
                     f"{100 * max(0, mean - 1.96 * se):.2f} - {100 * (mean + 1.96 * se):.2f}% | "
                     f"{100 * inac / n:.1f} | {100 * mist / n:.1f} | {100 * blun / n:.1f} |")
    lines += ["", "| rating | error rate below |", "| --- | ---: |"]
    lines += [f"| {word} | {'-' if b == float('inf') else f'{100 * b:.2f}%'} |"
              for b, word in RATINGS]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=300, help="graded decisions per bot")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", action="append", default=[], help="just these bots")
    ap.add_argument("--summary", action="store_true", help="print the tables and exit")
    a = ap.parse_args()
    data: dict[str, Any] = {"samples": DEFAULT_SAMPLES, "seed": a.seed, "bots": {}}
    if OUT.exists() and (a.summary or a.only):
        data = json.loads(OUT.read_text())
    if a.summary:
        print(summary(data))
        return
    for bot in a.only or BOTS:
        t = time.perf_counter()
        data["bots"][bot] = calibrate(bot, a.decisions, a.seed, a.jobs)
        data["bots"][bot]["seconds"] = round(time.perf_counter() - t, 1)
        OUT.write_text(json.dumps(data) + "\n")
    print(summary(data))


if __name__ == "__main__":
    main()
