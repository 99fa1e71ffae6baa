"""The reference hand kernel, in plain Python on the core's meld solver (R2, R8).

A hand's steps and settlement on 52-bit card masks (draw, discard, knock, showdown with
lay-offs, undercut, gin, dead hand: R3-R9), the play-out policy both seats follow, the
belief's sampler of the opponent's hidden cards, and the evaluator's batch: sample deals,
apply each action, play the hand out. :mod:`.compiled` does exactly the same with numba;
the tests hold the two identical, and this one to the core's :class:`~ginrummy.hand.Hand`.

The play-out policy sees only its own cards, the discard pile and which cards are out of
play:

* draw: take the pile's top card when it gives gin, or when it joins a meld and lowers
  the least deadwood (MARJJ's rule); otherwise draw from the stock (R4, R5);
* discard: among the discards leaving near-least deadwood (within ``MARGIN``), the one
  minimising ``deadwood - live meld-completing cards`` (R5: never the card just taken);
* knock: gin always; otherwise only in the seat's first ``KNOCK_TURNS`` turns (R6); a
  discard leaving two stock cards without a knock ends the hand dead (R7).

Each seat has a style (:mod:`.spec`): ``PATIENT`` as above; ``QUICK`` models a player who
knocks as soon as it may (R6) and races for it as ``simple`` does: it takes the pile's
top card whenever the card lies in a meld (R2) and discards the card leaving the least
deadwood, with no regard for outs; ``CLUB`` plays for outs as the patient seat does but
knocks by a schedule that tightens turn by turn (``KNOCK_AT``).

The state is one list of ints (slots named in :mod:`.spec`) and two lists of card
indexes (stock and pile, top at the end); the random numbers are SplitMix64, carried as
one int, so both kernels draw the same stream.

>>> from ginrummy.cards import cards_mask
>>> nine, _ = cards_mask("AS 2S 3S 4S 5S 6S 7S 8S 9S KD")
>>> other, _ = cards_mask("AH 3H 5H 7H 9H JH KH 2C 4C 6C")
>>> st = new_state(nine, other, 0, DRAW, -1, 0, 0, 10, 1, PATIENT)
>>> play_out(st, [1, 2, 3, 48], [11], {})  # seat 0 draws TS: gin, 82 points
338
>>> scorer_of(338), points_of(338)
(0, 82)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..knowledge import ALL_CARDS, POINTS
from ..melds import deadwood_by_discard_mask, deadwood_mask, showdown_mask
from .spec import (
    CLUB,
    DEAD,
    DEADCARDS,
    DEALER,
    DISCARD,
    DISCARD_BASE,
    DISCARDS,
    DRAW,
    DRAW_PILE,
    DRAW_STOCK,
    F_CLUB_SHARE,
    F_EARLY_REJECT,
    F_IMPROVE,
    F_QUICK_IMPROVE,
    F_QUICK_SHARE,
    GOLDEN,
    KN_DISCARDED,
    KN_KNOWN,
    KN_LAST_DISCARD,
    KN_LAST_TAKEN,
    KN_PASSED,
    KN_PILE,
    KN_SIZE,
    KN_STOCK_DRAWS,
    KN_TAKEN,
    KNOCK_AT,
    KNOCK_AT_TURNS,
    KNOCK_BASE,
    KNOCK_TURNS,
    LIMIT,
    MARGIN,
    MASK64,
    MAX_DISCARDS,
    MIX1,
    MIX2,
    NPILE,
    NSTOCK,
    OFFER_DEALER,
    OFFER_NON_DEALER,
    OUTS_PER_POINT,
    P_DEALER,
    P_DRAWS,
    P_LAST_DISCARD,
    P_LAST_TAKEN,
    P_LIMIT,
    P_ME,
    P_MINE,
    P_MY_STYLE,
    P_MY_TURNS,
    P_OPP_KNOWN,
    P_OPP_TURNS,
    P_OPP_UNKNOWN,
    P_PHASE,
    P_QUICK_CONSISTENT,
    P_QUICK_DISCARDS,
    P_QUICK_RETRIES,
    P_RETRIES,
    PASS,
    PATIENT,
    PHASE,
    QUICK,
    RUNNING,
    STATE_SIZE,
    STYLE,
    TAKEN,
    TO_PLAY,
    TURNS0,
    outcome,
    points_of,
    scorer_of,
)

__all__ = [
    "DRAW",
    "DISCARD",
    "Random",
    "apply",
    "by_discard",
    "choose_discard",
    "completers",
    "least_deadwood_discard",
    "new_state",
    "play_out",
    "points_of",
    "policy",
    "sample_hand",
    "scorer_of",
    "settle",
    "wants_top",
]

CACHE_LIMIT = 200_000
"""At most this many hands' discard tables are memoised per evaluation."""

