"""The evaluator: from one seat's :class:`View` only (R11), every legal action's chance to
win the match and expected points of the hand, each with its standard error.

How (one place for the ``expert`` bot and for grading moves):

* a belief over the opponent's hidden cards (:mod:`.belief`) gives sampled opponent hands
  and stock orders ("determinizations");
* every action is applied to each sample and the hand is played out by fast mask-level
  policies (:mod:`.rollout`) to the exact showdown (lay-offs, undercuts, R8-R9) or a dead
  hand (R7);
* common random numbers: all actions share the same samples (and the play-outs are
  deterministic), so differences between actions are not sampling noise;
* a control variate (the sampled opponent hand's deadwood, its mean estimated from a
  larger pool of cheap samples) takes out much of the luck of the sample;
* a hand's outcome becomes a match-winning chance through the match-equity table
  (``ginrummy.equity``, R10), so the score of the match shapes every choice;
* a budget: a number of samples, a time in milliseconds, or both (the first reached).

>>> from ginrummy.match import Match
>>> m = Match(seed=5)
>>> ev = Evaluator(samples=8, seed=1).evaluate(m.view(m.to_play))
>>> len(ev.values) == len(m.view(m.to_play).legal), ev.samples
(True, 8)
>>> Evaluator(samples=0)
Traceback (most recent call last):
...
ginrummy.evaluator.BudgetError: The budget must be positive: samples=0.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from ..equity import after_hand, relative_stakes
from ..hand import Action, Phase, View
from ..knowledge import Knowledge
from ..melds import deadwood_mask
from .belief import Belief, BeliefParams, opponent_steps
from .rollout import (
    DISCARD,
    DRAW,
    OFFER_DEALER,
    play_out,
    settle_knock,
)

__all__ = [
    "ActionValue",
    "BudgetError",
    "Evaluation",
    "Evaluator",
    "EvaluatorError",
    "InconsistentViewError",
    "KNOCK_BIAS",
    "NoDecisionError",
]

POOL_FACTOR = 4
"""Cheap extra samples per play-out sample, to estimate the control variate's mean."""

KNOCK_BIAS = 0.0
"""Win chance (at a first hand's stakes) taken off a knock short of gin, for a measured
overvaluation of knocking. ``scripts/calibration.py --knock-bias`` measures it against
true outcomes; with the belief as calibrated now it is within the noise of zero (seed 7:
+0.26 +- 0.87 points, seed 11: -0.18 +- 1.18), so nothing is taken off (docs/bots.md,
"Knock or play on"). ``Evaluator(knock_bias=...)`` sets another figure."""


class EvaluatorError(ValueError):
    """The evaluator cannot work on this input; the message says why."""


class BudgetError(EvaluatorError):
    """A budget of zero or less (milliseconds or samples)."""


class InconsistentViewError(EvaluatorError):
    """A view that no real hand could produce (a card twice, more than 52 cards, ...)."""


class NoDecisionError(EvaluatorError):
    """A view in which its seat has nothing to decide (not its turn, or the hand is over)."""


@dataclass(frozen=True)
class ActionValue:
    """One action's estimates for the deciding seat."""

    action: Action
    win: float
    win_se: float
    points: float
    points_se: float


