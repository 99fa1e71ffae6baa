"""Grading: every decision of a record, from the deciding seat's view only (R11).

A *moment* is a point in a hand where the seat to play had two or more legal actions.
Each moment's view (what that seat could see, never the hidden cards) goes to the
:class:`~ginrummy.evaluator.Evaluator` in two stages: a first evaluation of every legal
action picks a shortlist (the best few and the played action); a second, independent
evaluation of the shortlist alone, with several times the samples per action, gives the
played action's and the best's estimates, from the same samples. Screening first and
measuring on fresh samples keeps the luck of the screen (the best of twenty noisy
estimates is biased upwards) out of the loss; a cross-fitted figure, the loss's lower
bound, is reported beside it (see :class:`Graded`). Evaluations run in worker processes
(``jobs``); each moment gets its own evaluator seeded from ``(seed, hand, action)``, so the
result does not depend on the number of workers or on the order of the work.
"""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..equity import relative_stakes
from ..exits import ignore_interrupts
from ..hand import Action, Hand, View
from ..match import Match

if TYPE_CHECKING:
    from ..evaluator import ActionValue, Evaluation
    from .said import Value

__all__ = [
    "CLEAR_Z",
    "DEFAULT_BUDGET_MS",
    "DEFAULT_SAMPLES",
    "Graded",
    "Moment",
    "STAKES_FLOOR",
    "evaluate_moments",
    "grade",
    "mark_for",
    "moment_seed",
    "moments",
    "styles_at",
    "normalize",
    "stakes",
]

DEFAULT_SAMPLES = 64
"""Screening samples per decision in a review (the measure takes four times as many);
chosen from how often marks change between two seeds (docs/review.md, "Stable grades")."""
DEFAULT_BUDGET_MS: float | None = None
"""No time limit by default: a review depends on the record, its options and the seed
alone, never on the machine's load. A limit (``--budget-ms``) is a safety net; where it
binds, the decision says so (``capped``)."""
CLEAR_Z = 2.0
"""A decision is marked only when its loss is at least this many standard errors of the
paired difference (best minus played, on the same samples): clearly real, not noise."""

# Marks by the *normalized* loss of a decision (see :func:`stakes`): the win chance lost,
# scaled to what it would be at the start of the match. How these were chosen from reviews
# of bots of known strength is in docs/review.md.
INACCURACY = 0.03
MISTAKE = 0.06
BLUNDER = 0.10
MARKS = (("blunder", BLUNDER), ("mistake", MISTAKE), ("inaccuracy", INACCURACY))
SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def mark_for(loss: float) -> str | None:
    """The mark a decision earns for a normalized loss ``loss`` (win chance at the start of
    a match's stakes).

    >>> mark_for(0.0), mark_for(0.03), mark_for(0.07), mark_for(0.3)
    (None, 'inaccuracy', 'mistake', 'blunder')
    """
    for name, threshold in MARKS:
        if loss >= threshold:
            return name
    return None


@dataclass(frozen=True)
class Moment:
    """A decision to grade: hand ``hand``'s action ``action`` (indexes as in §3), the seat's
    view just before it, and what was played."""

    hand: int
    action: int
    seat: int
    view: View
    played: Action
    styles: tuple[float, float] = (0.0, 0.0)
    """The shares of quick and club players the opponent is sampled as, from what it
    showed in the record's earlier hands (:class:`~ginrummy.evaluator.opponent.
    OpponentModel`, from this seat's view only, R11)."""


STAKES_FLOOR = 0.1
"""The least relative stakes a loss is divided by: in a match all but decided, the win
chance barely moves whatever happens, and dividing by almost nothing would only magnify
the evaluator's noise (a loss there counts at most ten times its raw size)."""


def stakes(view: View) -> float:
    """How much the hand in play can move the seat's match-winning chance, relative to the
    first hand of a match (1.0 at 0-0; near 0 when the match is all but decided, above 1
    when the next hand decides it). The review divides each loss by this (see
    :func:`normalize`), as GNU Backgammon normalizes match-winning-chance errors, so that
    a bad play counts as bad whether the match is close or already lost.

    >>> from ginrummy.match import Match
    >>> m = Match(seed=5)
    >>> round(stakes(m.view(m.to_play)), 6)
    1.0
    """
    return relative_stakes(view.scores, view.dealer, view.seat, view.options)


def normalize(loss: float, relative_stakes: float) -> float:
    """A loss of match-winning chance scaled to the stakes of a first hand: ``loss``
    divided by the relative stakes (at least :data:`STAKES_FLOOR`).

    >>> normalize(0.01, 1.0), normalize(0.01, 0.25), normalize(0.01, 0.0), normalize(0.04, 2.0)
    (0.01, 0.04, 0.1, 0.02)
    """
    return round(loss / max(relative_stakes, STAKES_FLOOR), 4)


REVIEW_PRIOR = (0.4, 0.3, 0.3)
"""The review's prior shares of quick, club and patient opponents before a record's first
hand: no one habit assumed (docs/review.md, "The opponent's habit")."""