_SUIT = 0x1FFF
_TOP = sum(1 << (s * 13 + 12) for s in range(4))
_BOT = sum(1 << (s * 13) for s in range(4))
_NOT_TOP = ALL_CARDS & ~_TOP
_NOT_BOT = ALL_CARDS & ~_BOT
_RANKS_TO_ALL = sum(1 << (13 * s) for s in range(4))
_2_53 = 1.0 / 9007199254740992.0

Memo = dict[int, dict[int, int]]


# ----------------------------------------------------------------------------- random numbers
class Random:
    """SplitMix64 (Steele, Lea and Flood 2014): a 64-bit state, one add and a mix a number.
    Small and exactly the same in both kernels, so a seed gives the same samples in each.

    >>> r = Random(1)
    >>> r.next64(), r.state
    (10451216379200822465, 11400714819323198486)
    >>> 0.0 <= Random(2).random() < 1.0, Random(3).below(6) in range(6)
    (True, True)
    """

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & MASK64

    def next64(self) -> int:
        """The next 64-bit number."""
        s = (self.state + GOLDEN) & MASK64
        self.state = s
        z = ((s ^ (s >> 30)) * MIX1) & MASK64
        z = ((z ^ (z >> 27)) * MIX2) & MASK64
        return z ^ (z >> 31)

    def random(self) -> float:
        """A float in [0, 1) with 53 random bits."""
        return (self.next64() >> 11) * _2_53

    def below(self, n: int) -> int:
        """A whole number in [0, n), for 0 < n < 2**32 (the top 32 bits, scaled)."""
        return ((self.next64() >> 32) * n) >> 32

    def shuffle(self, xs: list[int]) -> None:
        """Shuffle ``xs`` in place (Fisher-Yates, from the end)."""
        for i in range(len(xs) - 1, 0, -1):
            j = self.below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]


# ----------------------------------------------------------------------------- the solver
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


def in_meld(h: int, card: int) -> bool:
    """Whether ``card`` (held in ``h`` or not) forms a meld with two other cards of ``h``."""
    return bool(completers(h & ~(1 << card)) >> card & 1)


def by_discard(h: int, memo: Memo) -> dict[int, int]:
    """``deadwood_by_discard_mask(h)`` (keys in increasing order), memoised in ``memo``
    (with common random numbers the same hands recur across actions; callers must not
    modify the result)."""
    table = memo.get(h)
    if table is None:
        table = deadwood_by_discard_mask(h)
        if len(memo) < CACHE_LIMIT:
            memo[h] = table
    return table


def settle(knocker: int, hk: int, hd: int) -> int:
    """The outcome of a knock by seat ``knocker`` holding ``hk`` against ``hd`` (R8-R9): gin
    scores the defender's deadwood + 25, an undercut (ties included) the difference + 25
    for the defender, otherwise the knocker scores the difference."""
    sd = showdown_mask(hk, hd)
    if sd.gin:
        return outcome(knocker, sd.defender_deadwood + 25)
    if sd.defender_deadwood <= sd.knocker_deadwood:
        return outcome(1 - knocker, sd.knocker_deadwood - sd.defender_deadwood + 25)
    return outcome(knocker, sd.defender_deadwood - sd.knocker_deadwood)