@dataclass(frozen=True)
class Evaluation:
    """Estimates for every evaluated action, in ``view.legal`` order, and the samples used.

    ``win_samples[i][s]`` / ``points_samples[i][s]`` are action i's outcomes on sample s
    (the same samples for every action), kept for paired comparisons.
    """

    values: tuple[ActionValue, ...]
    samples: int
    win_samples: tuple[tuple[float, ...], ...] = field(default=(), repr=False, compare=False)
    points_samples: tuple[tuple[float, ...], ...] = field(default=(), repr=False,
                                                          compare=False)
    preferred: Action | None = field(default=None, compare=False)
    """The action an earlier, independent evaluation ranked first (the review's screen),
    or None: a choice not made on these samples, so its value here carries no winner's
    curse."""

    def best(self) -> ActionValue:
        """The highest win chance; ties: the most points, then the first."""
        best = self.values[0]
        for v in self.values[1:]:
            if (v.win, v.points) > (best.win, best.points):
                best = v
        return best

    def value_of(self, action: Action) -> ActionValue:
        """The estimates of ``action``; KeyError if it was not evaluated."""
        for v in self.values:
            if v.action == action:
                return v
        raise KeyError(f"The action {action} was not evaluated.")

    def _index(self, action: Action) -> int:
        for i, v in enumerate(self.values):
            if v.action == action:
                return i
        raise KeyError(f"The action {action} was not evaluated.")

    def cross_fitted_loss(self, played: Action) -> float | None:
        """The win chance ``played`` gives up against the best action, estimated without
        the winner's curse: the samples are split in two (even and odd), the best is
        chosen on one half and the loss measured on the other, both ways, and the two
        averaged. Unbiased for the loss against an action chosen on half the samples (a
        little below the loss against the true best); negative when ``played`` measured
        better. None with fewer than four samples.

        >>> from ginrummy.hand import DRAW_STOCK, PASS
        >>> values = (ActionValue(PASS, 0.55, 0, 0, 0), ActionValue(DRAW_STOCK, 0.4, 0, 0, 0))
        >>> ev = Evaluation(values, 4, ((0.6, 0.5, 0.6, 0.5), (0.4, 0.4, 0.4, 0.4)))
        >>> round(ev.cross_fitted_loss(DRAW_STOCK), 4), round(ev.cross_fitted_loss(PASS), 4)
        (0.15, 0.0)
        """
        rows = self.win_samples
        i = self._index(played)
        if not rows or len(rows[i]) < 4:
            return None
        halves = [[r[0::2] for r in rows], [r[1::2] for r in rows]]
        total = 0.0
        for pick, judge in ((0, 1), (1, 0)):
            means = [sum(r) / len(r) for r in halves[pick]]
            choice = max(range(len(means)), key=lambda j: (means[j], -j))
            got = halves[judge]
            total += (sum(got[choice]) - sum(got[i])) / len(got[i])
        return total / 2

    def difference(self, a: Action, b: Action, *, points: bool = False) -> tuple[float, float]:
        """Mean and standard error of ``a``'s win chance (or points) minus ``b``'s on the
        same samples (common random numbers: much tighter than the two SEs suggest)."""
        rows = self.points_samples if points else self.win_samples
        xa, xb = rows[self._index(a)], rows[self._index(b)]
        d = [x - y for x, y in zip(xa, xb, strict=True)]
        n = len(d)
        mean = sum(d) / n
        if n < 2:
            return mean, math.inf
        var = sum((x - mean) ** 2 for x in d) / (n - 1)
        return mean, math.sqrt(var / n)


def _mean_se(ys: list[float], xs: list[float], mu_x: float | None,
             mu_var: float) -> tuple[float, float]:
    """Mean and SE of ``ys``, adjusted by the control variate ``xs`` (known mean ``mu_x``
    with variance ``mu_var``) when that helps."""
    n = len(ys)
    my = sum(ys) / n
    if n < 2:
        return my, math.inf
    vy = sum((y - my) ** 2 for y in ys) / (n - 1)
    if mu_x is None or n < 8:
        return my, math.sqrt(vy / n)
    mx = sum(xs) / n
    vx = sum((x - mx) ** 2 for x in xs) / (n - 1)
    if vx <= 0:
        return my, math.sqrt(vy / n)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / (n - 1)
    b = cov / vx
    adj_var = max(vy - 2 * b * cov + b * b * vx, 0.0) / n + b * b * mu_var
    if adj_var >= vy / n:
        return my, math.sqrt(vy / n)
    return my - b * (mx - mu_x), math.sqrt(adj_var)


