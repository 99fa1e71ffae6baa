"""Reliability of the evaluator's belief model: predicted against observed chances.

Plays bot-vs-bot matches (several pairings, so no one opponent's habits dominate) and, at
every discard decision, asks the belief (from that seat's view only, R11) two questions
whose true answer the script reads from the real hand afterwards:

* card: the chance that each unseen card is in the opponent's hand;
* undercut: where the seat may knock short of gin (R6), the chance that knocking now with
  its least-deadwood knock is undercut (R9); the knock ends the hand at once, so the true
  answer is the exact showdown against the real opponent hand (R8), knocked or not.

A third question (``--knock-bias``) is the one the review's marks and ``expert``'s knocks
hang on: where a patient player (``marjj``, ``strong``) could knock short of gin but played
on, how much better is knocking than waiting? The truth is the exact match-winning chance
of knocking then (against the real opponent hand) minus that of what happened in the hand
instead (the mean over many positions; each single outcome is noisy); the evaluator's
answer is its paired estimate of the same two actions from the seat's view.

Predictions are grouped into bins; a well calibrated model has observed ~ predicted in
every bin. ``--compare`` also scores a uniform belief (the opponent's pile takes plus
uniformly random unseen cards) and ``strong``'s knock sampler, as baselines.

    python scripts/calibration.py --matches 40 --seed 1 --compare
    python scripts/calibration.py --matches 20 --seed 1 --samples 64 --quick-improve 0.2
    python scripts/calibration.py --knock-bias 30 --seed 7
    python scripts/calibration.py --matches 20 --seed 1 --samples 64 --exact-quick
    python scripts/calibration.py --knock-bias 30 --seed 7 --decompose
    python scripts/calibration.py --knock-bias 40 --seed 7 --samples 48 --decompose \
        --improve 1.0 --took 1.5

``--decompose`` splits that bias in three: the knock (the belief's estimate against the
exact showdown on the real hand), playing on as the belief sees it against the same
play-outs run from the real hands (the belief's share), and those play-outs against what
really happened (the play-out policy's share).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, replace

from ginrummy.bots import make_bot
from ginrummy.bots.strong import StrongBot
from ginrummy.equity import after_hand, relative_stakes
from ginrummy.evaluator import KNOCK_BIAS, Evaluator
from ginrummy.evaluator.belief import Belief, BeliefParams, opponent_steps
from ginrummy.evaluator.search import phase_code
from ginrummy.hand import Action, Phase, View
from ginrummy.kernel import action_code, backend
from ginrummy.kernel.playout import new_state
from ginrummy.kernel.solver import settle
from ginrummy.kernel.spec import KNOCK_TURNS, points_of, scorer_of
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.melds import deadwood_by_discard_mask
from ginrummy.review.grade import STAKES_FLOOR

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
    quick: bool = False
    """Whether the opponent knocks as soon as it may (``simple``)."""


QUICK = {"simple"}
"""Bots that knock as soon as they may: the evaluator models them so (``quick``)."""


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
                out.append(Position(view, Knowledge.of(view), match.hand.mask_of(1 - seat),
                                    names[1 - seat] in QUICK))
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


def _brier(pairs: list[tuple[float, int]]) -> float:
    """The mean squared error of the predictions (lower is better)."""
    return sum((q - y) ** 2 for q, y in pairs) / len(pairs)


def _summary(pairs: list[tuple[float, int]]) -> str:
    n = len(pairs)
    brier = _brier(pairs)
    pred = sum(q for q, _ in pairs) / n
    obs = sum(y for _, y in pairs) / n
    return f"n={n}, mean predicted {pred:.3f}, observed {obs:.3f}, Brier {brier:.4f}"


def card_pairs(positions: list[Position], params: BeliefParams, samples: int,
               seed: int, styled: bool = False) -> list[tuple[float, int]]:
    """(predicted, observed) for every unseen card of every position; ``styled`` models a
    quick-knocking opponent as one."""
    rng = random.Random(seed)
    out = []
    for p in positions:
        steps = opponent_steps(p.view) if params.quick_history else ()
        chances = Belief(p.k, p.view.knock_limit, params, steps=steps).card_chances(
            rng, samples, styled and p.quick)
        for u, q in chances.items():
            out.append((q, p.opp >> u & 1))
    return out


def undercut_pairs(positions: list[Position], params: BeliefParams | None, samples: int,
                   seed: int, styled: bool = False) -> list[tuple[float, int]]:
    """(predicted, observed) undercut of the least-deadwood knock, where one is allowed;
    ``params`` None uses ``strong``'s sampler; ``styled`` models a quick-knocking
    opponent as one (as ``expert`` does once it has seen it knock)."""
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
            hands = [belief.sample_hand(rng, styled and p.quick) for _ in range(samples)]
        me = p.view.seat
        q = sum(scorer_of(settle(me, hand, h)) != me for h in hands) / samples
        out.append((q, int(scorer_of(settle(me, hand, p.opp)) != me)))
    return out


PATIENT = (("marjj", "strong"), ("strong", "strong"), ("strong", "marjj"))


@dataclass(frozen=True)
class Waited:
    """A knock short of gin that was allowed but not made: the view, the action played,
    the least-deadwood knock, and the true match-winning chances of knocking then and of
    what happened instead."""

    view: View
    played: Action
    knock: Action
    knock_truth: float
    waited_truth: float
    opp: int = 0
    """The opponent's real hand (a mask)."""
    stock: tuple[int, ...] = ()
    """The real stock, top at the end (``--decompose`` replays the play-outs on it)."""


