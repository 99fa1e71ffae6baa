"""The evaluator: from one seat's :class:`View` only (R11), every legal action's chance to
win the match and expected points of the hand, each with its standard error.

How (one place for the ``expert`` bot and for grading moves):

* a belief over the opponent's hidden cards (:mod:`.belief`) gives sampled opponent hands
  and stock orders ("determinizations");
* every action is applied to each sample and the hand is played out by fast mask-level
  policies (the hand kernel, :mod:`ginrummy.kernel`) to the exact showdown (lay-offs,
  undercuts, R8-R9) or a dead hand (R7);
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

import hashlib
import math
import time
from dataclasses import dataclass, field
from typing import Any

from .. import kernel
from ..equity import after_hand, relative_stakes
from ..hand import Action, Phase, View
from ..kernel import action_code, spec
from ..kernel.reference import Random
from ..knowledge import Knowledge
from ..melds import deadwood_mask
from . import belief as _belief_module
from .belief import Belief, BeliefParams, opponent_steps

__all__ = [
    "KERNEL",
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

KERNEL: str
"""The hand kernel the play-outs run on: ``"numba"`` (compiled) or ``"python"`` (the
reference; ``GINRUMMY_KERNEL=python`` forces it). Both give identical evaluations; the
name is read on first use (:mod:`ginrummy.kernel`)."""


def __getattr__(name: str) -> Any:
    if name == "KERNEL":
        return kernel.name()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
    capped: bool = field(default=False, compare=False)
    """Whether the time limit stopped the sampling before the sample budget was reached
    (the result then depends on the machine's speed, not only on the view and seed)."""

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
        ms = self.budget_ms if budget_ms is None else budget_ms
        deadline = None if ms is None else start + ms / 1000
        run = _Run(self, view, k, list(actions))
        capped = run.sample(self.samples, deadline)
        if variate and run.n >= 8:
            capped = run.pool(POOL_FACTOR * run.n, deadline) or capped
        return run.result(self.knock_bias, capped)

    def _rng_seed(self, view: View, k: Knowledge) -> int:
        """A 64-bit seed from the evaluator's seed and the view's public facts only (R11):
        the same view gives the same samples whatever the hidden cards are, in any process
        and with either kernel."""
        facts = (self.seed, view.seat, view.dealer, view.scores, view.phase.value, k.mine,
                 tuple(c.index for c in view.discards), view.stock_count, k.opp_known,
                 k.opp_passed, k.opp_discarded, k.opp_stock_draws, view.knock_limit,
                 view.options.target)
        digest = hashlib.blake2b(repr(facts).encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little")


def _phase_code(view: View) -> int:
    """The kernel's phase of ``view``'s decision (R4: which offer, R5)."""
    if view.phase is Phase.OFFER:
        return spec.OFFER_DEALER if view.seat == view.dealer else spec.OFFER_NON_DEALER
    return spec.DISCARD if view.phase is Phase.DISCARD else spec.DRAW


FIRST_CHUNK = 4
"""Samples in the first batch when a time limit applies (to measure the speed)."""
GROW = 256
"""With a time limit and no sample budget, the sample arrays grow by at least this much."""


class _Run:
    """One evaluation in progress: the kernel's arrays, the samples drawn so far, and the
    random state (so sampling can go on in batches between clock checks)."""

    def __init__(self, ev: Evaluator, view: View, k: Knowledge, actions: list[Action]) -> None:
        self.view = view
        self.actions = actions
        self.me = view.seat
        belief = _belief_module_belief()(k, view.knock_limit, ev.belief,
                                         steps=opponent_steps(view)
                                         if ev.belief.quick_history else ())
        self.belief = belief
        # A belief read exactly (quick_history) or replaced (a research subclass) samples
        # in Python; the play-outs still run in the kernel.
        self.python_side = belief.exact or type(belief) is not _belief_module.Belief
        b = kernel.backend()
        self.b = b
        pos = belief.position()
        pos[spec.P_ME] = view.seat
        pos[spec.P_MINE] = k.mine
        pos[spec.P_DEALER] = view.dealer
        pos[spec.P_PHASE] = _phase_code(view)
        pos[spec.P_MY_TURNS] = k.my_discards
        pile0 = [c.index for c in view.discards]
        pos[spec.P_NPILE] = len(pile0)
        pos[spec.P_STOCK] = view.stock_count
        self.quick_share = ev.quick
        self.pos = b.ints(pos)
        self.fl = b.floats(belief.floats(ev.quick))
        self.pile0 = b.ints(pile0)
        self.unknown = b.ints(belief.unknown)
        self.weights = b.floats(belief.weights)
        self.codes_in = b.ints([action_code(a) for a in actions])
        self.memo = b.new_memo()
        self.state = ev._rng_seed(view, k)
        self.n = 0
        self.cap = 0
        self.codes: Any = None
        self.xs: Any = None
        self.pool_vals: Any = b.floats([])
        self.npool = 0

    def _room(self, want: int) -> None:
        """Make the sample arrays hold at least ``want`` samples."""
        if want <= self.cap:
            return
        b = self.b
        cap = want if self.codes is None else max(want, self.cap + GROW, 2 * self.cap)
        codes = b.int_matrix(len(self.actions), cap)
        xs = b.floats([0.0] * cap)
        for i in range(len(self.actions)):
            for j in range(self.n):
                codes[i][j] = self.codes[i][j]
        for j in range(self.n):
            xs[j] = self.xs[j]
        self.codes, self.xs, self.cap = codes, xs, cap

    def _batch(self, count: int) -> None:
        """Draw ``count`` more samples and play every action out on each."""
        self._room(self.n + count)
        if self.python_side:
            self._python_batch(count)
        else:
            self.state = self.b.sample_and_play(
                self.pos, self.fl, self.pile0, self.unknown, self.weights, self.codes_in,
                self.state, self.n, count, self.codes, self.xs, self.memo)
        self.n += count

    def _python_batch(self, count: int) -> None:
        rng = Random(self.state)
        opp_bit = 1 << (1 - self.me)
        share = self.quick_share
        for s in range(self.n, self.n + count):
            quick = opp_bit if share > 0 and rng.random() < share else 0
            hand, stock = self.belief.sample(rng, bool(quick))
            self.xs[s] = float(deadwood_mask(hand))
            self.b.play_sample(self.pos, self.pile0, hand, stock, quick, self.codes_in,
                               self.codes, s, self.memo)
        self.state = rng.state

    def sample(self, samples: int | None, deadline: float | None) -> bool:
        """Sample until ``samples`` are done or the next batch would pass ``deadline``
        (at least one sample); True when the clock stopped it short of ``samples``."""
        if deadline is None:
            assert samples is not None
            self._batch(samples)
            return False
        start = time.perf_counter()
        while samples is None or self.n < samples:
            left = None if samples is None else samples - self.n
            if self.n == 0:
                count = FIRST_CHUNK
            else:
                now = time.perf_counter()
                per = (now - start) / self.n
                fit = int((deadline - now) / per) if per > 0 else GROW
                if fit < 1:
                    return samples is not None
                count = max(1, fit // 2) if fit > 8 else fit
            if left is not None:
                count = min(count, left)
            self._batch(count)
        return False

    def pool(self, count: int, deadline: float | None) -> bool:
        """Deadwoods of ``count`` more sampled hands for the control variate's mean (fewer
        if the clock runs out first: True then)."""
        b = self.b
        self.pool_vals = b.floats([0.0] * count)
        state = self.state
        done = 0
        step = count if deadline is None else 64
        while done < count:
            if deadline is not None and done and time.perf_counter() > deadline:
                break
            m = min(step, count - done)
            state = b.pool(self.pos, self.fl, self.unknown, self.weights, state,
                           self.pool_vals, done, m)
            done += m
        self.npool = done
        return done < count

    def result(self, knock_bias: float, capped: bool) -> Evaluation:
        """The evaluation: outcomes turned into match-winning chances (R10) and points."""
        view, b, n, me = self.view, self.b, self.n, self.me
        scores, dealer, options = view.scores, view.dealer, view.options
        win_of = [0.0] * 768
        pts_of = [0.0] * 768
        for c in b.distinct(self.codes, n):
            scorer, pts = spec.scorer_of(c), spec.points_of(c)
            win_of[c] = after_hand(scores, dealer, me, None if scorer < 0 else scorer, pts,
                                   options)
            pts_of[c] = 0.0 if scorer < 0 else float(pts if scorer == me else -pts)
        shift = [0.0] * len(self.actions)  # the knock correction (KNOCK_BIAS), per action
        if knock_bias:
            at_stake = knock_bias * relative_stakes(scores, dealer, me, options)
            mine = self.belief.k.mine
            for i, a in enumerate(self.actions):
                if a.knock and a.card is not None and deadwood_mask(mine & ~a.card.mask):
                    shift[i] = at_stake
        na = len(self.actions)
        wins = b.float_matrix(na, n)
        pts_m = b.float_matrix(na, n)
        stats = b.float_matrix(na, 4)
        b.summarize(self.codes, n, b.floats(win_of), b.floats(pts_of), b.floats(shift),
                    self.xs, self.pool_vals, self.npool, wins, pts_m, stats)
        values = []
        for a, (w, wse, p, pse) in zip(self.actions, b.rows(stats, 4), strict=True):
            values.append(ActionValue(a, min(1.0, max(0.0, w)), wse, p, pse))
        return Evaluation(tuple(values), n, b.rows(wins, n), b.rows(pts_m, n),
                          capped=capped)


def _belief_module_belief() -> type[Belief]:
    """The belief class to sample with: :class:`Belief`, unless research code has put a
    subclass in this module's place (``benchmarks/oracle_ceiling.py``)."""
    found: type[Belief] = globals()["Belief"]
    return found
