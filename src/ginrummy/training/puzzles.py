"""Puzzles: decisions from real matches where one move is clearly best (docs/training.md).

**The margin rule** (INTERFACES section 12). A decision is a puzzle when, measured on at
least :data:`PUZZLE_SAMPLES` sampled deals shared by every legal move (common random
numbers, so the paired standard error of a difference is small):

* the best move's match-winning chance beats every other legal move's by more than
  :data:`MARGIN_Z` paired standard errors (by both estimates of the difference: the
  control-variate means the board shows, and the plain mean of the paired outcomes), and
* the margin over the runner-up is at least :data:`MIN_MARGIN` (three points of win
  chance) both as it stands and scaled to a first hand's stakes (the review's
  :func:`~ginrummy.review.grade.normalize`): any other move would then lose as much as
  the review's smallest mark, an inaccuracy, so the puzzle teaches something a player
  would be marked for, and a player who misses it has really given something away.

**An answer is correct** when it is the best move or a move the review would not mark:
its loss against the best is under :data:`~ginrummy.review.grade.CLEAR_Z` paired standard
errors, or under an inaccuracy once scaled to the stakes. By the margin rule only the
best move is correct in a puzzle; a private puzzle (a player's own marked decision,
which need not clear the rule) may accept an equally good alternative.

**Making puzzles** (:func:`find_puzzles`): every decision of a match is screened on
:data:`SCREEN_SAMPLES` deals, the promising ones measured afresh (another seed) on
:data:`PUZZLE_SAMPLES`, and those that clear the rule kept, with their themes
(:mod:`.themes`) and the review's sentences why. A puzzle keeps only its seat's view
(R11) and the measured values of its moves. Deterministic for a seed.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..evaluator import Evaluator
from ..evaluator.evaluation import ActionValue, Evaluation
from ..exits import ignore_interrupts
from ..hand import Action, View
from ..i18n import t
from ..match import Match
from ..review.explain import CardWords, explain
from ..review.grade import CLEAR_Z, INACCURACY, Moment, moments, normalize, stakes
from ..review.reasons import reason
from ..review.report import action_json, action_words
from .analysis import ranked
from .themes import themes_of

__all__ = [
    "MARGIN_Z",
    "MIN_MARGIN",
    "PUZZLE_SAMPLES",
    "SCREEN_SAMPLES",
    "Answer",
    "Puzzle",
    "Value",
    "answer_of",
    "find_puzzles",
    "measure",
    "puzzle_of",
    "screen_passes",
    "source_seed",
]

PUZZLE_SAMPLES = 4096
"""Sampled deals per move, at least, behind a puzzle's answer (INTERFACES section 12)."""
MARGIN_Z = 3.0
"""The best move beats every other by more than this many paired standard errors."""
MIN_MARGIN = INACCURACY
"""The least margin over the runner-up, raw and scaled to a first hand's stakes: the
review's inaccuracy (0.03, three points of win chance)."""
SCREEN_SAMPLES = 256
"""Deals in the first, cheap look at every decision of a match."""
SCREEN_MARGIN = MIN_MARGIN / 2
"""A decision goes on to the full measure when the screen's margin is at least this (half
the rule's: the screen's own noise is a point or two) and one paired standard error."""


