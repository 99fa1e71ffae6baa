"""Issue 48, item 2: ``expert`` searching with its play-outs mixed with a learned value of
the whole position, screened in duplicate matches against ``expert`` as shipped.

    python scripts/position_value.py --records expert-rec --scalars-only --hidden 32 \\
        --export value.json
    python scripts/value_mix.py --model value.json --matches 200 --seed 4802 --jobs 2

The model (``scripts/position_value.py --scalars-only --export``) values a whole position
from ten numbers (the stock, the phase, who dealt, both seats' turns, the knock limit and
both hands' deadwood) as the hand's outcome classes, turned into the match-winning chance by
the match-equity table. On held-out positions of expert's games, ``mix`` x that value +
(1 - ``mix``) x the play-outs' was closer to how the hands really ended than the play-outs
alone (docs/bots.md). Here each sampled deal of each candidate action (a knock aside: its
outcome is known on the deal) gets ``(1 - mix) x`` its play-out's chance ``+ mix x`` the
value of the position right after the action, on that deal: the opponent's sampled hand
gives its deadwood; after a stock draw the value is averaged over the unseen cards. The
same per-deal values feed ``expert``'s race and its paired comparisons, so the mix moves
every decision the search makes. A research screen: nothing here changes the package.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from functools import cached_property  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from ginrummy import evaluator as evaluator_module  # noqa: E402
from ginrummy.arena import run_matches, summarize  # noqa: E402
from ginrummy.bots import BOTS  # noqa: E402
from ginrummy.bots.base import Bot  # noqa: E402
from ginrummy.bots.expert import ExpertBot  # noqa: E402
from ginrummy.cards import iter_mask  # noqa: E402
from ginrummy.equity import after_hand  # noqa: E402
from ginrummy.evaluator import Evaluator  # noqa: E402
from ginrummy.evaluator.evaluation import ActionValue, Evaluation  # noqa: E402
from ginrummy.evaluator.search import Search  # noqa: E402
from ginrummy.view import View  # noqa: E402

BINS = 9  # the outcome classes of scripts/learned_value.py: dead, 9 bins each side


class ScalarValue:
    """The exported perceptron: ten numbers of a whole position -> outcome classes."""

    def __init__(self, path: Path) -> None:
        d = json.loads(path.read_text(encoding="utf-8"))
        if not d["scalars_only"]:
            raise SystemExit("value_mix: the model must be exported with --scalars-only.")
        (w1, b1), (w2, b2) = [(np.array(lay["weight"]).T, np.array(lay["bias"]))
                              for lay in d["layers"]]
        self.w1, self.b1, self.w2, self.b2 = w1, b1, w2, b2
        self.rep: list[int] = d["class_points"]
        self.mix: float = d["mix"]

    def probs(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities of rows of features."""
        z = np.maximum(x @ self.w1 + self.b1, 0.0) @ self.w2 + self.b2
        z = np.exp(z - z.max(axis=1, keepdims=True))
        out: np.ndarray = z / z.sum(axis=1, keepdims=True)
        return out

    def equities(self, view: View, mover: int) -> np.ndarray:
        """The deciding seat's chance after a hand of each class, the classes counted
        from ``mover``'s side."""
        me, out = view.seat, np.zeros(1 + 2 * BINS)
        out[0] = after_hand(view.scores, view.dealer, me, None, 0, view.options)
        for c in range(1, 1 + 2 * BINS):
            scorer = mover if c <= BINS else 1 - mover
            out[c] = after_hand(view.scores, view.dealer, me, scorer, self.rep[c],
                                view.options)
        return out


def _row(stock: int, phase: str, mover_deals: bool, turns: tuple[int, int], limit: int,
         dws: tuple[float, float]) -> list[float]:
    """The model's ten inputs (the order of scripts/position_value.py)."""
    return [stock / 31.0, float(phase == "offer"), float(phase == "draw"),
            float(phase == "discard"), float(mover_deals), turns[0] / 15.0, turns[1] / 15.0,
            limit / 10.0, dws[0] / 60.0, dws[1] / 60.0]