# ----------------------------------------------------------------------------- the policy
def least_deadwood_discard(table: dict[int, int], taken: int) -> tuple[int, int]:
    """A quick knocker's discard: the card leaving the least deadwood (``table`` is
    ``deadwood_by_discard_mask`` of the 11 cards), never ``taken``, the card just drawn
    from the pile (R5); ties go to the higher card, then the lower index.

    >>> from ginrummy.cards import Card, cards_mask
    >>> h, _ = cards_mask("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH")
    >>> card, left = least_deadwood_discard(deadwood_by_discard_mask(h), -1)
    >>> str(Card.from_index(card)), left  # a ten-point card; 9 + 9 + 10 + 10 left
    ('KC', 38)
    """
    card = -1
    best = 1000
    for k, v in table.items():
        if k != taken and (v < best or v == best and POINTS[k] > POINTS[card]):
            card, best = k, v
    return card, best


def choose_discard(h: int, table: dict[int, int], taken: int, dead: int) -> tuple[int, int]:
    """The patient policy's discard from 11 cards ``h`` and the deadwood it leaves.

    ``table`` is ``deadwood_by_discard_mask(h)``; ``taken`` the card just drawn from the
    pile (R5) or -1; ``dead`` the cards out of play (the pile), which are no outs. With
    gin in hand, the highest card leaving gin; otherwise, among the discards within
    ``MARGIN`` of the least deadwood, the least ``OUTS_PER_POINT * (deadwood - live
    outs) - points``, the lower index on a tie.
    """
    best = 1000
    for k, v in table.items():
        if v < best and k != taken:
            best = v
    if best == 0:
        choice = -1
        for k, v in table.items():
            if v == 0 and k != taken and (choice < 0 or POINTS[k] > POINTS[choice]):
                choice = k
        return choice, 0
    live = ALL_CARDS & ~h & ~dead
    limit = best + MARGIN
    choice = -1
    choice_score = 1 << 30
    for k, v in table.items():
        if v > limit or k == taken:
            continue
        outs = (completers(h & ~(1 << k)) & live).bit_count()
        score = OUTS_PER_POINT * (v - outs) - POINTS[k]
        if score < choice_score:
            choice, choice_score = k, score
    return choice, table[choice]


def wants_top(h: int, top: int, memo: Memo, quick: bool) -> bool:
    """Whether the policy takes the pile's top card: gin at once, or it joins a meld (R2)
    and lowers the least deadwood; a ``quick`` knocker whenever it joins a meld."""
    if not completers(h) >> top & 1:
        return False
    if quick:
        return True
    table = by_discard(h | 1 << top, memo)
    after = 1000
    for k, v in table.items():
        if k != top and v < after:
            after = v
    return after == 0 or after < deadwood_mask(h)


def knocks_at(style: int, turns: int, limit: int) -> int:
    """The most deadwood a seat of ``style`` knocks with after ``turns`` discards (R6: never
    above ``limit``; 0 gin only; -1 not even gin, a limit below 0 in tests)."""
    return min(limit, KNOCK_AT[style][min(turns, KNOCK_AT_TURNS - 1)])


def style_of(st: Sequence[int], seat: int) -> int:
    """The play-out style of ``seat`` in state ``st``."""
    return st[STYLE] >> (2 * seat) & 3


def policy(st: list[int], stock: list[int], pile: list[int], memo: Memo) -> int:
    """The action code the play-out policy takes in state ``st`` (module docstring)."""
    p = st[TO_PLAY]
    h = st[p]
    style = st[STYLE] >> (2 * p) & 3
    q = style == QUICK
    phase = st[PHASE]
    if phase == DISCARD:
        table = by_discard(h, memo)
        if q:
            card, dw = least_deadwood_discard(table, st[TAKEN])
        else:
            card, dw = choose_discard(h, table, st[TAKEN], st[DEADCARDS])
        if dw <= knocks_at(style, st[TURNS0 + p], st[LIMIT]):
            return KNOCK_BASE + card
        return DISCARD_BASE + card
    if pile and wants_top(h, pile[-1], memo, q):
        return DRAW_PILE
    return DRAW_STOCK if phase == DRAW else PASS


