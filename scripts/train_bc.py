"""Train the ``bc`` baseline: behaviour cloning of a bot on a labelled dataset (PyTorch).

    ginrummy dataset --bots expert,expert --matches 720 --seed 47 --out expert-47 --jobs 2
    python scripts/train_bc.py --data expert-47 --minutes 10 --seed 0 \
        --out src/ginrummy/data/bc.npz --curve docs/img/bc_curve.png

Every row of ``decisions.parquet`` (docs/research.md) is a decision: the seat's view as
the bot protocol's JSON, the legal actions and the action played. The view is rebuilt
with ``View.from_json`` and encoded exactly as the RL environments and the shipped bot
encode it (``ginrummy.rl.encoding.encode_list``, 589 values); the target is the played
action's id among the 107, under a softmax masked to the legal ids. ``--soft W`` mixes
in, with weight W, a second target: the softmax of the coach's win chances over the
legal actions (the ``win`` column) at temperature ``--temperature``.

Every tenth match is kept aside: its decisions give the validation loss and the share
of decisions where the greedy policy plays the bot's move. After every epoch the greedy
policy also plays fresh hands against ``--eval-opponents`` (the learning curve). The
network goes to ``--out`` as a numpy policy file (:func:`ginrummy.bots.policy.save_mlp`),
the numbers to the same name with ``.json``, the picture to ``--curve``. Encoded rows
are cached beside the data (``bc-cache-v1.npz``) so a second run starts at once.

Needs the research extra (``pip install -e '.[research]'``: PyTorch and pyarrow).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402 - after the thread settings, which numpy and torch read
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import torch  # noqa: E402

from ginrummy.bots.policy import MLP, save_mlp  # noqa: E402
from ginrummy.hand import Action, View  # noqa: E402
from ginrummy.rl.encoding import NUM_ACTIONS, OBS_SIZE, action_to_id, encode_list  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from baseline_eval import evaluate, plot_curve, write_json  # noqa: E402

CACHE = "bc-cache-v1.npz"


def encode_rows(folder: Path, temperature: float, limit: int = 0) -> dict[str, np.ndarray]:
    """The dataset's decisions as arrays: ``obs`` (N, 589), ``mask`` (N, 107) legal ids,
    ``target`` (N,) the played id, ``soft`` (N, 107) the coach's softmax target, and
    ``match`` (N,) the match number (for the validation split)."""
    table = pq.read_table(folder / "decisions.parquet",
                          columns=["match", "view", "action", "legal", "win"])
    if limit:
        table = table.slice(0, limit)
    n = table.num_rows
    obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
    mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
    target = np.zeros(n, dtype=np.int64)
    soft = np.zeros((n, NUM_ACTIONS), dtype=np.float32)
    match = np.zeros(n, dtype=np.int64)
    cols = {c: table.column(c).to_pylist() for c in table.column_names}
    for r in range(n):
        legal_json = [json.loads(a) for a in cols["legal"][r]]
        legal = [Action.from_json(a) for a in legal_json]
        view = View.from_json(json.loads(cols["view"][r]), legal_json)
        obs[r] = encode_list(view)
        ids = [action_to_id(a) for a in legal]
        mask[r, ids] = True
        target[r] = action_to_id(Action.from_json(json.loads(cols["action"][r])))
        win = np.asarray(cols["win"][r], dtype=np.float64) / temperature
        p = np.exp(win - win.max())
        soft[r, ids] = p / p.sum()
        match[r] = int(cols["match"][r])
    return {"obs": obs, "mask": mask, "target": target, "soft": soft, "match": match}


def load(folder: Path, temperature: float, limit: int = 0, cache: bool = True
         ) -> dict[str, np.ndarray]:
    """:func:`encode_rows`, from the cache beside the data when it matches."""
    path = folder / CACHE
    source = folder / "decisions.parquet"
    key = f"{source.stat().st_size}:{source.stat().st_mtime_ns}:{temperature}:{limit}"
    if cache and path.exists():
        data = dict(np.load(path, allow_pickle=False))
        if str(data.pop("key")) == key:
            return data
    data = encode_rows(folder, temperature, limit)
    if cache:
        np.savez(path, key=np.array(key), **data)
    return data


def suit_permutations() -> tuple[torch.Tensor, torch.Tensor]:
    """For each of the 24 ways to relabel the four suits: the gather indices that relabel
    an observation (``obs[:, index]``, every 52-card plane permuted, the scalars kept) and
    an action id row (``ids[:, index]``), and the new id of each old id.

    The rules treat the suits alike (R1, R2: a run is of one suit, any suit), and so does
    the encoding, so a relabelled decision is as good an example as the played one: with
    it a small network learns each card's discard from all four suits' examples.
    """
    from itertools import permutations

    obs_idx, act_new = [], []
    planes = (OBS_SIZE - 17) // 52
    for perm in permutations(range(4)):
        new_of = [perm[c // 13] * 13 + c % 13 for c in range(52)]  # old card -> new card
        o = list(range(OBS_SIZE))
        for plane in range(planes):
            for c in range(52):
                o[plane * 52 + new_of[c]] = plane * 52 + c
        a = list(range(NUM_ACTIONS))
        for c in range(52):
            a[3 + c], a[55 + c] = 3 + new_of[c], 55 + new_of[c]
        obs_idx.append(o)
        act_new.append(a)
    return torch.tensor(obs_idx), torch.tensor(act_new)


def relabel(batch: dict[str, torch.Tensor], obs_idx: torch.Tensor, act_new: torch.Tensor
            ) -> dict[str, torch.Tensor]:
    """``batch`` with its suits relabelled by one permutation (see :func:`suit_permutations`)."""
    act_idx = torch.empty_like(act_new)
    act_idx[act_new] = torch.arange(NUM_ACTIONS)  # new id -> old id
    return {"obs": batch["obs"][:, obs_idx], "mask": batch["mask"][:, act_idx],
            "soft": batch["soft"][:, act_idx], "target": act_new[batch["target"]]}


class Net(torch.nn.Module):
    """The policy: an MLP from the observation to the 107 logits (ReLU between layers)."""

    def __init__(self, hidden: list[int]) -> None:
        super().__init__()
        sizes = [OBS_SIZE, *hidden, NUM_ACTIONS]
        self.layers = torch.nn.ModuleList(
            torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for k, layer in enumerate(self.layers):
            x = layer(x)
            if k < len(self.layers) - 1:
                x = torch.relu(x)
        return x

    def to_mlp(self) -> MLP:
        """The same network in numpy, as the bot plays it."""
        return MLP([m.weight.detach().numpy().T.copy() for m in self.layers],
                   [m.bias.detach().numpy().copy() for m in self.layers], "relu")


def losses(net: Net, data: dict[str, torch.Tensor], soft: float) -> tuple[torch.Tensor, Any]:
    """The loss (cross-entropy on the played id, mixed with the coach's target by
    ``soft``) and the number of decisions where the argmax is the played id."""
    logits = net(data["obs"]).masked_fill(~data["mask"], -1e9)
    logp = torch.log_softmax(logits, dim=1)
    hard = -logp.gather(1, data["target"][:, None]).squeeze(1)
    loss = hard.mean()
    if soft:
        loss = (1 - soft) * loss + soft * -(data["soft"] * logp).sum(dim=1).mean()
    agree = (logits.argmax(dim=1) == data["target"]).sum().item()
    return loss, agree


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Train, write the files, return the summary written beside the weights."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.monotonic()
    arrays = load(Path(args.data), args.temperature, args.limit, cache=not args.no_cache)
    encode_seconds = time.monotonic() - t0
    val_rows = arrays["match"] % 10 == 0
    if val_rows.all() or not val_rows.any():  # a tiny dataset: every fifth row instead
        val_rows = np.arange(len(val_rows)) % 5 == 0
    split = {name: {k: torch.from_numpy(v[rows]) for k, v in arrays.items() if k != "match"}
             for name, rows in (("train", ~val_rows), ("val", val_rows))}
    train_set, val_set = split["train"], split["val"]
    n = len(train_set["target"])
    net = Net(args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    gen = torch.Generator().manual_seed(args.seed)
    opponents = [o for o in args.eval_opponents.split(",") if o]
    curve: list[dict[str, Any]] = []
    start = time.monotonic()
    deadline = start + args.minutes * 60 if args.minutes else float("inf")
    batches = 0
    obs_perms, act_perms = suit_permutations()

    def record(epoch: float, train_loss: float) -> None:
        net.eval()
        with torch.no_grad():
            loss, agree = losses(net, val_set, args.soft)
        net.train()
        mlp = net.to_mlp()
        point = {"epoch": round(epoch, 3), "batches": batches,
                 "seconds": round(time.monotonic() - start, 1),
                 "train_loss": round(train_loss, 4), "val_loss": round(loss.item(), 4),
                 "val_agree": round(agree / max(len(val_set["target"]), 1), 4),
                 "eval": {o: evaluate(mlp, o, args.eval_hands) for o in opponents}}
        curve.append(point)
        if not args.quiet:
            print(json.dumps(point), flush=True)

    record(0, float("nan"))
    epoch = 0
    while epoch < args.epochs and time.monotonic() < deadline:
        order = torch.randperm(n, generator=gen)
        total, seen = 0.0, 0
        for i in range(0, n, args.batch):
            rows = order[i:i + args.batch]
            batch = {k: v[rows] for k, v in train_set.items()}
            if args.augment:
                k = int(torch.randint(24, (1,), generator=gen))
                batch = relabel(batch, obs_perms[k], act_perms[k])
            loss, _ = losses(net, batch, args.soft)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(rows)
            seen += len(rows)
            batches += 1
            if args.max_batches and batches >= args.max_batches:
                break
        epoch += 1
        record(epoch if seen == n else epoch - 1 + seen / n, total / max(seen, 1))
        if args.max_batches and batches >= args.max_batches:
            break
    seconds = time.monotonic() - start
    mlp = net.to_mlp()
    summary = {
        "algorithm": "behaviour cloning (PyTorch, Adam)", "hidden": args.hidden,
        "seed": args.seed, "soft": args.soft, "temperature": args.temperature,
        "augment": args.augment,
        "train_decisions": n, "val_decisions": len(val_set["target"]),
        "encode_seconds": round(encode_seconds, 1), "train_seconds": round(seconds, 1),
        "epochs": epoch, "batches": batches, "eval_hands": args.eval_hands, "curve": curve,
    }
    meta = {k: summary[k] for k in ("algorithm", "hidden", "seed", "soft", "augment",
                                    "train_decisions", "epochs")}
    save_mlp(args.out, mlp.weights, mlp.biases, "relu", json.dumps(meta), dtype=args.dtype)
    write_json(Path(args.out).with_suffix(".json"), summary)
    if args.curve and opponents and not plot_curve(
            curve, "epoch", "epochs over the training decisions", opponents,
            "Behaviour cloning of expert: greedy policy on fresh hands", args.curve):
        print("No picture of the curve: it needs matplotlib (pip install matplotlib); "
              "the numbers are in the .json.", file=sys.stderr)
    return summary


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="the folder `ginrummy dataset` wrote")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--minutes", type=float, default=0.0, help="stop after this long")
    p.add_argument("--max-batches", type=int, default=0, help="stop after this many batches")
    p.add_argument("--limit", type=int, default=0, help="read only the first N decisions")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=1e-5)
    p.add_argument("--hidden", type=int, nargs="+", default=[64, 64])
    p.add_argument("--soft", type=float, default=0.0,
                   help="weight of the coach's soft target (0: the played action only)")
    p.add_argument("--temperature", type=float, default=0.02,
                   help="the soft target's temperature, in win chance")
    p.add_argument("--augment", action=argparse.BooleanOptionalAction, default=True,
                   help="relabel each batch's suits by a random permutation (default on)")
    p.add_argument("--threads", type=int, default=1, help="PyTorch threads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-hands", type=int, default=200)
    p.add_argument("--eval-opponents", default="simple,strong")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    p.add_argument("--dtype", choices=["float32", "float16"], default="float32",
                   help="how the weights are stored (float16 halves the file)")
    p.add_argument("--out", default="bc.npz", help="the policy file (.npz)")
    p.add_argument("--curve", default="", help="the learning curve (.png)")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    summary = train(args)
    last = summary["curve"][-1]
    print(f"BC: {summary['train_decisions']} decisions encoded in {summary['encode_seconds']} s, "
          f"{summary['epochs']} epochs in {summary['train_seconds']} s; validation agreement "
          f"{last['val_agree']:.3f}; greedy: "
          + ", ".join(f"{o} {v['points']:+.1f} ± {v['se']:.1f} points a hand"
                      for o, v in last["eval"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
