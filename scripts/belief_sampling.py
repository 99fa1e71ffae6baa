"""Sampled opponent hands from the learned belief, against the heuristic's own samples.

A prototype measurement (:mod:`ginrummy.evaluator.learned_sampler`; no bot samples this
way yet). Replays held-out self-play matches (``scripts/belief_data.py``'s pairings) and,
at every discard decision of either seat, draws ``--samples`` opponent hands each way:

* heuristic, patient / expert's prior: :class:`ginrummy.evaluator.belief.Belief` as the
  review samples (every opponent patient) and as ``expert`` starts a match (a quick
  knocker in 0.75 of the deals);
* learned, drawn: a conditional Bernoulli draw from the learned card chances;
* learned weights: the heuristic sampler (expert's prior) with the learned odds as its
  card weights;
* learned weights, not improved: as "learned weights" without the heuristic's
  improvement steps (its redraws kept);
* tilted: a pool of heuristic hands (expert's prior) and as many learned-drawn ones,
  reweighted to the learned card chances (raking), then drawn from by weight;
* tilted, heuristic pool: the same from four times as many heuristic hands alone.

For each way: the card chances of its samples (log-loss, Brier), where the opponent's real
deadwood falls among the sampled hands' (above their 90th percentile / below their 10th:
0.10 each when calibrated; the shape of the hands), and, where a knock short of gin is
allowed, the chance that the least-deadwood knock now is undercut (R9) against the
truth (the exact showdown against the real hand, R8). ::

    python scripts/belief_sampling.py --matches 30 --seed 3 --samples 256
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import replace

import belief_data

from ginrummy.arena import derive_seed
from ginrummy.bots.expert import EXPERT_BELIEF
from ginrummy.driver import Driver, reraise
from ginrummy.evaluator.belief import Belief
from ginrummy.evaluator.learned import card_chances
from ginrummy.evaluator.learned_sampler import cb_draw, cb_table, draw_by_weight, tilt
from ginrummy.evaluator.opponent import PRIOR
from ginrummy.hand import Phase, View
from ginrummy.kernel.solver import settle
from ginrummy.kernel.spec import PATIENT, QUICK, scorer_of
from ginrummy.kernel.splitmix import Random
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.melds import deadwood_by_discard_mask, deadwood_mask

WAYS = ("heuristic, patient", "heuristic, expert's prior", "learned, drawn",
        "learned weights", "learned weights, not improved", "tilted",
        "tilted, heuristic pool")


def positions(matches: int, seed: int) -> list[tuple[View, int]]:
    """(view, the opponent's real hand) at every discard decision of ``matches`` matches."""
    out: list[tuple[View, int]] = []
    for m in range(matches):
        names = belief_data.PAIRINGS[m % len(belief_data.PAIRINGS)]
        bots = [belief_data.make(names[s], derive_seed(seed, "belief-bot", m, s))
                for s in (0, 1)]
        match = Match(seed=derive_seed(seed, "belief-deal", m), first_dealer=m % 2)
        seen: list[tuple[View, int, int]] = []
        players = [belief_data.Recorder(bots[s], s, match, seen) for s in (0, 1)]
        for s in (0, 1):
            bots[s].new_match(s)
        Driver(match, players, on_failure=reraise).run()
        out += [(v, opp) for v, opp, _ in seen if v.phase is Phase.DISCARD]
    return out


def knock_hand(view: View, mine: int) -> int | None:
    """The 10 cards the least-deadwood knock short of gin keeps, or None."""
    knocks = [a.card.index for a in view.legal if a.knock and a.card is not None]
    if not knocks:
        return None
    table = deadwood_by_discard_mask(mine)
    best = min(knocks, key=lambda i: (table[i], i))
    return None if table[best] == 0 else mine & ~(1 << best)


def samplers(view: View, k: Knowledge, n: int, rng: Random) -> dict[str, Callable[[], list[int]]]:
    """Each way's draw of ``n`` hands for this position."""
    chances = card_chances(view)
    base = Belief(k, view.knock_limit, EXPERT_BELIEF)
    items = base.unknown
    target = [chances[c] for c in items]
    odds = [p / (1.0 - p) if p < 1.0 else 1e9 for p in target]
    weighted = Belief(k, view.knock_limit, EXPERT_BELIEF)
    weighted.weights = odds
    plain = Belief(k, view.knock_limit, replace(EXPERT_BELIEF, improve=0.0, quick_improve=0.0))
    plain.weights = odds

    def prior_style() -> int:
        return QUICK if rng.random() < PRIOR[0] else PATIENT

    def drawn() -> list[int]:
        table = cb_table(odds, k.opp_unknown)
        return [k.opp_known | cb_draw(items, odds, table, k.opp_unknown, rng)
                for _ in range(n)]

    def tilted(pool: list[int], name: str) -> list[int]:
        w = tilt(pool, items, target)
        ess = sum(w) ** 2 / sum(x * x for x in w)
        ESS.setdefault(name, []).append(ess / len(pool))
        return [pool[i] for i in draw_by_weight(w, n, rng)]

    return {
        WAYS[0]: lambda: [base.sample_hand(rng, style=PATIENT) for _ in range(n)],
        WAYS[1]: lambda: [base.sample_hand(rng, style=prior_style()) for _ in range(n)],
        WAYS[2]: drawn,
        WAYS[3]: lambda: [weighted.sample_hand(rng, style=prior_style()) for _ in range(n)],
        WAYS[4]: lambda: [plain.sample_hand(rng, style=prior_style()) for _ in range(n)],
        WAYS[5]: lambda: tilted([base.sample_hand(rng, style=prior_style())
                                 for _ in range(n)] + drawn(), WAYS[5]),
        WAYS[6]: lambda: tilted([base.sample_hand(rng, style=prior_style())
                                 for _ in range(4 * n)], WAYS[6]),
    }


ESS: dict[str, list[float]] = {}
"""The tilted pools' effective sizes, as shares of the pool, by way."""


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=30)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--samples", type=int, default=256)
    args = ap.parse_args(argv)
    if args.matches <= 0 or args.samples < 2:
        print("belief_sampling: --matches must be positive and --samples 2 or more.",
              file=sys.stderr)
        return 2
    t0 = time.time()
    pos = positions(args.matches, args.seed)
    n = args.samples
    floor = 0.5 / n
    card = {w: [0.0, 0.0, 0] for w in WAYS}      # log-loss sum, Brier sum, cards
    dw = {w: [0, 0, 0.0] for w in WAYS}          # above P90, below P10, sampled - real
    cut = {w: [0.0, 0.0, 0.0] for w in WAYS}     # predicted, observed, Brier sums
    knocks = 0
    spent = dict.fromkeys(WAYS, 0.0)
    for i, (view, opp) in enumerate(pos):
        k = Knowledge.of(view)
        rng = Random(derive_seed(args.seed, "belief-sampling", i))
        real_dw = deadwood_mask(opp)
        kh = knock_hand(view, k.mine)
        truth = None if kh is None else int(scorer_of(settle(view.seat, kh, opp)) != view.seat)
        knocks += truth is not None
        for way, draw in samplers(view, k, n, rng).items():
            t = time.process_time()
            hands = draw()
            spent[way] += time.process_time() - t
            for c in range(52):
                if not k.unseen >> c & 1:
                    continue
                p = sum(h >> c & 1 for h in hands) / n
                y = opp >> c & 1
                q = min(max(p, floor), 1 - floor)
                card[way][0] -= math.log(q if y else 1 - q)
                card[way][1] += (p - y) ** 2
                card[way][2] += 1
            dws = sorted(deadwood_mask(h) for h in hands)
            dw[way][0] += real_dw > dws[int(0.9 * n)]
            dw[way][1] += real_dw < dws[int(0.1 * n)]
            dw[way][2] += sum(dws) / n - real_dw
            if truth is not None:
                assert kh is not None
                pred = sum(scorer_of(settle(view.seat, kh, h)) != view.seat for h in hands) / n
                cut[way][0] += pred
                cut[way][1] += truth
                cut[way][2] += (pred - truth) ** 2
    print(f"{len(pos)} discard decisions ({knocks} with a knock short of gin allowed) from "
          f"{args.matches} held-out matches (seed {args.seed}), {n} sampled hands each way "
          f"({time.time() - t0:.0f} s).\n")
    print("| way | card log-loss | card Brier | real deadwood above P90 / below P10 "
          "| sampled - real deadwood | undercut: predicted / observed | undercut Brier "
          "| ms of CPU a hand |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    npos = len(pos)
    for w in WAYS:
        ll, br, cards = card[w]
        above, below, diff = dw[w]
        pr, ob, cb = cut[w]
        print(f"| {w} | {ll / cards:.4f} | {br / cards:.4f} | {above / npos:.3f} / "
              f"{below / npos:.3f} | {diff / npos:+.2f} | {pr / max(knocks, 1):.3f} / "
              f"{ob / max(knocks, 1):.3f} | {cb / max(knocks, 1):.4f} | "
              f"{1000 * spent[w] / (npos * n):.3f} |")
    for name, ess in ESS.items():
        print(f"\n{name}: the pool's effective size {sum(ess) / len(ess):.2f} of it on "
              f"average (lowest {min(ess):.2f}).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