# ----------------------------------------------------------------------------- the steps
def new_state(h0: int, h1: int, to_play: int, phase: int, taken: int, turns0: int,
              turns1: int, limit: int, dealer: int, styles: int) -> list[int]:
    """A play-out state (slots of :mod:`.spec`; ``styles`` is ``style0 | style1 << 2``);
    the stock and pile lengths and the pile's mask are filled in by :func:`play_out` /
    :func:`apply` from their lists."""
    st = [0] * STATE_SIZE
    st[0], st[1] = h0, h1
    st[TO_PLAY], st[PHASE], st[TAKEN] = to_play, phase, taken
    st[TURNS0], st[TURNS0 + 1] = turns0, turns1
    st[LIMIT], st[DEALER], st[STYLE] = limit, dealer, styles
    return st


def sync(st: list[int], stock: list[int], pile: list[int]) -> None:
    """Fill the state's stock and pile lengths and the pile's mask from the lists."""
    dead = 0
    for c in pile:
        dead |= 1 << c
    st[DEADCARDS] = dead
    st[NSTOCK] = len(stock)
    st[NPILE] = len(pile)


def step(st: list[int], stock: list[int], pile: list[int], act: int) -> int:
    """Apply action code ``act`` for the seat to play (R4-R9); the outcome if the hand
    ended, else :data:`~.spec.RUNNING`. The caller has checked that it is legal."""
    p = st[TO_PLAY]
    if act >= DISCARD_BASE:
        card = act & 63
        h = st[p] & ~(1 << card)
        st[p] = h
        st[TURNS0 + p] += 1
        st[DISCARDS] += 1
        if act >= KNOCK_BASE:
            return settle(p, h, st[1 - p])
        pile.append(card)
        st[NPILE] += 1
        st[DEADCARDS] |= 1 << card
        if st[NSTOCK] <= 2 or st[DISCARDS] >= MAX_DISCARDS:
            return DEAD  # R7 (or a play-out that cycles)
        st[TO_PLAY] = 1 - p
        st[PHASE] = DRAW
        st[TAKEN] = -1
    elif act == DRAW_PILE:
        c = pile.pop()
        st[NPILE] -= 1
        st[DEADCARDS] &= ~(1 << c)
        st[p] |= 1 << c
        st[TAKEN] = c
        st[PHASE] = DISCARD
    elif act == DRAW_STOCK:
        st[p] |= 1 << stock.pop()
        st[NSTOCK] -= 1
        st[TAKEN] = -1  # a stock card may be discarded at once; a pile card not (R5)
        st[PHASE] = DISCARD
    elif st[PHASE] == OFFER_NON_DEALER:  # a pass on the up-card (R4)
        st[TO_PLAY] = st[DEALER]
        st[PHASE] = OFFER_DEALER
    else:
        st[TO_PLAY] = 1 - st[DEALER]
        st[PHASE] = DRAW
    return RUNNING


def play_out(st: list[int], stock: list[int], pile: list[int], memo: Memo) -> int:
    """Play the hand to its end from state ``st`` by the policy; returns the outcome. The
    lists are modified in place."""
    sync(st, stock, pile)
    while True:
        r = step(st, stock, pile, policy(st, stock, pile, memo))
        if r != RUNNING:
            return r


def apply(st: list[int], stock: list[int], pile: list[int], act: int, memo: Memo) -> int:
    """Apply the deciding seat's action ``act`` (none if negative), then play the hand out
    by the policy; returns the outcome. The lists are modified in place."""
    sync(st, stock, pile)
    r = step(st, stock, pile, act) if act >= 0 else RUNNING
    while r == RUNNING:
        r = step(st, stock, pile, policy(st, stock, pile, memo))
    return r


