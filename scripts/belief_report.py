"""How well each belief predicts the opponent's unseen cards on held-out self-play positions.

Reads ``scripts/belief_data.py``'s ``.npz`` written with ``--heuristic N`` on seeds not
used for training, and scores, for every unseen card at every decision, the chance each
belief gives that the opponent holds it:

* uniform: its unknown cards spread evenly over the unseen ones;
* heuristic, patient: :class:`ginrummy.evaluator.belief.Belief` with every opponent
  patient (as the review and ``scripts/calibration.py``'s first table);
* heuristic, expert's prior: the mixture ``expert`` starts a match with (a quick knocker
  in 0.75 of the deals, :data:`ginrummy.evaluator.opponent.PRIOR`);
* heuristic, style told: quick for ``simple`` and ``easy``, patient for the others (the
  style read from outside the view: a reference, not a belief a seat could hold);
* heuristic, recalibrated: the patient heuristic's log-odds times one factor fitted on
  these same positions, its chances shifted to add up again (how much of the learned
  model's gain a recalibration alone would buy: an optimistic reference);
* each learned model given (the shipped one by default).

It prints the log-loss (nats a card, lower is better) and the Brier score, overall, by
opponent, by the opponent's turns, and calibration by decile of the predicted chance:

    python scripts/belief_report.py --data artifacts/belief/test.npz
    python scripts/belief_report.py --data artifacts/belief/test.npz \
        --model shipped=src/ginrummy/data/belief_model.json \
        --model linear=artifacts/belief/linear.json

The heuristic's chances come from N samples; the log-loss floors them at 0.5/N, and its
Brier score carries the sampling noise (about p(1-p)/N a card; printed).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import numpy as np

from ginrummy.evaluator.learned import FEATURES, load_model
from ginrummy.evaluator.learned_train import Data, chances, segments, shifted
from ginrummy.evaluator.opponent import PRIOR

QUICK_BOTS = {"simple", "easy"}
TURNS = ((0, 0), (1, 3), (4, 6), (7, 9), (10, 99))


def logit(p: np.ndarray) -> np.ndarray:
    return np.log(p) - np.log1p(-p)


def metrics(p: np.ndarray, y: np.ndarray, floor: float) -> tuple[float, float]:
    """(log-loss, Brier) of chances ``p`` for labels ``y``; ``p`` floored for the log."""
    q = np.clip(p, floor, 1.0 - floor)
    ll = float(-np.mean(np.where(y > 0, np.log(q), np.log1p(-q))))
    return ll, float(np.mean((p - y) ** 2))


def card_losses(p: np.ndarray, y: np.ndarray, floor: float) -> np.ndarray:
    """Each card's log-loss."""
    q = np.clip(p, floor, 1.0 - floor)
    out: np.ndarray = -np.where(y > 0, np.log(q), np.log1p(-q))
    return out


def by_match(d: np.ndarray, match: np.ndarray) -> tuple[float, float]:
    """The mean of per-card values ``d`` and its 95% half-width, treating matches as the
    independent units (a ratio estimator over match totals)."""
    ids, inv = np.unique(match, return_inverse=True)
    tot = np.bincount(inv, weights=d)
    cnt = np.bincount(inv).astype(np.float64)
    mean = float(tot.sum() / cnt.sum())
    resid = tot - mean * cnt
    k = len(ids)
    se = float(np.sqrt(k / (k - 1) * np.sum(resid ** 2)) / cnt.sum()) if k > 1 else 0.0
    return mean, 1.96 * se


