"""The compiled hand kernel: :mod:`.reference`, step for step, compiled with numba.

The same solver (R2), showdown with lay-offs (R8), scoring (R9), steps (R4-R7), play-out
policy, belief sampler and evaluator batch, on int64 card masks and numpy arrays, with
the same SplitMix64 random numbers and the same floating-point operations in the same
order: for the same inputs both kernels give identical results (the tests check it on
many thousands of deals and positions). Compiled functions are cached on disk beside
this file (numba's ``cache=True``), so only the first process after an install pays for
compiling.

Importing this module needs numba; :mod:`ginrummy.kernel` falls back to the reference
when it is missing or fails.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from ..cards import POINTS as _CARD_POINTS
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
    P_NPILE,
    P_NUNKNOWN,
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
)

__all__ = ["deadwood", "deadwood_by_discard", "sample_and_play", "settle", "warm_up"]

_SUIT = 0x1FFF
_ALL = (1 << 52) - 1
_TOP = sum(1 << (s * 13 + 12) for s in range(4))
_BOT = sum(1 << (s * 13) for s in range(4))
_NOT_TOP = _ALL & ~_TOP
_NOT_BOT = _ALL & ~_BOT
_RANKS_TO_ALL = _BOT
_BIG = 1000
_U11 = np.uint64(11)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_GOLDEN = np.uint64(GOLDEN)
_MIX1 = np.uint64(MIX1)
_MIX2 = np.uint64(MIX2)
_2_53 = 1.0 / 9007199254740992.0


def _run_tables() -> tuple[Any, Any]:
    """Per 13-bit suit mask: the deadwood if only runs are melded (R2: every maximal block
    of 3+ consecutive ranks is a run), and the mask of those run cards."""
    dw = np.zeros(8192, dtype=np.int64)
    melded = np.zeros(8192, dtype=np.int64)
    for m in range(8192):
        r = 0
        while r < 13:
            if m >> r & 1:
                start = r
                while r < 13 and m >> r & 1:
                    r += 1
                if r - start >= 3:
                    melded[m] |= ((1 << (r - start)) - 1) << start
                else:
                    dw[m] += sum(min(k + 1, 10) for k in range(start, r))
            else:
                r += 1
    return dw, melded


_RUN_DW, _RUN_MELDED = _run_tables()
_POINTS = np.array(_CARD_POINTS, dtype=np.int64)
_KNOCK_AT = np.array(KNOCK_AT, dtype=np.int64)


# ----------------------------------------------------------------------------- bits
@njit(cache=True)
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True)
def _low_index(x: int) -> int:
    """The index of the lowest set bit of ``x`` > 0."""
    return _popcount((x & -x) - 1)


@njit(cache=True)
def _next64(rs: Any) -> Any:
    s = rs[0] + _GOLDEN
    rs[0] = s
    z = (s ^ (s >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@njit(cache=True)
def _random(rs: Any) -> float:
    return float(_next64(rs) >> _U11) * _2_53


@njit(cache=True)
def _below(rs: Any, n: int) -> int:
    return int(((_next64(rs) >> _U32) * np.uint64(n)) >> _U32)


# ----------------------------------------------------------------------------- the solver
@njit(cache=True)
def _run_dw(m: int) -> int:
    return (_RUN_DW[m & _SUIT] + _RUN_DW[(m >> 13) & _SUIT] + _RUN_DW[(m >> 26) & _SUIT]  # type: ignore[no-any-return]
            + _RUN_DW[(m >> 39) & _SUIT])


@njit(cache=True)
def _run_melded(m: int) -> int:
    return (_RUN_MELDED[m & _SUIT] | _RUN_MELDED[(m >> 13) & _SUIT] << 13  # type: ignore[no-any-return]
            | _RUN_MELDED[(m >> 26) & _SUIT] << 26
            | _RUN_MELDED[(m >> 39) & _SUIT] << 39)


@njit(cache=True)
def _trips(m: int) -> int:
    """Ranks (13-bit mask) held three or four times."""
    a, b, c, d = m & _SUIT, (m >> 13) & _SUIT, (m >> 26) & _SUIT, (m >> 39) & _SUIT
    return (a & b & (c | d)) | (c & d & (a | b))


@njit(cache=True)
def _set_option(m: int, rank: int, k: int) -> int:
    """Set choice ``k`` for ``rank`` (held 3+ times in ``m``): 0 none, 1 every card of the
    rank, 2..5 the four-card set without suit ``k - 2``."""
    if k == 0:
        return 0
    full = m & (_BOT << rank)
    if k == 1:
        return full
    return full ^ (1 << ((k - 2) * 13 + rank))


@njit(cache=True)
def _rank_choices(m: int, rank: int) -> int:
    """How many set choices a rank held 3+ times has: none, all, and (four held) each 3."""
    return 6 if _popcount(m & (_BOT << rank)) == 4 else 2


@njit(cache=True)
def _ranks3(m: int) -> tuple[int, int, int, int, int, int]:
    """Up to three ranks held 3+ times (-1: none) and their counts of set choices (1 for
    an absent rank). A hand of 11 cards or fewer holds at most three such ranks."""
    t3 = _trips(m)
    r0 = r1 = r2 = -1
    n0 = n1 = n2 = 1
    if t3:
        low = t3 & -t3
        t3 ^= low
        r0 = _low_index(low)
        n0 = _rank_choices(m, r0)
    if t3:
        low = t3 & -t3
        t3 ^= low
        r1 = _low_index(low)
        n1 = _rank_choices(m, r1)
    if t3:
        low = t3 & -t3
        r2 = _low_index(low)
        n2 = _rank_choices(m, r2)
    return r0, r1, r2, n0, n1, n2


@njit(cache=True)
def deadwood(m: int) -> int:
    """Least deadwood of a hand of at most 11 cards (R2): the best over every choice of
    sets, the runs then forced."""
    if not _trips(m):
        return _run_dw(m)
    r0, r1, r2, n0, n1, n2 = _ranks3(m)
    best = _BIG
    for i0 in range(n0):
        s0 = _set_option(m, r0, i0) if r0 >= 0 else 0
        for i1 in range(n1):
            s1 = _set_option(m, r1, i1) if r1 >= 0 else 0
            for i2 in range(n2):
                s2 = _set_option(m, r2, i2) if r2 >= 0 else 0
                v = _run_dw(m & ~(s0 | s1 | s2))
                if v < best:
                    best = v
    return best


@njit(cache=True)
def _drops_into(rest: int, out: Any) -> None:
    """For each card k of ``rest``: out[k] = min(out[k], run-only deadwood of rest - k)."""
    total = _run_dw(rest)
    for s in range(4):
        sm = (rest >> (13 * s)) & _SUIT
        if not sm:
            continue
        base = total - _RUN_DW[sm]
        x = sm
        while x:
            low = x & -x
            x ^= low
            v = base + _RUN_DW[sm ^ low]
            k = 13 * s + _low_index(low)
            if v < out[k]:
                out[k] = v


@njit(cache=True)
def deadwood_by_discard(m: int, out: Any) -> None:
    """``out[k]``: least deadwood of ``m`` without card k, for every k in ``m`` (R2). Every
    set choice is scored once; a discard outside the chosen sets is one table look-up, and
    one inside a set is covered by the choice that leaves that set out or shrinks it."""
    x = m
    while x:
        low = x & -x
        x ^= low
        out[_low_index(low)] = _BIG
    if not _trips(m):
        _drops_into(m, out)
        return
    r0, r1, r2, n0, n1, n2 = _ranks3(m)
    for i0 in range(n0):
        s0 = _set_option(m, r0, i0) if r0 >= 0 else 0
        for i1 in range(n1):
            s1 = _set_option(m, r1, i1) if r1 >= 0 else 0
            for i2 in range(n2):
                s2 = _set_option(m, r2, i2) if r2 >= 0 else 0
                _drops_into(m & ~(s0 | s1 | s2), out)


@njit(cache=True)
def _completers(h: int) -> int:
    l1 = (h & _NOT_TOP) << 1
    l2 = (l1 & _NOT_TOP) << 1
    r1 = (h & _NOT_BOT) >> 1
    r2 = (r1 & _NOT_BOT) >> 1
    a, b, c, d = h & _SUIT, (h >> 13) & _SUIT, (h >> 26) & _SUIT, (h >> 39) & _SUIT
    pairs = (a & (b | c | d)) | (b & (c | d)) | (c & d)
    return ((l1 & l2) | (l1 & r1) | (r1 & r2) | pairs * _RANKS_TO_ALL) & ~h & _ALL


@njit(cache=True)
def _closure(seed: int, allowed: int) -> int:
    x = seed
    while True:
        y = x | ((((x & _NOT_TOP) << 1) | ((x & _NOT_BOT) >> 1)) & allowed)
        if y == x:
            return x
        x = y


@njit(cache=True)
def _meldless(m: int) -> int:
    l1 = (m & _NOT_TOP) << 1
    l2 = (l1 & _NOT_TOP) << 1
    r1 = (m & _NOT_BOT) >> 1
    r2 = (r1 & _NOT_BOT) >> 1
    return m & ~((l1 & l2) | (l1 & r1) | (r1 & r2) | _trips(m) * _BOT)


@njit(cache=True)
def _fourths(sets: int) -> int:
    a, b, c, d = sets & _SUIT, (sets >> 13) & _SUIT, (sets >> 26) & _SUIT, (sets >> 39) & _SUIT
    three = _trips(sets) & ~(a & b & c & d)
    return (three & ~a) | (three & ~b) << 13 | (three & ~c) << 26 | (three & ~d) << 39


@njit(cache=True)
def _layoff_deadwood(runs: int, fourths: int, defender: int) -> int:
    """The defender's least deadwood over every legal lay-off (R8) onto the knocker's run
    cards ``runs`` and 3-card sets (``fourths``: their missing cards)."""
    cand = (_closure(runs, runs | defender) | fourths) & defender
    if not cand:
        return deadwood(defender)
    free = cand & _meldless(defender)
    contested = cand ^ free
    best = _BIG
    sub = contested
    while True:
        reach = _closure(runs, runs | sub | free) | fourths
        if not sub & ~reach:
            dw = deadwood(defender & ~(sub | (free & reach)))
            if dw < best:
                best = dw
        if not sub:
            return best
        sub = (sub - 1) & contested


@njit(cache=True)
def settle(knocker: int, hk: int, hd: int) -> int:
    """The outcome of a knock (R8-R9), as :func:`.reference.settle`."""
    kdw = deadwood(hk)
    if kdw == 0:
        return (knocker + 1) * 256 + deadwood(hd) + 25
    best = _BIG
    r0, r1, r2, n0, n1, n2 = _ranks3(hk)
    for i0 in range(n0):
        s0 = _set_option(hk, r0, i0) if r0 >= 0 else 0
        for i1 in range(n1):
            s1 = _set_option(hk, r1, i1) if r1 >= 0 else 0
            for i2 in range(n2):
                s2 = _set_option(hk, r2, i2) if r2 >= 0 else 0
                sets = s0 | s1 | s2
                rest = hk & ~sets
                if _run_dw(rest) != kdw:
                    continue
                dd = _layoff_deadwood(_run_melded(rest), _fourths(sets), hd)
                if dd < best:
                    best = dd
    if best <= kdw:
        return (2 - knocker) * 256 + kdw - best + 25
    return (knocker + 1) * 256 + best - kdw


# ----------------------------------------------------------------------------- the policy
@njit(cache=True)
def _least_discard(h: int, tab: Any, taken: int) -> tuple[int, int]:
    card = -1
    best = _BIG
    x = h
    while x:
        low = x & -x
        x ^= low
        k = _low_index(low)
        v = tab[k]
        if k != taken and (v < best or (v == best and _POINTS[k] > _POINTS[card])):
            card = k
            best = v
    return card, best


@njit(cache=True)
def _choose_discard(h: int, tab: Any, taken: int, dead: int) -> tuple[int, int]:
    best = _BIG
    x = h
    while x:
        low = x & -x
        x ^= low
        k = _low_index(low)
        if tab[k] < best and k != taken:
            best = tab[k]
    if best == 0:
        choice = -1
        x = h
        while x:
            low = x & -x
            x ^= low
            k = _low_index(low)
            if tab[k] == 0 and k != taken and (choice < 0 or _POINTS[k] > _POINTS[choice]):
                choice = k
        return choice, 0
    live = _ALL & ~h & ~dead
    limit = best + MARGIN
    choice = -1
    choice_score = 1 << 30
    x = h
    while x:
        low = x & -x
        x ^= low
        k = _low_index(low)
        v = tab[k]
        if v > limit or k == taken:
            continue
        outs = _popcount(_completers(h & ~low) & live)
        score = OUTS_PER_POINT * (v - outs) - _POINTS[k]
        if score < choice_score:
            choice = k
            choice_score = score
    return choice, tab[choice]


@njit(cache=True)
def _wants_top(h: int, top: int, quick: bool, tab: Any) -> bool:
    if not (_completers(h) >> top) & 1:
        return False
    if quick:
        return True
    w = h | (1 << top)
    deadwood_by_discard(w, tab)
    after = _BIG
    x = w
    while x:
        low = x & -x
        x ^= low
        k = _low_index(low)
        if k != top and tab[k] < after:
            after = tab[k]
    return after == 0 or after < deadwood(h)


@njit(cache=True)
def _knocks_at(style: int, turns: int, limit: int) -> int:
    return min(limit, _KNOCK_AT[style, min(turns, KNOCK_AT_TURNS - 1)])  # type: ignore[no-any-return]


@njit(cache=True)
def _policy(st: Any, pile: Any, tab: Any) -> int:
    p = st[TO_PLAY]
    h = st[p]
    style = (st[STYLE] >> (2 * p)) & 3
    q = style == QUICK
    phase = st[PHASE]
    if phase == DISCARD:
        deadwood_by_discard(h, tab)
        if q:
            card, dw = _least_discard(h, tab, st[TAKEN])
        else:
            card, dw = _choose_discard(h, tab, st[TAKEN], st[DEADCARDS])
        if dw <= _knocks_at(style, st[TURNS0 + p], st[LIMIT]):
            return KNOCK_BASE + card
        return DISCARD_BASE + card
    if st[NPILE] > 0 and _wants_top(h, pile[st[NPILE] - 1], q, tab):
        return DRAW_PILE
    return DRAW_STOCK if phase == DRAW else PASS


# ----------------------------------------------------------------------------- the steps
@njit(cache=True)
def _step(st: Any, stock: Any, pile: Any, act: int) -> int:
    p = st[TO_PLAY]
    if act >= DISCARD_BASE:
        card = act & 63
        h = st[p] & ~(1 << card)
        st[p] = h
        st[TURNS0 + p] += 1
        st[DISCARDS] += 1
        if act >= KNOCK_BASE:
            return settle(p, h, st[1 - p])
        pile[st[NPILE]] = card
        st[NPILE] += 1
        st[DEADCARDS] |= 1 << card
        if st[NSTOCK] <= 2 or st[DISCARDS] >= MAX_DISCARDS:
            return DEAD
        st[TO_PLAY] = 1 - p
        st[PHASE] = DRAW
        st[TAKEN] = -1
    elif act == DRAW_PILE:
        st[NPILE] -= 1
        c = pile[st[NPILE]]
        st[DEADCARDS] &= ~(1 << c)
        st[p] |= 1 << c
        st[TAKEN] = c
        st[PHASE] = DISCARD
    elif act == DRAW_STOCK:
        st[NSTOCK] -= 1
        st[p] |= 1 << stock[st[NSTOCK]]
        st[TAKEN] = -1
        st[PHASE] = DISCARD
    elif st[PHASE] == OFFER_NON_DEALER:
        st[TO_PLAY] = st[DEALER]
        st[PHASE] = OFFER_DEALER
    else:
        st[TO_PLAY] = 1 - st[DEALER]
        st[PHASE] = DRAW
    return RUNNING


@njit(cache=True)
def _apply(st: Any, stock: Any, pile: Any, act: int, tab: Any) -> int:
    dead = 0
    for i in range(st[NPILE]):
        dead |= 1 << pile[i]
    st[DEADCARDS] = dead
    r = _step(st, stock, pile, act) if act >= 0 else RUNNING
    while r == RUNNING:
        r = _step(st, stock, pile, _policy(st, pile, tab))
    return r


@njit(cache=True)
def play_state(st: Any, stock: Any, pile: Any, act: int) -> int:
    """Apply ``act`` (or nothing if negative), then play out by the policy; ``st`` carries
    the stock and pile lengths (``NSTOCK``, ``NPILE``). Returns the outcome."""
    tab = np.zeros(52, dtype=np.int64)
    return _apply(st, stock, pile, act, tab)


# ----------------------------------------------------------------------------- the belief
@njit(cache=True)
def _weighted(rs: Any, unknown: Any, weights: Any, n: int, out: Any) -> None:
    cnt = unknown.shape[0]
    left = np.arange(cnt)
    w = weights.copy()
    total = 0.0
    for i in range(cnt):
        total += w[i]
    for t in range(n):
        r = _random(rs) * total
        j = 0
        last = cnt - 1
        while j < last and r >= w[j]:
            r -= w[j]
            j += 1
        out[t] = unknown[left[j]]
        total -= w[j]
        for q in range(j, cnt - 1):
            left[q] = left[q + 1]
            w[q] = w[q + 1]
        cnt -= 1


@njit(cache=True)
def _sample_one(pos: Any, fl: Any, unknown: Any, weights: Any, rs: Any, style: int,
                tab: Any) -> int:
    n = pos[P_OPP_UNKNOWN]
    draws = pos[P_DRAWS]
    improve = fl[F_QUICK_IMPROVE] if style == QUICK else fl[F_IMPROVE]
    if improve < 0:
        improve = -improve * _random(rs)
    whole = math.floor(improve)
    part = improve - whole
    extra = int(whole) * draws
    for _ in range(draws):
        if _random(rs) < part:
            extra += 1
    extra = min(extra, unknown.shape[0] - n)
    cards = np.empty(n + extra, dtype=np.int64)
    _weighted(rs, unknown, weights, n + extra, cards)
    known = pos[P_OPP_KNOWN]
    hand = known
    for t in range(n):
        hand |= 1 << cards[t]
    for t in range(n, n + extra):
        u = cards[t]
        w = hand | (1 << u)
        deadwood_by_discard(w, tab)
        worst = -1
        worst_v = _BIG
        x = w
        while x:
            low = x & -x
            x ^= low
            i = _low_index(low)
            if tab[i] < worst_v and not (known >> i) & 1:
                worst = i
                worst_v = tab[i]
        hand = w & ~(1 << worst)
    return hand  # type: ignore[no-any-return]


@njit(cache=True)
def _fits_last_discard(pos: Any, hand: int, tab: Any) -> bool:
    d = pos[P_LAST_DISCARD]
    if d < 0 or (hand >> d) & 1:
        return True
    w = hand | (1 << d)
    deadwood_by_discard(w, tab)
    _, least = _least_discard(w, tab, pos[P_LAST_TAKEN])
    return tab[d] <= least  # type: ignore[no-any-return]


@njit(cache=True)
def _plausible(pos: Any, fl: Any, hand: int, rs: Any, style: int, tab: Any) -> bool:
    turns = pos[P_OPP_TURNS]
    if turns == 0:
        return True
    dw = deadwood(hand)
    if dw == 0:
        return False
    limit = pos[P_LIMIT]
    if style != PATIENT and dw <= _knocks_at(style, turns - 1, limit) \
            and pos[P_QUICK_CONSISTENT]:
        return False
    if style == QUICK and pos[P_QUICK_DISCARDS] and not _fits_last_discard(pos, hand, tab):
        return False
    if dw <= limit and pos[P_OPP_TURNS] <= KNOCK_TURNS:
        return _random(rs) >= fl[F_EARLY_REJECT]  # type: ignore[no-any-return]
    return True


@njit(cache=True)
def _sample_hand(pos: Any, fl: Any, unknown: Any, weights: Any, rs: Any, style: int,
                 tab: Any) -> int:
    hand = _sample_one(pos, fl, unknown, weights, rs, style, tab)
    retries = pos[P_QUICK_RETRIES] if style == QUICK else pos[P_RETRIES]
    for _ in range(retries):
        if _plausible(pos, fl, hand, rs, style, tab):
            break
        hand = _sample_one(pos, fl, unknown, weights, rs, style, tab)
    return hand


@njit(cache=True)
def _opponent_style(fl: Any, rs: Any) -> int:
    qs = fl[F_QUICK_SHARE]
    cs = fl[F_CLUB_SHARE]
    if qs <= 0 and cs <= 0:
        return PATIENT
    u = _random(rs)
    if u < qs:
        return QUICK
    return CLUB if u < qs + cs else PATIENT


@njit(cache=True)
def _sample_stock(unknown: Any, hand: int, rs: Any, stock: Any) -> int:
    n = 0
    for i in range(unknown.shape[0]):
        u = unknown[i]
        if not (hand >> u) & 1:
            stock[n] = u
            n += 1
    for i in range(n - 1, 0, -1):
        j = _below(rs, i + 1)
        t = stock[i]
        stock[i] = stock[j]
        stock[j] = t
    return n


# ----------------------------------------------------------------------------- the batch
@njit(cache=True)
def _play_sample(pos: Any, pile0: Any, hand: int, stock: Any, nstock: int, opp_style: int,
                 actions: Any, codes: Any, col: int, tab: Any, st: Any, stk: Any,
                 pl: Any) -> None:
    me = pos[P_ME]
    npile = pos[P_NPILE]
    styles = (pos[P_MY_STYLE] << (2 * me)) | (opp_style << (2 * (1 - me)))
    for i in range(actions.shape[0]):
        st[:] = 0
        st[me] = pos[P_MINE]
        st[1 - me] = hand
        st[TO_PLAY] = me
        st[PHASE] = pos[P_PHASE]
        st[TAKEN] = -1
        st[TURNS0 + me] = pos[P_MY_TURNS]
        st[TURNS0 + 1 - me] = pos[P_OPP_TURNS]
        st[LIMIT] = pos[P_LIMIT]
        st[DEALER] = pos[P_DEALER]
        st[STYLE] = styles
        st[NSTOCK] = nstock
        st[NPILE] = npile
        for j in range(nstock):
            stk[j] = stock[j]
        for j in range(npile):
            pl[j] = pile0[j]
        codes[i, col] = _apply(st, stk, pl, actions[i], tab)


@njit(cache=True)
def _sample_and_play(pos: Any, fl: Any, pile0: Any, unknown: Any, weights: Any,
                     actions: Any, rs: Any, start: int, count: int, codes: Any,
                     xs: Any) -> None:
    tab = np.zeros(52, dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    stock = np.zeros(52, dtype=np.int64)
    stk = np.zeros(52, dtype=np.int64)
    pl = np.zeros(52, dtype=np.int64)
    for s in range(start, start + count):
        style = _opponent_style(fl, rs)
        hand = _sample_hand(pos, fl, unknown, weights, rs, style, tab)
        n = _sample_stock(unknown, hand, rs, stock)
        xs[s] = float(deadwood(hand))
        _play_sample(pos, pile0, hand, stock, n, style, actions, codes, s, tab, st, stk, pl)


@njit(cache=True)
def _pool(pos: Any, fl: Any, unknown: Any, weights: Any, rs: Any, out: Any, start: int,
          count: int) -> None:
    tab = np.zeros(52, dtype=np.int64)
    for j in range(start, start + count):
        out[j] = float(deadwood(_sample_hand(pos, fl, unknown, weights, rs, PATIENT, tab)))


@njit(cache=True)
def _play_given(pos: Any, pile0: Any, hand: int, stock: Any, opp_style: int, actions: Any,
                codes: Any, col: int) -> None:
    tab = np.zeros(52, dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    stk = np.zeros(52, dtype=np.int64)
    pl = np.zeros(52, dtype=np.int64)
    _play_sample(pos, pile0, hand, stock, stock.shape[0], opp_style, actions, codes, col, tab,
                 st, stk, pl)


@njit(cache=True)
def _mean_se(ys: Any, xs: Any, n: int, mu_x: float, mu_var: float,
             variate: bool) -> tuple[float, float]:
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


@njit(cache=True)
def _summarize(codes: Any, n: int, win_of: Any, pts_of: Any, shift: Any, xs: Any,
               pool_vals: Any, npool: int, wins: Any, pts: Any, stats: Any) -> None:
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
    for i in range(codes.shape[0]):
        for j in range(n):
            wins[i, j] = win_of[codes[i, j]] - shift[i]
            pts[i, j] = pts_of[codes[i, j]]
        w, wse = _mean_se(wins[i], xs, n, mu_x, mu_var, variate)
        p, pse = _mean_se(pts[i], xs, n, mu_x, mu_var, variate)
        stats[i, 0] = w
        stats[i, 1] = wse
        stats[i, 2] = p
        stats[i, 3] = pse


@njit(cache=True)
def _discard_stats(h: int, taken: int, plane: Any, tab: Any) -> tuple[int, int, int]:
    deadwood_by_discard(h, tab)
    least = best = whole = _BIG
    x = h
    while x:
        low = x & -x
        x ^= low
        i = _low_index(low)
        v = tab[i]
        plane[i] = v / 100.0
        if v < least:
            least = v
        if v < best and i != taken:
            best = v
        if v + _POINTS[i] < whole:
            whole = v + _POINTS[i]
    return least, best, whole


# ----------------------------------------------------------------------------- the faces
def _state(state: int) -> Any:
    return np.array([state & MASK64], dtype=np.uint64)


def sample_and_play(pos: Any, fl: Any, pile0: Any, unknown: Any, weights: Any,
                    actions: Any, state: int, start: int, count: int, codes: Any, xs: Any,
                    memo: object) -> int:
    """As :func:`.reference.sample_and_play` (``memo`` unused: nothing here needs it)."""
    rs = _state(state)
    _sample_and_play(pos, fl, pile0, unknown, weights, actions, rs, start, count, codes, xs)
    return int(rs[0])


def pool(pos: Any, fl: Any, unknown: Any, weights: Any, state: int, out: Any, start: int,
         count: int) -> int:
    """As :func:`.reference.pool`."""
    rs = _state(state)
    _pool(pos, fl, unknown, weights, rs, out, start, count)
    return int(rs[0])


def play_sample(pos: Any, pile0: Any, hand: int, stock: list[int], opp_style: int, actions: Any,
                codes: Any, col: int, memo: object) -> None:
    """As :func:`.reference.play_sample`."""
    _play_given(pos, pile0, hand, np.array(stock, dtype=np.int64), opp_style, actions, codes,
                col)


def summarize(codes: Any, n: int, win_of: Any, pts_of: Any, shift: Any, xs: Any,
              pool_vals: Any, npool: int, wins: Any, pts: Any, stats: Any) -> None:
    """As :func:`.reference.summarize`."""
    _summarize(codes, n, np.asarray(win_of, dtype=np.float64),
               np.asarray(pts_of, dtype=np.float64), np.asarray(shift, dtype=np.float64),
               xs, pool_vals, npool, wins, pts, stats)


def draw_hand(pos: Any, fl: Any, unknown: Any, weights: Any, rng: Any, style: int) -> int:
    """As :func:`.reference.draw_hand`: one opponent hand, advancing ``rng.state``."""
    rs = _state(rng.state)
    hand = _sample_hand_face(pos, fl, unknown, weights, rs, style)
    rng.state = int(rs[0])
    return int(hand)


def finish(st: Sequence[int], stock: Sequence[int], pile: Sequence[int], act: int,
           memo: object) -> int:
    """As :func:`.reference.finish` (the lists are copied, not changed)."""
    arr = np.array(st, dtype=np.int64)
    arr[NSTOCK] = len(stock)
    arr[NPILE] = len(pile)
    stk = np.zeros(52, dtype=np.int64)
    stk[: len(stock)] = stock
    pl = np.zeros(52, dtype=np.int64)
    pl[: len(pile)] = pile
    return int(play_state(arr, stk, pl, act))


@njit(cache=True)
def _sample_hand_face(pos: Any, fl: Any, unknown: Any, weights: Any, rs: Any,
                      style: int) -> int:
    tab = np.zeros(52, dtype=np.int64)
    return _sample_hand(pos, fl, unknown, weights, rs, style, tab)


def discard_stats(h: int, taken: int, plane: Any, memo: dict[int, int]) -> tuple[int, int, int]:
    """As :func:`.reference.discard_stats` (``plane`` a numpy float array; the 10-card
    results are not remembered: deadwood here is cheap)."""
    least, best, whole = _discard_stats(h, taken, plane, np.zeros(52, dtype=np.int64))
    return int(least), int(best), int(whole)


def ints(values: Sequence[int]) -> Any:
    """An int64 array."""
    return np.array(values, dtype=np.int64)


def floats(values: Sequence[float]) -> Any:
    """A float64 array."""
    return np.array(values, dtype=np.float64)


def int_matrix(rows: int, cols: int) -> Any:
    """A ``rows`` x ``cols`` int64 matrix of zeros."""
    return np.zeros((rows, cols), dtype=np.int64)


def float_matrix(rows: int, cols: int) -> Any:
    """A ``rows`` x ``cols`` float64 matrix of zeros."""
    return np.zeros((rows, cols), dtype=np.float64)


def distinct(codes: Any, n: int) -> list[int]:
    """The distinct codes in the first ``n`` columns, sorted."""
    return [int(c) for c in np.unique(codes[:, :n])]


def place(dst: Any, rows: Sequence[int], start: int, src: Any, count: int) -> None:
    """``dst[rows[r], start:start + count] = src[r, :count]`` for every r."""
    dst[np.asarray(rows, dtype=np.int64), start:start + count] = src[:, :count]


def place_vec(dst: Any, start: int, src: Any, count: int) -> None:
    """``dst[start:start + count] = src[:count]``."""
    dst[start:start + count] = src[:count]


def take(codes: Any, rows: Sequence[int], n: int) -> Any:
    """The first ``n`` columns of the given rows, as a new matrix."""
    return np.ascontiguousarray(codes[np.asarray(rows, dtype=np.int64), :n])


def rows(matrix: Any, n: int) -> tuple[tuple[float, ...], ...]:
    """The first ``n`` columns of every row, as tuples of floats."""
    return tuple(tuple(r) for r in matrix[:, :n].tolist())


def new_memo() -> None:
    """Nothing to memoise here."""
    return None


def warm_up() -> None:
    """Compile (or load from the disk cache) every entry point on a tiny position."""
    from .spec import F_SIZE, P_SIZE

    pos = np.zeros(P_SIZE, dtype=np.int64)
    pos[P_MINE] = (1 << 10) - 1
    pos[P_OPP_UNKNOWN] = 10
    pos[P_LIMIT] = 10
    pos[P_PHASE] = DRAW
    pos[P_NPILE] = 1
    pos[P_NUNKNOWN] = 41
    pos[P_RETRIES] = 1
    fl = np.zeros(F_SIZE, dtype=np.float64)
    fl[F_QUICK_SHARE] = 0.5
    fl[F_EARLY_REJECT] = 0.5
    unknown = np.arange(11, 52, dtype=np.int64)
    weights = np.ones(41, dtype=np.float64)
    pile0 = np.array([10], dtype=np.int64)
    actions = np.array([DRAW_STOCK, DRAW_PILE], dtype=np.int64)
    codes = np.zeros((2, 1), dtype=np.int64)
    xs = np.zeros(1, dtype=np.float64)
    state = sample_and_play(pos, fl, pile0, unknown, weights, actions, 1, 0, 1, codes, xs,
                            None)
    out = np.zeros(1, dtype=np.float64)
    pool(pos, fl, unknown, weights, state, out, 0, 1)
    play_sample(pos, pile0, int(1 << 20) - (1 << 10), list(range(20, 50)), 0, actions, codes,
                0, None)
    from .reference import Random

    draw_hand(pos, fl, unknown, weights, Random(3), 0)
    finish([0] * STATE_SIZE, list(range(20, 50)), [10], DRAW_STOCK, None)
    win = np.zeros(768, dtype=np.float64)
    summarize(codes, 1, win, win, np.zeros(2), xs, out, 1, np.zeros((2, 1)), np.zeros((2, 1)),
              np.zeros((2, 4)))
    deadwood_by_discard(0x7FF, np.zeros(52, dtype=np.int64))
    deadwood(0x3FF)
    discard_stats(0x7FF, -1, np.zeros(52, dtype=np.float32), {})
    settle(0, 0x3FF, 0x3FF << 13)
