"""Issue 48, item 2: a learned value of the whole position (both hands known, as in each
deal the search samples), measured against the play-outs that value a sampled deal today.

    ginrummy match expert expert --matches 400 --seed 4801 --jobs 2 --records expert-rec
    python scripts/position_value.py --records expert-rec --json whole.json

The search (``ginrummy.evaluator``) values each action by dealing the unseen cards many
times and playing each deal out with the kernel's rule-of-thumb policy
(:mod:`ginrummy.kernel.playout`): every sampled deal is a whole position, and its value is
the outcome of a hand played worse than expert plays it. A value of the whole position
learned from expert's own games could stand in for that play-out, or cut it short. This
script asks the first question that decides whether to: on positions of held-out matches,
with both hands known and only the stock's order hidden, which is closer to how the hand
really ended under expert's play, the play-outs or the learned value?

Positions: before every action of every hand of the records (replayed through the core),
from the seat to act. The truth: that seat's match-winning chance once the hand really
ended (:func:`ginrummy.equity.after_hand`), as in ``scripts/learned_value.py``, whose
outcome classes, training and error measures this script shares. The play-out estimate:
the mean of that chance over ``--shuffles`` play-outs of the position by the kernel's
policy (both seats patient, as the search plays itself), each with the stock's cards in a
new random order (the order is the one thing a sampled deal does not fix). The learned
value: a perceptron on the whole position (both hands, the pile, the card just taken, the
phase, turns, knock limit, deadwood of each hand) giving the hand's outcome class, turned
into the chance by the match-equity table. Every ``--holdout``-th match is held out and the
next of each ``--holdout`` validates (early stopping, the mix's weight). Reported: mean
squared errors with standard errors clustered by match (the play-outs' also with their
own sampling noise taken out, the error of infinitely many shuffles), the paired
differences, the
calibration by decile, and the time a batch of positions takes in numpy (as a search
would ask for a thousand sampled deals at once). Nothing is written into the package.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402 - after the thread settings, which numpy and torch read
import json  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learned_value import (  # noqa: E402
    CLASSES,
    class_equities,
    class_points,
    clustered_mean,
    deciles,
    errors,
    fit_mix,
    outcome_class,
    report,
    train,
)

from ginrummy import kernel  # noqa: E402
from ginrummy.equity import after_hand  # noqa: E402
from ginrummy.hand import Hand, Phase  # noqa: E402
from ginrummy.kernel import spec  # noqa: E402
from ginrummy.kernel.solver import completers  # noqa: E402
from ginrummy.match import Match  # noqa: E402

PLANES = 5
"""Card planes: the seat's hand, the opponent's, the pile's top card, the rest of the
pile, the card just taken from the pile (R5: it may not be thrown back at once)."""

SCALARS = 10
"""Stock count, three phases, dealer, both seats' turns, knock limit, both deadwoods."""

EXTRAS = 4
"""With ``--outs``, four more: each hand's outs (the stock's cards that would complete a
meld with it) and whether the pile's top card melds with each hand: what tells one
discard from another that leaves the same deadwood."""

INPUTS = PLANES * 52 + SCALARS + EXTRAS


def _bits(mask: int) -> np.ndarray:
    """A 52-card mask as 52 zeros and ones."""
    return np.array([(mask >> i) & 1 for i in range(52)], dtype=np.float32)


def _kernel_phase(hand: Hand, seat: int) -> int:
    """The kernel's phase code of the hand's phase for the seat to act."""
    if hand.phase is Phase.OFFER:
        return spec.OFFER_DEALER if seat == hand.dealer else spec.OFFER_NON_DEALER
    return spec.DRAW if hand.phase is Phase.DRAW else spec.DISCARD