def collect_waits(matches: int, seed: int) -> list[Waited]:
    """Every position of ``matches`` matches between patient bots where the seat to
    discard could knock short of gin and did not, with the true outcomes."""
    out: list[Waited] = []
    for m in range(matches):
        names = PATIENT[m % len(PATIENT)]
        bots = [make_bot(names[0], seed + 2 * m), make_bot(names[1], seed + 2 * m + 1)]
        match = Match(seed=seed * 1000 + m)
        pending: list[tuple[View, Action, Action, float, int, tuple[int, ...]]] = []
        while not match.is_over():
            seat = match.to_play
            assert seat is not None
            view = match.view(seat)
            act = bots[seat].decide(view)
            if view.phase is Phase.DISCARD and not act.knock:
                p = Position(view, Knowledge.of(view), match.hand.mask_of(1 - seat))
                hand = _knock_hand(p)
                if hand is not None:
                    card = (p.k.mine & ~hand).bit_length() - 1
                    knock = next(a for a in view.legal if a.knock and a.card is not None
                                 and a.card.index == card)
                    code = settle(seat, hand, p.opp)
                    scorer, pts = scorer_of(code), points_of(code)
                    truth = after_hand(view.scores, view.dealer, seat, scorer, pts,
                                       view.options)
                    stock = tuple(c.index for c in reversed(match.hand.stock))
                    pending.append((view, act, knock, truth, p.opp, stock))
            played = match.hand
            match.play(act, seat)
            r = played.result
            if r is not None:
                for v, a, kn, truth, opp, stock in pending:
                    waited = after_hand(v.scores, v.dealer, v.seat, r.scorer, r.points or 0,
                                        v.options)
                    out.append(Waited(v, a, kn, truth, waited, opp, stock))
                pending = []
    return out


def knock_bias(waits: list[Waited], params: BeliefParams, samples: int,
               correction: float | None = None) -> list[float]:
    """The evaluator's estimate of knocking minus playing on at each of ``waits``
    (``correction`` the evaluator's knock correction; None: as shipped)."""
    out = []
    for i, w in enumerate(waits):
        ev = Evaluator(samples=samples, seed=i, belief=params,
                       knock_bias=correction).evaluate_actions(
            w.view, [w.played, w.knock], variate=False)
        out.append(ev.difference(w.knock, w.played)[0])
    return out


