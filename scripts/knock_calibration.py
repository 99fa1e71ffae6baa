"""Knock and undercut rates and the opponent's deadwood, by turn: what the play-out model
predicts against what each bot does (docs/bots.md, "Play-out styles").

An observer (``expert`` by default) plays matches against each opponent. At each of the
observer's plain discards the model is asked, from the observer's view only (R11), three
questions whose answers are read from the real game afterwards:

* knock: will the opponent knock on its coming turn? The prediction is the share of
  sampled deals (the opponent's style drawn from the model's shares, its hand from the
  belief) in which the play-out policy knocks on that turn (R6); the observation is
  whether the opponent did (positions where the hand ends first are left out);
* deadwood: where does the opponent's real deadwood fall among the belief's samples?
  A calibrated belief puts it above its 90th percentile 10% of the time;
* undercut: where the observer could knock short of gin, the chance that knocking now
  with the least deadwood is undercut (R8-R9): predicted over the sampled hands,
  observed by the exact showdown against the real hand.

Models: ``patient`` (every opponent patient: the review before play-out styles),
``prior`` (``expert``'s prior shares of quick and club players), ``adapted`` (the shares
the observer has inferred from the match so far, as it plays), ``review`` (the review's
opponent model: its own prior, updated by the hands the observer saw).

    python scripts/knock_calibration.py --matches 20 --seed 1
    python scripts/knock_calibration.py --matches 40 --seed 2 --against simple,strong
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from ginrummy.bots import make_bot
from ginrummy.bots.expert import EXPERT_BELIEF, ExpertBot
from ginrummy.evaluator.belief import Belief
from ginrummy.evaluator.opponent import OpponentModel
from ginrummy.evaluator.search import phase_code
from ginrummy.hand import Action, Phase, View
from ginrummy.kernel import action_code
from ginrummy.kernel.jit import ints
from ginrummy.kernel.playout import new_state, policy, step
from ginrummy.kernel.sampler import opponent_style
from ginrummy.kernel.solver import settle
from ginrummy.kernel.spec import DEADCARDS, KNOCK_BASE, NPILE, NSTOCK, PATIENT, RUNNING, scorer_of
from ginrummy.kernel.splitmix import Random
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.melds import deadwood_by_discard_mask, deadwood_mask
from ginrummy.review.grade import REVIEW_PRIOR

OPPONENTS = ("random", "easy", "simple", "marjj", "strong", "expert")
TURN_BINS = ((1, 3), (4, 6), (7, 9), (10, 99))
MODELS = ("patient", "prior", "adapted", "review")


@dataclass
class Tally:
    """Predicted and observed values of one question, by turn bin."""

    pairs: dict[tuple[int, int], list[tuple[float, float]]] = field(default_factory=dict)

    def add(self, turn: int, predicted: float, observed: float) -> None:
        for b in TURN_BINS:
            if b[0] <= turn <= b[1]:
                self.pairs.setdefault(b, []).append((predicted, observed))

    def rows(self) -> list[tuple[str, int, float, float, float]]:
        out = []
        for b in TURN_BINS:
            sel = self.pairs.get(b, [])
            if not sel:
                continue
            n = len(sel)
            pred = sum(p for p, _ in sel) / n
            obs = sum(o for _, o in sel) / n
            ci = 1.96 * (obs * (1 - obs) / n) ** 0.5
            label = f"{b[0]}-{b[1]}" if b[1] < 99 else f"{b[0]}+"
            out.append((label, n, pred, obs, ci))
        return out


def shares(model: str, observer: ExpertBot, review: OpponentModel) -> tuple[float, float]:
    """(quick share, club share) of a model."""
    if model == "patient":
        return 0.0, 0.0
    if model == "prior":
        return observer.quick, observer.club
    if model == "review":
        q, c, _ = review.shares()
        return q, c
    return observer.evaluator.quick, observer.evaluator.club


def knock_chance(view: View, k: Knowledge, played: Action, qs: float, cs: float,
                 samples: int, seed: int) -> float | None:
    """The model's chance that the opponent knocks on its coming turn after ``played``."""
    belief = Belief(k, view.knock_limit, EXPERT_BELIEF)
    fl = belief.floats(qs, cs)
    rng = Random(seed)
    me = view.seat
    turns = [0, 0]
    turns[me], turns[1 - me] = k.my_discards, k.opp_discarded.bit_count()
    knocks = 0
    tab = ints(52)
    for _ in range(samples):
        style = opponent_style(fl, rng.rs)
        hand, stock = belief.sample(rng, style=style)
        hands = [0, 0]
        hands[me], hands[1 - me] = k.mine, hand
        st = new_state(hands[0], hands[1], me, phase_code(view), -1, turns[0], turns[1],
                       view.knock_limit, view.dealer, PATIENT << (2 * me)
                       | style << (2 * (1 - me)))
        pile = [c.index for c in view.discards]
        st[NSTOCK], st[NPILE] = len(stock), len(pile)
        st[DEADCARDS] = sum(1 << c for c in pile)
        stock += [0] * (52 - len(stock))
        pile += [0] * (52 - len(pile))
        if step(st, stock, pile, action_code(played)) != RUNNING:
            return None  # the hand ends with this discard (R7): no coming turn
        step(st, stock, pile, policy(st, pile, tab, None))
        knocks += policy(st, pile, tab, None) >= KNOCK_BASE
    return knocks / samples


