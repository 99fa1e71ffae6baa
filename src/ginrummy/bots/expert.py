"""The ``expert`` bot: ``strong``'s judgement, checked and overruled by a search.

Each decision starts from what ``strong`` would do (its move is the default). The
evaluator (:mod:`ginrummy.evaluator`: a calibrated belief over the opponent's cards,
play-outs to the exact showdown on the compiled hand kernel, the match-equity table)
then races every candidate (every plain discard, the knocks, or both draws) on the same
sampled deals (common random numbers): all of them on a first batch of deals, those
clearly worse than the leader dropped, the deals doubled for the rest, up to
``samples`` deals. The bot switches from its default only when a candidate's gain in
match-winning chance over it is more than ``z`` standard errors of the paired
difference: search noise cannot make it play worse than its default by much, while clear
gains are taken.

Cheap shortcuts where the choice is forced or obvious: a single legal action, gin, and
an up-card that cannot meld with anything held are decided without search.
Deterministic for a seed (a sample budget; the cap ``budget_ms`` is CPU time, so it only
binds on a machine far slower than planned, never because the machine is busy, and the
race stops before a round that would pass it).
Everything is decided from the :class:`View` (R11).
"""

from __future__ import annotations

from ..actions import HandEnd
from ..cards import Card, iter_mask
from ..evaluator import SAMPLER, SAMPLERS, Evaluation, Evaluator, EvaluatorError
from ..evaluator.belief import BeliefParams
from ..evaluator.opponent import OpponentModel
from ..evaluator.search import cpu_clock
from ..hand import Action, Phase, View
from ..heuristics import draw_outlook, related, takes_back
from ..kernel.spec import KNOCK_TURNS, PATIENT
from ..knowledge import Knowledge
from ..melds import deadwood_by_discard_mask, deadwood_mask
from ..view import HandResult
from .strong import StrongBot

__all__ = ["EXPERT_BELIEF", "EXPERT_SAMPLER", "ExpertBot", "expert_distilled", "expert_fast",
           "expert_max"]

EXPERT_BELIEF = BeliefParams()
"""The belief ``expert`` searches with: the calibrated one, the same the review grades
with (docs/bots.md, "Knock or play on"), whose estimate of a knock short of gin is
unbiased, so the search may weigh knocks of its own."""


EXPERT_SAMPLER = SAMPLER
"""How ``expert`` samples the opponent's hand unless told (``ExpertBot(sampler=...)``):
the evaluator's default, so the bot and the review that grades with the evaluator always
believe alike (docs/bots.md, "Learned belief")."""


