"""Fast play-outs of the rest of a hand on 52-bit card masks (R4-R9), the reference kernel.

Both seats follow one cheap, deterministic, strong-like policy that sees only its own
cards, the discard pile and (for the live-card count) which cards are out of play:

* draw: take the pile's top card when it gives gin, or when it joins a meld and lowers
  the least deadwood (MARJJ's rule); otherwise draw from the stock (R4, R5);
* discard: among the discards leaving near-least deadwood, the one minimising
  ``deadwood - OUTS_WEIGHT * live meld-completing cards`` (R5: never the card just taken);
* knock: gin always; otherwise only in the seat's first ``KNOCK_TURNS`` turns (R6);
  a knock is settled by the exact showdown (lay-offs, undercuts, R8-R9); a discard
  leaving two stock cards without a knock ends the hand dead (R7).

A seat marked ``quick`` models a player who knocks as soon as it may (R6), and plays as
such players do (``simple``, the challenge baseline): it races for a knock, not for gin,
so it takes the pile's top card whenever the card lies in a meld (R2) and discards the
card leaving the least deadwood (:func:`least_deadwood_discard`), with no regard for outs.

No Python objects are built in the loop: hands are ints, the stock and pile are lists of
card indexes. The state is passed as plain values so a compiled kernel could mirror it.

>>> from ginrummy.cards import cards_mask
>>> nine, _ = cards_mask("AS 2S 3S 4S 5S 6S 7S 8S 9S KD")
>>> other, _ = cards_mask("AH 3H 5H 7H 9H JH KH 2C 4C 6C")
>>> play_out([nine, other], [1, 2, 3, 48], [11], 0, DRAW, -1, [4, 4], 10, 1)  # draws TS: gin
(0, 82)
"""

from __future__ import annotations

from ..knowledge import ALL_CARDS, POINTS, in_some_meld
from ..melds import deadwood_by_discard_mask, deadwood_mask, showdown_mask

__all__ = [
    "DISCARD",
    "DRAW",
    "KNOCK_TURNS",
    "OFFER_DEALER",
    "OFFER_NON_DEALER",
    "by_discard",
    "choose_discard",
    "completers",
    "least_deadwood_discard",
    "play_out",
    "settle_knock",
    "wants_top",
]

OFFER_NON_DEALER = 0
OFFER_DEALER = 1
DRAW = 2
DISCARD = 3

KNOCK_TURNS = 3
"""A seat knocks short of gin only within its first this many turns (MARJJ, strong)."""

MAX_DISCARDS = 120
"""Discards after which a play-out is settled as a dead hand (-1, 0). The rules set no
limit on a hand (R5-R7): when both play-out policies keep taking the discard, the stock
never shrinks and the hand would cycle for ever; a real hand has about 30-40 discards."""

OUTS_WEIGHT = 1.0
"""Deadwood points one live meld-completing card is worth when choosing a discard."""
MARGIN = 6
"""Only discards within this many deadwood points of the least are weighed by outs."""
CACHE_LIMIT = 200_000
"""At most this many hands are memoised per evaluation."""

_SUIT = 0x1FFF
_TOP = sum(1 << (s * 13 + 12) for s in range(4))
_BOT = sum(1 << (s * 13) for s in range(4))
_NOT_TOP = ALL_CARDS & ~_TOP
_NOT_BOT = ALL_CARDS & ~_BOT
_RANKS_TO_ALL = sum(1 << (13 * s) for s in range(4))


def completers(h: int) -> int:
    """Cards outside ``h`` that would form a 3-card meld with two cards of ``h`` (R2).

    >>> from ginrummy.cards import cards_mask, from_mask
    >>> [str(c) for c in from_mask(completers(cards_mask("5H 6H")[0]))]
    ['4H', '7H']
    """
    l1 = (h & _NOT_TOP) << 1  # card r-1 of the suit held
    l2 = (l1 & _NOT_TOP) << 1  # r-2 held
    r1 = (h & _NOT_BOT) >> 1  # r+1 held
    r2 = (r1 & _NOT_BOT) >> 1  # r+2 held
    a, b, c, d = h & _SUIT, h >> 13 & _SUIT, h >> 26 & _SUIT, h >> 39
    pairs = (a & (b | c | d)) | (b & (c | d)) | (c & d)  # ranks held twice or more
    return ((l1 & l2) | (l1 & r1) | (r1 & r2) | pairs * _RANKS_TO_ALL) & ~h & ALL_CARDS


def choose_discard(h: int, table: dict[int, int], taken: int, dead: int) -> tuple[int, int]:
    """The policy's discard from 11 cards ``h`` and the deadwood it leaves.

    ``table`` is ``deadwood_by_discard_mask(h)``; ``taken`` the card just drawn from the
    pile (R5) or -1; ``dead`` the cards out of play (the pile), which are no outs.
    Ties break towards the higher card, then the lower index (deterministic).
    """
    best = 1000
    for k, v in table.items():
        if v < best and k != taken:
            best = v
    if best == 0:
        return min((k for k, v in table.items() if v == 0 and k != taken),
                   key=lambda k: (-POINTS[k], k)), 0
    live = ALL_CARDS & ~h & ~dead
    limit = best + MARGIN
    choice = -1
    choice_score = 1e9
    for k, v in table.items():
        if v > limit or k == taken:
            continue
        outs = (completers(h & ~(1 << k)) & live).bit_count()
        score = v - OUTS_WEIGHT * outs - 0.01 * POINTS[k]
        if score < choice_score or (score == choice_score and k < choice):
            choice, choice_score = k, score
    return choice, table[choice]