def finish(st: Sequence[int], stock: Sequence[int], pile: Sequence[int], act: int,
           memo: Memo) -> int:
    """:func:`apply` on copies: the given state and lists are left as they were."""
    return apply(list(st), list(stock), list(pile), act, memo)


# ----------------------------------------------------------------------------- what is shown
def new_knowledge(upcard: int) -> tuple[list[int], list[int]]:
    """What both seats have shown at the deal (slots ``KN_*`` of :mod:`.spec`), and the
    pile: the up-card alone (R3)."""
    kn = [0] * KN_SIZE
    kn[KN_PILE] = 1 << upcard
    for s in (0, 1):
        kn[KN_TAKEN + s] = kn[KN_LAST_DISCARD + s] = kn[KN_LAST_TAKEN + s] = -1
    return kn, [upcard]


def observe(kn: list[int], pile: list[int], seat: int, act: int) -> None:
    """Record what seat ``seat``'s step ``act`` shows the table (R11): a pass declines the
    up-card (R4); a pile draw shows the card taken, a stock draw declines the top card
    (R5); a discard (knock or not) shows the card thrown."""
    if act == PASS:
        kn[KN_PASSED + seat] |= 1 << pile[0]  # only the up-card can be passed on
    elif act == DRAW_PILE:
        c = pile.pop()
        kn[KN_PILE] &= ~(1 << c)
        kn[KN_KNOWN + seat] |= 1 << c
        kn[KN_TAKEN + seat] = c
        kn[KN_LAST_DISCARD + seat] = -1
    elif act == DRAW_STOCK:
        if pile:
            kn[KN_PASSED + seat] |= 1 << pile[-1]
        kn[KN_TAKEN + seat] = -1
        kn[KN_LAST_DISCARD + seat] = -1
        kn[KN_STOCK_DRAWS + seat] += 1
    else:
        c = act & 63
        pile.append(c)
        kn[KN_PILE] |= 1 << c
        kn[KN_DISCARDED + seat] |= 1 << c
        kn[KN_KNOWN + seat] &= ~(1 << c)
        kn[KN_LAST_DISCARD + seat] = c
        kn[KN_LAST_TAKEN + seat] = kn[KN_TAKEN + seat]
        kn[KN_TAKEN + seat] = -1


def discard_stats(h: int, taken: int, plane: Any, memo: dict[int, int]) -> tuple[int, int, int]:
    """For 11 cards ``h``: ``plane[k]`` = deadwood after discarding k / 100 (R2, R6), the
    10-card results remembered in ``memo``; returns the least deadwood a discard leaves,
    the least without discarding ``taken`` (R5), and the least of deadwood left + points of
    the card thrown (the 11 cards' own deadwood when that is positive)."""
    least = best = whole = 1000
    for i, v in deadwood_by_discard_mask(h).items():
        plane[i] = v / 100.0
        memo[h & ~(1 << i)] = v
        if v < least:
            least = v
        if v < best and i != taken:
            best = v
        if v + POINTS[i] < whole:
            whole = v + POINTS[i]
    return least, best, whole


def deadwood(h: int) -> int:
    """Least deadwood of a hand of at most 11 cards (R2): the core's solver."""
    return deadwood_mask(h)


# ----------------------------------------------------------------------------- the belief
def _weighted(rng: Random, unknown: Sequence[int], weights: Sequence[float],
              n: int) -> list[int]:
    """``n`` of the ``unknown`` cards drawn by weight without replacement, in draw order."""
    left = list(range(len(unknown)))
    w = [weights[i] for i in left]
    total = 0.0
    for x in w:
        total += x
    out: list[int] = []
    for _ in range(n):
        r = rng.random() * total
        j = 0
        last = len(left) - 1
        while j < last and r >= w[j]:
            r -= w[j]
            j += 1
        out.append(unknown[left[j]])
        total -= w[j]
        del left[j]
        del w[j]
    return out


