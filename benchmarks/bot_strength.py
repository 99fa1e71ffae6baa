"""Duplicate-match strength test between two project bots (a tuning tool, not a test).

Each pair plays the same deals twice with the seats swapped and the same first dealer,
and the first dealer alternates from pair to pair, so the luck of the deal largely
cancels. Prints A's win rate with a 95% confidence interval, points per hand, gin and
undercut rates, and both bots' decision times.

    PYTHONPATH=src python3 benchmarks/bot_strength.py strong marjj --pairs 100 --jobs 2
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool

from ginrummy.bots import BOTS, make_bot
from ginrummy.hand import Deal
from ginrummy.match import HAND_LIMIT, Match
from ginrummy.options import Options


@dataclass
class Tally:
    """Counts for one side (bot A or bot B) over a set of matches."""

    wins: float = 0.0
    points: int = 0
    gins: int = 0
    knocks: int = 0
    undercuts_won: int = 0
    times: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Merge another tally into this one."""
        self.wins += other.wins
        self.points += other.points
        self.gins += other.gins
        self.knocks += other.knocks
        self.undercuts_won += other.undercuts_won
        self.times += other.times


@dataclass
class PairResult:
    """The outcome of one duplicate pair: A's score (0, 0.5, ..., 2) and the tallies."""

    score_a: float
    hands: int
    dead: int
    a: Tally
    b: Tally


def _play(names: tuple[str, str], seeds: tuple[int, int], deals: list[Deal], first: int,
          options: Options) -> tuple[Match, list[list[float]]]:
    """One match with ``names[s]`` in seat s; returns the match and per-seat decision times."""
    bots = [make_bot(names[0], seeds[0]), make_bot(names[1], seeds[1])]
    for s, b in enumerate(bots):
        b.new_match(s)
    match = Match(options, seed=0, first_dealer=first, deals=iter(deals))
    times: list[list[float]] = [[], []]
    while not match.is_over():
        hand = match.hand
        seat = hand.to_play
        assert seat is not None
        view = hand.view(seat)
        t0 = time.perf_counter()
        action = bots[seat].decide(view)
        times[seat].append(time.perf_counter() - t0)
        if action not in view.legal:
            raise SystemExit(f"{names[seat]} played an illegal action: {action}")
        match.play(action, seat)
        if hand.is_over():
            for s, b in enumerate(bots):
                b.hand_over(hand.view(s), hand.result)
    return match, times


def play_pair(args: tuple[str, str, int, int, int]) -> PairResult:
    """Play duplicate pair ``index`` between bots A and B on deals from ``seed``."""
    a, b, seed, index, target = args
    rng = random.Random(seed * 1_000_003 + index)
    deals = [Deal.shuffled(rng) for _ in range(HAND_LIMIT)]
    first = index % 2
    options = Options(target=target)
    ta, tb = Tally(), Tally()
    score_a = 0.0
    hands = dead = 0
    for a_seat in (0, 1):
        names = (a, b) if a_seat == 0 else (b, a)
        bot_seeds = (seed * 7919 + index * 2 + a_seat, seed * 7919 + index * 2 + 1 - a_seat)
        match, times = _play(names, bot_seeds, deals, first, options)
        out = match.outcome()
        assert out is not None
        win = 1.0 if out.winner == a_seat else 0.5 if out.winner is None else 0.0
        score_a += win
        ta.wins += win
        tb.wins += 1.0 - win
        ta.times += times[a_seat]
        tb.times += times[1 - a_seat]
        for h in match.hands:
            r = h.result
            assert r is not None
            hands += 1
            if r.result == "dead":
                dead += 1
                continue
            side = ta if r.knocker == a_seat else tb
            other = tb if side is ta else ta
            side.knocks += 1
            if r.result == "gin":
                side.gins += 1
            if r.result == "undercut":
                other.undercuts_won += 1
            scorer = ta if r.scorer == a_seat else tb
            scorer.points += r.points
    return PairResult(score_a, hands, dead, ta, tb)


def _fmt_times(ts: Sequence[float]) -> str:
    if not ts:
        return "n/a"
    s = sorted(ts)
    p95 = s[min(len(s) - 1, int(0.95 * len(s)))]
    return (f"median {statistics.median(s) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, "
            f"max {s[-1] * 1000:.1f} ms over {len(s)} decisions")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, play the pairs (optionally in worker processes), print a report."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--pairs", type=int, default=50, help="duplicate pairs (2 matches each)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--target", type=int, default=100, choices=(100, 150, 200, 250))
    ns = p.parse_args(argv)
    for name in (ns.a, ns.b):
        if name not in BOTS:
            print(f"Unknown bot {name!r}: choose one of {', '.join(sorted(BOTS))}.",
                  file=sys.stderr)
            return 2
    if ns.pairs < 1 or ns.jobs < 1:
        print("--pairs and --jobs must be at least 1.", file=sys.stderr)
        return 2
    work = [(ns.a, ns.b, ns.seed, i, ns.target) for i in range(ns.pairs)]
    t0 = time.perf_counter()
    if ns.jobs == 1:
        results = [play_pair(w) for w in work]
    else:
        with Pool(ns.jobs) as pool:
            results = pool.map(play_pair, work, chunksize=1)
    secs = time.perf_counter() - t0
    ta, tb = Tally(), Tally()
    hands = dead = 0
    for r in results:
        ta.add(r.a)
        tb.add(r.b)
        hands += r.hands
        dead += r.dead
    n = 2 * len(results)
    rate = ta.wins / n
    pair_rates = [r.score_a / 2 for r in results]
    sd = statistics.pstdev(pair_rates) if len(pair_rates) > 1 else 0.5
    half = 1.96 * sd / math.sqrt(len(pair_rates))
    print(f"{ns.a} vs {ns.b}: {n} matches ({len(results)} duplicate pairs), seed {ns.seed}, "
          f"target {ns.target}, {secs:.0f} s")
    print(f"  {ns.a} win rate {rate:.3f}  95% CI [{rate - half:.3f}, {rate + half:.3f}]"
          f"  (wins {ta.wins:g} / {tb.wins:g}, ties counted half)")
    print(f"  hands {hands} ({dead} dead, {dead / hands:.1%})")
    for name, t in ((ns.a, ta), (ns.b, tb)):
        print(f"  {name:>8}: points/hand {t.points / hands:.2f}, knocks/hand "
              f"{t.knocks / hands:.3f}, gins/hand {t.gins / hands:.3f}, "
              f"undercuts won/hand {t.undercuts_won / hands:.3f}")
        print(f"  {'':>8}  decision time {_fmt_times(t.times)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