class MixedSearch(Search):
    """A search whose per-deal chances mix the play-outs with the learned value."""

    model: ScalarValue
    mix: float

    @cached_property
    def turns(self) -> tuple[int, int]:
        """Each seat's discards so far in the hand (the same for every action and round)."""
        turns = [0, 0]
        for op in self.view.history:
            if op.action.act == "discard":
                turns[op.seat] += 1
        return turns[0], turns[1]

    @cached_property
    def equities(self) -> tuple[np.ndarray, np.ndarray]:
        """The deciding seat's chance after each outcome class, classes counted from seat
        0's side and from seat 1's."""
        return self.model.equities(self.view, 0), self.model.equities(self.view, 1)

    def _values(self, i: int, opp_dw: np.ndarray) -> np.ndarray | None:
        """The learned chance of the position after action ``i`` on each deal (None for a
        knock: the deal settles it)."""
        view, a, me = self.view, self.actions[i], self.view.seat
        mine, turns = self.belief.k.mine, self.turns
        limit, stock = view.knock_limit, view.stock_count
        uniq, back = np.unique(opp_dw, return_inverse=True)
        draws = 1  # positions a deal stands for (after a stock draw, one per unseen card)
        if a.act == "discard":
            if a.knock:
                return None
            assert a.card is not None
            left = float(self.b.deadwood(mine & ~a.card.mask))
            rows = [_row(stock, "draw", view.dealer != me, (turns[1 - me], turns[me] + 1),
                         limit, (float(u), left)) for u in uniq]
            mover = 1 - me
        elif a.act == "pass":
            after = "offer" if view.dealer != me else "draw"
            mine_dw = float(self.b.deadwood(mine))
            rows = [_row(stock, after, view.dealer != me, (turns[1 - me], turns[me]), limit,
                         (float(u), mine_dw)) for u in uniq]
            mover = 1 - me
        elif a.source == "discard":
            dw = float(self.b.deadwood(mine | view.discards[-1].mask))
            rows = [_row(stock, "discard", view.dealer == me, (turns[me], turns[1 - me]),
                         limit, (dw, float(u))) for u in uniq]
            mover = me
        else:  # a stock draw: the value averaged over the unseen cards it may be
            dws = [self.b.deadwood(mine | 1 << c) for c in iter_mask(self.belief.k.unseen)]
            rows = [_row(stock - 1, "discard", view.dealer == me, (turns[me], turns[1 - me]),
                         limit, (float(d), float(u))) for u in uniq for d in dws]
            mover = me
            draws = len(dws)
        v = self.model.probs(np.array(rows)) @ self.equities[mover]
        out: np.ndarray = v.reshape(len(uniq), draws).mean(axis=1)[back]
        return out

    def evaluation(self, which: Sequence[int] | None = None) -> Evaluation:
        ev = super().evaluation(which)
        rows = list(range(len(self.actions))) if which is None else list(which)
        n = ev.samples
        xs = np.array([float(self.xs[s]) for s in range(n)])
        wins = [list(r) for r in ev.win_samples]
        values = []
        for j, (i, v) in enumerate(zip(rows, ev.values, strict=True)):
            learned = self._values(i, xs)
            if learned is None:
                values.append(v)
                continue
            w = self.mix
            wins[j] = list((1 - w) * np.array(wins[j]) + w * learned)
            values.append(ActionValue(v.action, (1 - w) * v.win + w * float(learned.mean()),
                                      v.win_se, v.points, v.points_se))
        return Evaluation(tuple(values), n, tuple(tuple(r) for r in wins), ev.points_samples,
                          capped=ev.capped)


def mixed_expert(model: ScalarValue, mix: float) -> Any:
    """A factory of ``expert`` bots whose searches mix in the learned value."""

    class MixedEvaluator(Evaluator):
        def _search(self, view: View, k: Any, actions: list[Any]) -> Search:
            belief_class = vars(evaluator_module)["Belief"]
            s = MixedSearch(self, view, k, actions, belief_class, self._rng_seed(view, k))
            s.model, s.mix = model, mix
            return s

    def factory(seed: int | None) -> Bot:
        bot = ExpertBot(seed)
        old = bot.evaluator
        new = MixedEvaluator(samples=old.samples, budget_ms=old.budget_ms, seed=old.seed,
                             belief=old.belief, quick=old.quick, knock_bias=old.knock_bias,
                             kernel=old.kernel, club=old.club, style=old.style,
                             sampler=old.sampler, pool_factor=old.pool_factor)
        bot.evaluator = new
        return bot

    return factory


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, required=True)
    p.add_argument("--mix", type=float, help="the learned value's weight (the model's own)")
    p.add_argument("--opponent", default="expert")
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--seed", type=int, default=4802)
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args(argv)
    model = ScalarValue(args.model)
    mix = model.mix if args.mix is None else args.mix
    name = f"expert-mixed-{mix}"
    BOTS[name] = mixed_expert(model, mix)
    BOTS[name](0)  # fails here, before any match, if the model does not load
    t = time.perf_counter()
    results = run_matches(name, args.opponent, args.matches, args.seed, jobs=args.jobs)
    s = summarize([name, args.opponent], results, time.perf_counter() - t, args.seed)
    keep = ("players", "matches", "win_rate", "ci95", "points_per_hand", "seconds", "knocks",
            "gins", "undercuts", "forfeits", "decision_ms", "seed")
    print(json.dumps({k: s[k] for k in keep if k in s}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
