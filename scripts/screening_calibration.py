"""Calibrate the fair-play screening: how closely bots of known strength, and engine
copiers, agree with the coach.

Each player below plays matches against a rotating opponent (``simple``, ``marjj``,
``strong``, ``expert``; its seat and the first dealer alternate, deals seeded like
``ginrummy match``), and every decision of its seat is graded exactly as the site's
screening grades a finished rated match (:func:`ginrummy.review.screening.screen_match`:
the screening's samples, the review's seed, no time limit). One JSON line per match goes
to ``--out`` (appended, so a run can be stopped and resumed): the player, the opponent,
the seat, the decisions, how many agreed with the coach's first choice, the summed
normalized loss (the review's error rate), and the same counts for the *contested*
decisions (those where the coach's first choice is at least
:data:`~ginrummy.review.screening.CONTESTED` of match-winning chance ahead of its second),
also for a few other such margins (``by_gap``).

Players: the bots by name (``random`` .. ``expert``), ``board`` (plays the analysis
board's first choice at every decision, as someone copying the engine on a laptop would),
``coach`` (plays the screening's own first choice: the open-source coach run beside the
game with the screening's settings), and ``mix:BOT:P`` (plays ``BOT`` with chance P at
each decision, else ``strong``: an occasional copier).

    python3 scripts/screening_calibration.py --player strong --matches 1000 --jobs 2
    python3 scripts/screening_calibration.py --player expert --matches 300 --jobs 2
    python3 scripts/screening_calibration.py --summary

``--summary`` reads the file and prints, for each player, the figures and what the rule
(:func:`ginrummy.review.screening.verdict`) does with them: for each player, the share of
its accounts (consecutive matches taken as one account's history, as the site sees it)
flagged by the time they have played 150, 300 and 600 decisions, and the false-positive
rate of the rule over every window of the honest players' histories.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ginrummy.actions import Action
from ginrummy.arena import derive_seed, play_match
from ginrummy.bots import make_bot
from ginrummy.bots.base import Bot
from ginrummy.evaluator import Evaluator
from ginrummy.evaluator.opponent import OpponentModel
from ginrummy.review.grade import REVIEW_PRIOR
from ginrummy.review.hints import coach_hint
from ginrummy.review.screening import (
    SCREEN_SAMPLES,
    SCREEN_SEED,
    Figures,
    figures_of,
    graded_of,
    score,
    verdict,
)
from ginrummy.view import View
from ginrummy.web.online.screening import WINDOW

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screening_calibration.jsonl"
BOARD_SAMPLES = 1024
"""The samples the board copier asks the analysis board for."""
GAPS = (0.0, 0.005, 0.01, 0.02, 0.04)
"""The contested thresholds whose counts are kept too (to choose the rule's)."""
OPPONENTS = ("simple", "marjj", "strong", "expert")
PER = 8
"""Matches per simulated account (about 900 decisions)."""
HONEST = ("random", "easy", "simple", "marjj", "strong", "expert")
"""Players the rule must not flag (``expert`` is the site's own strongest level: a person
playing that well is possible in principle; the copiers below are what the rule is for)."""


class BoardCopier(Bot):
    """Plays the analysis board's first choice at every decision (``ginrummy analyze
    --position``, or ``POST /api/analysis``, at 1,024 samples and seed 0), from its view
    only (R11): what someone copying the engine on a laptop would play."""

    name = "board"

    def decide(self, view: View) -> Action:
        if len(view.legal) < 2:
            return view.legal[0]
        return Evaluator(samples=BOARD_SAMPLES, seed=0).evaluate(view).best().action


class CoachCopier(Bot):
    """Plays the screening's own first choice at every decision, as someone running the
    open-source coach beside the game with the screening's settings would: the review's
    verdict (:func:`ginrummy.review.hints.coach_hint`, the screening's samples and seed)
    with the opponent's styles as the review reads them from the hands before (R11)."""

    name = "coach"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.model = OpponentModel(prior=REVIEW_PRIOR)

    def new_match(self, seat: int) -> None:
        self.model = OpponentModel(prior=REVIEW_PRIOR)

    def hand_over(self, view: View, result: Any = None) -> None:
        res = result if result is not None else view.result
        if res is not None:
            self.model.hand_over(view, res)

    def decide(self, view: View) -> Action:
        if len(view.legal) < 2:
            return view.legal[0]
        quick, club, _ = self.model.shares()
        return coach_hint(view, styles=(quick, club), samples=SCREEN_SAMPLES,
                          seed=SCREEN_SEED).best.action


class Mixed(Bot):
    """Plays ``inner`` with chance ``p`` at each decision, else ``strong``."""

    def __init__(self, inner: Bot, p: float, seed: int | None = None) -> None:
        super().__init__(seed)
        self.inner = inner
        self.base = make_bot("strong", seed)
        self.p = p
        self.name = f"mix:{inner.name}:{p}"

    def new_match(self, seat: int) -> None:
        self.inner.new_match(seat)
        self.base.new_match(seat)

    def hand_over(self, view: View, result: Any = None) -> None:
        self.inner.hand_over(view, result)
        self.base.hand_over(view, result)

    def decide(self, view: View) -> Action:
        # both see every decision, so each keeps its own picture of the hand
        a = self.inner.decide(view)
        b = self.base.decide(view)
        return a if self.rng.random() < self.p else b


def player(name: str, seed: int) -> Bot:
    """The player called ``name`` (see the module docstring)."""
    if name == "board":
        return BoardCopier(seed)
    if name == "coach":
        return CoachCopier(seed)
    if name.startswith("mix:"):
        _, inner, p = name.split(":")
        return Mixed(player(inner, seed), float(p), seed)
    return make_bot(name, seed)


def one(name: str, i: int, seed: int) -> dict[str, Any]:
    """Match ``i`` of player ``name``: played, then its seat screened."""
    seat = i % 2
    opp = OPPONENTS[(i // 2) % len(OPPONENTS)]
    _, match = play_match(player(name, derive_seed(seed, name, i, 0)),
                          make_bot(opp, derive_seed(seed, opp, i, 1)),
                          seed=derive_seed(seed, "deals", i), first_dealer=(i // 4) % 2,
                          a_seat=seat)
    graded = graded_of(match, seat)
    by_gap = {str(g): list(figures_of(graded, g).to_json().values())[3:]
              for g in GAPS}
    return {"player": name, "i": i, "opponent": opp, "seat": seat,
            "hands": len(match.hands)} | figures_of(graded).to_json() | {"by_gap": by_gap}


def run(name: str, matches: int, seed: int, jobs: int, out: Path) -> None:
    """Play and screen ``matches`` matches of ``name``, skipping those in ``out``."""
    done = {(r["player"], r["i"]) for r in read(out)}
    todo = [i for i in range(matches) if (name, i) not in done]
    print(f"{name}: {len(todo)} matches to play ({matches - len(todo)} done)",
          file=sys.stderr, flush=True)
    with ProcessPoolExecutor(max(1, jobs)) as pool, out.open("a") as fh:
        futs = [pool.submit(one, name, i, seed) for i in todo]
        for k, fut in enumerate(futs):
            fh.write(json.dumps(fut.result(), separators=(",", ":")) + "\n")
            fh.flush()
            if (k + 1) % 20 == 0:
                print(f"  {name}: {k + 1}/{len(todo)}", file=sys.stderr, flush=True)


def read(path: Path) -> list[dict[str, Any]]:
    """The stored matches (none if the file is not there)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def shuffled(rows: list[dict[str, Any]], name: str, seed: int = 7) -> list[Figures]:
    """The matches of ``name`` in a shuffled order (so that a run of them has varied
    opponents and seats, as an account's history has)."""
    mine = sorted((r for r in rows if r["player"] == name), key=lambda r: r["i"])
    random.Random(seed).shuffle(mine)
    return [Figures.from_json(r) for r in mine]


def window(history: list[Figures]) -> Figures:
    """What the site judges after the last match of ``history``: the most recent matches
    until they hold :data:`~ginrummy.web.online.screening.WINDOW` decisions."""
    total = Figures()
    for f in reversed(history):
        if total.decisions >= WINDOW:
            break
        total = total + f
    return total


def first_flag(history: list[Figures]) -> int | None:
    """The decisions an account with this history had played when the rule first flagged
    it (checked after each match, as the site does), or None."""
    played = 0
    for k, f in enumerate(history):
        played += f.decisions
        if verdict(window(history[:k + 1])) is not None:
            return played
    return None


def summary(rows: list[dict[str, Any]]) -> str:
    """Markdown tables: each player's figures; the share of accounts the rule flags by so
    many decisions; and every check of the honest players' long histories it flags."""
    names = sorted({r["player"] for r in rows},
                   key=lambda n: (n not in HONEST, HONEST.index(n) if n in HONEST else 0, n))
    lines = ["| player | matches | decisions | agreement | error rate | score "
             "| contested agreement |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n in names:
        tot = Figures()
        for f in shuffled(rows, n):
            tot = tot + f
        lines.append(f"| {n} | {len(shuffled(rows, n))} | {tot.decisions} "
                     f"| {100 * tot.agreement:.1f}% | {100 * tot.error_rate:.3f}% "
                     f"| {score(tot):.3f} | {100 * tot.contested_agreement:.1f}% of "
                     f"{tot.contested} |")
    lines += ["", f"Accounts of {PER} matches each (their matches in 5 shuffled orders): the "
              "share the rule has flagged by the time they have played so many decisions:",
              "", "| player | accounts | by 150 | by 300 | by 600 | ever |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for n in names:
        flags: list[int | None] = []
        for seed in range(5):
            figs = shuffled(rows, n, seed)
            flags += [first_flag(figs[k:k + PER]) for k in range(0, len(figs) - PER + 1, PER)]
        if not flags:
            continue
        cells = [f"{100 * sum(1 for x in flags if x is not None and x <= lim) / len(flags):.1f}%"
                 for lim in (150, 300, 600)]
        ever = f"{100 * sum(1 for x in flags if x is not None) / len(flags):.1f}%"
        lines.append(f"| {n} | {len(flags)} | " + " | ".join(cells) + f" | {ever} |")
    lines += ["", "False positives: each honest player's matches as one long history (in 5 "
              "shuffled orders), judged after every match as the site does:", "",
              "| player | checks | flagged | decisions |", "| --- | ---: | ---: | ---: |"]
    for n in (h for h in HONEST if h in names):
        checks = flagged = decisions = 0
        for seed in range(5):
            figs = shuffled(rows, n, seed)
            decisions = sum(f.decisions for f in figs)
            for k in range(len(figs)):
                checks += 1
                flagged += verdict(window(figs[:k + 1])) is not None
        lines.append(f"| {n} | {checks} | {flagged} | {decisions} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--player", help="a bot name, board, or mix:BOT:P")
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2044)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--summary", action="store_true")
    args = ap.parse_args()
    if args.summary:
        print(summary(read(args.out)))
        return
    if not args.player:
        ap.error("--player is needed (or --summary)")
    os.environ.setdefault("GINRUMMY_KERNEL", "numba")
    run(args.player, args.matches, args.seed, args.jobs, args.out)


if __name__ == "__main__":
    main()