def position(hand: Hand, b: Any) -> dict[str, Any]:
    """The whole position before the next action, from the seat to act: the features of
    the learned value and what the kernel needs to play it out."""
    seat = hand.to_play
    assert seat is not None
    turns = [0, 0]
    took = [0, 0]
    taken = -1
    for op in hand.history:
        a = op.action
        if a.act == "discard":
            turns[op.seat] += 1
            took[op.seat] &= ~(1 << a.card.index)  # type: ignore[union-attr]
            taken = -1
        elif a.act == "draw":
            if a.source == "discard" and op.card is not None:
                took[op.seat] |= 1 << op.card.index
                taken = op.card.index
            else:
                taken = -1
    mine, theirs = hand.mask_of(seat), hand.mask_of(1 - seat)
    pile = [c.index for c in hand.discards]
    phase = _kernel_phase(hand, seat)
    x = np.zeros(INPUTS, dtype=np.float32)
    x[0:52] = _bits(mine)
    x[52:104] = _bits(theirs)
    if pile:
        x[104 + pile[-1]] = 1.0
        for c in pile[:-1]:
            x[156 + c] = 1.0
    if taken >= 0 and phase == spec.DISCARD:
        x[208 + taken] = 1.0
    s = 260
    x[s] = hand.stock_count / 31.0
    x[s + 1] = float(phase in (spec.OFFER_DEALER, spec.OFFER_NON_DEALER))
    x[s + 2] = float(phase == spec.DRAW)
    x[s + 3] = float(phase == spec.DISCARD)
    x[s + 4] = float(seat == hand.dealer)
    x[s + 5] = turns[seat] / 15.0
    x[s + 6] = turns[1 - seat] / 15.0
    x[s + 7] = hand.knock_limit / 10.0
    x[s + 8] = b.deadwood(mine) / 60.0
    x[s + 9] = b.deadwood(theirs) / 60.0
    stock = sum(1 << c.index for c in hand.stock)
    x[s + 10] = (completers(mine) & stock).bit_count() / 20.0
    x[s + 11] = (completers(theirs) & stock).bit_count() / 20.0
    if pile:
        x[s + 12] = float(completers(mine) >> pile[-1] & 1)
        x[s + 13] = float(completers(theirs) >> pile[-1] & 1)
    st = [0] * spec.STATE_SIZE
    st[0], st[1] = hand.mask_of(0), hand.mask_of(1)
    st[spec.TO_PLAY], st[spec.PHASE] = seat, phase
    st[spec.TAKEN] = taken if phase == spec.DISCARD else -1
    st[spec.TURNS0], st[spec.TURNS0 + 1] = turns
    st[spec.LIMIT], st[spec.DEALER] = hand.knock_limit, hand.dealer
    st[spec.STYLE] = spec.PATIENT | spec.PATIENT << 2
    st[spec.TOOK0], st[spec.TOOK0 + 1] = took
    return {"x": x, "seat": seat, "state": st, "pile": pile,
            "stock": [c.index for c in reversed(hand.stock)]}  # top last


def load(folders: list[Path], shuffles: int, seed: int) -> dict[str, Any]:
    """Every position of every record in ``folders`` (matches numbered on across them),
    with its truth, its play-out estimate and that estimate's sampling variance
    (``noise``: the variance of the mean of the shuffles, estimated from their spread)."""
    b = kernel.backend()
    rng = random.Random(seed)
    xs: list[np.ndarray] = []
    cls: list[int] = []
    ys: list[float] = []
    playout: list[float] = []
    noise: list[float] = []
    match: list[int] = []
    points: list[int] = []
    keys: list[tuple[Any, ...]] = []
    paths = [path for folder in folders for path in sorted(folder.glob("*.json"))]
    for number, path in enumerate(paths):
        m = Match.from_record(json.loads(path.read_text(encoding="utf-8")))
        for done in m.hands:
            r = done.result
            if r is None:
                continue  # the hand a resignation or abort cut short
            scorer, pts = r.scorer, int(r.points)
            h = Hand(done.deal, done.dealer, done.options, done.hand_index, done.scores)
            for op in done.history:
                pos = position(h, b)
                seat = pos["seat"]
                key = (done.scores, done.dealer, seat, done.options)
                values = []
                for _ in range(shuffles):
                    stock = list(pos["stock"])
                    rng.shuffle(stock)
                    code = b.finish(pos["state"], stock, pos["pile"], -1)
                    who = spec.scorer_of(code)
                    values.append(after_hand(key[0], key[1], seat, None if who < 0 else who,
                                             spec.points_of(code), key[3]))
                xs.append(pos["x"])
                cls.append(outcome_class(seat, scorer, pts))
                ys.append(after_hand(key[0], key[1], seat, scorer, pts, key[3]))
                playout.append(float(np.mean(values)))
                noise.append(float(np.var(values, ddof=1)) / shuffles if shuffles > 1 else 0.0)
                match.append(number)
                points.append(pts)
                keys.append(key)
                h.push(op.action, op.seat)
    return {"x": np.stack(xs), "cls": np.array(cls, dtype=np.int64), "y": np.array(ys),
            "playout": np.array(playout), "noise": np.array(noise), "match": np.array(match),
            "points": np.array(points), "keys": np.array(keys, dtype=object)}


