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
* a budget: a number of samples, a time in milliseconds, or both (the first reached);
  the time is CPU time of the searching thread (:func:`.search.cpu_clock`), so other
  work on the machine never cuts a search short.

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
from collections.abc import Sequence
from typing import Any

from .. import kernel
from ..hand import Action, Phase, View
from ..kernel.spec import PATIENT
from ..knowledge import Knowledge
from .belief import Belief, BeliefParams
from .evaluation import ActionValue, Evaluation
from .search import HEURISTIC, LEARNED, SAMPLERS, Search, cpu_clock

__all__ = [
    "HEURISTIC",
    "KERNEL",
    "LEARNED",
    "SAMPLER",
    "SAMPLERS",
    "ActionValue",
    "Search",
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
Python build; ``GINRUMMY_KERNEL=python`` forces it). Both give identical evaluations; the
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


SAMPLER = HEURISTIC
"""How an evaluator samples the opponent's hand unless told (``Evaluator(sampler=...)``):
:data:`HEURISTIC`, the belief's own hands, or :data:`LEARNED`, a pool of them raked to the
learned card chances (:mod:`.learned`; docs/bots.md, "Learned belief")."""
POOL_FACTOR_LEARNED = 4
"""Belief hands pooled per deal by the learned sampler (:data:`LEARNED`)."""


class EvaluatorError(ValueError):
    """The evaluator cannot work on this input; the message says why."""


class BudgetError(EvaluatorError):
    """A budget of zero or less (milliseconds or samples)."""


class InconsistentViewError(EvaluatorError):
    """A view that no real hand could produce (a card twice, more than 52 cards, ...)."""


class NoDecisionError(EvaluatorError):
    """A view in which its seat has nothing to decide (not its turn, or the hand is over)."""


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
    alone; a time budget makes it depend on the machine's speed too (the evaluation says
    so: ``capped``). ``kernel`` names the hand kernel to run on (``"numba"`` or
    ``"python"``; None: the process's choice, :data:`KERNEL`); both give the same results.
    ``knock_bias`` (by default :data:`KNOCK_BIAS`) is taken off the win chance of every
    knock short of gin, scaled by the hand's stakes: a measured overvaluation of knocking
    (0 now: none left). In a share ``quick`` of the sampled deals the opponent plays as a
    quick knocker and in a share ``club`` as a club player (the rest: patient); the
    deciding seat itself plays ``style`` in the play-outs (:mod:`ginrummy.kernel.spec`).
    ``sampler`` (:data:`SAMPLER` unless given) is ``"heuristic"`` or ``"learned"``: the
    opponent's hand drawn by the belief, or by weight from a pool of ``pool_factor``
    belief hands a deal raked to the learned card chances (the style shares kept).
    """

    DEFAULT_SAMPLES = 64

    def __init__(self, *, budget_ms: float | None = None, samples: int | None = None,
                 seed: int = 0, belief: BeliefParams | None = None,
                 quick: float = 0.0, knock_bias: float | None = None,
                 kernel: str | None = None, club: float = 0.0,
                 style: int = PATIENT, sampler: str | None = None,
                 pool_factor: int = POOL_FACTOR_LEARNED) -> None:
        if sampler is None:
            sampler = SAMPLER
        if sampler not in SAMPLERS:
            raise EvaluatorError(f"A sampler is one of {', '.join(SAMPLERS)}, not "
                                 f"{sampler!r}.")
        if pool_factor < 1:
            raise EvaluatorError(f"The pool factor must be 1 or more: {pool_factor}.")
        self.sampler = sampler
        self.pool_factor = pool_factor
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
        self.club = club
        self.style = style
        self.knock_bias = KNOCK_BIAS if knock_bias is None else knock_bias
        self.kernel = kernel

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
        start = cpu_clock()
        ms = self.budget_ms if budget_ms is None else budget_ms
        deadline = None if ms is None else start + ms / 1000
        search = self._search(view, k, list(actions))
        search.sample(self.samples, deadline)
        if variate and search.n >= 8:
            search.pool(POOL_FACTOR * search.n, deadline)
        return search.evaluation()

    def search(self, view: View, actions: Sequence[Action]) -> Search:
        """A :class:`Search` of ``actions`` (legal in ``view``) with no deals drawn yet: for
        callers that allocate deals themselves (``expert`` races its candidates)."""
        k = _check_view(view)
        for a in actions:
            if a not in view.legal:
                raise EvaluatorError(f"The action {a} is not legal in this view.")
        if not actions:
            raise EvaluatorError("There is no action to evaluate.")
        return self._search(view, k, list(actions))

    def _search(self, view: View, k: Knowledge, actions: list[Action]) -> Search:
        belief_class: type[Belief] = globals()["Belief"]  # research code may replace it
        return Search(self, view, k, actions, belief_class, self._rng_seed(view, k))

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
