"""Issue 48, item 2: a learned value of a position from the seat's view, measured against
the coach's play-out estimate on held-out positions (PyTorch; the research extra).

    ginrummy dataset --bots expert,expert --matches 300 --seed 47 --out expert-47-300
    python scripts/learned_value.py --data expert-47-300 --json value.json

What is learned: how the hand in play ends, from the deciding seat's view alone (the RL
observation, :func:`ginrummy.rl.encoding.encode_list`, 589 values): a dead hand, or one
seat scoring a number of points in one of :data:`BINS`, 2 x 9 + 1 classes under a
softmax (a small perceptron). The match-winning chance then follows exactly from the
match-equity table (R10, :func:`ginrummy.equity.after_hand`): the value is the sum over
classes of the class's chance times the equity of the match after such a hand (each
class's points its median in the training rows). The model learns hands; the table
supplies the score of the match, so one model serves every score.

The truth a value is measured against is the seat's equity after the hand actually
ended (``after_hand`` of the real result): it is the match-winning chance once the hand is
over, an unbiased, far less noisy target than the match's final winner. The coach's
estimate of the position is the best of its win chances over the legal actions (the
dataset's ``win`` column, 64 sampled deals of play-outs by default).

Every ``--holdout``-th match is kept aside, and the next of each ``--holdout`` is for
validation (early stopping and the mix's weight). On the held-out positions the script
reports the mean squared error of each estimate (learned, coach, the table alone with the
classes' training frequencies, and the best mix of learned and coach), the calibration of
each by decile of the estimate, draw decisions made by the value one step ahead, and the
learned value's time a position. Nothing is written into the package: the model is a
measurement here.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402 - after the thread settings, which numpy and torch read
import io  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import torch  # noqa: E402
import zstandard  # noqa: E402

from ginrummy.cards import Card  # noqa: E402
from ginrummy.equity import after_hand  # noqa: E402
from ginrummy.match import Match  # noqa: E402
from ginrummy.options import Options  # noqa: E402
from ginrummy.rl.encoding import OBS_SIZE, encode_list  # noqa: E402
from ginrummy.view import View  # noqa: E402

BINS = ((1, 5), (6, 10), (11, 15), (16, 20), (21, 25), (26, 30), (31, 40), (41, 50),
        (51, 999))
"""Point ranges of a scored hand: a knock's few points up to a big gin or undercut."""

CLASSES = 1 + 2 * len(BINS)
"""Class 0 a dead hand; 1..9 the seat scores in a bin; 10..18 the opponent does."""


def outcome_class(seat: int, scorer: int | None, points: int) -> int:
    """The class of a hand that ended with ``scorer`` scoring ``points``, for ``seat``.

    >>> outcome_class(0, None, 0), outcome_class(0, 0, 7), outcome_class(1, 0, 7)
    (0, 2, 11)
    """
    if scorer is None:
        return 0
    b = next(i for i, (lo, hi) in enumerate(BINS) if lo <= points <= hi)
    return 1 + b + (0 if scorer == seat else len(BINS))


def read_outcomes(folder: Path) -> dict[str, list[tuple[int | None, int]]]:
    """Each match's hands' results (scorer or None, points), by match id."""
    out: dict[str, list[tuple[int | None, int]]] = {}
    with (folder / "games.jsonl.zst").open("rb") as f:
        text = io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(f), "utf-8")
        for line in text:
            rec = json.loads(line)
            m = Match.from_record(rec)
            res = []
            for h in m.hands:
                r = h.result
                assert r is not None, "a finished match's hands are all over"
                res.append((r.scorer, int(r.points)))
            out[str(rec["id"])] = res
    return out