def sample_one(pos: Sequence[int], fl: Sequence[float], unknown: Sequence[int],
               weights: Sequence[float], rng: Random, style: int) -> int:
    """One draw of the opponent's hand (playing ``style``): its known cards, the unknown
    ones dealt by weight, then one improvement per turn it played (module docstring of the
    belief); a quick knocker improves less (it does not play for gin)."""
    n = pos[P_OPP_UNKNOWN]
    draws = pos[P_DRAWS]
    improve = fl[F_QUICK_IMPROVE] if style == QUICK else fl[F_IMPROVE]
    if improve < 0:  # a fresh chance per sample, uniform on 0..-improve
        improve = -improve * rng.random()
    whole = math.floor(improve)
    part = improve - whole
    extra = whole * draws
    for _ in range(draws):
        if rng.random() < part:
            extra += 1
    extra = min(extra, len(unknown) - n)
    cards = _weighted(rng, unknown, weights, n + extra)
    known = pos[P_OPP_KNOWN]
    hand = known
    for u in cards[:n]:
        hand |= 1 << u
    for u in cards[n:]:
        table = deadwood_by_discard_mask(hand | 1 << u)
        worst = -1
        worst_v = 1000
        for i, v in table.items():
            if v < worst_v and not known >> i & 1:
                worst, worst_v = i, v
        hand = (hand | 1 << u) & ~(1 << worst)
    return hand


def fits_last_discard(pos: Sequence[int], hand: int) -> bool:
    """Whether the opponent's latest discard left the least deadwood of the 11 cards it
    held then (``hand`` plus that card), the card it had just taken excepted (R5)."""
    d = pos[P_LAST_DISCARD]
    if d < 0 or hand >> d & 1:
        return True
    table = deadwood_by_discard_mask(hand | 1 << d)
    return table[d] <= least_deadwood_discard(table, pos[P_LAST_TAKEN])[1]


def plausible(pos: Sequence[int], fl: Sequence[float], hand: int, rng: Random,
              style: int, fits: Callable[[int], bool] | None = None) -> bool:
    """Whether a sampled hand agrees with the opponent (playing ``style``) not having
    knocked (R6): a quick or club opponent never held a hand its schedule would have
    knocked with at its latest discard; a quick one's latest discard left the least
    deadwood (or, given ``fits``, the hand passes that exact reading of its history)."""
    turns = pos[P_OPP_TURNS]
    if turns == 0:
        return True
    dw = deadwood_mask(hand)
    if dw == 0:
        return False
    limit = pos[P_LIMIT]
    if style != PATIENT and dw <= knocks_at(style, turns - 1, limit) \
            and pos[P_QUICK_CONSISTENT]:
        return False
    quick = style == QUICK
    if quick and fits is not None:
        if not fits(hand):
            return False
    elif quick and pos[P_QUICK_DISCARDS] and not fits_last_discard(pos, hand):
        return False
    if dw <= limit and pos[P_OPP_TURNS] <= KNOCK_TURNS:
        return rng.random() >= fl[F_EARLY_REJECT]
    return True


def sample_hand(pos: Sequence[int], fl: Sequence[float], unknown: Sequence[int],
                weights: Sequence[float], rng: Random, style: int) -> int:
    """One opponent hand from the belief, for an opponent playing ``style``: drawn, and
    redrawn while implausible (at most the retries the position allows)."""
    hand = sample_one(pos, fl, unknown, weights, rng, style)
    for _ in range(pos[P_QUICK_RETRIES] if style == QUICK else pos[P_RETRIES]):
        if plausible(pos, fl, hand, rng, style):
            break
        hand = sample_one(pos, fl, unknown, weights, rng, style)
    return hand


def draw_hand(pos: Sequence[int], fl: Sequence[float], unknown: Sequence[int],
              weights: Sequence[float], rng: Random, style: int) -> int:
    """:func:`sample_hand`, the face both kernels share (``rng`` advanced)."""
    return sample_hand(pos, fl, unknown, weights, rng, style)