def _replayed(match: Match, last: int) -> Iterator[tuple[int, Hand, list[tuple[float, float]]]]:
    """Hands ``0..last`` of ``match``, each as a fresh :class:`Hand` at its deal with the
    opponent styles (quick and club shares) each seat had seen before it (R11: from the
    seat's own views of the hands before); the caller plays the hand's history on it.
    One place for the review's moments and the coach's hint, so both sample the opponent
    alike."""
    from ..evaluator.opponent import OpponentModel

    models = [OpponentModel(prior=REVIEW_PRIOR), OpponentModel(prior=REVIEW_PRIOR)]
    for i, played in enumerate(match.hands[:last + 1]):
        hand = Hand(played.deal, played.dealer, played.options, played.hand_index,
                    played.scores)
        shares = []
        for m in models:
            quick, club, _ = m.shares()
            shares.append((quick, club))
        yield i, hand, shares
        if hand.result is not None:
            for s in (0, 1):
                models[s].hand_over(hand.view(s), hand.result)


def moments(match: Match, hands: Sequence[int], seats: Sequence[int]) -> list[Moment]:
    """Every decision of ``seats`` in the listed ``hands``, replayed from each hand's deal.

    Only views are kept: a moment carries what its seat could see and nothing else, and
    the opponent's knocking habit as that seat saw it in the hands before (R11).
    """
    want = set(hands)
    out = []
    for i, hand, shares in _replayed(match, max(want, default=-1)):
        for j, op in enumerate(match.hands[i].history):
            if i in want and op.seat in seats and len(hand.legal_actions()) >= 2:
                out.append(Moment(i, j, op.seat, hand.view(op.seat), op.action,
                                  shares[op.seat]))
            hand.play(op.action, op.seat)
    order = {h: k for k, h in enumerate(hands)}
    out.sort(key=lambda m: (order[m.hand], m.action))
    return out


def styles_at(match: Match, seat: int) -> tuple[float, float]:
    """The opponent styles (quick and club shares) the review samples ``seat``'s decisions
    of the hand in play with: what the seat saw of the opponent in the hands before
    (R11). With the hand's index and the decision's place (:func:`moment_seed`), what a
    hint needs to be the review's own verdict."""
    last = len(match.hands) - 1
    for i, hand, shares in _replayed(match, last):
        if i == last:
            return shares[seat]
        for op in match.hands[i].history:
            hand.play(op.action, op.seat)
    return 0.0, 0.0