class ExpertBot(StrongBot):
    """``strong`` plus evaluator-checked decisions (see the module docstring).

    With ``race`` the candidates race (``first`` deals for all, dropped beyond ``drop_z``
    paired standard errors behind the leader, the deals doubled up to ``samples``);
    without it, all candidates get ``samples`` deals. ``budget_ms`` caps the time;
    ``shortlist`` (None: all) plain discards (by ``strong``'s score) are weighed, and the
    default is overruled when the gain exceeds ``z`` paired standard errors. In a share
    ``quick`` of the sampled deals the opponent knocks as soon as it may (players differ:
    ``simple`` does, ``marjj`` does not); ``knocks`` lets the search call off ``strong``'s
    knocks, ``add_knocks`` weigh knocks where ``strong`` plays on. With ``adapt`` > 0
    that share follows the knocking habit the opponent has shown in this match
    (:meth:`hand_over`), the prior counting as ``adapt`` hands. ``sampler`` (by default
    :data:`EXPERT_SAMPLER`) and ``pool_factor`` choose how the evaluator samples the
    opponent's hand (:class:`~ginrummy.evaluator.Evaluator`); ``knock_sampler``, if
    given, is the sampler of the decisions with a knock among the candidates (knock or
    play on), ``sampler`` that of the others. With ``deep`` above
    ``samples``, a close and costly decision (a knock still in the race, or a discard
    late in the hand, :meth:`_costly`) races on, doubling its deals up to ``deep``, while
    the decision's CPU time stays within ``deep_ms`` (and ``budget_ms``).
    """

    name = "expert"

    def __init__(self, seed: int | None = None, *, samples: int = 1024,
                 budget_ms: float = 1000.0, shortlist: int | None = None, z: float = 1.0,
                 knocks: bool = False, add_knocks: bool = True, quick: float = 0.75,
                 adapt: float = 2.0, kernel: str | None = None, race: bool = True,
                 first: int = 32, drop_z: float = 2.0, club: float = 0.0,
                 style: int = PATIENT, posterior: bool = False,
                 sampler: str | None = None, pool_factor: int = 4, deep: int = 0,
                 deep_ms: float = 60.0, knock_sampler: str | None = None) -> None:
        super().__init__(seed)
        if knock_sampler is not None and knock_sampler not in SAMPLERS:
            raise EvaluatorError(f"A sampler is one of {', '.join(SAMPLERS)}, not "
                                 f"{knock_sampler!r}.")
        self.knock_sampler = knock_sampler
        self.deep = deep
        self.deep_ms = deep_ms
        self.evaluator = Evaluator(samples=samples, budget_ms=budget_ms,
                                   seed=0 if seed is None else seed, quick=quick,
                                   belief=EXPERT_BELIEF, kernel=kernel, club=club,
                                   style=style,
                                   sampler=EXPERT_SAMPLER if sampler is None else sampler,
                                   pool_factor=pool_factor)
        self.quick = quick
        self.club = club
        self.posterior = posterior
        self.model = OpponentModel(prior=(quick, club, max(0.0, 1.0 - quick - club)))
        self.adapt = adapt
        self.seen_quick = 0
        self.seen_patient = 0
        self.budget_ms = budget_ms
        self.shortlist = shortlist
        self.knocks = knocks
        self.add_knocks = add_knocks
        self.z = z
        self.race = race
        self.first = first
        self.drop_z = drop_z
        self.samples = samples
        self.last: Evaluation | None = None
        self.default: Action | None = None

    def decide(self, view: View) -> Action:
        """The default (``strong``'s move), unless the evaluator shows a clear gain."""
        self.last = None
        self.default = None
        start = cpu_clock()
        if len(view.legal) == 1:
            return view.legal[0]
        k = Knowledge.of(view)
        default = super().decide(view)
        self.default = default
        if view.phase is Phase.DISCARD:
            if default.knock and not self.knocks:
                return default  # strong's knock stands (see _discard_candidates)
            candidates = self._discard_candidates(view, k, default)
        else:
            if k.top is None or takes_back(view) \
                    or not any(related(k.top, c) for c in iter_mask(k.mine)):
                return default  # the up-card melds with nothing we hold, or was ours
            candidates = list(view.legal)
        if len(candidates) < 2:
            return default
        candidates = [default] + [a for a in candidates if a != default]  # default first
        spent = (cpu_clock() - start) * 1000
        left = max(self.budget_ms - spent, 0.05 * self.budget_ms)
        sampler = self.evaluator.sampler
        if self.knock_sampler is not None and any(a.knock for a in candidates):
            self.evaluator.sampler = self.knock_sampler
        try:
            if self.race:
                ev = self._race(view, candidates, start + (spent + left) / 1000)
            else:
                ev = self.evaluator.evaluate_actions(view, candidates, budget_ms=left,
                                                     variate=False)
        finally:
            self.evaluator.sampler = sampler
        self.last = ev
        best = default
        best_gain = 0.0
        for v in ev.values:
            if v.action == default:
                continue
            gain, se = ev.difference(v.action, default)
            if gain > self.z * se and gain > best_gain:
                best, best_gain = v.action, gain
        return best

    def _race(self, view: View, candidates: list[Action], deadline: float) -> Evaluation:
        """Every candidate on ``first`` sampled deals; then, doubling the deals each round
        up to ``samples``, only those not clearly worse than the leader (within
        ``drop_z`` paired standard errors) and the default (``candidates[0]``) go on.
        Returns the evaluation of the survivors on all their deals."""
        t0 = cpu_clock()
        search = self.evaluator.search(view, candidates)
        search.extend(min(self.first, self.samples))
        work = search.n * len(candidates)  # play-outs so far, to time the next round
        active = list(range(len(candidates)))
        while True:
            ev = search.evaluation(active)
            lead = max(range(len(active)), key=lambda j: (ev.values[j].win, -j))
            keep = []
            for j, i in enumerate(active):
                if i == 0 or j == lead:
                    keep.append(i)
                    continue
                gap, se = ev.difference(candidates[active[lead]], candidates[i])
                if gap < self.drop_z * se:
                    keep.append(i)
            if keep != active:
                active = keep
                ev = search.evaluation(active)
            cap, stop = self.samples, deadline
            if self.deep > self.samples and search.n >= self.samples \
                    and self._costly(view, [candidates[i] for i in active]):
                cap, stop = self.deep, min(deadline, t0 + self.deep_ms / 1000)
            more = min(search.n, cap - search.n)
            now = cpu_clock()
            if len(active) == 1 or more <= 0 or \
                    now + (now - t0) / work * more * len(active) > stop:
                return ev  # decided, the deals all spent, or no time for another round
            if len(active) == 2:
                gain, se = ev.difference(candidates[active[1]], candidates[0])
                if abs(gain) > 3 * self.z * se:  # clear either way: more deals change nothing
                    return ev
            search.extend(more, active)
            work += more * len(active)

    LATE_STOCK = 12
    """A discard with at most this many stock cards left counts as late (:meth:`_costly`)."""

    @classmethod
    def _costly(cls, view: View, active: list[Action]) -> bool:
        """Whether a decision still close after ``samples`` deals is worth more: a knock
        among the candidates in the race (knock or play on: an undercut costs the hand),
        or a discard late in the hand (it may feed the opponent's gin)."""
        if view.phase is not Phase.DISCARD:
            return False
        return any(a.knock for a in active) or view.stock_count <= cls.LATE_STOCK

    def new_match(self, seat: int) -> None:
        """A new opponent, perhaps: forget what the last one showed."""
        self.seen_quick = self.seen_patient = 0
        self.model.reset()
        self.evaluator.quick = self.quick
        self.evaluator.club = self.club

    def hand_over(self, view: View, result: HandResult | None = None) -> None:
        """Learn the opponent's knocking habit from what the hand showed (R11): a knock
        short of gin after its first ``KNOCK_TURNS`` turns says it knocks as soon as it may;
        a revealed hand that could have knocked late but did not, a gin after those turns
        and a dead hand (R7) say it waits (a quick knocker seldom gets that far without
        knocking first). The share of quick-knocking opponents in the search's play-outs
        becomes the mean of a prior worth ``adapt`` hands centred on ``quick`` and these
        observations."""
        res = result if result is not None else view.result
        if self.adapt <= 0 or res is None:
            return
        if self.posterior:  # the shared opponent model (evaluator.opponent)
            self.model.hand_over(view, res)
            quick, club, _ = self.model.shares()
            self.evaluator.quick, self.evaluator.club = quick, club
            return
        opp = 1 - view.seat
        turns = sum(1 for op in view.history
                    if op.seat == opp and op.action.act == "discard" and not op.action.knock)
        if res.knocker is None:
            if res.result == HandEnd.DEAD:
                self.seen_patient += 1
        elif res.knocker == opp:
            gin = res.deadwood is not None and res.deadwood[opp] == 0
            if turns + 1 > KNOCK_TURNS:
                if gin:
                    self.seen_patient += 1
                else:
                    self.seen_quick += 1
        elif view.revealed is not None and turns > KNOCK_TURNS:
            dw = deadwood_mask(sum(c.mask for c in view.revealed[opp]))
            if 0 < dw <= view.knock_limit:
                self.seen_patient += 1
        n = self.seen_quick + self.seen_patient
        self.evaluator.quick = (self.adapt * self.quick + self.seen_quick) / (self.adapt + n)

    def _discard_candidates(self, view: View, k: Knowledge, default: Action) -> list[Action]:
        """The default, the best ``shortlist`` plain discards by ``strong``'s score, and the
        knocks among them or with the least deadwood (``add_knocks``; where ``strong``
        knocks, only with ``knocks``); none when the default is gin."""
        table = deadwood_by_discard_mask(k.mine)
        if default.knock and default.card is not None and table[default.card.index] == 0:
            return []  # gin
        turn = k.my_discards + 1
        weight = self.c * self.d ** (turn - 1)
        cache: dict[int, tuple[float, float]] = {}
        scores: dict[int, float] = {}
        for a in view.legal:
            if a.act == "discard" and not a.knock and a.card is not None:
                i = a.card.index
                e, gin = draw_outlook(k.mine & ~(1 << i), k.unseen, cache)
                scores[i] = table[i] + weight * e + self.danger(i, k) - self.gin_weight * gin
        ranked = sorted(scores, key=lambda i: (scores[i], i))
        if self.shortlist is not None:
            ranked = ranked[: self.shortlist]
        out = [default]
        for i in ranked:
            out.append(Action.discard(Card.from_index(i)))
        # Knocks short of gin where strong plays on: the calibrated belief values them
        # without bias (with the earlier belief, searched knocks were undercut often).
        # Calling strong's knocks off (``knocks``) lost to the quick-knocking ``simple``.
        allowed = self.knocks if default.knock else self.add_knocks
        knocks = [a for a in view.legal if a.knock and a.card is not None] if allowed else []
        if knocks:
            held = {a.card for a in out}
            out.append(min(knocks, key=lambda a: (table[a.card.index] if a.card else 0,
                                                  a.card.index if a.card else 0)))
            out += [a for a in knocks if a.card in held]
        seen: list[Action] = []
        for a in out:
            if a not in seen:
                seen.append(a)
        return seen


def expert_max(seed: int | None = None) -> ExpertBot:
    """``expert`` for analysis and puzzles: the same race up to 16,384 deals a candidate,
    within about a second of CPU time a decision."""
    return ExpertBot(seed, samples=16384, budget_ms=1000.0)


def expert_distilled(seed: int | None = None) -> ExpertBot:
    """``expert`` whose own play-outs discard by the weights fitted to expert's discards
    (:data:`~ginrummy.kernel.spec.DISTILLED`; issue 48): a research variant, measured in
    docs/bots.md, not the level players meet."""
    from ..kernel.spec import DISTILLED

    return ExpertBot(seed, style=DISTILLED)


def expert_fast(seed: int | None = None) -> ExpertBot:
    """A cheaper ``expert`` (at most 128 sampled deals a candidate) for large
    measurements."""
    return ExpertBot(seed, samples=128)