@dataclass(frozen=True)
class Value:
    """One legal move as measured: its win chance with standard error and points, and its
    loss against the best (0 for the best) with the paired standard error; ``paired`` is
    the loss as the plain mean of the paired outcome differences; ``why`` the review's
    words for why the best beats it, where it has some."""

    action: Action
    win: float
    se: float
    points: float
    loss: float = 0.0
    loss_se: float = 0.0
    paired: float = 0.0
    why: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"action", "win", "se", "points"}`` (and ``loss``, ``loss_se``, ``why``)."""
        return {"action": action_json(self.action), "win": round(self.win, 4),
                "se": round(self.se, 4), "points": round(self.points, 2),
                "loss": round(self.loss, 4), "loss_se": round(self.loss_se, 4),
                "paired": round(self.paired, 4), "why": self.why}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Value:
        """Read back :meth:`to_json`."""
        return cls(Action.from_json(obj["action"]), float(obj["win"]), float(obj["se"]),
                   float(obj.get("points", 0.0)), float(obj.get("loss", 0.0)),
                   float(obj.get("loss_se", 0.0)), float(obj.get("paired", 0.0)),
                   obj.get("why"))


@dataclass(frozen=True)
class Answer:
    """A decision measured: every legal move best first, the deals it was measured on and
    the hand's relative stakes (:func:`~ginrummy.review.grade.stakes`)."""

    values: tuple[Value, ...]
    samples: int
    stakes: float = 1.0

    @property
    def best(self) -> Action:
        """The best move (the highest win chance, then points, then the legal order)."""
        return self.values[0].action

    @property
    def margin(self) -> float:
        """The best's win chance over the runner-up's (0 with one legal move)."""
        return self.values[1].loss if len(self.values) > 1 else 0.0

    @property
    def margin_se(self) -> float:
        """The paired standard error of :attr:`margin`."""
        return self.values[1].loss_se if len(self.values) > 1 else 0.0

    def value_of(self, action: Action) -> Value:
        """The measured value of a legal move; KeyError for any other."""
        for v in self.values:
            if v.action == action:
                return v
        raise KeyError(f"The action {action} is not legal here.")

    def clear(self, min_samples: int = PUZZLE_SAMPLES) -> bool:
        """Whether the best move clears the margin rule (module docstring).

        >>> from ginrummy.hand import DRAW_STOCK, PASS
        >>> a = Answer((Value(PASS, 0.6, 0.01, 0.0), Value(DRAW_STOCK, 0.5, 0.01, 0.0,
        ...            0.1, 0.02, 0.1)), 4096)
        >>> a.clear(), a.correct(PASS), a.correct(DRAW_STOCK)
        (True, True, False)
        """
        if len(self.values) < 2 or self.samples < min_samples:
            return False
        if self.margin < MIN_MARGIN or normalize(self.margin, self.stakes) < MIN_MARGIN:
            return False
        return all(min(v.loss, v.paired) > MARGIN_Z * v.loss_se for v in self.values[1:])

    def correct(self, action: Action) -> bool:
        """Whether ``action`` is a correct answer: the best, or a move the review would
        not mark (module docstring). KeyError for a move that is not legal here."""
        v = self.value_of(action)
        if action == self.best:
            return True
        return not (v.loss >= CLEAR_Z * v.loss_se
                    and normalize(v.loss, self.stakes) >= INACCURACY)

    def to_json(self) -> dict[str, Any]:
        """``{"values", "best", "margin", "margin_se", "samples", "stakes"}`` (section 12's
        names; ``values`` best first)."""
        return {"values": [v.to_json() for v in self.values],
                "best": action_json(self.best), "margin": round(self.margin, 4),
                "margin_se": round(self.margin_se, 4), "samples": self.samples,
                "stakes": round(self.stakes, 4)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Answer:
        """Read back :meth:`to_json`."""
        return cls(tuple(Value.from_json(v) for v in obj["values"]), int(obj["samples"]),
                   float(obj.get("stakes", 1.0)))


def answer_of(ev: Evaluation, relative_stakes: float = 1.0) -> Answer:
    """An evaluation's moves as an :class:`Answer`: best first, each with its loss against
    the best and the paired standard error of that loss (on the evaluation's shared
    samples)."""
    rows = ranked(ev)
    best = rows[0]
    values = [Value(best.action, best.win, best.win_se, best.points)]
    for v in rows[1:]:
        paired, se = ev.difference(best.action, v.action) if ev.win_samples else \
            (best.win - v.win, (best.win_se ** 2 + v.win_se ** 2) ** 0.5)
        values.append(Value(v.action, v.win, v.win_se, v.points, best.win - v.win, se,
                            paired))
    return Answer(tuple(values), ev.samples, relative_stakes)


def measure(view: View, samples: int = PUZZLE_SAMPLES, seed: int = 0) -> Answer:
    """Every legal move of ``view`` measured on ``samples`` shared deals (a sample budget
    only: the same view and seed give the same answer anywhere)."""
    ev = Evaluator(samples=samples, seed=seed).evaluate(view)
    return answer_of(ev, stakes(view))


def why_best(view: View, answer: Answer, card: CardWords = str) -> str:
    """One sentence for why the best move is best (from the seat's view only, R11), each
    card written by ``card`` (R1's ``9C`` by default; a front end passes its own), in the
    language of the moment."""
    top = answer.values[0].action
    text = action_words(top, card)
    move = text[0].upper() + text[1:]
    return t("{move}: {reason}.", move=move, reason=reason(view, top, card=card))


def why_not(view: View, answer: Answer, action: Action, card: CardWords = str) -> str | None:
    """The review's words for why the best move beats ``action`` (None for the best
    itself, or where no words say it), each card written by ``card``."""
    if action == answer.best:
        return None
    v, top = answer.value_of(action), answer.values[0]
    return explain(view, action, ActionValue(v.action, v.win, v.se, v.points, 0.0),
                   ActionValue(top.action, top.win, top.se, top.points, 0.0), card)


def with_reasons(view: View, answer: Answer, card: CardWords = str) -> tuple[Answer, str]:
    """The answer with the review's words for why the best beats each other move, and one
    sentence for why the best is best (from the seat's view only, R11), each card written
    by ``card``."""
    values = [answer.values[0]]
    for v in answer.values[1:]:
        values.append(Value(v.action, v.win, v.se, v.points, v.loss, v.loss_se, v.paired,
                            why_not(view, answer, v.action, card)))
    return Answer(tuple(values), answer.samples, answer.stakes), why_best(view, answer, card)


@dataclass(frozen=True)
class Puzzle:
    """A decision that clears the margin rule: its seat's view (R11), the measured answer,
    the themes and the sentence why, and where it came from (``source``: a self-play
    match or a stored match; ``hand`` and ``action`` index the decision as a review
    does)."""

    view: View
    answer: Answer
    themes: tuple[str, ...]
    why: str
    source: str
    hand: int
    action: int
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def key(self) -> str:
        """A name unique to the decision: ``SOURCE/HAND/ACTION``."""
        return f"{self.source}/{self.hand}/{self.action}"

    def to_json(self) -> dict[str, Any]:
        """The stored form: the view (``View.to_json``), its legal actions, the answer,
        the themes, the sentence why and the source."""
        return {"key": self.key, "source": self.source, "hand": self.hand,
                "action": self.action, "seat": self.view.seat, "view": self.view.to_json(),
                "legal": [action_json(a) for a in self.view.legal],
                **self.answer.to_json(), "themes": list(self.themes), "why": self.why}


def puzzle_of(view: View, answer: Answer, source: str, hand: int, action: int) -> Puzzle:
    """A puzzle of a measured decision (which should clear the rule), with its themes and
    reasons."""
    full, why = with_reasons(view, answer)
    return Puzzle(view, full, themes_of(view, answer.best), why, source, hand, action)


def source_seed(seed: int, source: str, hand: int, action: int) -> int:
    """The evaluator seed of one decision: a function of the run's seed and the decision's
    place only, so a puzzle does not depend on the order or the number of workers."""
    digest = hashlib.sha256(f"ginrummy-puzzle/{seed}/{source}/{hand}/{action}".encode())
    return int.from_bytes(digest.digest()[:8], "big") >> 1


def screen_passes(answer: Answer) -> bool:
    """Whether a screened decision is worth the full measure (:data:`SCREEN_MARGIN` and
    one paired standard error)."""
    return len(answer.values) >= 2 and answer.margin >= SCREEN_MARGIN \
        and answer.margin > answer.margin_se


@dataclass(frozen=True)
class _Task:
    source: str
    hand: int
    action: int
    view: View


@dataclass(frozen=True)
class _Settings:
    samples: int
    screen: int
    seed: int


_SETTINGS: _Settings | None = None


def _init(settings: _Settings) -> None:
    global _SETTINGS
    _SETTINGS = settings
    if multiprocessing.parent_process() is not None:
        ignore_interrupts()


def _try(task: _Task) -> Puzzle | None:
    """Screen one decision; measure it afresh if promising; a puzzle if it clears."""
    s = _SETTINGS
    assert s is not None
    seed = source_seed(s.seed, task.source, task.hand, task.action)
    if s.screen > 0 and not screen_passes(measure(task.view, s.screen, seed)):
        return None
    answer = measure(task.view, s.samples, seed + 1)
    if not answer.clear(min(s.samples, PUZZLE_SAMPLES)):
        return None
    return puzzle_of(task.view, answer, task.source, task.hand, task.action)


def decisions(match: Match, source: str, seats: Sequence[int] = (0, 1)) -> list[_Task]:
    """Every decision (two or more legal moves) of ``seats`` in a match, as views."""
    found: list[Moment] = moments(match, range(len(match.hands)), seats)
    return [_Task(source, m.hand, m.action, m.view) for m in found]


def find_puzzles(matches: Iterable[tuple[str, Match]], *, samples: int = PUZZLE_SAMPLES,
                 screen: int = SCREEN_SAMPLES, seed: int = 0, jobs: int = 1,
                 limit: int | None = None,
                 progress: Callable[[int, int, int], None] | None = None) -> list[Puzzle]:
    """The puzzles of ``matches`` (``(source, match)`` pairs), in the matches' order and
    each match's decision order; at most ``limit``. ``samples`` below
    :data:`PUZZLE_SAMPLES` make quick puzzles for tests (the rule then asks for those
    samples); ``screen`` 0 measures every decision in full. ``progress(done, total,
    found)`` after each decision."""
    tasks = [t for source, m in matches for t in decisions(m, source)]
    settings = _Settings(samples, screen, seed)
    out: list[Puzzle] = []
    done = 0

    def collect(results: Iterable[Puzzle | None]) -> None:
        nonlocal done
        for p in results:
            done += 1
            if p is not None and (limit is None or len(out) < limit):
                out.append(p)
            if progress is not None:
                progress(done, len(tasks), len(out))
            if limit is not None and len(out) >= limit:
                return

    if jobs <= 1 or len(tasks) <= 1:
        _init(settings)
        collect(map(_try, tasks))
    else:
        with multiprocessing.Pool(min(jobs, len(tasks)), initializer=_init,
                                  initargs=(settings,)) as pool:
            collect(pool.imap(_try, tasks, chunksize=4))
    return out
