"""The ``strong`` bot: MARJJ's hand evaluation with a sharper danger model and
belief-checked knocks.

Built from what measurably worked against ``marjj`` (STRATEGY.md), one idea at a time:

* the discard minimises MARJJ's ``deadwood + c * d**(turn-1) * E[deadwood after the
  next draw] + danger`` (the expectation over the unseen cards) minus ``gin_weight``
  times the chance that the next draw gives gin (both bots mostly race for gin, R6:
  live gin outs are worth more than a few points of deadwood), where ``danger`` adds
  to MARJJ's pile-take penalty ``meld_danger`` times the chance that the opponent holds
  two cards making a meld with the discard (:func:`~ginrummy.heuristics.meld_chance`):
  feeding a player who plays for gin is what loses the race, and dead cards are safe;
* the up-card and pile are taken as MARJJ does (the card joins a meld and lowers
  deadwood), and always when they give gin;
* knocks: gin always; otherwise only in the first ``knock_turns`` turns (later the
  opponent's hand is too good: measured undercut rates of 30-60%), and only when
  sampled opponent hands (their pile takes plus unseen cards, improved by as many
  greedy draws as they made) settled exactly with ``showdown_mask`` (lay-offs and
  undercuts, R8-R9) show a small undercut risk.

Everything is decided from the :class:`View` alone (R11).
"""

from __future__ import annotations

import random

from ..cards import Card, iter_mask
from ..hand import Action, Phase, View
from ..heuristics import draw_outlook, meld_chance
from ..knowledge import Knowledge
from ..melds import deadwood_by_discard_mask, showdown_mask
from ..scoring import knock_points
from .base import Bot
from .marjj import (
    discard_options,
    draw_action,
    least_scored,
    look_ahead_weight,
    marjj_danger,
    top_gives_gin,
    top_joins_and_lowers,
)

__all__ = ["StrongBot", "sample_opponent", "settle", "strong_fast"]



def sample_opponent(k: Knowledge, rng: random.Random, unknown: list[int], draws: int) -> int:
    """One opponent hand consistent with the view: the known pile takes plus unknown cards
    drawn from the unseen ones, improved by ``draws`` greedy picks (the opponent has
    been keeping its best cards)."""
    n = k.opp_unknown
    extra = max(0, min(draws, len(unknown) - n))
    picked = rng.sample(unknown, n + extra)
    hand = k.opp_known
    for i in picked:
        hand |= 1 << i
    for _ in range(extra):
        table = deadwood_by_discard_mask(hand)
        best_i = -1
        best_v = 1000
        for i, v in table.items():
            if v < best_v and not k.opp_known >> i & 1:
                best_i, best_v = i, v
        hand &= ~(1 << best_i)
    return hand


def settle(knocker: int, defender: int) -> int:
    """Points of a knock from the knocker's side (R9): positive if the knocker scores,
    negative (with the undercut bonus) if the defender does; a tie is an undercut."""
    return knock_points(showdown_mask(knocker, defender))


