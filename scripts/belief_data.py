"""Self-play positions for the learned belief: each decision's view features and the truth.

Plays matches to 100 between the bots ``expert``, ``strong``, ``marjj``, ``simple`` and
``easy``, every ordered pairing in turn (self-play included), so a seat's data never says
which opponent it faces. At every decision of either seat it records, from that seat's
view only (R11), :func:`ginrummy.evaluator.learned.card_features` (one row of whole
numbers per unseen card) and, as labels, which of those cards are in the opponent's real
hand. With ``--heuristic N`` it also records the heuristic belief's card chances
(:class:`ginrummy.evaluator.belief.Belief`, ``N`` samples, its opponent patient and
quick), for ``scripts/belief_report.py``'s comparison on held-out seeds.

Deterministic for a seed, whatever ``--jobs`` (``expert`` searches a fixed number of deals,
not a time budget). The output is one compressed ``.npz`` (artifacts/ is not committed):

    python scripts/belief_data.py --matches 1500 --seed 1 --jobs 2 \
        --out artifacts/belief/train.npz
    python scripts/belief_data.py --matches 250 --seed 2 --jobs 2 --heuristic 512 \
        --out artifacts/belief/test.npz
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ginrummy.arena import derive_seed
from ginrummy.bots import make_bot
from ginrummy.bots.base import Bot
from ginrummy.bots.expert import EXPERT_BELIEF, ExpertBot
from ginrummy.driver import Driver, reraise
from ginrummy.evaluator.belief import Belief
from ginrummy.evaluator.learned import FEATURES, card_features
from ginrummy.hand import Action, View
from ginrummy.kernel.splitmix import Random
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match

BOTS = ("expert", "strong", "marjj", "simple", "easy")
"""The opponents, by index (the ``opp`` and ``me`` arrays of the data)."""
PAIRINGS = tuple((a, b) for a in BOTS for b in BOTS)
PHASES = {"offer": 0, "draw": 1, "discard": 2}


def make(name: str, seed: int) -> Bot:
    """A bot by name; ``expert`` bounded by its deals only (no clock: deterministic)."""
    if name == "expert":
        return ExpertBot(seed, budget_ms=1e9)
    return make_bot(name, seed)


class Recorder:
    """A seat's player that records each view it is asked about before deciding."""

    def __init__(self, bot: Bot, seat: int, match: Match, out: list[tuple[View, int, int]]
                 ) -> None:
        self.bot, self.seat, self.match, self.out = bot, seat, match, out

    def decide(self, view: View) -> Action:
        # the label (the opponent's real hand) is read from the match, never by the bot
        self.out.append((view, self.match.hand.mask_of(1 - self.seat), len(self.match.hands)))
        return self.bot.decide(view)

    def hand_over(self, view: View, result: Any = None) -> None:
        self.bot.hand_over(view, result)


def play(seed: int, m: int, heuristic: int) -> dict[str, Any]:
    """Match ``m`` of the run with ``seed``: its positions' arrays (see the module)."""
    names = PAIRINGS[m % len(PAIRINGS)]
    bots = [make(names[s], derive_seed(seed, "belief-bot", m, s)) for s in (0, 1)]
    match = Match(seed=derive_seed(seed, "belief-deal", m), first_dealer=m % 2)
    seen: list[tuple[View, int, int]] = []
    players = [Recorder(bots[s], s, match, seen) for s in (0, 1)]
    for s in (0, 1):
        bots[s].new_match(s)
    Driver(match, players, on_failure=reraise).run()
    xs: list[int] = []
    ys: list[int] = []
    cards_out: list[int] = []
    counts: list[int] = []
    pos: dict[str, list[int]] = {k: [] for k in ("n", "opp", "me", "phase", "turns",
                                                  "hand", "decision")}
    hp: list[int] = []
    hq: list[int] = []
    for d, (view, opp_hand, hand_no) in enumerate(seen):
        cards, rows, total = card_features(view)
        if not cards:
            continue
        xs += rows
        ys += [opp_hand >> c & 1 for c in cards]
        cards_out += cards
        counts.append(len(cards))
        pos["n"].append(total)
        pos["opp"].append(BOTS.index(names[1 - view.seat]))
        pos["me"].append(BOTS.index(names[view.seat]))
        pos["phase"].append(PHASES[view.phase.value])
        pos["turns"].append(rows[FEATURES.index("opp_turns")])
        pos["hand"].append(hand_no)
        pos["decision"].append(d)
        if heuristic:
            k = Knowledge.of(view)
            belief = Belief(k, view.knock_limit, EXPERT_BELIEF)
            for quick, out in ((False, hp), (True, hq)):
                rng = Random(derive_seed(seed, "belief-heuristic", m, d, quick))
                got = belief.card_chances(rng, heuristic, quick)
                out += [round(got[c] * heuristic) for c in cards]
    res: dict[str, Any] = {
        "x": np.array(xs, dtype=np.uint8).reshape(-1, len(FEATURES)),
        "y": np.array(ys, dtype=np.uint8),
        "card": np.array(cards_out, dtype=np.uint8),
        "count": np.array(counts, dtype=np.int32),
        "match": np.full(len(counts), m, dtype=np.int32),
    }
    for key, vals in pos.items():
        res[key] = np.array(vals, dtype=np.int32 if key == "decision" else np.uint8)
    if heuristic:
        res["h_patient"] = np.array(hp, dtype=np.uint16)
        res["h_quick"] = np.array(hq, dtype=np.uint16)
    return res


def _job(args: tuple[int, int, int]) -> dict[str, Any]:
    return play(*args)


def generate(matches: int, seed: int, jobs: int = 1, heuristic: int = 0,
             first: int = 0, progress: bool = False) -> dict[str, Any]:
    """Matches ``first`` .. ``first + matches - 1`` of the run with ``seed``, merged in
    match order (the same arrays for any ``jobs``)."""
    tasks = [(seed, m, heuristic) for m in range(first, first + matches)]
    parts: list[dict[str, Any]] = []
    t0 = time.time()

    def note(i: int) -> None:
        if progress and (i + 1) % max(1, matches // 20) == 0:
            print(f"  {i + 1}/{matches} matches, {time.time() - t0:.0f} s", file=sys.stderr)

    if jobs <= 1:
        for i, t in enumerate(tasks):
            parts.append(_job(t))
            note(i)
    else:
        ctx = multiprocessing.get_context()
        with ctx.Pool(jobs) as pool:
            for i, part in enumerate(pool.imap(_job, tasks, chunksize=1)):
                parts.append(part)
                note(i)
    out = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    out["features"] = np.array(FEATURES)
    out["bots"] = np.array(BOTS)
    out["meta"] = np.array([seed, matches, first, heuristic], dtype=np.int64)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="the first match's index")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--heuristic", type=int, default=0, metavar="N",
                    help="also the heuristic belief's card chances, N samples each")
    ap.add_argument("--out", required=True, help="the .npz file to write")
    args = ap.parse_args(argv)
    if args.matches <= 0 or args.jobs <= 0 or args.heuristic < 0:
        print("belief_data: --matches and --jobs must be positive, --heuristic not negative.",
              file=sys.stderr)
        return 2
    t0 = time.time()
    cpu0 = time.process_time()
    data = generate(args.matches, args.seed, args.jobs, args.heuristic, args.first,
                    progress=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **data)
    print(f"{len(data['count'])} positions, {len(data['y'])} card rows from {args.matches} "
          f"matches (seed {args.seed}) in {time.time() - t0:.0f} s "
          f"(this process's CPU {time.process_time() - cpu0:.0f} s): {out} "
          f"({out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
