"""A search in progress: sampled deals, every action of interest played out on each by the
hand kernel, and the outcomes kept so more deals can be added for fewer actions.

:class:`Search` is what :meth:`ginrummy.evaluator.Evaluator.evaluate_actions` runs (all
actions on the same deals, then one :class:`~.evaluation.Evaluation`), and what ``expert``
races its candidates with: every candidate on a first batch of deals, the clearly worse
dropped, more deals for the rest (:meth:`Search.extend` with the actions still in the
race). Deals come from one random stream in a fixed order, so deal ``j`` is the same for
every action that was played out on it (common random numbers), whatever the batches.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any, Protocol

from .. import kernel
from ..equity import after_hand, relative_stakes
from ..hand import Action, Phase, View
from ..kernel import Build, action_code, spec
from ..kernel.sampler import opponent_style
from ..kernel.splitmix import Random
from ..knowledge import Knowledge
from ..melds import deadwood_mask
from .belief import Belief, BeliefParams, opponent_steps
from .evaluation import ActionValue, Evaluation

__all__ = ["FIRST_CHUNK", "GROW", "HEURISTIC", "LEARNED", "MIN_GROUP", "POOL_MIN",
           "RAKE_ROUNDS", "SAMPLERS", "Search", "SearchSettings", "cpu_clock"]

FIRST_CHUNK = 4
"""Deals in the first batch when a time limit applies (to measure the speed)."""
GROW = 256
"""With a time limit and no sample budget, the arrays grow by at least this many deals."""

HEURISTIC = "heuristic"
"""The opponent's hands as the belief (:mod:`.belief`) samples them."""
LEARNED = "learned"
"""A pool of the belief's hands raked to the learned card chances (:mod:`.learned`), each
deal's hand drawn from it by weight ("tilted, heuristic pool"; docs/bots.md, "Learned
belief"); without a usable model, as :data:`HEURISTIC`."""
SAMPLERS = (HEURISTIC, LEARNED)
POOL_MIN = 256
"""The smallest pool of belief hands a learned search rakes."""
MIN_GROUP = 64
"""The fewest pooled hands of each opponent style the deals may draw."""
RAKE_ROUNDS = 8
"""Raking passes over the cards (:func:`ginrummy.kernel.batch.rake`)."""


def cpu_clock() -> float:
    """The clock every time budget of a search is measured on: the CPU seconds of the
    calling thread, not the clock on the wall. A budget then binds on a machine slower
    than planned, never because other work shares the machine (a search waiting for a
    core spends none of its budget), so a loaded server searches as far as an idle one."""
    return time.thread_time()


_WEIGHTS: dict[str, tuple[Any, Any, Any, Any, Any]] = {}
"""The latest model and its weights as a build's arrays (scale, w1, b1, w2), by build."""


def _learned_chances(b: Build, view: View, k: Knowledge, model: Any) -> list[float]:
    """The learned model's chance of every card (52) in the opponent's hand
    (:func:`ginrummy.evaluator.learned.card_chances`, its scores in the kernel)."""
    from .learned import NF, fit_total
    from .learned import card_features as features

    arrays = _WEIGHTS.get(b.name)
    if arrays is None or arrays[0] is not model:
        arrays = (model, b.floats(model.scale), b.floats(model.w1), b.floats(model.b1),
                  b.floats(model.w2))
        _WEIGHTS[b.name] = arrays
    cards, rows, total = features(view)
    z = b.belief_logits(b.ints(rows), len(cards), NF, arrays[1], model.hidden, arrays[2],
                        arrays[3], arrays[4], model.b2)
    out = [float(k.opp_known >> c & 1) for c in range(52)]
    for c, p in zip(cards, fit_total(z, total), strict=True):
        out[c] = p
    return out


def phase_code(view: View) -> int:
    """The kernel's phase of ``view``'s decision (R4: which offer, R5)."""
    if view.phase is Phase.OFFER:
        return spec.OFFER_DEALER if view.seat == view.dealer else spec.OFFER_NON_DEALER
    return spec.DISCARD if view.phase is Phase.DISCARD else spec.DRAW