class StrongBot(Bot):
    """MARJJ's evaluation with sampled, risk-aware knocking: see the module docstring.

    ``c``, ``d``, ``danger_taken``, ``danger_passed`` are MARJJ's weights; ``meld_danger``
    weighs :func:`meld_chance`; ``gin_weight`` the chance of gin on the next draw;
    ``samples`` opponent hands (``improve`` greedy draws per stock draw they made, at
    most ``max_improve``) check a knock, taken in the first
    ``knock_turns`` turns at undercut risk <= ``early_risk``, later only with deadwood
    <= ``late_dw`` (-1: gin only) and risk <= ``late_risk``.
    """

    name = "strong"

    def __init__(self, seed: int | None = None, *, c: float = 18.0, d: float = 0.9,
                 danger_taken: float = 10.0, danger_passed: float = 5.0,
                 meld_danger: float = 25.0, gin_weight: float = 100.0, knock_turns: int = 3,
                 samples: int = 32, improve: float = 1.0, max_improve: int = 12,
                 early_risk: float = 0.25, late_dw: int = -1, late_risk: float = 0.1) -> None:
        super().__init__(seed)
        self.c = c
        self.d = d
        self.danger_taken = danger_taken
        self.danger_passed = danger_passed
        self.knock_turns = knock_turns
        self.meld_danger = meld_danger
        self.gin_weight = gin_weight
        self.samples = samples
        self.improve = improve
        self.max_improve = max_improve
        self.early_risk = early_risk
        self.late_dw = late_dw
        self.late_risk = late_risk

    # ------------------------------------------------------------------ decisions

    def decide(self, view: View) -> Action:
        """Take the face-up card when it gives gin at once or as MARJJ does (it joins a
        meld and lowers deadwood), otherwise draw; then :meth:`discard`."""
        k = Knowledge.of(view)
        if view.phase is Phase.OFFER or view.phase is Phase.DRAW:
            return draw_action(view, lambda: top_gives_gin(k) or top_joins_and_lowers(k))
        return self.discard(view, k)

    def danger(self, card: int, k: Knowledge) -> float:
        """MARJJ's penalty plus ``meld_danger`` times the chance that the opponent holds
        two cards making a meld with ``card``."""
        return (marjj_danger(card, k, self.danger_taken, self.danger_passed)
                + self.meld_danger * meld_chance(card, k))

    def discard(self, view: View, k: Knowledge) -> Action:
        """Gin always; a knock when :meth:`_knock_choice` finds a safe one; otherwise the
        discard with the lowest score (see the module docstring)."""
        turn = k.my_discards + 1
        weight = look_ahead_weight(self.c, self.d, turn)
        table = deadwood_by_discard_mask(k.mine)
        cards, knockable = discard_options(view)
        cache: dict[int, tuple[float, float]] = {}
        scores: dict[int, float] = {}
        for i in cards:
            e, gin = draw_outlook(k.mine & ~(1 << i), k.unseen, cache)
            scores[i] = table[i] + weight * e + self.danger(i, k) - self.gin_weight * gin
        gins = [i for i in cards if table[i] == 0]
        if gins:
            best = min(gins, key=lambda i: (scores[i], i))
            return Action.discard(Card.from_index(best), True)
        if knockable:
            choice = self._knock_choice(view, k, turn, knockable, table, scores)
            if choice is not None:
                return Action.discard(Card.from_index(choice), True)
        return Action.discard(Card.from_index(least_scored(scores, cards, self.rng)), False)

    # ------------------------------------------------------------------ knocking

    def worlds(self, k: Knowledge, n: int) -> list[int]:
        """``n`` sampled opponent hands consistent with the view."""
        unknown = list(iter_mask(k.unseen))
        draws = min(int(self.improve * k.opp_stock_draws), self.max_improve)
        return [sample_opponent(k, self.rng, unknown, draws) for _ in range(n)]

    def _knock_choice(self, view: View, k: Knowledge, turn: int, knockable: list[int],
                      table: dict[int, int], scores: dict[int, float]) -> int | None:
        """The discard to knock with, or None to play on."""
        best = min(knockable, key=lambda i: (table[i], scores[i], i))
        early = turn <= self.knock_turns
        if not early and table[best] > self.late_dw:
            return None
        cands = sorted(knockable, key=lambda i: (table[i], scores[i], i))[:2]
        worlds = self.worlds(k, self.samples)
        risk = self.early_risk if early else self.late_risk
        chosen: int | None = None
        chosen_value = -1e9
        for i in cands:
            hand = k.mine & ~(1 << i)
            undercuts = 0
            total = 0
            for opp in worlds:
                pts = settle(hand, opp)
                total += pts
                undercuts += pts < 0
            if undercuts <= risk * len(worlds) and total > chosen_value:
                chosen, chosen_value = i, total
        return chosen


def strong_fast(seed: int | None = None) -> StrongBot:
    """A cheaper ``strong`` (16 sampled opponent hands per knock) for large measurements."""
    return StrongBot(seed, samples=16)