def load(folder: Path) -> dict[str, np.ndarray]:
    """The dataset's positions: ``obs``, the outcome ``cls``, the hand's ``key`` (what the
    equity of each class depends on: scores, dealer, seat, options), the true equity
    after the hand ``y``, the coach's estimate ``coach`` and the ``match`` number."""
    outcomes = read_outcomes(folder)
    table = pq.read_table(folder / "decisions.parquet",
                          columns=["match", "hand", "view", "legal", "win"])
    cols = {c: table.column(c).to_pylist() for c in table.column_names}
    n = table.num_rows
    obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
    cls = np.zeros(n, dtype=np.int64)
    y = np.zeros(n, dtype=np.float64)
    coach = np.zeros(n, dtype=np.float64)
    match = np.zeros(n, dtype=np.int64)
    points = np.zeros(n, dtype=np.int64)
    keys: list[tuple[tuple[int, int], int, int, Options]] = []
    for r in range(n):
        legal = [json.loads(a) for a in cols["legal"][r]]
        view = View.from_json(json.loads(cols["view"][r]), legal)
        obs[r] = encode_list(view)
        scorer, pts = outcomes[str(cols["match"][r])][int(cols["hand"][r])]
        cls[r] = outcome_class(view.seat, scorer, pts)
        points[r] = pts
        key = ((view.scores[0], view.scores[1]), view.dealer, view.seat, view.options)
        keys.append(key)
        y[r] = after_hand(key[0], key[1], key[2], scorer, pts, key[3])
        coach[r] = max(cols["win"][r])
        match[r] = int(cols["match"][r])
    return {"obs": obs, "cls": cls, "y": y, "coach": coach, "match": match,
            "points": points, "keys": np.array(keys, dtype=object)}