def _waited_out(w: Waited, rng: random.Random) -> float:
    """The match-winning chance of the play-outs from the real position after the action
    played (the evaluator's own kernel, on the real cards): the opponent's real hand, the
    real unseen cards as the stock, shuffled."""
    me, v = w.view.seat, w.view
    k = Knowledge.of(v)
    hands = [0, 0]
    hands[me], hands[1 - me] = k.mine, w.opp
    stock = list(w.stock)
    rng.shuffle(stock)
    turns = [0, 0]
    turns[me], turns[1 - me] = k.my_discards, k.opp_discarded.bit_count()
    st = new_state(hands[0], hands[1], me, phase_code(v), -1, turns[0], turns[1],
                   v.knock_limit, v.dealer, 0)
    code = backend().finish(st, stock, [c.index for c in v.discards], action_code(w.played))
    scorer, pts = scorer_of(code), points_of(code)
    return after_hand(v.scores, v.dealer, me, None if scorer < 0 else scorer, pts, v.options)


def decompose(waits: list[Waited], params: BeliefParams, samples: int,
              weight: list[float], runs: int = 24) -> str:
    """Where the knock-or-wait bias comes from: the belief's estimate of the knock against
    its exact result on the real hand; the belief's estimate of playing on against the
    same play-outs from the real hands (the belief's share); those play-outs against
    what happened in the hand (the play-out policy's share)."""
    rng = random.Random(5)
    rows: dict[str, list[float]] = {"knock: estimated - exact on the real hand": [],
                                    "play on: estimated - play-outs on the real hands": [],
                                    "play on: play-outs on the real hands - what happened": []}
    for i, w in enumerate(waits):
        ev = Evaluator(samples=samples, seed=i, belief=params, knock_bias=0.0
                       ).evaluate_actions(w.view, [w.played, w.knock], variate=False)
        real = sum(_waited_out(w, rng) for _ in range(runs)) / runs
        rows["knock: estimated - exact on the real hand"].append(
            (ev.value_of(w.knock).win - w.knock_truth) / weight[i])
        rows["play on: estimated - play-outs on the real hands"].append(
            (ev.value_of(w.played).win - real) / weight[i])
        rows["play on: play-outs on the real hands - what happened"].append(
            (real - w.waited_truth) / weight[i])
    lines = ["| part (normalized points of match-winning chance) | mean (95% CI) |",
             "| --- | --- |"]
    for name, xs in rows.items():
        m, ci = _mean_ci(xs)
        lines.append(f"| {name} | {100 * m:+.2f} ± {100 * ci:.2f} |")
    return "\n".join(lines)