class SearchSettings(Protocol):
    """What a search reads of its evaluator (:class:`ginrummy.evaluator.Evaluator` has it)."""

    belief: BeliefParams
    kernel: str | None
    quick: float
    club: float
    style: int
    knock_bias: float
    sampler: str
    pool_factor: int


class Search:
    """Deals sampled from the belief for ``view`` and ``actions`` played out on them.

    Built by :meth:`~ginrummy.evaluator.Evaluator.search` (which checks the view and the
    actions). :attr:`n` deals have been drawn; ``done[i]`` of them were played out with
    action ``i`` (an action left out of a later batch stops there).
    """

    def __init__(self, ev: SearchSettings, view: View, k: Knowledge, actions: list[Action],
                 belief_class: type[Belief], seed: int) -> None:
        self.view = view
        self.actions = actions
        self.me = view.seat
        belief = belief_class(k, view.knock_limit, ev.belief,
                              steps=opponent_steps(view) if ev.belief.quick_history else (),
                              kernel=ev.kernel)
        self.belief = belief
        # A belief read exactly (quick_history) or replaced (a research subclass) samples
        # in Python; the play-outs still run in the kernel.
        self.python_side = belief.exact or type(belief) is not Belief
        b: Build = kernel.backend(ev.kernel)
        self.b = b
        pos = belief.position()
        pos[spec.P_ME] = view.seat
        pos[spec.P_MINE] = k.mine
        pos[spec.P_DEALER] = view.dealer
        pos[spec.P_PHASE] = phase_code(view)
        pos[spec.P_MY_TURNS] = k.my_discards
        pile0 = [c.index for c in view.discards]
        pos[spec.P_NPILE] = len(pile0)
        pos[spec.P_STOCK] = view.stock_count
        pos[spec.P_MY_STYLE] = ev.style
        self.knock_bias = ev.knock_bias
        self.pos = b.ints(pos)
        self.fl_list = belief.floats(ev.quick, ev.club)
        self.fl = b.floats(self.fl_list)
        self.pile0 = b.ints(pile0)
        self.unknown = b.ints(belief.unknown)
        self.weights = b.floats(belief.weights)
        self.all_codes = [action_code(a) for a in actions]
        self.memo = b.new_memo()
        self.state = seed
        self.n = 0
        self.done = [0] * len(actions)
        self.cap = 0
        self.codes: Any = None
        self.xs: Any = None
        self.pool_vals: Any = b.floats([])
        self.npool = 0
        self.capped = False
        self.tilted = False
        if ev.sampler == LEARNED and not self.python_side:
            self._learned(ev.pool_factor)

    # ------------------------------------------------------------------ the learned tilt
    def _learned(self, factor: int) -> None:
        """Set up the learned sampler (:data:`LEARNED`): the model's chances of the unseen
        cards; the pool is drawn as the deals need it (:meth:`_grow`)."""
        from .learned import default_model

        model = default_model()
        if model is None:
            return  # the one warning is written; the belief's own hands stand in
        b = self.b
        chances = _learned_chances(b, self.view, self.belief.k, model)
        self.tilted = True
        self.factor = max(1, factor)
        self.items = self.unknown
        self.target = b.floats([chances[c] for c in self.belief.unknown])
        fl = self.fl_list
        quick, club = fl[spec.F_QUICK_SHARE], fl[spec.F_CLUB_SHARE]
        self.shares = (max(0.0, 1.0 - quick - club), quick, club)
        self.sizes_list = [0, 0, 0]
        self.sizes = b.ints(self.sizes_list)
        self.pcap = 0
        self.hands: Any = None
        self.cum: Any = None
        self.ess = [0.0, 0.0, 0.0]

    def _grow(self, deals: int) -> None:
        """Make the raked pool big enough for ``deals`` deals: ``pool_factor`` belief hands
        a deal (at least :data:`POOL_MIN`), split by the opponent styles' shares (at least
        :data:`MIN_GROUP` of a style the deals may draw; patient ones always, for the
        control variate); a style's group that grows is raked afresh."""
        want = max(POOL_MIN, self.factor * deals)
        sizes = []
        for style, share in enumerate(self.shares):
            if share <= 0 and style != spec.PATIENT:
                sizes.append(0)
            else:
                sizes.append(max(MIN_GROUP, math.ceil(want * share)))
        if all(n <= have for n, have in zip(sizes, self.sizes_list, strict=True)):
            return
        b = self.b
        cap = max(sizes)
        if cap > self.pcap:
            hands = b.int_matrix(3, cap)
            cum = b.float_matrix(3, cap)
            if self.hands is not None:
                b.place(hands, [0, 1, 2], 0, self.hands, self.pcap)
            self.hands, self.cum, self.pcap = hands, cum, cap
        for style in range(3):
            have, n = self.sizes_list[style], sizes[style]
            if n <= have:
                continue
            self.state = b.fill_pool(self.pos, self.fl, self.unknown, self.weights,
                                     self.state, style, self.hands[style], have, n - have,
                                     self.memo)
            self.ess[style] = b.rake(self.hands[style], n, self.items, self.target,
                                     RAKE_ROUNDS, self.cum[style])
            self.sizes_list[style] = n
        self.sizes = b.ints(self.sizes_list)

    def pool_hands(self) -> list[tuple[int, int, float]]:
        """The raked pool so far: (style, hand mask, weight) of every pooled hand (empty
        for a search not tilted)."""
        if not self.tilted or self.hands is None:
            return []
        out = []
        for style in range(3):
            prev = 0.0
            for j in range(self.sizes_list[style]):
                c = float(self.cum[style][j])
                out.append((style, int(self.hands[style][j]), c - prev))
                prev = c
        return out

    # ------------------------------------------------------------------ drawing deals
    def _room(self, want: int) -> None:
        """Make the arrays hold at least ``want`` deals."""
        if want <= self.cap:
            return
        b = self.b
        cap = want if self.codes is None else max(want, self.cap + GROW, 2 * self.cap)
        codes = b.int_matrix(len(self.actions), cap)
        xs = b.floats([0.0] * cap)
        if self.codes is not None:
            b.place(codes, list(range(len(self.actions))), 0, self.codes, self.n)
            b.place_vec(xs, 0, self.xs, self.n)
        self.codes, self.xs, self.cap = codes, xs, cap

    def extend(self, count: int, active: Sequence[int] | None = None) -> None:
        """Draw ``count`` more deals and play out the actions ``active`` (indexes into
        :attr:`actions`; None: every action still in step with :attr:`n`) on each."""
        if count <= 0:
            return
        rows = [i for i in range(len(self.actions)) if self.done[i] == self.n] \
            if active is None else list(active)
        for i in rows:
            if self.done[i] != self.n:
                raise ValueError(f"The action {self.actions[i]} left the search after "
                                 f"{self.done[i]} deals and cannot rejoin it.")
        self._room(self.n + count)
        b = self.b
        if len(rows) == len(self.actions):
            self._play(b.ints(self.all_codes), self.codes, self.xs, self.n, count)
        else:
            block = b.int_matrix(len(rows), count)
            xs = b.floats([0.0] * count)
            self._play(b.ints([self.all_codes[i] for i in rows]), block, xs, 0, count)
            b.place(self.codes, rows, self.n, block, count)
            b.place_vec(self.xs, self.n, xs, count)
        self.n += count
        for i in rows:
            self.done[i] = self.n

    def _play(self, codes_in: Any, codes: Any, xs: Any, start: int, count: int) -> None:
        """Draw ``count`` deals into columns ``start``.. of ``codes`` / ``xs``."""
        if self.tilted:
            self._grow(self.n + count)
            self.state = self.b.sample_and_play_tilted(
                self.pos, self.fl, self.pile0, self.unknown, self.hands, self.cum,
                self.sizes, codes_in, self.state, start, count, codes, xs, self.memo)
            return
        if not self.python_side:
            self.state = self.b.sample_and_play(
                self.pos, self.fl, self.pile0, self.unknown, self.weights, codes_in,
                self.state, start, count, codes, xs, self.memo)
            return
        rng = Random(self.state)
        for s in range(start, start + count):
            style = opponent_style(self.fl_list, rng.rs)
            hand, stock = self.belief.sample(rng, style=style)
            xs[s] = float(deadwood_mask(hand))
            self.b.play_sample(self.pos, self.pile0, hand, stock, style, codes_in, codes, s,
                               self.memo)
        self.state = rng.state

    def sample(self, samples: int | None, deadline: float | None) -> bool:
        """Deals for every action until ``samples`` or until the next batch would pass
        ``deadline`` (at least one deal); True when the clock stopped it short."""
        if deadline is None:
            assert samples is not None
            self.extend(samples - self.n)
            return False
        start = cpu_clock()
        first = self.n
        while samples is None or self.n < samples:
            left = None if samples is None else samples - self.n
            if self.n == first:
                count = FIRST_CHUNK
            else:
                now = cpu_clock()
                per = (now - start) / (self.n - first)
                fit = int((deadline - now) / per) if per > 0 else GROW
                if fit < 1:
                    self.capped = samples is not None
                    return self.capped
                count = max(1, fit // 2) if fit > 8 else fit
            if left is not None:
                count = min(count, left)
            self.extend(count)
        return False

    def pool(self, count: int, deadline: float | None) -> bool:
        """Deadwoods of ``count`` more sampled hands for the control variate's mean (fewer
        if the clock runs out first: True then)."""
        b = self.b
        if self.tilted and self.hands is None:
            self._grow(1)
        self.pool_vals = b.floats([0.0] * count)
        state = self.state
        done = 0
        step = count if deadline is None else 64
        while done < count:
            if deadline is not None and done and cpu_clock() > deadline:
                break
            m = min(step, count - done)
            if self.tilted:
                state = b.pool_tilted(self.hands, self.cum, self.sizes, state,
                                      self.pool_vals, done, m)
                done += m
                continue
            state = b.pool(self.pos, self.fl, self.unknown, self.weights, state,
                           self.pool_vals, done, m, self.memo)
            done += m
        self.npool = done
        if done < count:
            self.capped = True
        return done < count

    # ------------------------------------------------------------------ results
    def evaluation(self, which: Sequence[int] | None = None) -> Evaluation:
        """The actions ``which`` (indexes; None: all) on the deals they all share: match-
        winning chances (R10) and points, with standard errors and the per-deal values."""
        view, b, me = self.view, self.b, self.me
        rows = list(range(len(self.actions))) if which is None else list(which)
        n = min(self.done[i] for i in rows)
        codes = b.take(self.codes, rows, n)
        scores, dealer, options = view.scores, view.dealer, view.options
        win_of = [0.0] * 768
        pts_of = [0.0] * 768
        for c in b.distinct(codes, n):
            scorer, pts = spec.scorer_of(c), spec.points_of(c)
            win_of[c] = after_hand(scores, dealer, me, None if scorer < 0 else scorer, pts,
                                   options)
            pts_of[c] = 0.0 if scorer < 0 else float(pts if scorer == me else -pts)
        shift = [0.0] * len(rows)  # the knock correction (KNOCK_BIAS), per action
        if self.knock_bias:
            at_stake = self.knock_bias * relative_stakes(scores, dealer, me, options)
            mine = self.belief.k.mine
            for j, i in enumerate(rows):
                a = self.actions[i]
                if a.knock and a.card is not None and deadwood_mask(mine & ~a.card.mask):
                    shift[j] = at_stake
        na = len(rows)
        wins = b.float_matrix(na, n)
        pts_m = b.float_matrix(na, n)
        stats = b.float_matrix(na, 4)
        npool = self.npool
        b.summarize(codes, n, b.floats(win_of), b.floats(pts_of), b.floats(shift), self.xs,
                    self.pool_vals, npool, wins, pts_m, stats)
        values = []
        for i, (w, wse, p, pse) in zip(rows, b.rows(stats, 4), strict=True):
            values.append(ActionValue(self.actions[i], min(1.0, max(0.0, w)), wse, p, pse))
        return Evaluation(tuple(values), n, b.rows(wins, n), b.rows(pts_m, n),
                          capped=self.capped)