def deciles(p: np.ndarray, y: np.ndarray) -> list[tuple[float, float, float, int]]:
    """(predicted mean, observed mean, its 95% half-width, cards) for each tenth of the
    cards sorted by predicted chance."""
    order = np.argsort(p, kind="stable")
    out = []
    for part in np.array_split(order, 10):
        pr, ob = float(p[part].mean()), float(y[part].mean())
        out.append((pr, ob, 1.96 * (ob * (1 - ob) / len(part)) ** 0.5, len(part)))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="belief_data.py's .npz with --heuristic")
    ap.add_argument("--model", action="append", default=[], metavar="NAME=PATH",
                    help="a learned model to score (default: the shipped one)")
    args = ap.parse_args(argv)
    z = np.load(args.data)
    if list(z["features"]) != list(FEATURES):
        print(f"belief_report: {args.data} has other features; regenerate it.", file=sys.stderr)
        return 2
    if "h_patient" not in z.files:
        print(f"belief_report: {args.data} has no heuristic chances (--heuristic N).",
              file=sys.stderr)
        return 2
    seed, matches, _, samples = (int(v) for v in z["meta"])
    bots = [str(b) for b in z["bots"]]
    data = Data(z["x"], z["y"], z["count"], z["n"])
    seg = segments(data.count)
    y = data.y.astype(np.float64)
    opp = z["opp"][seg]
    turns = z["turns"][seg]
    unseen = np.bincount(seg).astype(np.float64)
    floor = 0.5 / samples
    preds: dict[str, np.ndarray] = {"uniform": (data.n / unseen)[seg]}
    hp = z["h_patient"] / samples
    hq = z["h_quick"] / samples
    preds["heuristic, patient"] = hp
    preds["heuristic, expert's prior"] = PRIOR[0] * hq + (1 - PRIOR[0]) * hp
    told = np.isin(np.array(bots)[opp], list(QUICK_BOTS))
    preds["heuristic, style told"] = np.where(told, hq, hp)
    lg = logit(np.clip(hp, floor, 1 - floor))
    best = min((metrics(shifted(a * lg, seg, data.n), y, floor)[0], a)
               for a in np.arange(0.3, 1.51, 0.05))
    preds[f"heuristic, recalibrated (x{best[1]:.2f})"] = shifted(best[1] * lg, seg, data.n)
    specs = args.model or ["learned=default"]
    for spec in specs:
        name, _, path = spec.partition("=")
        model = load_model(None if path in ("", "default") else path)
        if model is None:
            return 2
        preds[name] = chances(model, data)
    floors = {name: (floor if name.startswith("heuristic") else 1e-6) for name in preds}

    print(f"{len(data.count)} positions (every decision of both seats), {len(y)} unseen "
          f"cards, from {matches} held-out matches (seed {seed}; bots {', '.join(bots)}, "
          f"every ordered pairing); heuristic chances from {samples} samples. Log-loss in "
          "nats a card, lower is better.\n")
    print("| belief | log-loss | Brier |")
    print("| --- | --- | --- |")
    for name, p in preds.items():
        ll, br = metrics(p, y, floors[name])
        print(f"| {name} | {ll:.4f} | {br:.4f} |")
    noise = float(np.mean(hp * (1 - hp))) / (samples - 1)
    print(f"\n(The heuristic's Brier includes about {noise:.4f} of sampling noise.)\n")

    match = z["match"][seg]
    learned_names = [n for n in preds if not n.startswith(("uniform", "heuristic"))]
    print("Differences in log-loss (nats a card), with 95% intervals from the spread "
          "between matches (positions within a match are not independent):\n")
    print("| learned model | minus | difference (95% CI) |")
    print("| --- | --- | --- |")
    for name in learned_names:
        for other in ("heuristic, patient", "heuristic, expert's prior",
                      "heuristic, style told"):
            d = card_losses(preds[name], y, floors[name]) - \
                card_losses(preds[other], y, floors[other])
            mean, half = by_match(d, match)
            print(f"| {name} | {other} | {mean:+.4f} ± {half:.4f} |")
    print()

    def table(title: str, groups: list[tuple[str, np.ndarray]],
              pick: Callable[[str], bool]) -> None:
        names = [n for n in preds if pick(n)]
        print(f"{title}\n")
        print("| " + " | ".join(["group", "cards", *names]) + " |")
        print("|" + " --- |" * (len(names) + 2))
        for label, sel in groups:
            if not sel.any():
                continue
            cells = []
            for n in names:
                ll, br = metrics(preds[n][sel], y[sel], floors[n])
                cells.append(f"{ll:.4f} / {br:.4f}")
            print(f"| {label} | {int(sel.sum())} | " + " | ".join(cells) + " |")
        print()

    main_names = {"uniform", "heuristic, patient", "heuristic, expert's prior",
                  "heuristic, style told", *learned_names}
    table("By opponent (log-loss / Brier):",
          [(b, opp == i) for i, b in enumerate(bots)], lambda n: n in main_names)
    phase = z["phase"][seg]
    table("By the seat's phase (log-loss / Brier):",
          [(label, phase == i) for i, label in enumerate(("offer", "draw", "discard"))],
          lambda n: n in main_names)
    table("By the opponent's turns so far (log-loss / Brier):",
          [(f"{lo}-{hi}" if hi < 99 else f"{lo}+", (turns >= lo) & (turns <= hi))
           for lo, hi in TURNS], lambda n: n in main_names)
    for name in ["heuristic, patient", "heuristic, expert's prior", *learned_names]:
        print(f"Calibration by decile of the predicted chance, {name}:\n")
        print("| decile | cards | mean predicted | observed (95% CI) |")
        print("| --- | --- | --- | --- |")
        for i, (pr, ob, ci, n) in enumerate(deciles(preds[name], y)):
            print(f"| {i + 1} | {n} | {pr:.3f} | {ob:.3f} ± {ci:.3f} |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