def _check_view(view: View) -> Knowledge:
    """The view's knowledge, or a clear error if the view is not a decision of a real hand."""
    if view.phase is Phase.OVER or view.to_play != view.seat or not view.legal:
        raise NoDecisionError("The view has no decision to make: it is not this seat's "
                              "turn, or the hand is over.")
    mine = 0
    for c in view.hand:
        if mine & c.mask:
            raise InconsistentViewError(f"The card {c} is counted twice in the hand.")
        mine |= c.mask
    pile = 0
    for c in view.discards:
        if pile & c.mask:
            raise InconsistentViewError(f"The card {c} is counted twice in the discard pile.")
        if mine & c.mask:
            raise InconsistentViewError(f"The card {c} is both in the hand and the pile.")
        pile |= c.mask
    want = 11 if view.phase is Phase.DISCARD else 10
    if len(view.hand) != want:
        raise InconsistentViewError(
            f"A seat holds {want} cards in the {view.phase} phase, not {len(view.hand)}.")
    total = len(view.hand) + len(view.discards) + view.stock_count + 10
    if total != 52:
        raise InconsistentViewError(
            f"The view accounts for {total} cards (hand, pile, stock and the opponent's "
            "10), not 52.")
    if view.stock_count < (2 if view.phase is Phase.DISCARD else 3):
        raise InconsistentViewError(f"A hand still in play cannot have {view.stock_count} "
                                    "stock cards (R7).")
    try:
        k = Knowledge.of(view)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise InconsistentViewError(f"The view's history cannot be read: {e}.") from None
    if k.opp_known & (mine | pile) or k.opp_unknown < 0:
        raise InconsistentViewError("The history gives the opponent cards that are in the "
                                    "hand or the pile, or more than 10 cards.")
    if k.unseen.bit_count() != k.opp_unknown + view.stock_count:
        raise InconsistentViewError("The history does not match the hand, pile and stock.")
    for a in view.legal:
        if a.act == "discard" and (a.card is None or not mine & a.card.mask):
            raise InconsistentViewError(f"The legal action {a} discards a card not held.")
        if (a.act == "discard") != (view.phase is Phase.DISCARD):
            raise InconsistentViewError(f"The action {a} cannot be legal in the "
                                        f"{view.phase} phase.")
    return k


