"""Distil the play-out policy's discard from expert's own discards (issue 48 item 1).

The play-out policy (:mod:`ginrummy.kernel.playout`) discards by a hand-set rule: among
the discards within ``MARGIN`` deadwood of the least, the one with the least
``OUTS_PER_POINT * (deadwood - live outs) - points``. This script fits the weights of a
linear score of the same cheap features, plus one the rule ignores (how many live cards
would meld with the discard: what the opponent could use it with), to expert's discards
in the labelled dataset (``ginrummy dataset --bots expert,expert --matches 720 --seed 47
--out expert-47 --jobs 2``), as a conditional logit over each decision's legal discards;
matches split 80/20 by match. It prints how often each rule picks expert's discard on the
held-out matches, and the fitted weights as whole numbers for the kernel; and, for the
policy's other two choices, how often today's draw rule and three others do what expert
did with the pile's top card, and when expert knocks short of gin.

    PYTHONPATH=src python3 scripts/distill_playout.py expert-47/decisions.parquet --gate
    PYTHONPATH=src python3 scripts/distill_playout.py expert-47/decisions.parquet --gate \
        --kernel   # the fit behind the kernel's DISTILLED_WEIGHTS

The decisions may also come straight from a folder of match records, no labels needed
(``ginrummy match A B ... --records DIR``; every decision of both seats, replayed through
the core): how the generations of issue 48 item 3 are fitted, each to the games of the
one before.

    PYTHONPATH=src python3 scripts/distill_playout.py --records gen1-rec --gate --kernel
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ginrummy.cards import ALL_CARDS, POINTS, Card, cards_mask
from ginrummy.kernel.playout import knocks_at, least_left
from ginrummy.kernel.solver import completers, deadwood, deadwood_by_discard
from ginrummy.kernel.spec import DISTILLED_WEIGHTS, MARGIN, NET_ROW, OUTS_PER_POINT, PATIENT

FEATURES = ("deadwood", "outs", "points", "partners", "over_margin", "held_partners",
            "opponent_took", "opponent_shed")
"""Per legal discard: the deadwood it leaves, the live cards completing a meld after it,
its points, the live cards that would meld with it (the opponent's use of it), how far
its deadwood is past the least plus ``MARGIN`` (0 within), the cards of the hand it
would meld with (the partial it breaks), and the cards it would meld with that the
opponent took from the pile and holds (it feeds them) or discarded (it is safer). The
last two are what the play-out's state does not carry today."""


GATE = False
"""Weigh only the discards within ``MARGIN`` of the least, as today's rule does."""

LAYERS = 2
"""Hidden layers of the ``--mlp`` network (``--layers``)."""


def partners(k: int, live: int) -> int:
    """Live cards that make a meld's pair with card ``k``: its rank in other suits, and its
    suit's neighbours one and two away."""
    suit, rank = divmod(k, 13)
    mates = 0
    for s in range(4):
        if s != suit:
            mates |= 1 << (s * 13 + rank)
    for d in (-2, -1, 1, 2):
        if 0 <= rank + d < 13:
            mates |= 1 << (suit * 13 + rank + d)
    return (mates & live).bit_count()


def decision_rows(view: dict[str, Any], chosen: str) -> tuple[np.ndarray, int, int] | None:
    """The features of each legal discard of a discard decision (knock or not), the index
    of expert's, and the index today's rule picks; None for a hand with gin in it."""
    h, _ = cards_mask(" ".join(view["hand"]))
    dead, _ = cards_mask(" ".join(view["discards"])) if view["discards"] else (0, [])
    taken = -1
    hist = view.get("history") or []
    if hist and hist[-1].get("act") == "draw" and hist[-1].get("from") == "discard" and \
            hist[-1].get("seat") == view["seat"]:
        taken = Card.parse(hist[-1]["card"]).index  # R5: not discarded at once
    held = 0  # the cards the opponent took from the pile and holds still
    shed = 0  # the cards the opponent discarded
    for e in hist:
        if e.get("seat") == view["seat"] or "card" not in e or e["card"] is None:
            continue
        bit = 1 << Card.parse(e["card"]).index
        if e.get("act") == "draw" and e.get("from") == "discard":
            held |= bit
        elif e.get("act") == "discard":
            held &= ~bit
            shed |= bit
    tab = [0] * 52
    deadwood_by_discard(h, tab)
    live = ALL_CARDS & ~h & ~dead
    cards = [k for k in range(52) if h >> k & 1 and k != taken]
    least = min(tab[k] for k in cards)
    if least == 0:
        return None  # gin in hand: both rules go out
    rows = []
    for k in cards:
        v = tab[k]
        outs = (completers(h & ~(1 << k)) & live).bit_count()
        rows.append((v, outs, POINTS[k], partners(k, live), max(0, v - least - MARGIN),
                     partners(k, h), partners(k, held), partners(k, shed)))
    x = np.array(rows, dtype=np.float64)
    want = Card.parse(chosen).index
    if want not in cards:
        return None
    rule = min(range(len(cards)), key=lambda i: (
        rows[i][4] > 0, OUTS_PER_POINT * (rows[i][0] - rows[i][1]) - rows[i][2], cards[i]))
    return x, cards.index(want), rule


def _pad(data: list[tuple[np.ndarray, int, int]]) -> tuple[np.ndarray, np.ndarray,
                                                          np.ndarray]:
    """The decisions as arrays: features (decisions x 11 x features), a mask of the real
    candidates, expert's index."""
    n, f = len(data), len(FEATURES)
    x = np.zeros((n, 11, f))
    mask = np.zeros((n, 11), dtype=bool)
    y = np.zeros(n, dtype=np.int64)
    for i, (xi, yi, _r) in enumerate(data):
        x[i, :len(xi)] = xi
        mask[i, :len(xi)] = xi[:, 4] == 0 if GATE else True
        y[i] = yi
    keep = mask[np.arange(n), y]  # (gated: expert's discard past the margin is left out)
    return x[keep], mask[keep], y[keep]


def fit(data: list[tuple[np.ndarray, int, int]], steps: int = 100,
        l2: float = 1e-3) -> np.ndarray:
    """Weights ``w`` maximising the conditional-logit likelihood of expert's choices
    (score = ``-x @ w``: lower is better), by Newton's method."""
    x, mask, y = _pad(data)
    w = np.zeros(len(FEATURES))
    rows = np.arange(len(y))
    for _ in range(steps):
        s = np.where(mask, -(x @ w), -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("nk,nkf->nf", p, x)
        grad = (x[rows, y] - mean).sum(axis=0) + l2 * w
        second = np.einsum("nk,nkf,nkg->fg", p, x, x) - mean.T @ mean
        step = np.linalg.solve(second + l2 * np.eye(len(w)), grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


def agreement(data: list[tuple[np.ndarray, int, int]], w: np.ndarray | None) -> float:
    """How often the rule (``w`` None: today's) picks expert's discard."""
    hits = 0
    for x, y, r in data:
        score = x @ w if w is not None else None
        if score is not None and GATE:
            score = np.where(x[:, 4] == 0, score, np.inf)
        pick = r if score is None else int(np.argmin(score))
        hits += pick == y
    return hits / len(data)


def network_agreement(train: list[tuple[np.ndarray, int, int]],
                      held: list[tuple[np.ndarray, int, int]], hidden: int,
                      epochs: int = 30, seed: int = 0) -> tuple[float, Any]:
    """Fit a network scoring each legal discard from its features (``LAYERS`` hidden
    layers of ``hidden``, the same for every candidate; a softmax over the decision's
    candidates, as the conditional logit but not linear) on ``train``, 10% of it kept
    aside for early stopping; how often its best-scored discard is expert's on ``held``
    (with ``GATE``, a decision whose expert discard is past the margin counts as missed,
    as in :func:`agreement`), and the network with the features' scaling folded in."""
    import torch

    torch.manual_seed(seed)
    x, mask, y = (torch.from_numpy(a) for a in _pad(train))
    hx, hmask, hy = (torch.from_numpy(a) for a in _pad(held))
    mean, std = x[mask].mean(0), x[mask].std(0) + 1e-6
    x, hx = ((x - mean) / std).float(), ((hx - mean) / std).float()
    cut = len(y) // 10
    vx, vmask, vy = x[:cut], mask[:cut], y[:cut]
    x, mask, y = x[cut:], mask[cut:], y[cut:]
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[2], hidden), torch.nn.ReLU(),
                              *((torch.nn.Linear(hidden, hidden), torch.nn.ReLU())
                                if LAYERS == 2 else ()),
                              torch.nn.Linear(hidden, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-5)

    def logits(xb: Any, mb: Any) -> Any:
        return net(xb).squeeze(-1).masked_fill(~mb, float("-inf"))

    gen = torch.Generator().manual_seed(seed)
    best, best_loss = None, float("inf")
    for _ in range(epochs):
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 512):
            idx = order[i:i + 512]
            loss = torch.nn.functional.cross_entropy(logits(x[idx], mask[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            v = float(torch.nn.functional.cross_entropy(logits(vx, vmask), vy))
        if v < best_loss:
            best_loss, best = v, {k: t.clone() for k, t in net.state_dict().items()}
    assert best is not None
    net.load_state_dict(best)
    with torch.no_grad():
        pick = logits(hx, hmask).argmax(1)
        layers = [m for m in net if isinstance(m, torch.nn.Linear)]
        w1 = (layers[0].weight / std.float()).double().numpy()  # on the raw features
        b1 = (layers[0].bias.double() - (layers[0].weight.double() / std) @ mean).numpy()
        folded = (w1, b1, layers[-1].weight.double().numpy()[0]) if LAYERS == 1 else None
    return float((pick == hy).sum()) / len(held), folded  # (gated out: missed)


NET_SCALE = 1000
"""Each layer's weights times this, rounded: the kernel's network is whole numbers."""


def kernel_net(folded: Any) -> list[int]:
    """A one-layer network (:func:`network_agreement`'s) as the kernel's ``DISTILLED_NET``:
    per unit seven input weights, a bias and an output weight, whole numbers, the output
    negated (the kernel's least score goes, the network's highest logit)."""
    w1, b1, w2 = folded
    out: list[int] = []
    for j in range(len(b1)):
        out += [round(float(v) * NET_SCALE) for v in w1[j]]
        out += [round(float(b1[j]) * NET_SCALE), -round(float(w2[j]) * NET_SCALE)]
    return out


def kernel_net_agreement(held: list[tuple[np.ndarray, int, int]], net: list[int]) -> float:
    """How often the whole-number network picks expert's discard, computed as the kernel
    computes it (:func:`ginrummy.kernel.playout.net_discard`: the least score, the first
    on a tie)."""
    rows = np.array(net, dtype=np.int64).reshape(-1, NET_ROW)
    hits = 0
    for x, y, _r in held:
        a = x.astype(np.int64) @ rows[:, :7].T + rows[:, 7]
        score = (np.maximum(a, 0) * rows[:, 8]).sum(axis=1)
        hits += int(np.argmin(score)) == y
    return hits / len(held)


DRAW_RULES = ("meld_and_lower", "lower_any", "lower_by_3", "meld_or_lower_by_5")
"""Rules for taking the pile's top card: today's (it joins a meld and lowers the least
deadwood, or gives gin), and three that take a card lowering the deadwood without a meld."""


def draw_rules(h: int, top: int) -> dict[str, bool]:
    """Whether each of :data:`DRAW_RULES` takes card ``top`` into hand ``h``."""
    w = h | 1 << top
    tab = [0] * 52
    deadwood_by_discard(w, tab)
    after, before = least_left(w, tab, top), deadwood(h)
    meld = bool(completers(h) >> top & 1)
    return {"meld_and_lower": meld and (after == 0 or after < before),
            "lower_any": after < before, "lower_by_3": after == 0 or after <= before - 3,
            "meld_or_lower_by_5": (meld and after < before) or after <= before - 5}


def draws_and_knocks(views: list[dict[str, Any]],
                     actions: list[dict[str, Any]]) -> dict[str, Any]:
    """How often each draw rule does what expert did with the pile's top card (the first
    turn's up-card, ``offer``, apart), and expert's knocks by its own discards so far and
    the least deadwood, where it may knock short of gin, against the patient schedule."""
    hits: dict[str, dict[str, list[int]]] = {"offer": {}, "draw": {}}
    knocks: dict[str, list[int]] = {}
    schedule = [0, 0]
    for v, a in zip(views, actions, strict=True):
        h, _ = cards_mask(" ".join(v["hand"]))
        if v["phase"] in ("draw", "offer") and v["discards"]:
            took = a.get("from") == "discard"
            for name, rule in draw_rules(h, Card.parse(v["discards"][-1]).index).items():
                cell = hits[v["phase"]].setdefault(name, [0, 0])
                cell[0] += rule == took
                cell[1] += 1
        elif v["phase"] == "discard":
            tab = [0] * 52
            deadwood_by_discard(h, tab)
            least = min(tab[k] for k in range(52) if h >> k & 1)
            if 0 < least <= v["knock_limit"]:
                turns = sum(1 for e in v.get("history") or []
                            if e.get("seat") == v["seat"] and e.get("act") == "discard")
                cell = knocks.setdefault(f"{min(turns, 6)}", [0, 0])
                cell[0] += bool(a.get("knock"))
                cell[1] += 1
                rule = least <= knocks_at(PATIENT, turns, v["knock_limit"])
                schedule[0] += rule == bool(a.get("knock"))
                schedule[1] += 1
    return {
        "pile_top_agreement": {ph: {n: round(c[0] / c[1], 4) for n, c in rules.items()}
                               for ph, rules in hits.items()},
        "expert_knocks_by_turn": {k: f"{c[0]}/{c[1]}" for k, c in sorted(knocks.items())},
        "patient_knock_agreement": round(schedule[0] / max(1, schedule[1]), 4),
    }


def from_parquet(path: str) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """The match ids, views and played actions of a dataset's decisions file."""
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=["match", "view", "action"])
    return (table.column("match").to_pylist(),
            [json.loads(x) for x in table.column("view").to_pylist()],
            [json.loads(x) for x in table.column("action").to_pylist()])


def from_records(folders: list[Path]) -> tuple[list[str], list[dict[str, Any]],
                                               list[dict[str, Any]]]:
    """The same from folders of ``ginrummy/1`` records: every decision of both seats with
    two or more legal actions, replayed through the core (the file's path is the match
    id)."""
    from ginrummy.match import Match
    from ginrummy.review.grade import moments

    matches: list[str] = []
    views: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    for path in [p for folder in folders for p in sorted(folder.glob("*.json"))]:
        match = Match.from_record(json.loads(path.read_text()))
        for m in moments(match, range(len(match.hands)), (0, 1)):
            matches.append(str(path))
            views.append(m.view.to_json())
            actions.append(m.played.to_json())
    return matches, views, actions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("decisions", nargs="?", help="decisions.parquet of the expert dataset")
    ap.add_argument("--records", type=Path, nargs="+",
                    help="folders of match records instead (`ginrummy match ... --records`)")
    ap.add_argument("--mlp", type=int, default=0, metavar="HIDDEN",
                    help="also fit a small network scoring each discard from the same "
                         "features (what a linear rule cannot hold), and its agreement")
    ap.add_argument("--limit", type=int, default=0, help="use the first N decisions only")
    ap.add_argument("--gate", action="store_true",
                    help="weigh only the discards within MARGIN of the least, as today")
    ap.add_argument("--kernel", action="store_true",
                    help="only the features the kernel's play-out state carries (no "
                         "opponent_shed): the fit behind DISTILLED_WEIGHTS")
    ap.add_argument("--layers", type=int, choices=(1, 2), default=2,
                    help="the --mlp network's hidden layers (2)")
    ap.add_argument("--export", type=Path,
                    help="write the --mlp network as the kernel's DISTILLED_NET (JSON: units, "
                         "net), for scripts/playout_generation.py --net")
    args = ap.parse_args(argv)
    if (args.decisions is None) == (args.records is None):
        ap.error("give either a decisions file or --records DIR")
    if args.export and (not args.mlp or args.layers != 1 or not args.kernel or args.gate):
        ap.error("--export: a one-layer network (--mlp H --layers 1) of the kernel's "
                 "features (--kernel), ungated")
    global GATE, FEATURES, LAYERS
    GATE, LAYERS = args.gate, args.layers
    train: list[tuple[np.ndarray, int, int]] = []
    held: list[tuple[np.ndarray, int, int]] = []
    matches, views, actions = (from_records(args.records) if args.records
                               else from_parquet(args.decisions))
    if args.limit:
        matches, views, actions = (x[:args.limit] for x in (matches, views, actions))
    for match, view, action in zip(matches, views, actions, strict=True):
        if action.get("act") != "discard":
            continue
        row = decision_rows(view, action["card"])
        if row is None:
            continue
        (held if zlib.crc32(match.encode()) % 5 == 0 else train).append(row)
    if args.kernel:
        keep = [i for i, f in enumerate(FEATURES) if f != "opponent_shed"]
        FEATURES = tuple(FEATURES[i] for i in keep)
        train = [(x[:, keep], y, r) for x, y, r in train]
        held = [(x[:, keep], y, r) for x, y, r in held]
    w = fit(train)
    scale = OUTS_PER_POINT / w[0] if w[0] > 0 else 100.0
    others: dict[str, float] = {}  # the other rules' held-out agreement
    if args.kernel and GATE:  # the kernel's weights, over_margin (gated out) aside
        k = np.array([*DISTILLED_WEIGHTS[:4], 0, *DISTILLED_WEIGHTS[4:]], dtype=np.float64)
        others = {"kernel_distilled": round(agreement(held, k), 4)}
    if args.mlp:
        hits, folded = network_agreement(train, held, args.mlp)
        others["network"] = round(hits, 4)
        if args.export:
            net = kernel_net(folded)
            others["network_whole_numbers"] = round(kernel_net_agreement(held, net), 4)
            args.export.write_text(json.dumps({"units": args.mlp, "net": net}) + "\n")
    print(json.dumps({
        "decisions": {"train": len(train), "held_out": len(held)},
        "features": FEATURES,
        "weights": [round(float(v), 4) for v in w],
        "weights_whole": [round(float(v * scale)) for v in w],
        "agreement_held_out": {"today": round(agreement(held, None), 4),
                               "fitted": round(agreement(held, w), 4), **others},
        "agreement_train": {"today": round(agreement(train, None), 4),
                            "fitted": round(agreement(train, w), 4)},
        **draws_and_knocks(views, actions),
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