def numpy_batch_us(net: torch.nn.Module, x: np.ndarray, batch: int) -> float:
    """Microseconds a position for the network's forward pass in numpy, ``batch`` whole
    positions at once, as the search would value its sampled deals."""
    layers = [m for m in net.modules() if isinstance(m, torch.nn.Linear)]
    w = [(lay.weight.detach().numpy().T.copy(), lay.bias.detach().numpy().copy())
         for lay in layers]
    rows = x[np.arange(batch) % len(x)]
    start = time.perf_counter()
    for _ in range(20):
        h = np.maximum(rows @ w[0][0] + w[0][1], 0.0)
        z = h @ w[1][0] + w[1][1]
        z = np.exp(z - z.max(axis=1, keepdims=True))
        z /= z.sum(axis=1, keepdims=True)
    return (time.perf_counter() - start) / 20 / batch * 1e6


def _suit_orders(width: int) -> torch.Tensor:
    """For each of the 24 orders of the suits, where each input comes from: the card
    planes with their suits relabelled (a card's index is suit x 13 + rank), the numbers
    unmoved."""
    import itertools

    rows = []
    for order in itertools.permutations(range(4)):
        idx = list(range(width))
        for plane in range(PLANES):
            for suit in range(4):
                for rank in range(13):
                    idx[plane * 52 + order[suit] * 13 + rank] = plane * 52 + suit * 13 + rank
        rows.append(idx)
    return torch.tensor(rows, dtype=torch.int64)


