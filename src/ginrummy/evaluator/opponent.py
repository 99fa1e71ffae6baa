"""What an opponent has shown of its knocking habit, turned into the shares of play-out
styles the evaluator samples it as (quick, club, patient: :mod:`ginrummy.kernel.spec`).

One place for ``expert`` (which learns as it plays) and the review (which learns from the
hands of the record before the one it grades): both read only what the seat saw (R11):
who knocked, on which turn and with how much deadwood (a knock shows both hands, R8),
and hands that ended dead (R7).

Each style explains a finished hand with some likelihood, and the shares are the
posterior over the three styles (a prior times the likelihoods of the hands seen):

* a knock short of gin on the opponent's turn ``t`` with deadwood ``d``: a patient player
  knocks so only in its first ``KNOCK_TURNS`` turns, a club player only when ``d`` fits
  its schedule (``KNOCK_AT``), a quick one any time;
* its hand revealed when it did not knock, with deadwood ``d`` after ``t`` discards: a
  quick player would have knocked with ``d`` at most the knock limit, a club player when
  ``d`` fits its schedule; a patient one waits (in its first turns it would usually have
  knocked);
* a gin after the first turns, or a dead hand: quick players seldom get that far
  without knocking first.

>>> m = OpponentModel()
>>> round(sum(m.shares()), 6)
1.0
>>> m.saw_knock(turn=8, deadwood=7, limit=10)   # only a quick player knocks so late with 7
>>> m.shares()[0] > OpponentModel().shares()[0]
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..actions import HandEnd
from ..hand import View
from ..kernel.spec import CLUB, KNOCK_AT, KNOCK_AT_TURNS, KNOCK_TURNS, PATIENT, QUICK
from ..melds import deadwood_mask
from ..view import HandResult

__all__ = ["OpponentModel", "PRIOR"]

PRIOR = (0.75, 0.0, 0.25)
"""Prior shares (quick, club, patient) before any hand: ``expert``'s, measured for play
strength (docs/bots.md)."""

UNLIKELY = 0.05
"""The likelihood given to a hand its style says should not happen (a style is a model,
and players are not perfectly consistent)."""
RARE = 0.35
"""The likelihood of a gin after the first turns or a dead hand for a quick player."""
EARLY_WAIT = 0.2
"""The likelihood that a patient player held a knockable hand in its first turns and
waited (it knocks then as a rule)."""


def _schedule(style: int, turn: int, limit: int) -> int:
    """The most deadwood ``style`` knocks with on its ``turn``-th discard (1-based)."""
    return min(limit, KNOCK_AT[style][min(max(turn, 1) - 1, KNOCK_AT_TURNS - 1)])


@dataclass
class OpponentModel:
    """The posterior shares of the three styles for one opponent (see the module
    docstring); ``weight`` scales the prior (in hands' worth of evidence)."""

    prior: tuple[float, float, float] = PRIOR
    weight: float = 1.0
    log: list[tuple[float, float, float]] = field(default_factory=list)
    """The likelihoods of each hand seen, (quick, club, patient)."""

    def shares(self) -> tuple[float, float, float]:
        """(quick, club, patient) shares, summing to 1."""
        q, c, p = (max(x, 1e-9) ** self.weight for x in self.prior)
        for lq, lc, lp in self.log:
            q, c, p = q * lq, c * lc, p * lp
        total = q + c + p
        return q / total, c / total, p / total

    def reset(self) -> None:
        """A new opponent: forget what the last one showed."""
        self.log.clear()

    def saw_knock(self, turn: int, deadwood: int, limit: int) -> None:
        """The opponent knocked on its ``turn``-th discard with ``deadwood`` (R6, R8)."""
        if deadwood == 0:
            late = turn > KNOCK_TURNS
            self.log.append((RARE if late else 1.0, 1.0, 1.0))
            return
        patient = 1.0 if turn <= KNOCK_TURNS else UNLIKELY
        club = 1.0 if deadwood <= _schedule(CLUB, turn, limit) else UNLIKELY
        self.log.append((1.0, club, patient))

    def saw_waiting(self, turns: int, deadwood: int, limit: int) -> None:
        """The opponent's hand, shown at the end (R8), held ``deadwood`` after ``turns``
        discards without a knock at the last of them."""
        if turns <= 0 or deadwood == 0:
            return
        quick = UNLIKELY if deadwood <= _schedule(QUICK, turns, limit) else 1.0
        club = UNLIKELY if deadwood <= _schedule(CLUB, turns, limit) else 1.0
        patient = EARLY_WAIT if deadwood <= _schedule(PATIENT, turns, limit) else 1.0
        self.log.append((quick, club, patient))

    def saw_dead_hand(self) -> None:
        """The hand ended dead (R7): nobody knocked through the whole stock."""
        self.log.append((RARE, 1.0, 1.0))

    def hand_over(self, view: View, result: HandResult | None = None) -> None:
        """Learn from a finished hand as seat ``view.seat`` saw it (R11)."""
        res = result if result is not None else view.result
        if res is None:
            return
        opp = 1 - view.seat
        discards = sum(1 for op in view.history
                       if op.seat == opp and op.action.act == "discard")
        limit = view.knock_limit
        if res.knocker is None:
            if res.result == HandEnd.DEAD:
                self.saw_dead_hand()
        elif res.knocker == opp:
            dw = res.deadwood[opp] if res.deadwood is not None else 0
            self.saw_knock(discards, dw, limit)
        elif view.revealed is not None:
            self.saw_waiting(discards, deadwood_mask(sum(c.mask for c in view.revealed[opp])),
                             limit)
