"""Train the learned belief (:mod:`ginrummy.evaluator.learned`) on self-play positions.

Reads ``scripts/belief_data.py``'s ``.npz``, keeps every tenth match aside for validation
(the loss printed each epoch), trains by minibatch Adam in numpy
(:mod:`ginrummy.evaluator.learned_train`) and writes the model file. Deterministic for a
seed (one BLAS thread, float64):

    python scripts/train_belief.py --data artifacts/belief/train.npz --seed 1 \
        --out src/ginrummy/data/belief_model.json
    python scripts/train_belief.py --data artifacts/belief/train.npz --hidden 0 \
        --out artifacts/belief/linear.json
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402 - after the thread settings, which numpy reads on import
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from ginrummy.evaluator.learned import FEATURES, LearnedModel  # noqa: E402
from ginrummy.evaluator.learned_train import (  # noqa: E402
    Data,
    TrainSettings,
    chances,
    log_loss,
    model_json,
    train,
)


def load(path: str) -> tuple[Data, np.ndarray, dict[str, int]]:
    """The positions of a data file, each position's match index, and how the file was
    made (its seed and matches)."""
    z = np.load(path)
    if list(z["features"]) != list(FEATURES):
        raise SystemExit(f"train_belief: {path} was written with other features; "
                         "run scripts/belief_data.py again.")
    seed, matches = (int(v) for v in z["meta"][:2])
    return (Data(z["x"], z["y"], z["count"], z["n"]), z["match"],
            {"data_seed": seed, "data_matches": matches})


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="belief_data.py's .npz")
    ap.add_argument("--out", required=True, help="the model file (.json) to write")
    ap.add_argument("--hidden", type=int, default=TrainSettings.hidden)
    ap.add_argument("--epochs", type=int, default=TrainSettings.epochs)
    ap.add_argument("--batch", type=int, default=TrainSettings.batch)
    ap.add_argument("--lr", type=float, default=TrainSettings.lr)
    ap.add_argument("--decay", type=float, default=TrainSettings.decay)
    ap.add_argument("--seed", type=int, default=TrainSettings.seed)
    ap.add_argument("--all", action="store_true",
                    help="train on every match (no validation set)")
    args = ap.parse_args(argv)
    if args.hidden < 0 or args.epochs <= 0 or args.batch <= 0 or not args.lr > 0:
        print("train_belief: --hidden must be 0 or more; --epochs, --batch and --lr "
              "positive.", file=sys.stderr)
        return 2
    data, match, made = load(args.data)
    held = match % 10 == 9
    train_set = data if args.all else data.positions(np.flatnonzero(~held))
    valid = None if args.all else data.positions(np.flatnonzero(held))
    settings = TrainSettings(args.hidden, args.epochs, args.batch, args.lr, args.decay,
                             args.seed)
    print(f"{len(train_set.count)} training positions ({len(train_set.y)} card rows)"
          + ("" if valid is None else f", {len(valid.count)} for validation") + ".")
    t0 = time.process_time()

    def report(epoch: int, model: LearnedModel) -> None:
        line = f"epoch {epoch}: CPU {time.process_time() - t0:.0f} s"
        if valid is not None:
            line += f", validation log-loss {log_loss(chances(model, valid), valid.y):.5f}"
        print(line, flush=True)

    model = train(train_set, settings, report)
    cpu = time.process_time() - t0
    meta = {**made, "validation": "none" if args.all else "every tenth match",
            "positions": int(len(train_set.count)),
            "rows": int(len(train_set.y)), "hidden": args.hidden, "epochs": args.epochs,
            "batch": args.batch, "lr": args.lr, "decay": args.decay, "seed": args.seed}
    text, shipped = model_json(model, meta)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    line = f"trained in {cpu:.0f} s of CPU; wrote {out} ({len(text) // 1024} KiB)"
    if valid is not None:
        line += f"; validation log-loss as written {log_loss(chances(shipped, valid), valid.y):.5f}"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
