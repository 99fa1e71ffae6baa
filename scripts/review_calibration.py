"""Calibrate the review's marks and ratings: review bots of known strength.

Each bot plays matches against one common opponent (default ``strong``; the bot's seat
and the first dealer alternate, deals seeded like ``ginrummy match``), and a few hands of
each match, picked at random, are reviewed: every decision of the bot's seat, at the
review's default sample count with no time limit (so the figures do not depend on the
machine). A few hands from many matches cover more scores and deals than whole matches
would. Each decision's loss (match-winning chance) and normalized loss (the loss at a
first hand's stakes, which the marks and the rating go by) are written to
docs/review_calibration.json; ``--summary`` prints the tables of docs/review.md from it.

    python3 scripts/review_calibration.py --decisions 800 --jobs 2 --only random easy simple
    python3 scripts/review_calibration.py --decisions 800 --jobs 2 --only marjj strong expert
    python3 scripts/review_calibration.py --decisions 1600 --jobs 2 --only marjj --extend
    python3 scripts/review_calibration.py --decisions 1600 --jobs 2 --seed 2027 \
        --out docs/review_calibration_2027.json
    python3 scripts/review_calibration.py --decisions 1600 --jobs 2 --seed 2028 \
        --only simple marjj strong --out docs/review_calibration_2028.json
    python3 scripts/review_calibration.py --decisions 1600 --jobs 2 --seed 2029 \
        --only simple marjj strong --out docs/review_calibration_2029.json
    python3 scripts/review_calibration.py --summary

``--summary`` pools the stored runs (:data:`FILES`: each bot's decisions from every seed;
matches stay separate clusters); ``--summary --files F`` shows one run.

Confidence intervals are clustered by match (decisions of one match are not independent).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from ginrummy.arena import derive_seed, play_match
from ginrummy.bots import make_bot
from ginrummy.hand import Phase
from ginrummy.review import (
    BLUNDER,
    DEFAULT_SAMPLES,
    INACCURACY,
    MISTAKE,
    PLAYS_LIKE,
    RATINGS,
    Moment,
    review_match,
)

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "review_calibration.json"
FILES = (OUT, ROOT / "docs" / "review_calibration_2031.json")
"""The calibration: two independent runs of every bot (seeds 2030 and 2031) at the review's
default settings, pooled by ``--summary``."""
BOTS = ["random", "easy", "simple", "marjj", "strong", "expert"]
"""Weakest first, as their match results order them (docs/results.md)."""


def kind(m: Moment) -> str:
    """What sort of decision a moment was: the up-card offer, a draw, a knock made, a
    knock that was allowed but not made, or a plain discard."""
    if m.view.phase is Phase.DISCARD:
        if m.played.knock:
            return "knock"
        return "no knock" if any(a.knock for a in m.view.legal) else "discard"
    return "draw" if m.view.phase is Phase.DRAW else "offer"


def calibrate(bot: str, opponent: str, decisions: int, per_match: int, seed: int,
              jobs: int, old: dict[str, Any] | None = None) -> dict[str, Any]:
    """Review ``bot``'s decisions in ``per_match`` random hands of each of its matches
    against ``opponent`` until ``decisions`` are graded; ``old`` (an earlier result with
    the same settings) is extended with the matches after its last."""
    rows: list[list[float]] = []  # [match, loss, normalized loss]
    hands = i = 0
    if old is not None:
        rows, hands, i = old["rows"], old["hands"], old["matches"]
    while len(rows) < decisions:
        seat = i % 2
        _, match = play_match(make_bot(bot, derive_seed(seed, bot, i, 0)),
                              make_bot(opponent, derive_seed(seed, opponent, i, 1)),
                              seed=derive_seed(seed, "deals", i), first_dealer=(i // 2) % 2,
                              a_seat=seat)
        rng = random.Random(derive_seed(seed, "hands", bot, i))
        picked = sorted(rng.sample(range(len(match.hands)), min(per_match, len(match.hands))))
        review = review_match(match, seats=[seat], hands=picked, samples=DEFAULT_SAMPLES,
                              budget_ms=None, seed=i, jobs=jobs)
        rows += [[i, g.loss, g.normalized, g.unbiased, kind(g.moment)] for g in review.graded]
        hands += len(picked)
        i += 1
        print(f"  {bot}: match {i}, {len(rows)} decisions", file=sys.stderr, flush=True)
    return {"opponent": opponent, "matches": i, "hands": hands, "decisions": len(rows),
            "rows": rows}


def rate(rows: list[list[float]], col: int) -> tuple[float, float]:
    """Mean of column ``col`` and its standard error, clustered by match."""
    n = len(rows)
    mean = sum(r[col] for r in rows) / n
    by_match: dict[float, float] = {}
    for r in rows:
        by_match[r[0]] = by_match.get(r[0], 0.0) + r[col] - mean
    k = len(by_match)
    if k < 2:
        return mean, 0.0
    se = (sum(x * x for x in by_match.values()) * k / (k - 1)) ** 0.5 / n
    return mean, se


def pool(datas: list[dict[str, Any]]) -> dict[str, Any]:
    """Several stored runs as one: each bot's rows together, match numbers kept apart."""
    out: dict[str, Any] = {"samples": datas[0]["samples"],
                           "seed": [d["seed"] for d in datas], "bots": {}}
    for k, d in enumerate(datas):
        for bot, b in d["bots"].items():
            o = out["bots"].setdefault(bot, {"matches": 0, "decisions": 0, "rows": []})
            o["matches"] += b["matches"]
            o["decisions"] += b["decisions"]
            o["rows"] += [[r[0] + 100_000 * k, *r[1:]] for r in b["rows"]]
    return out


