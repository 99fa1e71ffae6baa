"""The ``strong`` bot: belief sampling, rollouts for the knock, and a danger-aware discard.

Ideas (STRATEGY.md): the opponent's hand is sampled from what the view shows (cards
they took from the pile are theirs; the rest are drawn from the unseen cards and then
*improved* by as many greedy draws as they have made, since a real hand after k turns
is far better than a random one). Those sampled deals drive three things:

* the discard: deadwood, a decaying look-ahead term (expected deadwood after one more
  draw from the likely stock) and the expected help the discard gives the opponent;
* the knock: on each sampled deal the knock is settled exactly (``showdown_mask``,
  lay-offs and undercuts included, R8-R9) and compared with playing on, estimated by a
  fast mask-level rollout to the end of the hand with "patient" play;
* both judged by the chance of winning the match (R10), not by points of the hand.

Everything is decided from the :class:`View` alone (R11); ``samples`` sets the cost.
"""

from __future__ import annotations

import math
import random

from ..cards import Card, iter_mask
from ..hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Phase, View
from ..melds import deadwood_by_discard_mask, deadwood_mask, showdown_mask
from .base import Bot
from .knowledge import Knowledge, in_some_meld
from .marjj import expected_next_deadwood

__all__ = ["StrongBot", "match_win_chance", "sample_opponent", "strong_fast"]

GIN_BONUS = 25
UNDERCUT_BONUS = 25


def match_win_chance(mine: int, theirs: int, target: int) -> float:
    """A smooth estimate of the chance to win the match from these totals (R10):
    a normal approximation whose spread grows with the points still to play."""
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    to_play = 2 * target - mine - theirs
    spread = 22.0 * math.sqrt(1.0 + to_play / 40.0)
    return 0.5 * (1.0 + math.erf((mine - theirs) / (spread * math.sqrt(2.0))))


def sample_opponent(k: Knowledge, rng: random.Random, unknown: list[int], draws: int) -> int:
    """One opponent hand consistent with the view: the known pile takes plus unknown cards
    drawn from the unseen ones, improved by ``draws`` greedy picks (the opponent has
    been keeping its best cards)."""
    n = k.opp_unknown
    extra = min(draws, len(unknown) - n)
    picked = rng.sample(unknown, n + max(0, extra))
    hand = k.opp_known
    for i in picked:
        hand |= 1 << i
    for _ in range(max(0, extra)):
        table = deadwood_by_discard_mask(hand)
        best_i = -1
        best_v = 1000
        for i, v in table.items():
            if v < best_v and not k.opp_known >> i & 1:
                best_i, best_v = i, v
        hand &= ~(1 << best_i)
    return hand


def _best_discard(hand11: int, forbid: int) -> tuple[int, int]:
    """(deadwood, card) of the least-deadwood discard of 11 cards, never ``forbid``."""
    best_i = -1
    best_v = 1000
    for i, v in deadwood_by_discard_mask(hand11).items():
        if i != forbid and (v < best_v or (v == best_v and i > best_i)):
            best_i, best_v = i, v
    return best_v, best_i


def _settle(knocker: int, defender: int) -> int:
    """Points of a knock from the knocker's side (R9): positive if the knocker scores."""
    sd = showdown_mask(knocker, defender)
    if sd.gin:
        return sd.defender_deadwood + GIN_BONUS
    if sd.defender_deadwood <= sd.knocker_deadwood:
        return -(sd.knocker_deadwood - sd.defender_deadwood + UNDERCUT_BONUS)
    return sd.defender_deadwood - sd.knocker_deadwood


def rollout(me: int, opp: int, stock: list[int], top: int, limit: int,
            my_margin: int, opp_margin: int, opp_first: bool = True) -> int:
    """Play the hand out on masks with simple policies; points from our side (R5-R9).

    Each side takes the top card only when it joins a meld and lowers its deadwood,
    otherwise draws; discards its least-deadwood card; knocks on gin or with deadwood at
    most its margin (our side is patient, R6). Two cards left in the stock after a plain
    discard end the hand dead (R7).
    """
    hands = [me, opp]
    side = 1 if opp_first else 0
    pos = len(stock)
    while True:
        h = hands[side]
        taken = -1
        with_top = h | 1 << top
        cur = deadwood_mask(h)
        if in_some_meld(with_top, top):
            v, d = _best_discard(with_top, top)
            if v < cur:
                taken = top
        if taken < 0:
            pos -= 1
            h |= 1 << stock[pos]
            v, d = _best_discard(h, -1)
        else:
            h = with_top
        h &= ~(1 << d)
        hands[side] = h
        top = d
        margin = my_margin if side == 0 else opp_margin
        if v == 0 or (v <= limit and v <= margin):
            pts = _settle(h, hands[1 - side])
            return pts if side == 0 else -pts
        if pos <= 2:
            return 0
        side = 1 - side


