"""Reliability of the evaluator's belief model: predicted against observed chances.

Plays bot-vs-bot matches (several pairings, so no one opponent's habits dominate) and, at
every discard decision, asks the belief (from that seat's view only, R11) two questions
whose true answer the script reads from the real hand afterwards:

* card: the chance that each unseen card is in the opponent's hand;
* undercut: where the seat may knock short of gin (R6), the chance that knocking now with
  its least-deadwood knock is undercut (R9); the knock ends the hand at once, so the true
  answer is the exact showdown against the real opponent hand (R8), knocked or not.

Predictions are grouped into bins; a well calibrated model has observed ~ predicted in
every bin. ``--compare`` also scores a uniform belief (the opponent's pile takes plus
uniformly random unseen cards) and ``strong``'s knock sampler, as baselines.

    python scripts/calibration.py --matches 40 --seed 1 --compare
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass

from ginrummy.bots import make_bot
from ginrummy.bots.strong import StrongBot
from ginrummy.evaluator.belief import Belief, BeliefParams
from ginrummy.evaluator.rollout import settle_knock
from ginrummy.hand import Phase, View
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.melds import deadwood_by_discard_mask

PAIRINGS = (("strong", "marjj"), ("marjj", "simple"), ("strong", "strong"), ("simple", "strong"))
CARD_BINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.01)
RISK_BINS = (0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.01)
UNIFORM = BeliefParams(shed_factor=1.0, took_factor=1.0, improve=0.0,
                       early_knock_reject=0.0, retries=0)


@dataclass(frozen=True)
class Position:
    """A discard decision: the seat's view, its knowledge, and the opponent's real hand."""

    view: View
    k: Knowledge
    opp: int


def collect(matches: int, seed: int) -> list[Position]:
    """Discard decisions from ``matches`` matches spread over :data:`PAIRINGS`."""
    out: list[Position] = []
    for m in range(matches):
        names = PAIRINGS[m % len(PAIRINGS)]
        bots = [make_bot(names[0], seed + 2 * m), make_bot(names[1], seed + 2 * m + 1)]
        match = Match(seed=seed * 1000 + m)
        while not match.is_over():
            seat = match.to_play
            assert seat is not None
            view = match.view(seat)
            if view.phase is Phase.DISCARD:
                out.append(Position(view, Knowledge.of(view), match.hand.mask_of(1 - seat)))
            match.play(bots[seat].decide(view), seat)
    return out


def _knock_hand(p: Position) -> int | None:
    """The 10 cards left by the least-deadwood knock short of gin, or None."""
    if p.view.knock_limit == 0:
        return None
    table = deadwood_by_discard_mask(p.k.mine)
    knocks = [a.card.index for a in p.view.legal if a.knock and a.card is not None]
    if not knocks:
        return None
    best = min(knocks, key=lambda i: (table[i], i))
    if table[best] == 0:
        return None
    return p.k.mine & ~(1 << best)


def _bins(edges: tuple[float, ...], pairs: list[tuple[float, int]]) -> list[str]:
    rows = []
    for lo, hi in zip(edges, edges[1:], strict=False):
        sel = [(q, y) for q, y in pairs if lo <= q < hi]
        if not sel:
            continue
        pred = sum(q for q, _ in sel) / len(sel)
        obs = sum(y for _, y in sel) / len(sel)
        se = (obs * (1 - obs) / len(sel)) ** 0.5
        rows.append(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {len(sel)} | {pred:.3f} | "
                    f"{obs:.3f} ± {1.96 * se:.3f} |")
    return rows


def _summary(pairs: list[tuple[float, int]]) -> str:
    n = len(pairs)
    brier = sum((q - y) ** 2 for q, y in pairs) / n
    pred = sum(q for q, _ in pairs) / n
    obs = sum(y for _, y in pairs) / n
    return f"n={n}, mean predicted {pred:.3f}, observed {obs:.3f}, Brier {brier:.4f}"


def card_pairs(positions: list[Position], params: BeliefParams, samples: int,
               seed: int) -> list[tuple[float, int]]:
    """(predicted, observed) for every unseen card of every position."""
    rng = random.Random(seed)
    out = []
    for p in positions:
        chances = Belief(p.k, p.view.knock_limit, params).card_chances(rng, samples)
        for u, q in chances.items():
            out.append((q, p.opp >> u & 1))
    return out


def undercut_pairs(positions: list[Position], params: BeliefParams | None, samples: int,
                   seed: int) -> list[tuple[float, int]]:
    """(predicted, observed) undercut of the least-deadwood knock, where one is allowed;
    ``params`` None uses ``strong``'s sampler."""
    rng = random.Random(seed)
    strong = StrongBot(seed)
    out = []
    for p in positions:
        hand = _knock_hand(p)
        if hand is None:
            continue
        if params is None:
            hands = strong.worlds(p.k, samples)
        else:
            belief = Belief(p.k, p.view.knock_limit, params)
            hands = [belief.sample_hand(rng) for _ in range(samples)]
        me = p.view.seat
        q = sum(settle_knock(me, hand, h)[0] != me for h in hands) / samples
        out.append((q, int(settle_knock(me, hand, p.opp)[0] != me)))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=64, help="belief samples per position")
    ap.add_argument("--compare", action="store_true", help="also score the baselines")
    args = ap.parse_args(argv)
    positions = collect(args.matches, args.seed)
    models: list[tuple[str, BeliefParams | None]] = [("evaluator belief", BeliefParams())]
    if args.compare:
        models += [("uniform", UNIFORM), ("strong's sampler", None)]
    print(f"{len(positions)} discard decisions from {args.matches} matches "
          f"({', '.join('-'.join(p) for p in PAIRINGS)}), {args.samples} samples each.\n")
    for name, params in models:
        if params is not None:
            pairs = card_pairs(positions, params, args.samples, args.seed)
            print(f"Card in the opponent's hand, {name}: {_summary(pairs)}\n")
            print("| predicted | cards | mean predicted | observed (95% CI) |")
            print("| --- | --- | --- | --- |")
            print("\n".join(_bins(CARD_BINS, pairs)) + "\n")
        pairs = undercut_pairs(positions, params, args.samples, args.seed)
        print(f"Undercut of a knock now, {name}: {_summary(pairs)}\n")
        print("| predicted | positions | mean predicted | observed (95% CI) |")
        print("| --- | --- | --- | --- |")
        print("\n".join(_bins(RISK_BINS, pairs)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