def least_deadwood_discard(table: dict[int, int], taken: int) -> tuple[int, int]:
    """A quick knocker's discard: the card leaving the least deadwood (``table`` is
    ``deadwood_by_discard_mask`` of the 11 cards), never ``taken``, the card just drawn
    from the pile (R5); ties break towards the higher card, then the lower index.

    >>> from ginrummy.cards import Card, cards_mask
    >>> from ginrummy.melds import deadwood_by_discard_mask
    >>> h, _ = cards_mask("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH")
    >>> card, left = least_deadwood_discard(deadwood_by_discard_mask(h), -1)
    >>> str(Card.from_index(card)), left  # a ten-point card; 9 + 9 + 10 + 10 left
    ('KC', 38)
    """
    card = -1
    best = 1000
    for k, v in table.items():
        if k != taken and (v < best or v == best and (POINTS[k], -k) > (POINTS[card], -card)):
            card, best = k, v
    return card, best


def by_discard(h: int, cache: dict[int, dict[int, int]]) -> dict[int, int]:
    """``deadwood_by_discard_mask(h)``, memoised in ``cache`` (with common random numbers
    the same hands recur across actions; callers must not modify the result)."""
    table = cache.get(h)
    if table is None:
        table = deadwood_by_discard_mask(h)
        if len(cache) < CACHE_LIMIT:
            cache[h] = table
    return table


def wants_top(h: int, top: int, cache: dict[int, dict[int, int]] | None = None,
              quick: int = 0) -> bool:
    """Whether the policy takes the pile's top card: gin at once, or it joins a meld (R2)
    and lowers the least deadwood; a ``quick`` knocker whenever it joins a meld."""
    with_top = h | 1 << top
    if not in_some_meld(with_top, top):
        return False
    if quick:
        return True
    table = deadwood_by_discard_mask(with_top) if cache is None else by_discard(with_top, cache)
    after = min(v for k, v in table.items() if k != top)
    return after == 0 or after < deadwood_mask(h)


def settle_knock(knocker: int, hk: int, hd: int) -> tuple[int, int]:
    """(scorer seat, points) of a knock by seat ``knocker`` holding ``hk`` against ``hd``
    (R8-R9): gin scores the defender's deadwood + 25, an undercut (ties included) the
    difference + 25 for the defender, otherwise the knocker scores the difference."""
    sd = showdown_mask(hk, hd)
    if sd.gin:
        return knocker, sd.defender_deadwood + 25
    if sd.defender_deadwood <= sd.knocker_deadwood:
        return 1 - knocker, sd.knocker_deadwood - sd.defender_deadwood + 25
    return knocker, sd.defender_deadwood - sd.knocker_deadwood


def play_out(hands: list[int], stock: list[int], pile: list[int], to_play: int, phase: int,
             taken: int, turns: list[int], limit: int, dealer: int,
             cache: dict[int, dict[int, int]] | None = None, quick: int = 0,
             ) -> tuple[int, int]:
    """Play the hand to its end from the given state; returns (scorer seat or -1, points).

    ``hands`` are both seats' masks (the mover holds 11 in ``DISCARD``), ``stock`` and
    ``pile`` lists of card indexes with the top at the end, ``turns`` each seat's
    discards so far, ``limit`` the knock limit (R6), ``cache`` a memo of discard tables
    shared across calls, ``quick`` a bit per seat that knocks as soon as it may and plays
    as a quick knocker (module docstring). The lists are modified in place.
    """
    memo: dict[int, dict[int, int]] = {} if cache is None else cache
    dead = 0
    for c in pile:
        dead |= 1 << c
    discards = 0
    while True:
        p = to_play
        h = hands[p]
        q = quick >> p & 1
        if phase == DISCARD:
            discards += 1
            if discards > MAX_DISCARDS:
                return -1, 0  # a cycle: no result, as a dead hand (R7)
            table = by_discard(h, memo)
            if q:
                card, dw = least_deadwood_discard(table, taken)
            else:
                card, dw = choose_discard(h, table, taken, dead)
            h &= ~(1 << card)
            hands[p] = h
            turns[p] += 1
            if dw <= limit and (dw == 0 or turns[p] <= KNOCK_TURNS or q):
                return settle_knock(p, h, hands[1 - p])
            pile.append(card)
            dead |= 1 << card
            if len(stock) <= 2:
                return -1, 0  # R7
            to_play = 1 - p
            phase = DRAW
            taken = -1
        elif phase == DRAW:
            if pile and wants_top(h, pile[-1], memo, q):
                taken = pile.pop()
                dead &= ~(1 << taken)
                hands[p] = h | 1 << taken
            else:
                hands[p] = h | 1 << stock.pop()
                taken = -1  # a stock card may be discarded at once; a pile card not (R5)
            phase = DISCARD
        else:  # the up-card offer (R4)
            top = pile[-1]
            if wants_top(h, top, memo, q):
                pile.pop()
                dead &= ~(1 << top)
                hands[p] = h | 1 << top
                taken = top
                phase = DISCARD
            elif phase == OFFER_NON_DEALER:
                to_play = dealer
                phase = OFFER_DEALER
            else:
                to_play = 1 - dealer
                phase = DRAW
