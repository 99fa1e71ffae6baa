"""A player's rules of thumb about a hand, read from what its seat knows (R11): the bots
play by them (``marjj``, ``strong``, ``expert``) and the review explains moves with them
(:mod:`ginrummy.review.reasons`), so both use these one definitions.

* :func:`related`: two cards that can share a meld (R2);
* :func:`takes_back`: taking the face-up card would take back one's own discard;
* :func:`meld_chance`: the chance the opponent can meld a card we throw;
* :func:`draw_outlook`: how good a 10-card hand is one draw ahead.

>>> related(0, 2), related(0, 13), related(0, 3)
(True, True, False)
"""

from __future__ import annotations

from .cards import iter_mask
from .hand import Phase, View
from .knowledge import Knowledge, meld_partners
from .melds import deadwood_by_discard_mask, deadwood_mask

__all__ = ["draw_outlook", "meld_chance", "related", "takes_back"]


def related(i: int, j: int) -> bool:
    """Whether cards ``i`` and ``j`` can share a meld (R2): same rank, or same suit within
    two ranks."""
    if i % 13 == j % 13:
        return True
    return i // 13 == j // 13 and abs(i - j) <= 2


def takes_back(view: View) -> bool:
    """Whether taking the face-up card now would take back a card this seat discarded
    since anyone last drew from the stock.

    The rules set no limit on a hand's length (R5, R7): two players who keep taking each
    other's discards never draw from the stock, so the hand never goes dead. Every such
    endless hand has each player taking back its own discard with no stock draw in
    between, so a bot that declines exactly that (as the project's searching and
    MARJJ-style bots do) can never be half of an endless hand, at the cost of a card it
    gave up on a moment ago.

    >>> from ginrummy.hand import DRAW_DISCARD, Deal, Hand
    >>> import random
    >>> h = Hand(Deal.shuffled(random.Random(5)), dealer=0)
    >>> takes_back(h.view(1))  # the up-card was dealt, not discarded
    False
    """
    if view.phase is not Phase.DRAW or view.to_play != view.seat or not view.discards:
        return False
    top = view.discards[-1]
    for op in reversed(view.history):
        if op.action.act == "draw" and op.action.source == "stock":
            return False
        if op.seat == view.seat and op.action.act == "discard" and op.action.card == top:
            return True
    return False



def meld_chance(card: int, k: Knowledge) -> float:
    """The chance that the opponent holds two cards making a meld with ``card`` (R2):
    each unseen card is theirs with probability unknown/unseen, their pile takes surely
    are, and cards in the pile or our hand surely are not."""
    n_unseen = k.unseen.bit_count()
    p = k.opp_unknown / n_unseen if n_unseen else 0.0
    miss = 1.0
    for a, b in meld_partners(card):
        qa = 1.0 if k.opp_known >> a & 1 else p if k.unseen >> a & 1 else 0.0
        if qa:
            qb = 1.0 if k.opp_known >> b & 1 else p if k.unseen >> b & 1 else 0.0
            miss *= 1.0 - qa * qb
    return 1.0 - miss


def draw_outlook(hand10: int, pool: int,
                 cache: dict[int, tuple[float, float]] | None = None) -> tuple[float, float]:
    """Over the cards of ``pool`` (each equally likely to be drawn next): the mean least
    deadwood after drawing and discarding best, and the chance of gin (R6) that way."""
    if cache is not None:
        hit = cache.get(hand10)
        if hit is not None:
            return hit
    total = 0
    gins = 0
    n = 0
    for u in iter_mask(pool):
        v = min(deadwood_by_discard_mask(hand10 | 1 << u).values())
        total += v
        gins += v == 0
        n += 1
    value = (total / n, gins / n) if n else (float(deadwood_mask(hand10)), 0.0)
    if cache is not None:
        cache[hand10] = value
    return value