def suit_augment(seed: int, width: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """Relabel each training position's suits by a random order (the rules treat the four
    suits alike: R1, R2), so a model that sees the cards cannot learn a hand by heart as
    easily: 24 versions of every position."""
    orders = _suit_orders(width)
    gen = torch.Generator().manual_seed(seed)

    def augment(x: torch.Tensor) -> torch.Tensor:
        pick = torch.randint(0, len(orders), (len(x),), generator=gen)
        return torch.gather(x, 1, orders[pick])

    return augment


def fit_value(d: dict[str, Any], part: np.ndarray, val: np.ndarray, eq: np.ndarray,
              args: argparse.Namespace) -> tuple[torch.nn.Module, list[float], np.ndarray]:
    """The value trained on the positions ``part`` (early stopping on ``val``), its
    validation curve, and its match-winning chance of every position."""
    width = int(d["x"].shape[1])
    net, curve = train(d["x"][part], d["cls"][part], d["x"][val], d["cls"][val],
                       args.hidden, args.epochs, args.seed, args.weight_decay, inputs=width,
                       augment=suit_augment(args.seed, width) if args.augment else None)
    net.eval()
    with torch.no_grad():
        probs = torch.softmax(net(torch.from_numpy(d["x"])), dim=1).numpy()
    return net, curve, (probs * eq).sum(axis=1)


def learning_curve(d: dict[str, Any], eq: np.ndarray, tr: np.ndarray, val: np.ndarray,
                   held: np.ndarray, args: argparse.Namespace) -> dict[str, Any]:
    """The held-out error of the value trained on the first N training matches, for each
    N of ``args.curve``, against the play-outs on the same held-out positions: whether
    more of expert's games would make the value better, and how fast."""
    y, play, g = d["y"], d["playout"], d["match"][held]
    order = sorted(set(d["match"][tr].tolist()))
    rows = []
    for n in args.curve:
        if n > len(order):
            raise SystemExit(f"--curve {n}: only {len(order)} training matches")
        part = tr & (d["match"] <= order[n - 1])
        _net, curve, learned = fit_value(d, part, val, eq, args)
        w = fit_mix(learned[val], play[val], y[val])
        e = errors({"learned": learned[held], "playout": play[held],
                    "mix": (w * learned + (1 - w) * play)[held]}, "playout", y[held], g)
        rows.append({"train_matches": n, "train_positions": int(part.sum()),
                     "best_epoch": int(np.argmin(curve)) + 1, "mix_weight_learned": round(w, 3),
                     **e})
    return {"records": [str(r) for r in args.records], "positions": int(len(y)),
            "held_out": int(held.sum()), "held_matches": int(len(set(g.tolist()))),
            "scalars_only": args.scalars_only, "outs": args.outs, "augment": args.augment,
            "hidden": args.hidden, "weight_decay": args.weight_decay, "curve": rows}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=Path, required=True, nargs="+",
                   help="folders of ginrummy/1 records (`ginrummy match ... --records`)")
    p.add_argument("--shuffles", type=int, default=8,
                   help="play-outs a position, each with a new stock order (8)")
    p.add_argument("--holdout", type=int, default=5, help="every Nth match held out (5)")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scalars-only", action="store_true",
                   help="learn from the ten numbers alone, without the card planes")
    p.add_argument("--outs", action="store_true",
                   help="four more numbers: each hand's outs, whether the top card melds")
    p.add_argument("--augment", action="store_true",
                   help="relabel the suits of each training position at random (cards only)")
    p.add_argument("--curve", type=lambda t: [int(x) for x in t.split(",")],
                   help="a learning curve instead: train on the first N training matches "
                        "for each N listed (e.g. 60,120,240), the same held-out matches")
    p.add_argument("--json", type=Path, help="write the figures here too")
    p.add_argument("--export", type=Path,
                   help="write the model (weights, class points, the mix's weight) as JSON, "
                        "for scripts/value_mix.py")
    args = p.parse_args(argv)
    if args.augment and args.scalars_only:
        p.error("--augment relabels the cards' suits: not with --scalars-only")
    torch.set_num_threads(1)

    t0 = time.perf_counter()
    d = load(args.records, args.shuffles, args.seed)
    if not args.outs:
        d["x"] = d["x"][:, :PLANES * 52 + SCALARS]
    if args.scalars_only:
        d["x"] = d["x"][:, PLANES * 52:]
    d["x"] = np.ascontiguousarray(d["x"])
    held = d["match"] % args.holdout == 0
    val = d["match"] % args.holdout == 1
    tr = ~held & ~val
    rep = class_points(d["cls"][tr], d["points"][tr])
    eq = class_equities(d["keys"], rep)
    loaded = time.perf_counter() - t0
    if args.curve:
        report(learning_curve(d, eq, tr, val, held, args), args.json)
        return 0

    net, curve, learned = fit_value(d, tr, val, eq, args)
    y, play = d["y"], d["playout"]
    freq = (np.bincount(d["cls"][tr], minlength=CLASSES) + 1) / (tr.sum() + CLASSES)
    prior = (freq[None, :] * eq).sum(axis=1)
    w = fit_mix(learned[val], play[val], y[val])
    mixed = w * learned + (1 - w) * play

    g = d["match"][held]
    out: dict[str, Any] = {
        "records": [str(r) for r in args.records], "positions": int(len(y)),
        "held_out": int(held.sum()),
        "train_matches": int(len(set(d["match"][tr].tolist()))),
        "held_matches": int(len(set(d["match"][held].tolist()))),
        "shuffles": args.shuffles, "scalars_only": args.scalars_only, "outs": args.outs,
        "augment": args.augment, "hidden": args.hidden,
        "epochs": args.epochs,
        "seed": args.seed, "weight_decay": args.weight_decay,
        "validation_cross_entropy_by_epoch": curve,
        **errors({"learned": learned[held], "playout": play[held], "table_only": prior[held],
                  "mix": mixed[held]}, "playout", y[held], g),
        "mse_playout_noise_removed": [round(v, 5) for v in clustered_mean(
            (play[held] - y[held]) ** 2 - d["noise"][held], g)],
        "mix_weight_learned": round(w, 3),
        "deciles": {"learned": deciles(learned[held], y[held]),
                    "playout": deciles(play[held], y[held])},
        "numpy_us_per_position_batch_1024": round(numpy_batch_us(net, d["x"], 1024), 2),
        "seconds_loading": round(loaded, 1),
    }
    if args.export:
        layers = [m for m in net.modules() if isinstance(m, torch.nn.Linear)]
        args.export.write_text(json.dumps({
            "scalars_only": args.scalars_only, "outs": args.outs, "class_points": rep,
            "mix": round(w, 3),
            "layers": [{"weight": lay.weight.detach().numpy().round(6).tolist(),
                        "bias": lay.bias.detach().numpy().round(6).tolist()}
                       for lay in layers]}) + "\n", encoding="utf-8")
    report(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