def summary(data: dict[str, Any]) -> str:
    """Markdown: each bot's error rates (normalized, which the rating goes by; cross-fitted,
    its lower bound; raw) and marks per 100 decisions at the shipped thresholds; the
    ordering check; the rating scale with the bounds the data suggest (halfway between
    adjacent bots)."""
    lines = ["| bot | matches | decisions | error rate (normalized; the rating's) | 95% CI "
             "| cross-fitted rate | raw error rate | ?! /100 | ? /100 | ?? /100 |",
             "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    rates: list[tuple[str, float, float]] = []
    kinds: dict[str, dict[str, tuple[int, float]]] = {}
    for bot in BOTS:
        d = data["bots"].get(bot)
        if not d:
            continue
        rows = d["rows"]
        n = len(rows)
        mean, se = rate(rows, 2)
        crossed = f"{100 * rate(rows, 3)[0]:.2f}%" if all(len(r) > 3 for r in rows) else "-"
        raw, _ = rate(rows, 1)
        xs = [r[2] for r in rows]
        inac = sum(1 for x in xs if INACCURACY <= x < MISTAKE)
        mist = sum(1 for x in xs if MISTAKE <= x < BLUNDER)
        blun = sum(1 for x in xs if x >= BLUNDER)
        rates.append((bot, mean, se))
        lines.append(f"| {bot} | {d['matches']} | {n} | {100 * mean:.2f}% | "
                     f"{100 * (mean - 1.96 * se):.2f} - {100 * (mean + 1.96 * se):.2f}% | "
                     f"{crossed} | {100 * raw:.2f}% | "
                     f"{100 * inac / n:.1f} | {100 * mist / n:.1f} | {100 * blun / n:.1f} |")
        if all(len(r) > 4 for r in rows):
            for r in rows:
                c, tot = kinds.setdefault(bot, {}).get(r[4], (0, 0.0))
                kinds[bot][r[4]] = (c + 1, tot + r[2])
    if kinds:
        names = ["offer", "draw", "discard", "knock", "no knock"]
        lines += ["", "Where the rating rate comes from: decisions per 100 of each kind, and "
                  "each kind's share of the rate (normalized loss per 100 decisions "
                  "of all kinds):", "",
                  "| bot | " + " | ".join(names) + " |",
                  "| --- |" + " ---: |" * len(names)]
        for bot, per in kinds.items():
            n = sum(c for c, _ in per.values())
            cells = [f"{100 * per.get(k, (0, 0.0))[0] / n:.0f}: "
                     f"{100 * per.get(k, (0, 0.0))[1] / n:+.2f}" for k in names]
            lines.append(f"| {bot} | " + " | ".join(cells) + " |")
    lines.append("")
    for (a, ma, sa), (b, mb, sb) in zip(rates, rates[1:], strict=False):
        order = "higher than" if ma > mb else "NOT higher than"
        z = (ma - mb) / max((sa * sa + sb * sb) ** 0.5, 1e-12)
        sep = "apart beyond" if abs(z) > 1.96 else "within"
        lines.append(f"- `{a}` {100 * ma:.2f}% is {order} `{b}` {100 * mb:.2f}% "
                     f"(z = {z:.1f}: {sep} the 95% intervals of the difference)")
    if len(rates) >= 2:
        mids = [(x[1] + y[1]) / 2 for x, y in zip(rates, rates[1:], strict=False)]
        lines.append("- rating bounds from these data, strongest first, halfway between "
                     "adjacent bots (no band above the strongest: the review grades with "
                     "its evaluator): " + ", ".join(f"{100 * m:.2f}%" for m in reversed(mids)))
    lines += ["", "| rating | error rate below | plays like |", "| --- | ---: | --- |"]
    lines += [f"| {word} | {'-' if b == float('inf') else f'{100 * b:.3f}%'} | "
              f"{PLAYS_LIKE[word]} |" for b, word in RATINGS]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=800, help="graded decisions per bot")
    ap.add_argument("--opponent", default="strong", help="the common opponent")
    ap.add_argument("--hands-per-match", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", nargs="+", default=[], help="just these bots (kept with the "
                    "others already in the file)")
    ap.add_argument("--extend", action="store_true", help="add matches to the bots' stored "
                    "results until each has --decisions")
    ap.add_argument("--summary", action="store_true",
                    help="print the tables of the stored runs, pooled, and exit")
    ap.add_argument("--files", nargs="+", type=Path, default=list(FILES),
                    help="with --summary: the stored runs to pool")
    ap.add_argument("--out", type=Path, default=OUT, help="where the run is stored")
    a = ap.parse_args()
    if a.summary:
        print(summary(pool([json.loads(f.read_text()) for f in a.files if f.exists()])))
        return
    out = a.out
    data: dict[str, Any] = {"samples": DEFAULT_SAMPLES, "seed": a.seed, "bots": {}}
    if out.exists() and (a.only or a.extend):
        old = json.loads(out.read_text())
        if "rows" in next(iter(old["bots"].values()), {"rows": 0}):
            data = old
    for bot in a.only or BOTS:
        if bot not in BOTS:
            ap.error(f"unknown bot {bot!r}: choose from {', '.join(BOTS)}")
        old = data["bots"].get(bot) if a.extend else None
        if old is not None and (old["opponent"] != a.opponent or data["seed"] != a.seed
                                or old.get("per_match", 2) != a.hands_per_match):
            ap.error(f"--extend: {bot}'s stored results were made with other settings")
        t = time.perf_counter()
        spent = old["seconds"] if old is not None else 0.0
        data["bots"][bot] = calibrate(bot, a.opponent, a.decisions, a.hands_per_match,
                                      a.seed, a.jobs, old)
        data["bots"][bot]["per_match"] = a.hands_per_match
        data["bots"][bot]["seconds"] = round(spent + time.perf_counter() - t, 1)
        if out.exists() and a.only:  # keep bots another run stored meanwhile
            stored = json.loads(out.read_text())
            if stored.get("seed") == a.seed and "rows" in next(iter(stored["bots"].values()),
                                                               {"rows": 0}):
                data["bots"] = {**stored["bots"], bot: data["bots"][bot]}
        out.write_text(json.dumps(data) + "\n")
    print(summary(data))


if __name__ == "__main__":
    main()