def deadwood_rank(belief: Belief, real: int, qs: float, cs: float, rng: Random,
                  samples: int) -> tuple[int, int]:
    """Whether the real deadwood lies above the samples' 90th percentile, and below their
    10th (the opponent's style drawn from the model's shares for each sample)."""
    fl = belief.floats(qs, cs)
    dws = sorted(deadwood_mask(belief.sample_hand(rng, style=opponent_style(fl, rng.rs)))
                 for _ in range(samples))
    lo, hi = dws[samples // 10], dws[(9 * samples) // 10]
    dw = deadwood_mask(real)
    return int(dw > hi), int(dw < lo)


def undercut_chance(view: View, k: Knowledge, knocker: int, qs: float, cs: float,
                    samples: int, seed: int) -> float:
    """The model's chance that knocking with the 10 cards ``knocker`` is undercut."""
    belief = Belief(k, view.knock_limit, EXPERT_BELIEF)
    fl = belief.floats(qs, cs)
    rng = Random(seed)
    me = view.seat
    hits = 0
    for _ in range(samples):
        style = opponent_style(fl, rng.rs)
        hits += scorer_of(settle(me, knocker, belief.sample_hand(rng, style=style))) != me
    return hits / samples


def least_knock(view: View, k: Knowledge) -> int | None:
    """The 10 cards left by the least-deadwood knock short of gin, or None."""
    if view.knock_limit == 0:
        return None
    table = deadwood_by_discard_mask(k.mine)
    knocks = [a.card.index for a in view.legal if a.knock and a.card is not None]
    if not knocks:
        return None
    best = min(knocks, key=lambda i: (table[i], i))
    return None if table[best] == 0 else k.mine & ~(1 << best)


def run(opponent: str, matches: int, seed: int, samples: int) -> dict[str, dict[str, Tally]]:
    """The tallies of every model and question against one opponent."""
    out = {m: {"knock": Tally(), "undercut": Tally(), "above P90": Tally(),
               "below P10": Tally()} for m in MODELS}
    for i in range(matches):
        observer = ExpertBot(seed + i)
        other = make_bot(opponent, seed + 1000 + i)
        o_seat = i % 2
        bots = [observer, other] if o_seat == 0 else [other, observer]
        match = Match(seed=seed * 7919 + i)
        for s in (0, 1):
            bots[s].new_match(s)
        review = OpponentModel(prior=REVIEW_PRIOR)
        pending: list[tuple[int, dict[str, float]]] = []
        hand_index = 0
        while not match.is_over():
            seat = match.to_play
            assert seat is not None
            if len(match.hands) - 1 != hand_index:
                hand_index = len(match.hands) - 1
                pending = []
            view = match.view(seat)
            act = bots[seat].decide(view)
            if seat != o_seat and view.phase is Phase.DISCARD and pending:
                for turn, preds in pending:
                    for m, q in preds.items():
                        out[m]["knock"].add(turn, q, float(act.knock))
                pending = []
            if seat == o_seat and view.phase is Phase.DISCARD and not act.knock:
                k = Knowledge.of(view)
                opp_real = match.hand.mask_of(1 - seat)
                turn = k.opp_discarded.bit_count() + 1
                preds: dict[str, float] = {}
                for m in MODELS:
                    qs, cs = shares(m, observer, review)
                    q = knock_chance(view, k, act, qs, cs, samples, seed + i * 977 + turn)
                    if q is None:
                        preds = {}
                        break
                    preds[m] = q
                if preds:
                    pending.append((turn, preds))
                belief = Belief(k, view.knock_limit, EXPERT_BELIEF)
                for m in MODELS:
                    qs, cs = shares(m, observer, review)
                    above, below = deadwood_rank(belief, opp_real, qs, cs,
                                                 Random(seed + turn), samples)
                    out[m]["above P90"].add(turn - 1, 0.1, above)
                    out[m]["below P10"].add(turn - 1, 0.1, below)
                knocker = least_knock(view, k)
                if knocker is not None:
                    truth = float(scorer_of(settle(seat, knocker, opp_real)) != seat)
                    for m in MODELS:
                        qs, cs = shares(m, observer, review)
                        out[m]["undercut"].add(k.my_discards + 1, undercut_chance(
                            view, k, knocker, qs, cs, samples, seed + turn), truth)
            played = match.hand
            match.play(act, seat)
            r = played.result
            if r is not None:
                pending = []
                for s in (0, 1):
                    bots[s].hand_over(played.view(s), r)
                review.hand_over(played.view(o_seat), r)
    return out


def report(opponent: str, tallies: dict[str, dict[str, Tally]], models: Sequence[str]) -> str:
    lines = [f"### Against {opponent}", ""]
    for question in ("knock", "undercut", "above P90", "below P10"):
        lines += [f"{question} ({'the opponent' if question != 'undercut' else 'our'} turn)",
                  "", "| model | turn | positions | predicted | observed (95% CI) |",
                  "| --- | --- | --- | --- | --- |"]
        for m in models:
            for label, n, pred, obs, ci in tallies[m][question].rows():
                lines.append(f"| {m} | {label} | {n} | {pred:.3f} | {obs:.3f} ± {ci:.3f} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=20, help="matches per opponent")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=64, help="sampled deals per question")
    ap.add_argument("--against", default=",".join(OPPONENTS),
                    help=f"comma-separated opponents (default {','.join(OPPONENTS)})")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.against.split(",") if n.strip()]
    print(f"Observer expert; {args.matches} matches against each opponent; {args.samples} "
          f"sampled deals per question; seed {args.seed}.\n")
    for name in names:
        tallies = run(name, args.matches, args.seed, args.samples)
        print(report(name, tallies, MODELS), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