def opponent_style(fl: Sequence[float], rng: Random) -> int:
    """The opponent's style for one sampled deal: quick with chance ``F_QUICK_SHARE``,
    club with ``F_CLUB_SHARE``, else patient (no random number drawn when both are 0)."""
    qs, cs = fl[F_QUICK_SHARE], fl[F_CLUB_SHARE]
    if qs <= 0 and cs <= 0:
        return PATIENT
    u = rng.random()
    if u < qs:
        return QUICK
    return CLUB if u < qs + cs else PATIENT


def sample_stock(unknown: Sequence[int], hand: int, rng: Random) -> list[int]:
    """The stock for a sampled opponent hand: the other unseen cards, shuffled (top last)."""
    stock = [u for u in unknown if not hand >> u & 1]
    rng.shuffle(stock)
    return stock


# ----------------------------------------------------------------------------- the batch
def play_sample(pos: Sequence[int], pile0: Sequence[int], hand: int, stock: list[int],
                opp_style: int, actions: Sequence[int], codes: list[list[int]], col: int,
                memo: Memo) -> None:
    """Every action on one sampled deal (opponent ``hand`` playing ``opp_style``, ``stock``
    top last), each played out: ``codes[i][col]`` is action i's outcome."""
    me = pos[P_ME]
    styles = pos[P_MY_STYLE] << (2 * me) | opp_style << (2 * (1 - me))
    turns = [0, 0]
    turns[me] = pos[P_MY_TURNS]
    turns[1 - me] = pos[P_OPP_TURNS]
    hands = [0, 0]
    hands[me] = pos[P_MINE]
    hands[1 - me] = hand
    for i, act in enumerate(actions):
        st = new_state(hands[0], hands[1], me, pos[P_PHASE], -1, turns[0], turns[1],
                       pos[P_LIMIT], pos[P_DEALER], styles)
        codes[i][col] = apply(st, list(stock), list(pile0), act, memo)


def sample_and_play(pos: Sequence[int], fl: Sequence[float], pile0: Sequence[int],
                    unknown: Sequence[int], weights: Sequence[float],
                    actions: Sequence[int], state: int, start: int, count: int,
                    codes: list[list[int]], xs: list[float], memo: Memo) -> int:
    """Samples ``start`` .. ``start + count - 1`` of an evaluation: for each, the opponent's
    style (:func:`opponent_style`), its hand and the stock, then every action played out
    (:func:`play_sample`); ``xs[s]`` is the sampled hand's deadwood (the control
    variate). Returns the random state after them."""
    rng = Random(state)
    for s in range(start, start + count):
        style = opponent_style(fl, rng)
        hand = sample_hand(pos, fl, unknown, weights, rng, style)
        stock = sample_stock(unknown, hand, rng)
        xs[s] = float(deadwood_mask(hand))
        play_sample(pos, pile0, hand, stock, style, actions, codes, s, memo)
    return rng.state


def pool(pos: Sequence[int], fl: Sequence[float], unknown: Sequence[int],
         weights: Sequence[float], state: int, out: list[float], start: int,
         count: int) -> int:
    """``out[start:start + count]``: deadwoods of more sampled hands (patient), for the
    control variate's mean; returns the random state after them."""
    rng = Random(state)
    for j in range(start, start + count):
        out[j] = float(deadwood_mask(sample_hand(pos, fl, unknown, weights, rng, PATIENT)))
    return rng.state


def _mean_se(ys: Sequence[float], xs: Sequence[float], n: int, mu_x: float,
             mu_var: float, variate: bool) -> tuple[float, float]:
    """Mean and SE of ``ys[:n]``, adjusted by the control variate ``xs`` (known mean
    ``mu_x`` with variance ``mu_var``) when ``variate`` and that helps."""
    my = 0.0
    for j in range(n):
        my += ys[j]
    my /= n
    if n < 2:
        return my, math.inf
    vy = 0.0
    for j in range(n):
        e = ys[j] - my
        vy += e * e
    vy /= n - 1
    if not variate or n < 8:
        return my, math.sqrt(vy / n)
    mx = 0.0
    for j in range(n):
        mx += xs[j]
    mx /= n
    vx = 0.0
    cov = 0.0
    for j in range(n):
        e = xs[j] - mx
        vx += e * e
        cov += e * (ys[j] - my)
    vx /= n - 1
    cov /= n - 1
    if vx <= 0:
        return my, math.sqrt(vy / n)
    b = cov / vx
    adj_var = max(vy - 2 * b * cov + b * b * vx, 0.0) / n + b * b * mu_var
    if adj_var >= vy / n:
        return my, math.sqrt(vy / n)
    return my - b * (mx - mu_x), math.sqrt(adj_var)