class StrongBot(Bot):
    """Sampled-deal play: see the module docstring. ``samples`` deals per decision."""

    name = "strong"

    def __init__(self, seed: int | None = None, samples: int = 48, c: float = 18.0,
                 d: float = 0.9, danger: float = 0.6, my_margin: int = 3,
                 opp_margin: int = 6, improve: float = 2.0, max_improve: int = 14,
                 undercut_max: float = 0.2) -> None:
        super().__init__(seed)
        self.samples = samples
        self.c = c
        self.d = d
        self.danger_weight = danger
        self.my_margin = my_margin
        self.opp_margin = opp_margin
        self.improve = improve
        self.max_improve = max_improve
        self.undercut_max = undercut_max

    # ------------------------------------------------------------------ helpers

    def _worlds(self, k: Knowledge, n: int) -> list[int]:
        unknown = list(iter_mask(k.unseen))
        draws = min(int(self.improve * k.opp_stock_draws), self.max_improve)
        return [sample_opponent(k, self.rng, unknown, draws) for _ in range(n)]

    def _utility(self, view: View, pts: float) -> float:
        """Chance of winning the match after a hand worth ``pts`` to us (R10)."""
        me, them = view.scores[view.seat], view.scores[1 - view.seat]
        target = view.options.target
        if pts >= 0:
            return match_win_chance(me + int(pts), them, target)
        return match_win_chance(me, them - int(pts), target)

    # ------------------------------------------------------------------ decisions

    def decide(self, view: View) -> Action:
        """Choose a legal action from the view alone (R11)."""
        k = Knowledge.of(view)
        if view.phase is Phase.OFFER or view.phase is Phase.DRAW:
            if DRAW_DISCARD in view.legal and self._wants(k, view):
                return DRAW_DISCARD
            return PASS if view.phase is Phase.OFFER else DRAW_STOCK
        return self._discard(view, k)

    def _wants(self, k: Knowledge, view: View) -> bool:
        """Take the top card when it joins a meld and lowers deadwood, or gives gin."""
        if k.top is None:
            return False
        with_top = k.mine | 1 << k.top
        table = deadwood_by_discard_mask(with_top)
        after = min(v for i, v in table.items() if i != k.top)
        if after == 0:
            return True
        if not in_some_meld(with_top, k.top):
            return False
        return after < deadwood_mask(k.mine)

    def _discard(self, view: View, k: Knowledge) -> Action:
        table = deadwood_by_discard_mask(k.mine)
        cards = [a.card.index for a in view.legal
                 if a.act == "discard" and not a.knock and a.card is not None]
        knockable = [a.card.index for a in view.legal if a.knock and a.card is not None]
        gins = [i for i in cards if table[i] == 0]
        if gins:
            return Action.discard(Card.from_index(gins[0]), True)
        worlds = self._worlds(k, self.samples)
        turn = k.my_discards + 1
        weight = self.c * self.d ** (turn - 1)
        stock_share = max(0.0, 1.0 - view.stock_count / 31.0)
        cache: dict[int, float] = {}
        scores: dict[int, float] = {}
        few = worlds[: max(4, len(worlds) // 3)]
        for i in cards:
            rest = k.mine & ~(1 << i)
            e = expected_next_deadwood(rest, k.unseen, cache)
            help_ = 0.0
            for opp in few:
                with_i = opp | 1 << i
                if in_some_meld(with_i, i):
                    gain = deadwood_mask(opp) - _best_discard(with_i, i)[0]
                    if gain > 0:
                        help_ += gain
            help_ /= len(few)
            scores[i] = table[i] + weight * e + (weight + 4.0) * self.danger_weight * help_ * (
                0.5 + stock_share)
        order = sorted(cards, key=lambda i: (scores[i], i))
        best = order[0]
        if knockable:
            choice = self._knock_choice(view, k, knockable, table, scores, best, worlds)
            if choice is not None:
                return Action.discard(Card.from_index(choice), True)
        return Action.discard(Card.from_index(best), False)

    def _knock_choice(self, view: View, k: Knowledge, knockable: list[int],
                      table: dict[int, int], scores: dict[int, float], best: int,
                      worlds: list[int]) -> int | None:
        """The knock discard worth more than playing on over the sampled deals, if any."""
        cands = sorted(knockable, key=lambda i: (table[i], scores[i]))[:2]
        unseen = k.unseen
        stocks = []
        for opp in worlds:
            rest = list(iter_mask(unseen & ~opp))
            self.rng.shuffle(rest)
            stocks.append(rest)
        knock_u = {i: 0.0 for i in cands}
        undercuts = {i: 0 for i in cands}
        go_on = 0.0
        keep = k.mine & ~(1 << best)
        for opp, stock in zip(worlds, stocks, strict=True):
            for i in cands:
                pts = _settle(k.mine & ~(1 << i), opp)
                undercuts[i] += pts < 0
                knock_u[i] += self._utility(view, pts)
            pts = rollout(keep, opp, stock, best, view.knock_limit, self.my_margin,
                          self.opp_margin)
            go_on += self._utility(view, pts)
        top = max(cands, key=lambda i: knock_u[i])
        if knock_u[top] >= go_on and undercuts[top] <= self.undercut_max * len(worlds):
            return top
        return None


def strong_fast(seed: int | None = None) -> StrongBot:
    """A cheap ``strong`` (16 sampled deals per decision) for large measurements."""
    return StrongBot(seed, samples=16)