def _mean_ci(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    return m, 1.96 * (sum((x - m) ** 2 for x in xs) / (n - 1) / n) ** 0.5 if n > 1 else 0.0


def first_choices(waits: list[Waited]) -> str:
    """What the review (two-stage evaluation at its default samples) ranks first where a
    patient player played on: the same action, a knock, or another plain discard, with the
    review's estimated gain of that choice; where it is a knock, also what knocking was
    really worth there."""
    from ginrummy.review.grade import evaluate_view, normalize, stakes

    tally: dict[str, tuple[int, float]] = {}
    gains: list[tuple[float, float]] = []
    for i, w in enumerate(waits):
        ev = evaluate_view(w.view, w.played, budget_ms=None, seed=i)
        pref = ev.preferred
        assert pref is not None
        kind = "the action played" if pref == w.played else (
            "a knock" if pref.knock else "another plain discard")
        gain = ev.value_of(pref).win - ev.value_of(w.played).win
        n, tot = tally.get(kind, (0, 0.0))
        tally[kind] = (n + 1, tot + normalize(gain, stakes(w.view)))
        if pref.knock:
            gains.append((gain, w.knock_truth - w.waited_truth))
    lines = ["| review's first choice | positions | mean estimated gain (normalized) |",
             "| --- | --- | --- |"]
    lines += [f"| {k} | {n} | {100 * t / n:+.2f} points |" for k, (n, t) in tally.items()]
    if len(gains) >= 2:
        est, _ = _mean_ci([g for g, _ in gains])
        true, ci = _mean_ci([t for _, t in gains])
        lines += ["", f"Where it is a knock ({len(gains)} positions): estimated gain over "
                  f"playing on {100 * est:+.1f} points of win chance; the least-deadwood "
                  f"knock's true gain there {100 * true:+.1f} ± {100 * ci:.1f} (95%)."]
    return "\n".join(lines)


def exact_quick(positions: list[Position], samples: int, seed: int) -> str:
    """How much an exact reading of a quick knocker's play sharpens the card chances: the
    card Brier score against ``simple`` of the shipped quick belief, the same with its
    samples walked back through the opponent's latest turns (``quick_history``), a uniform
    prior walked back through all of them (as near the exact posterior under ``simple``'s
    rules as sampling gets), and the uniform belief; with the share of each one's samples
    that explain the whole hand (a deep walk) and the time a sample takes."""
    sel = [p for p in positions if p.quick]
    shipped = BeliefParams()
    flat = replace(UNIFORM, quick_improve=0.0)
    rows = [("shipped quick belief", shipped),
            ("the same, walked back 6 turns (32 redraws)",
             replace(shipped, quick_history=True, quick_depth=6, quick_nodes=400,
                     quick_retries=32)),
            ("uniform, walked back through the whole hand (256 redraws)",
             replace(flat, quick_history=True, quick_depth=99, quick_nodes=2000,
                     quick_retries=256)),
            ("uniform", flat)]
    deep = replace(shipped, quick_history=True, quick_depth=99, quick_nodes=2000)
    lines = [f"{len(sel)} discard decisions against simple, {samples} samples each.", "",
             "| belief | card Brier | samples explaining the whole hand | ms a sample |",
             "| --- | --- | --- | --- |"]
    for name, params in rows:
        rng = random.Random(seed)
        check = random.Random(seed + 1)
        pairs: list[tuple[float, int]] = []
        fits = total = 0
        spent = 0.0
        for p in sel:
            steps = opponent_steps(p.view)
            belief = Belief(p.k, p.view.knock_limit, params, steps=steps)
            judge = Belief(p.k, p.view.knock_limit, deep, steps=steps)
            counts = dict.fromkeys(belief.unknown, 0)
            for _ in range(samples):
                t0 = time.process_time()
                hand = belief.sample_hand(rng, True)
                spent += time.process_time() - t0
                for u in belief.unknown:
                    counts[u] += hand >> u & 1
                if steps:
                    total += 1
                    fits += judge.fits_history(hand, check)
            pairs += [(c / samples, p.opp >> u & 1) for u, c in counts.items()]
        n = len(sel) * samples
        lines.append(f"| {name} | {_brier(pairs):.4f} | {fits / max(total, 1):.3f} | "
                     f"{1000 * spent / n:.2f} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=64, help="belief samples per position")
    ap.add_argument("--compare", action="store_true", help="also score the baselines")
    ap.add_argument("--knock-bias", type=int, metavar="MATCHES",
                    help="only the knock-or-wait question, on this many matches")
    ap.add_argument("--first-choice", action="store_true",
                    help="with --knock-bias: also what the review ranks first there")
    ap.add_argument("--decompose", action="store_true",
                    help="with --knock-bias: the belief's and the play-outs' shares")
    ap.add_argument("--improve", type=float, default=BeliefParams().improve,
                    help="the belief's improvements of a patient opponent's hand a turn")
    ap.add_argument("--quick-improve", type=float, default=BeliefParams().quick_improve,
                    help="the same for an opponent modelled as knocking as soon as it may")
    ap.add_argument("--took", type=float, default=BeliefParams().took_factor,
                    help="the belief's weight of a card that melds with a pile take")
    ap.add_argument("--exact-quick", action="store_true",
                    help="only: the card chances against simple, read exactly or not")
    args = ap.parse_args(argv)
    params = BeliefParams(improve=args.improve, took_factor=args.took,
                          quick_improve=args.quick_improve)
    if args.knock_bias:
        waits = collect_waits(args.knock_bias, args.seed)
        truth = [w.knock_truth - w.waited_truth for w in waits]
        weight = [max(relative_stakes(w.view.scores, w.view.dealer, w.view.seat,
                                      w.view.options), STAKES_FLOOR) for w in waits]
        early = [Knowledge.of(w.view).my_discards < KNOCK_TURNS for w in waits]
        print(f"{len(waits)} positions where a patient player could knock and played on "
              f"({args.knock_bias} matches: {', '.join('-'.join(p) for p in PATIENT)}); "
              f"{args.samples} samples each. Knocking minus playing on, in points of "
              "match-winning chance, normalized to a first hand's stakes (as the review "
              "grades); bias = estimated - true, with its 95% interval.\n")
        print("| evaluator | positions | estimated | true (95% CI) | bias (95% CI) |")
        print("| --- | --- | --- | --- | --- |")
        for name, corr in (("without the knock correction", 0.0),
                           (f"as shipped (KNOCK_BIAS {KNOCK_BIAS})", None)):
            est = knock_bias(waits, params, args.samples, corr)
            for part, which in (("all", None), ("in its first three turns", True),
                                ("later", False)):
                idx = [i for i in range(len(waits)) if which is None or early[i] == which]
                if len(idx) < 2 or (which is not None and len(idx) == len(waits)):
                    continue  # too few, or the same as "all"
                e, _ = _mean_ci([est[i] / weight[i] for i in idx])
                t, tci = _mean_ci([truth[i] / weight[i] for i in idx])
                b, bci = _mean_ci([(est[i] - truth[i]) / weight[i] for i in idx])
                print(f"| {name}, {part} | {len(idx)} | {100 * e:+.2f} | {100 * t:+.2f} ± "
                      f"{100 * tci:.2f} | {100 * b:+.2f} ± {100 * bci:.2f} |")
        if args.decompose:
            print("\nWhere the bias comes from (without the knock correction; the real "
                  "hands' play-outs are 24 shuffles of the real unseen cards):\n")
            print(decompose(waits, params, args.samples, weight))
        if args.first_choice:
            print("\n" + first_choices(waits))
        return 0
    positions = collect(args.matches, args.seed)
    if args.exact_quick:
        print(exact_quick(positions, args.samples, args.seed))
        return 0
    models: list[tuple[str, BeliefParams | None]] = [("evaluator belief", params)]
    if args.compare:
        models += [("uniform", UNIFORM), ("strong's sampler", None)]
    print(f"{len(positions)} discard decisions from {args.matches} matches "
          f"({', '.join('-'.join(p) for p in PAIRINGS)}), {args.samples} samples each.\n")
    for name, model in models:
        if model is not None:
            pairs = card_pairs(positions, model, args.samples, args.seed)
            print(f"Card in the opponent's hand, {name}: {_summary(pairs)}\n")
            print("| predicted | cards | mean predicted | observed (95% CI) |")
            print("| --- | --- | --- | --- |")
            print("\n".join(_bins(CARD_BINS, pairs)) + "\n")
        pairs = undercut_pairs(positions, model, args.samples, args.seed)
        print(f"Undercut of a knock now, {name}: {_summary(pairs)}\n")
        print("| predicted | positions | mean predicted | observed (95% CI) |")
        print("| --- | --- | --- | --- |")
        print("\n".join(_bins(RISK_BINS, pairs)) + "\n")
        if model is not None and model != UNIFORM:
            print(f"By the opponent's style, {name}, a quick knocker modelled as one "
                  "(undercut of a knock now; cards: the Brier score of every unseen card, "
                  "the uniform belief's beside it):\n")
            print("| opponent | positions | mean predicted | observed | Brier "
                  "| card Brier | uniform's |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
            for style, quick in (("patient (strong, marjj)", False), ("quick (simple)", True)):
                sel = [p for p in positions if p.quick == quick]
                pairs = undercut_pairs(sel, model, args.samples, args.seed, styled=True)
                cards = card_pairs(sel, model, args.samples, args.seed, styled=True)
                flat = card_pairs(sel, UNIFORM, args.samples, args.seed)
                if pairs and cards:
                    n = len(pairs)
                    print(f"| {style} | {n} | {sum(q for q, _ in pairs) / n:.3f} | "
                          f"{sum(y for _, y in pairs) / n:.3f} | "
                          f"{_brier(pairs):.4f} | {_brier(cards):.4f} | {_brier(flat):.4f} |")
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
