"""How much a perfect belief could add to ``expert``'s search: a diagnostic, not a bot.

    PYTHONPATH=src python3 benchmarks/oracle_ceiling.py simple --matches 200 --seed 41 \\
        --modes belief,hand --jobs 2

plays duplicate matches of ``expert`` against an opponent on the deals of
``ginrummy match expert OPPONENT --seed S`` (the same deal and bot seeds), once for each
mode, and reports each mode's win rate and its paired difference from the first mode
(same deals, so the luck of the deal cancels). The modes change only where the search's
sampled deals come from:

- ``belief``: the belief from the seat's view (R11), as shipped: this is ``expert``;
- ``hand``: the opponent's real hand, the stock reshuffled from the other unseen cards
  (the best any belief over the opponent's hand could do);
- ``all``: the real hand and the real stock order (the search sees the future draws);
- ``hand-N``: the real hand with ``N`` of its cards not known from the pile swapped, in
  each sample, for as many other unseen cards at random: a belief between the shipped
  one and a perfect one, whose card Brier score (the mean squared error of its chance
  for every unseen card, as ``scripts/calibration.py`` scores the belief) is reported.

``hand`` and ``all`` cheat on purpose: the script hands the real cards to the search
from outside the bot's view, which no bot of the project can do (docs/bots.md). They
bound what a better belief could gain with this search and these play-out policies;
``strong``'s default moves (the search's starting point) are not changed.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
from typing import Any

import ginrummy.evaluator as evaluator_module
from ginrummy.arena import derive_seed
from ginrummy.bots import Bot, make_bot
from ginrummy.bots.expert import ExpertBot
from ginrummy.driver import Driver
from ginrummy.evaluator.belief import Belief
from ginrummy.hand import Action, View
from ginrummy.kernel.splitmix import Random
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match

MODES = ("belief", "hand", "all")
"""And ``hand-N`` for N = 1, 2, ... (see the module docstring)."""

_TRUTH: dict[str, Any] = {"hand": None, "stock": None, "swap": 0}
"""The real opponent hand and stock (top last) for the decision being searched, and how
many of the hand's unknown cards each sample swaps."""


class _OracleBelief(Belief):
    """Samples the real opponent hand (and, with a stock, the real stock order)."""

    def sample_hand(self, rng: random.Random | Random, quick: bool = False) -> int:
        if _TRUTH["hand"] is None:
            return super().sample_hand(rng, quick)
        hand = int(_TRUTH["hand"])
        swap = int(_TRUTH["swap"])
        if isinstance(rng, Random):  # the evaluator's own generator: seed one from it
            rng = random.Random(rng.next64())
        if swap:
            mine = [u for u in self.unknown if hand >> u & 1]
            other = [u for u in self.unknown if not hand >> u & 1]
            n = min(swap, len(mine), len(other))
            for u in rng.sample(mine, n):
                hand &= ~(1 << u)
            for u in rng.sample(other, n):
                hand |= 1 << u
        return hand

    def sample(self, rng: random.Random | Random,
               quick: bool = False) -> tuple[int, list[int]]:
        hand = self.sample_hand(rng, quick)
        if _TRUTH["stock"] is not None:
            return hand, list(_TRUTH["stock"])
        stock = [u for u in self.unknown if not hand >> u & 1]
        rng.shuffle(stock)
        return hand, stock


class _Oracle(ExpertBot):
    """``expert`` whose search is told the real cards of the live match."""

    def __init__(self, seed: int, mode: str) -> None:
        super().__init__(seed)
        self.mode = mode
        self.swap = int(mode.split("-", 1)[1]) if mode.startswith("hand-") else 0
        self.match: Match | None = None
        self.briers: list[float] = []

    def decide(self, view: View) -> Action:
        assert self.match is not None
        hand = self.match.hand
        _TRUTH["hand"] = hand.mask_of(1 - view.seat)
        _TRUTH["swap"] = self.swap
        if len(view.legal) > 1:
            self.briers.append(self._brier(view))
        # Hand.stock is top first; the play-outs pop the top from the end.
        _TRUTH["stock"] = [c.index for c in reversed(hand.stock)] if self.mode == "all" \
            else None
        try:
            return super().decide(view)
        finally:
            _TRUTH["hand"] = _TRUTH["stock"] = None
            _TRUTH["swap"] = 0

    def _brier(self, view: View) -> float:
        """The card Brier score of this mode's samples at this view (exact: a swapped
        sample holds each of its n unknown cards with chance 1 - N/n and each of the
        other unseen cards with chance N/(unseen - n))."""
        k = Knowledge.of(view)
        unseen = k.unseen.bit_count()
        n = k.opp_unknown
        swap = min(self.swap, n, unseen - n)
        if not n or unseen <= n:
            return 0.0
        return (n * (swap / n) ** 2 + (unseen - n) * (swap / (unseen - n)) ** 2) / unseen