class Evaluator:
    """Estimates every legal action of a view (see the module docstring).

    ``budget_ms`` and ``samples`` bound the work (both: whichever is reached first; neither:
    64 samples). With a sample budget only, the result depends on the seed and the view
    alone; a time budget makes it depend on the machine's speed too. ``knock_bias`` (by
    default :data:`KNOCK_BIAS`) is taken off the win chance of every knock short of gin,
    scaled by the hand's stakes: a measured overvaluation of knocking (0 now: none left).
    """

    DEFAULT_SAMPLES = 64

    def __init__(self, *, budget_ms: float | None = None, samples: int | None = None,
                 seed: int = 0, belief: BeliefParams | None = None,
                 quick: float = 0.0, knock_bias: float | None = None) -> None:
        if budget_ms is not None and not budget_ms > 0:
            raise BudgetError(f"The budget must be positive: budget_ms={budget_ms}.")
        if samples is not None and samples <= 0:
            raise BudgetError(f"The budget must be positive: samples={samples}.")
        self.budget_ms = budget_ms
        self.samples = samples if samples is not None or budget_ms is not None \
            else self.DEFAULT_SAMPLES
        self.seed = seed
        self.belief = belief or BeliefParams()
        self.quick = quick
        self.knock_bias = KNOCK_BIAS if knock_bias is None else knock_bias

    def evaluate(self, view: View) -> Evaluation:
        """Every legal action of ``view``, in ``view.legal`` order."""
        return self.evaluate_actions(view, view.legal)

    def evaluate_actions(self, view: View, actions: tuple[Action, ...] | list[Action],
                         *, budget_ms: float | None = None, variate: bool = True,
                         ) -> Evaluation:
        """Only the given legal actions of ``view`` (the bot's shortlist), on shared samples;
        ``budget_ms`` (if given) replaces the time budget for this call; ``variate`` False
        skips the control variate (paired differences do not need it)."""
        k = _check_view(view)
        for a in actions:
            if a not in view.legal:
                raise EvaluatorError(f"The action {a} is not legal in this view.")
        if not actions:
            raise EvaluatorError("There is no action to evaluate.")
        start = time.perf_counter()
        rng = random.Random(self._rng_seed(view, k))
        belief = Belief(k, view.knock_limit, self.belief,
                        steps=opponent_steps(view) if self.belief.quick_history else ())
        me = view.seat
        opp = 1 - me
        limit = view.knock_limit
        pile0 = [c.index for c in view.discards]
        turns0 = (k.my_discards, k.opp_discarded.bit_count())
        scores, dealer, options = view.scores, view.dealer, view.options
        equity: dict[tuple[int, int], float] = {}
        cache: dict[int, dict[int, int]] = {}
        shift = [0.0] * len(actions)  # the knock correction (KNOCK_BIAS), per action
        if self.knock_bias:
            at_stake = self.knock_bias * relative_stakes(scores, dealer, me, options)
            for i, a in enumerate(actions):
                if a.knock and a.card is not None and deadwood_mask(k.mine & ~a.card.mask):
                    shift[i] = at_stake

        def outcome(scorer: int, pts: int) -> tuple[float, float]:
            key = (scorer, pts)
            w = equity.get(key)
            if w is None:
                w = after_hand(scores, dealer, me, None if scorer < 0 else scorer, pts,
                               options)
                equity[key] = w
            return w, 0.0 if scorer < 0 else float(pts if scorer == me else -pts)

        wins: list[list[float]] = [[] for _ in actions]
        pts_rows: list[list[float]] = [[] for _ in actions]
        xs: list[float] = []
        n = 0
        ms = self.budget_ms if budget_ms is None else budget_ms
        deadline = None if ms is None else start + ms / 1000
        while True:
            quick = 1 << opp if self.quick and rng.random() < self.quick else 0
            hand, stock = belief.sample(rng, quick=bool(quick))
            xs.append(float(deadwood_mask(hand)))
            for i, a in enumerate(actions):
                hands = [0, 0]
                hands[me], hands[opp] = k.mine, hand
                scorer, pts = self._apply(a, view, hands, list(stock), list(pile0),
                                          [turns0[0], turns0[1]] if me == 0
                                          else [turns0[1], turns0[0]], limit, dealer, cache,
                                          quick)
                w, p = outcome(scorer, pts)
                wins[i].append(w - shift[i])
                pts_rows[i].append(p)
            n += 1
            if self.samples is not None and n >= self.samples:
                break
            if deadline is not None:
                now = time.perf_counter()
                if now + (now - start) / n > deadline:
                    break
        pool_rng = random.Random(rng.random())
        pool: list[float] = []
        while variate and n >= 8 and len(pool) < POOL_FACTOR * n:
            pool.append(float(deadwood_mask(belief.sample_hand(pool_rng))))
            if deadline is not None and len(pool) % 16 == 0 and time.perf_counter() > deadline:
                break
        mu_x: float | None = None
        mu_var = 0.0
        if len(pool) >= 2:
            mu_x = sum(pool) / len(pool)
            mu_var = sum((x - mu_x) ** 2 for x in pool) / (len(pool) - 1) / len(pool)
        values = []
        for i, a in enumerate(actions):
            w, wse = _mean_se(wins[i], xs, mu_x, mu_var)
            p, pse = _mean_se(pts_rows[i], xs, mu_x, mu_var)
            values.append(ActionValue(a, min(1.0, max(0.0, w)), wse, p, pse))
        return Evaluation(tuple(values), n, tuple(tuple(r) for r in wins),
                          tuple(tuple(r) for r in pts_rows))

    def _rng_seed(self, view: View, k: Knowledge) -> str:
        """A seed from the evaluator's seed and the view's public facts only (R11): the
        same view gives the same samples whatever the hidden cards are."""
        facts = (self.seed, view.seat, view.dealer, view.scores, view.phase.value, k.mine,
                 tuple(c.index for c in view.discards), view.stock_count, k.opp_known,
                 k.opp_passed, k.opp_discarded, k.opp_stock_draws, view.knock_limit,
                 view.options.target)
        return repr(facts)

    @staticmethod
    def _apply(a: Action, view: View, hands: list[int], stock: list[int], pile: list[int],
               turns: list[int], limit: int, dealer: int,
               cache: dict[int, dict[int, int]], quick: int) -> tuple[int, int]:
        """Apply the deciding seat's action to one sample, then play the hand out."""
        me = view.seat
        if a.act == "discard":
            assert a.card is not None
            card = a.card.index
            hands[me] &= ~(1 << card)
            turns[me] += 1
            if a.knock:
                return settle_knock(me, hands[me], hands[1 - me])
            pile.append(card)
            if len(stock) <= 2:
                return -1, 0  # R7
            return play_out(hands, stock, pile, 1 - me, DRAW, -1, turns, limit, dealer, cache,
                            quick)
        if a.act == "draw":
            if a.source == "discard":
                taken = pile.pop()
                hands[me] |= 1 << taken
            else:
                taken = -1
                hands[me] |= 1 << stock.pop()
            return play_out(hands, stock, pile, me, DISCARD, taken, turns, limit, dealer, cache,
                            quick)
        # pass on the up-card (R4)
        if me == dealer:
            return play_out(hands, stock, pile, 1 - me, DRAW, -1, turns, limit, dealer, cache,
                            quick)
        return play_out(hands, stock, pile, 1 - me, OFFER_DEALER, -1, turns, limit, dealer,
                        cache, quick)