def class_points(cls: np.ndarray, points: np.ndarray) -> list[int]:
    """Each class's representative points: the median of its training rows (a bin's
    middle when it has none)."""
    rep = [0]
    for side in range(2):
        for b, (lo, hi) in enumerate(BINS):
            sel = points[cls == 1 + b + side * len(BINS)]
            rep.append(int(np.median(sel)) if len(sel) else (lo + min(hi, 60)) // 2)
    return rep


def class_equities(keys: np.ndarray, rep: list[int]) -> np.ndarray:
    """For each position, the seat's equity after a hand of each class (N, CLASSES)."""
    out = np.zeros((len(keys), CLASSES))
    cache: dict[Any, np.ndarray] = {}
    for i, key in enumerate(keys):
        scores, dealer, seat, options = key
        k = (scores, dealer, seat, options)
        if k not in cache:
            row = np.zeros(CLASSES)
            row[0] = after_hand(scores, dealer, seat, None, 0, options)
            for c in range(1, CLASSES):
                side = 0 if c <= len(BINS) else 1
                row[c] = after_hand(scores, dealer, seat, seat if side == 0 else 1 - seat,
                                    rep[c], options)
            cache[k] = row
        out[i] = cache[k]
    return out


class Net(torch.nn.Module):
    """The observation (``inputs`` values) to the outcome classes' logits: one hidden
    layer."""

    def __init__(self, hidden: int, inputs: int = OBS_SIZE) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.ReLU(),
                                        torch.nn.Linear(hidden, CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)  # type: ignore[no-any-return]


def train(obs: np.ndarray, cls: np.ndarray, val_obs: np.ndarray, val_cls: np.ndarray,
          hidden: int, epochs: int, seed: int, weight_decay: float,
          inputs: int = OBS_SIZE,
          augment: Callable[[torch.Tensor], torch.Tensor] | None = None
          ) -> tuple[Net, list[float]]:
    """Cross-entropy on the outcome classes, Adam, mini-batches of 256; the network of the
    epoch with the least validation cross-entropy (early stopping), and each epoch's.
    ``augment`` (if given) rewrites each training mini-batch: a symmetry of the game."""
    torch.manual_seed(seed)
    net = Net(hidden, inputs)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=weight_decay)
    x, t = torch.from_numpy(obs), torch.from_numpy(cls)
    vx, vt = torch.from_numpy(val_obs), torch.from_numpy(val_cls)
    gen = torch.Generator().manual_seed(seed)
    curve: list[float] = []
    best: dict[str, Any] | None = None
    for _ in range(epochs):
        net.train()
        order = torch.randperm(len(x), generator=gen)
        for i in range(0, len(x), 256):
            idx = order[i:i + 256]
            xb = x[idx] if augment is None else augment(x[idx])
            loss = torch.nn.functional.cross_entropy(net(xb), t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            curve.append(round(float(torch.nn.functional.cross_entropy(net(vx), vt)), 4))
        if best is None or curve[-1] <= min(curve):
            best = {k: v.clone() for k, v in net.state_dict().items()}
    assert best is not None
    net.load_state_dict(best)
    return net, curve


def deciles(pred: np.ndarray, y: np.ndarray) -> list[dict[str, float]]:
    """Calibration: positions sorted by the estimate in ten equal groups, each group's
    mean estimate beside its mean true equity."""
    order = np.argsort(pred, kind="stable")
    rows = []
    for part in np.array_split(order, 10):
        rows.append({"n": int(len(part)), "estimate": round(float(pred[part].mean()), 4),
                     "truth": round(float(y[part].mean()), 4)})
    return rows


def clustered_mean(e: np.ndarray, group: np.ndarray) -> tuple[float, float]:
    """The mean of ``e`` and its standard error with the rows of a match taken together
    (a hand's positions share one truth, so they are far from independent)."""
    groups = np.unique(group)
    sums = np.array([e[group == g].sum() for g in groups])
    sizes = np.array([(group == g).sum() for g in groups])
    mean = sums.sum() / sizes.sum()
    resid = sums - mean * sizes
    se = np.sqrt(len(groups) / max(len(groups) - 1, 1) * (resid ** 2).sum()) / sizes.sum()
    return float(mean), float(se)


def mse(pred: np.ndarray, y: np.ndarray, group: np.ndarray) -> tuple[float, float]:
    """Mean squared error and its standard error (clustered by match)."""
    return clustered_mean((pred - y) ** 2, group)


def fit_mix(learned: np.ndarray, base: np.ndarray, y: np.ndarray) -> float:
    """The weight w in [0, 1] of ``w * learned + (1 - w) * base`` with the least squared
    error against ``y`` (fitted on validation rows, never the held-out ones)."""
    a, b = learned - base, y - base
    return float(np.clip((a * b).sum() / max((a * a).sum(), 1e-12), 0.0, 1.0))


def errors(preds: dict[str, np.ndarray], base: str, y: np.ndarray, group: np.ndarray
           ) -> dict[str, Any]:
    """Each estimate's mean squared error against ``y`` and, for every other estimate,
    its paired difference from ``base``'s (``mse_NAME_minus_BASE``), each with its
    standard error clustered by ``group``."""
    out: dict[str, Any] = {"mse": {name: [round(v, 5) for v in mse(pred, y, group)]
                                   for name, pred in preds.items()}}
    for name, pred in preds.items():
        if name != base:
            out[f"mse_{name}_minus_{base}"] = [round(v, 5) for v in clustered_mean(
                (pred - y) ** 2 - (preds[base] - y) ** 2, group)]
    return out


def report(out: dict[str, Any], path: Path | None) -> None:
    """Print the figures, and write them to ``path`` too when given."""
    print(json.dumps(out, indent=1))
    if path:
        path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


def after_draw(view: dict[str, Any], card: str, source: str) -> dict[str, Any]:
    """The seat's view once it has drawn ``card`` from ``source`` (it is then to discard):
    a position of the same kind the value was trained on."""
    v = dict(view)
    v["hand"] = [*view["hand"], card]
    if source == "discard":
        v["discards"] = view["discards"][:-1]
    else:
        v["stock_count"] = view["stock_count"] - 1
    v["phase"] = "discard"
    v["history"] = [*view["history"],
                    {"seat": view["seat"], "act": "draw", "from": source, "card": card}]
    return v


def unseen(view: dict[str, Any]) -> list[str]:
    """The cards the seat has not seen: not in its hand, not in the pile, not taken by the
    opponent from the pile (the stock's next card is one of them, each as likely)."""
    seen = set(view["hand"]) | set(view["discards"])
    seen |= {h["card"] for h in view["history"] if h.get("card")}
    return [str(c) for c in (Card.from_index(i) for i in range(52)) if str(c) not in seen]


def draw_choices(net: Net, rows: list[tuple[dict[str, Any], str, list[float], list[str]]],
                 eq_of: Any) -> dict[str, Any]:
    """Draw decisions made by the learned value, one step ahead: the pile's top card's
    value against the average over the unseen cards of drawing each from the stock;
    how often that agrees with expert's draw and with the coach's better draw."""
    agree_expert = agree_coach = coach_expert = 0
    for view, played, win, legal in rows:
        top = view["discards"][-1]
        views = [after_draw(view, top, "discard")]
        views += [after_draw(view, c, "stock") for c in unseen(view)]
        obs = np.array([encode_list(View.from_json(v)) for v in views], dtype=np.float32)
        with torch.no_grad():
            probs = torch.softmax(net(torch.from_numpy(obs)), dim=1).numpy()
        values = (probs * eq_of(view)[None, :]).sum(axis=1)
        take = values[0] > values[1:].mean()
        mine = "discard" if take else "stock"
        best = json.loads(legal[int(np.argmax(win))])["from"]
        agree_expert += mine == played
        agree_coach += mine == best
        coach_expert += best == played
    n = max(len(rows), 1)
    return {"decisions": len(rows), "learned_agrees_with_expert": round(agree_expert / n, 4),
            "learned_agrees_with_coach": round(agree_coach / n, 4),
            "coach_agrees_with_expert": round(coach_expert / n, 4)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, required=True, help="a `ginrummy dataset` folder")
    p.add_argument("--holdout", type=int, default=5, help="every Nth match held out (5)")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--draws", type=int, default=2000,
                   help="held-out draw decisions to make by the learned value (2000)")
    p.add_argument("--json", type=Path, help="write the figures here too")
    args = p.parse_args(argv)
    torch.set_num_threads(1)

    t0 = time.perf_counter()
    d = load(args.data)
    held = d["match"] % args.holdout == 0
    val = d["match"] % args.holdout == 1  # early stopping and the mix's weight
    tr = ~held & ~val
    rep = class_points(d["cls"][tr], d["points"][tr])
    eq = class_equities(d["keys"], rep)
    loaded = time.perf_counter() - t0

    net, curve = train(d["obs"][tr], d["cls"][tr], d["obs"][val], d["cls"][val],
                       args.hidden, args.epochs, args.seed, args.weight_decay)
    net.eval()
    with torch.no_grad():
        probs = torch.softmax(net(torch.from_numpy(d["obs"])), dim=1).numpy()
    learned = (probs * eq).sum(axis=1)
    freq = (np.bincount(d["cls"][tr], minlength=CLASSES) + 1) / (tr.sum() + CLASSES)
    prior = (freq[None, :] * eq).sum(axis=1)
    y, coach = d["y"], d["coach"]

    # the best mix w * learned + (1 - w) * coach, fitted on the validation rows
    w = fit_mix(learned[val], coach[val], y[val])
    mixed = w * learned + (1 - w) * coach

    # the learned value's time a position (one view at a time, as a search would ask)
    with torch.no_grad():
        one = torch.from_numpy(d["obs"][:1])
        start = time.perf_counter()
        for _ in range(2000):
            net(one)
        per_us = (time.perf_counter() - start) / 2000 * 1e6

    with torch.no_grad():
        logp = torch.log_softmax(net(torch.from_numpy(d["obs"][held])), dim=1).numpy()
    ce = float(-logp[np.arange(held.sum()), d["cls"][held]].mean())
    ce_prior = float(-np.log(np.maximum(freq[d["cls"][held]], 1e-12)).mean())

    # draw decisions (the pile's top card or the stock) made by the value, one step ahead
    table = pq.read_table(args.data / "decisions.parquet",
                          columns=["match", "view", "action", "legal", "win"])
    cols = {c: table.column(c).to_pylist() for c in table.column_names}
    draws = []
    for r in range(table.num_rows):
        if int(cols["match"][r]) % args.holdout != 0 or len(draws) >= args.draws:
            continue
        view = json.loads(cols["view"][r])
        if view["phase"] != "draw" or not view["discards"]:
            continue
        played = json.loads(cols["action"][r])["from"]
        draws.append((view, played, cols["win"][r], cols["legal"][r]))

    def eq_of(view: dict[str, Any]) -> np.ndarray:
        key = ((view["scores"][0], view["scores"][1]), view["dealer"], view["seat"],
               View.from_json(view).options)
        return class_equities(np.array([key], dtype=object), rep)[0]

    drawn = draw_choices(net, draws, eq_of)

    g = d["match"][held]
    out: dict[str, Any] = {
        "data": str(args.data), "positions": int(len(y)), "held_out": int(held.sum()),
        "train_matches": int(len(set(d["match"][tr].tolist()))),
        "held_matches": int(len(set(d["match"][held].tolist()))),
        "hidden": args.hidden, "epochs": args.epochs, "seed": args.seed,
        "weight_decay": args.weight_decay, "validation_cross_entropy_by_epoch": curve,
        "class_points": rep,
        "cross_entropy": {"learned": round(ce, 4), "frequencies": round(ce_prior, 4)},
        **errors({"learned": learned[held], "coach": coach[held], "table_only": prior[held],
                  "mix": mixed[held]}, "coach", y[held], g),
        "mix_weight_learned": round(w, 3),
        "deciles": {"learned": deciles(learned[held], y[held]),
                    "coach": deciles(coach[held], y[held])},
        "draws": drawn,
        "learned_us_per_position": round(per_us, 1),
        "seconds_loading": round(loaded, 1),
    }
    report(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