def _pair(args: tuple[str, int, int, str]) -> dict[str, Any]:
    """Both matches of one pair (seats swapped, the same deals) in one mode: the expert's
    score (1 a win, 1/2 a tie) and points in each."""
    opponent, seed, pair, mode = args
    setattr(evaluator_module, "Belief", _OracleBelief)  # noqa: B010 - this process only
    deal_seed = derive_seed(seed, "deals", pair)
    out: dict[str, Any] = {"pair": pair, "mode": mode, "score": 0.0, "points": [0, 0],
                           "hands": 0, "briers": []}
    for a_seat in (0, 1):
        index = 2 * pair + a_seat
        a_seed = derive_seed(seed, index, a_seat)
        expert: Bot = ExpertBot(a_seed) if mode == "belief" else _Oracle(a_seed, mode)
        other = make_bot(opponent, derive_seed(seed, index, 1 - a_seat))
        by_seat = [expert, other] if a_seat == 0 else [other, expert]
        match = Match(None, seed=deal_seed, first_dealer=pair % 2)
        if isinstance(expert, _Oracle):
            expert.match = match
        for s in (0, 1):
            by_seat[s].new_match(s)
        Driver(match, by_seat).run()
        if isinstance(expert, _Oracle):
            out["briers"] += expert.briers
        outcome = match.outcome()
        assert outcome is not None
        out["score"] += 0.5 if outcome.winner is None else float(outcome.winner == a_seat)
        out["points"][0] += match.scores[a_seat]
        out["points"][1] += match.scores[1 - a_seat]
        out["hands"] += len(match.results())
    out["score"] /= 2
    return out


def _ci(xs: list[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return round(m, 4), round(m - half, 4), round(m + half, 4)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("opponent", help="a bot name, e.g. simple, marjj, strong")
    ap.add_argument("--matches", type=int, default=200, help="matches per mode (pairs x 2)")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--modes", default="belief,hand", help="comma-separated: " + ",".join(MODES))
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    def known(m: str) -> bool:
        return m in MODES or (m.startswith("hand-") and m[5:].isdigit() and int(m[5:]) > 0)

    if not modes or not all(known(m) for m in modes):
        ap.error(f"--modes takes {', '.join(MODES)}, not {args.modes!r}")
    pairs = max(1, args.matches // 2)
    tasks = [(args.opponent, args.seed, p, m) for m in modes for p in range(pairs)]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            rows = pool.map(_pair, tasks, chunksize=1)
    else:
        rows = [_pair(t) for t in tasks]
    by_mode = {m: sorted((r for r in rows if r["mode"] == m), key=lambda r: r["pair"])
               for m in modes}
    base = [r["score"] for r in by_mode[modes[0]]]
    report: dict[str, Any] = {"opponent": args.opponent, "seed": args.seed,
                              "matches": 2 * pairs, "modes": {}}
    for m in modes:
        scores = [r["score"] for r in by_mode[m]]
        hands = sum(r["hands"] for r in by_mode[m])
        pts = [sum(r["points"][i] for r in by_mode[m]) / hands for i in (0, 1)]
        row: dict[str, Any] = {"win_rate": _ci(scores),
                               "points_per_hand": [round(p, 2) for p in pts]}
        briers = [b for r in by_mode[m] for b in r["briers"]]
        if briers:
            row["card_brier"] = round(statistics.fmean(briers), 4)
        if m != modes[0]:
            row["minus_" + modes[0]] = _ci([a - b for a, b in zip(scores, base, strict=True)])
        report["modes"][m] = row
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