def moment_seed(seed: int, hand: int, action: int) -> int:
    """The evaluator seed of one moment: a function of the review seed and its place only."""
    digest = hashlib.sha256(f"ginrummy-review/{seed}/{hand}/{action}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class _Settings:
    budget_ms: float | None
    samples: int | None
    seed: int


_SETTINGS: _Settings | None = None


def _init(settings: _Settings) -> None:
    """A worker's start: its settings, and Ctrl-C left to the parent (which ends the pool),
    so no worker prints a traceback whatever the start method."""
    global _SETTINGS
    _SETTINGS = settings
    if multiprocessing.parent_process() is not None:
        ignore_interrupts()


SHORTLIST = 3
"""How many of the screen's best actions go to the second evaluation (with the played)."""
SCREEN_SHARE = 0.4
"""The share of a decision's time budget spent screening every action."""
MEASURE_FACTOR = 4
"""With a sample budget: the second evaluation's samples per the screen's."""


def evaluate_view(view: View, played: Action | None = None, *,
                  budget_ms: float | None = DEFAULT_BUDGET_MS,
                  samples: int | None = DEFAULT_SAMPLES, seed: int = 0,
                  styles: tuple[float, float] = (0.0, 0.0)) -> Evaluation:
    """Screen every legal action of ``view``, then measure the shortlist (the best
    :data:`SHORTLIST` and ``played``) on fresh common samples; the second evaluation.

    ``samples`` caps the screen's samples (the measure gets :data:`MEASURE_FACTOR` times as
    many) and ``budget_ms`` the time of both together, whichever comes first. With
    ``budget_ms=None`` the result depends on the view and the seed alone. ``styles`` are
    the shares of quick and club players the opponent is sampled as (:class:`Moment`).
    """
    from ..evaluator import Evaluator

    if samples is None and budget_ms is None:
        samples = DEFAULT_SAMPLES
    screen_ms = measure_ms = None
    if budget_ms is not None:
        screen_ms, measure_ms = SCREEN_SHARE * budget_ms, (1 - SCREEN_SHARE) * budget_ms
    quick, club = styles
    first = Evaluator(samples=samples, budget_ms=screen_ms, seed=seed, quick=quick, club=club)
    second = Evaluator(samples=None if samples is None else MEASURE_FACTOR * samples,
                       budget_ms=measure_ms, seed=seed + 1, quick=quick, club=club)
    screen = first.evaluate(view)
    ranked = sorted(screen.values, key=lambda v: (-v.win, -v.points))
    keep = {v.action for v in ranked[:SHORTLIST]}
    if played is not None:
        keep.add(played)
    shortlist = [a for a in view.legal if a in keep]
    measure = second.evaluate_actions(view, shortlist)
    return dataclasses.replace(measure, preferred=ranked[0].action,
                               capped=screen.capped or measure.capped)


def _evaluate(task: tuple[int, int, View, Action, tuple[float, float]]) -> Evaluation:
    assert _SETTINGS is not None
    hand, action, view, played, styles = task
    return evaluate_view(view, played, budget_ms=_SETTINGS.budget_ms,
                         samples=_SETTINGS.samples,
                         seed=moment_seed(_SETTINGS.seed, hand, action), styles=styles)


def evaluate_moments(
    items: Sequence[Moment],
    *,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    samples: int | None = DEFAULT_SAMPLES,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[Evaluation]:
    """One evaluation per moment, in order; ``progress(done)`` after each."""
    settings = _Settings(budget_ms, samples, seed)
    tasks = [(m.hand, m.action, m.view, m.played, m.styles) for m in items]
    results: list[Evaluation] = []

    def collect(it: Iterator[Evaluation]) -> None:
        for ev in it:
            results.append(ev)
            if progress is not None:
                progress(len(results))

    if jobs <= 1 or len(tasks) <= 1:
        _init(settings)
        collect(map(_evaluate, tasks))
    else:
        workers = min(jobs, len(tasks))
        with multiprocessing.Pool(workers, initializer=_init, initargs=(settings,)) as pool:
            collect(pool.imap(_evaluate, tasks, chunksize=1))
    return results


@dataclass(frozen=True)
class Graded:
    """A graded decision: the played and best actions with their values from one
    evaluation, the win chance lost (never negative), the mark and the reason in words;
    ``stakes`` is the hand's relative stakes and ``normalized`` the loss divided by them
    (:func:`normalize`), which the mark and the rating go by. ``unbiased`` is the
    normalized loss cross-fitted on the measure's samples
    (:meth:`Evaluation.cross_fitted_loss`: chosen on one half, measured on the other;
    negative when the played action measured better): its mean carries no winner's curse
    but undercounts a little (a half-sample choice misses the best now and then), so the
    two means bracket a player's true loss (docs/review.md)."""

    moment: Moment
    played: ActionValue
    best: ActionValue
    loss: float
    mark: str | None
    why: str | None
    stakes: float = 1.0
    normalized: float = 0.0
    unbiased: float = 0.0
    loss_se: float = 0.0
    """The standard error of ``loss`` (the paired difference's, on the measure's samples)."""
    alternatives: tuple[ActionValue, ...] = ()
    """The evaluated actions other than the played one, best first (the runner-ups)."""
    capped: bool = False
    """Whether a time limit stopped the evaluation short of its samples."""
    said: Value | None = None
    """``why`` as a sentence still to be said (:mod:`.said`), where the reason was made so:
    a review stored for readers of any language keeps it (``why`` is its English)."""


def grade(moment: Moment, evaluation: Evaluation,
          explain: Callable[[View, Action, ActionValue, ActionValue], Value | None]
          | None = None) -> Graded:
    """Grade one moment from its evaluation: a played action that is the best loses 0.
    ``explain`` gives the reason, as text or as a sentence still to be said
    (:mod:`.said`: ``why`` is then said in the language of the moment)."""
    best = evaluation.best()
    played = evaluation.value_of(moment.played)
    weight = round(stakes(moment.view), 4)
    loss = 0.0 if played.action == best.action else \
        round(max(0.0, round(best.win, 4) - round(played.win, 4)), 4)
    norm = normalize(loss, weight)
    se = 0.0
    if played.action != best.action:
        if evaluation.win_samples:  # paired on the same samples
            _, raw_se = evaluation.difference(best.action, played.action)
        else:  # no sample rows kept: the two errors as if independent (wider)
            raw_se = (best.win_se ** 2 + played.win_se ** 2) ** 0.5
        se = round(raw_se, 4) if raw_se != float("inf") else 1.0
    others = tuple(sorted((v for v in evaluation.values if v.action != played.action),
                          key=lambda v: (-v.win, -v.points)))
    crossed = evaluation.cross_fitted_loss(moment.played)
    pref = evaluation.preferred
    if crossed is not None:
        unbiased = normalize(round(crossed, 4), weight)
    elif pref is not None:
        unbiased = normalize(round(evaluation.value_of(pref).win, 4) - round(played.win, 4),
                             weight)
    else:
        unbiased = norm
    capped = evaluation.capped
    if played.action == best.action:
        return Graded(moment, played, best, 0.0, None, None, weight, 0.0, unbiased, 0.0,
                      others, capped)
    mark = mark_for(norm) if loss >= CLEAR_Z * se else None
    said = explain(moment.view, moment.played, played, best) if explain and loss > 0 else None
    why = None if said is None else str(said)
    return Graded(moment, played, best, loss, mark, why, weight, norm, unbiased, se, others,
                  capped, said)