def summarize(codes: Sequence[Sequence[int]], n: int, win_of: Sequence[float],
              pts_of: Sequence[float], shift: Sequence[float], xs: Sequence[float],
              pool_vals: Sequence[float], npool: int, wins: list[list[float]],
              pts: list[list[float]], stats: list[list[float]]) -> None:
    """Turn outcome codes into match-winning chances and points (``win_of`` / ``pts_of``
    by code, ``shift`` taken off each action's win), filling ``wins`` and ``pts`` row by
    row and ``stats[i]`` with action i's (win, win SE, points, points SE); the control
    variate is used when ``npool`` >= 2 (its mean from the pool)."""
    mu_x = 0.0
    mu_var = 0.0
    variate = npool >= 2
    if variate:
        for j in range(npool):
            mu_x += pool_vals[j]
        mu_x /= npool
        for j in range(npool):
            e = pool_vals[j] - mu_x
            mu_var += e * e
        mu_var = mu_var / (npool - 1) / npool
    for i, row in enumerate(codes):
        wr = wins[i]
        pr = pts[i]
        for j in range(n):
            wr[j] = win_of[row[j]] - shift[i]
            pr[j] = pts_of[row[j]]
        w, wse = _mean_se(wr, xs, n, mu_x, mu_var, variate)
        p, pse = _mean_se(pr, xs, n, mu_x, mu_var, variate)
        stats[i][0], stats[i][1], stats[i][2], stats[i][3] = w, wse, p, pse


# ----------------------------------------------------------------------------- containers
def ints(values: Sequence[int]) -> list[int]:
    """An int array of this kernel (a list)."""
    return list(values)


def floats(values: Sequence[float]) -> list[float]:
    """A float array of this kernel (a list)."""
    return [float(v) for v in values]


def int_matrix(rows: int, cols: int) -> list[list[int]]:
    """A ``rows`` x ``cols`` int matrix of zeros (lists)."""
    return [[0] * cols for _ in range(rows)]


def float_matrix(rows: int, cols: int) -> list[list[float]]:
    """A ``rows`` x ``cols`` float matrix of zeros (lists)."""
    return [[0.0] * cols for _ in range(rows)]


def distinct(codes: Sequence[Sequence[int]], n: int) -> list[int]:
    """The distinct codes in the first ``n`` columns, sorted."""
    seen: set[int] = set()
    for row in codes:
        seen.update(row[:n])
    return sorted(seen)


def place(dst: list[list[int]], rows: Sequence[int], start: int,
          src: Sequence[Sequence[int]], count: int) -> None:
    """``dst[rows[r]][start:start + count] = src[r][:count]`` for every r."""
    for r, i in enumerate(rows):
        dst[i][start:start + count] = src[r][:count]


def place_vec(dst: list[float], start: int, src: Sequence[float], count: int) -> None:
    """``dst[start:start + count] = src[:count]``."""
    dst[start:start + count] = src[:count]


def take(codes: Sequence[Sequence[int]], rows: Sequence[int], n: int) -> list[list[int]]:
    """The first ``n`` columns of the given rows, as a new matrix."""
    return [list(codes[i][:n]) for i in rows]


def rows(matrix: Sequence[Sequence[float]], n: int) -> tuple[tuple[float, ...], ...]:
    """The first ``n`` columns of every row, as tuples of floats."""
    return tuple(tuple(r[:n]) for r in matrix)


def new_memo() -> Memo:
    """A memo of discard tables for one evaluation."""
    return {}
