"""The belief's sampler of the opponent's hidden cards, in the kernel (the model:
:mod:`ginrummy.evaluator.belief`).

A sample is the opponent's known cards plus unseen ones drawn by weight, improved once
per turn it played (it keeps its best cards), redrawn while it contradicts the opponent
not having knocked (R6) or, for a quick knocker, its latest discard (R5); then the stock
is the other unseen cards, shuffled. The position's facts come in one int array ``pos``
and one float array ``fl`` (slots ``P_*`` and ``F_*`` of :mod:`.spec`); ``rs`` is the
random state (:mod:`.splitmix`); ``tab`` a scratch array of 52 and ``memo`` the Python
build's memo of discard tables, else None (:func:`~.solver.tabulate`).
"""

from __future__ import annotations

import math
from collections.abc import MutableSequence, Sequence

from .jit import floats, ints, jit, popcount
from .playout import knocks_at, least_left
from .solver import BIG, Memo, deadwood, tabulate
from .spec import (
    CLUB,
    F_CLUB_SHARE,
    F_EARLY_REJECT,
    F_IMPROVE,
    F_QUICK_IMPROVE,
    F_QUICK_SHARE,
    KNOCK_TURNS,
    P_DRAWS,
    P_LAST_DISCARD,
    P_LAST_TAKEN,
    P_LIMIT,
    P_OPP_KNOWN,
    P_OPP_TURNS,
    P_OPP_UNKNOWN,
    P_QUICK_CONSISTENT,
    P_QUICK_DISCARDS,
    P_QUICK_RETRIES,
    P_RETRIES,
    PATIENT,
    QUICK,
)
from .splitmix import random, shuffle

__all__ = ["belief_logits", "early_doubt", "fits_last_discard", "knock_refutes", "opponent_style",
           "plausible", "sample_hand", "sample_one", "sample_stock"]

Ints = MutableSequence[int]
Floats = Sequence[float]


@jit
def _weighted(rs: Ints, unknown: Sequence[int], weights: Floats, n: int, out: Ints) -> None:
    """``out[:n]``: ``n`` of the ``unknown`` cards drawn by weight without replacement, in
    draw order. A drawn card's weight is zeroed, so later draws pass over it as if it were
    gone (nothing is moved)."""
    cnt = len(unknown)
    w = floats(cnt)
    drawn = ints(cnt)
    total = 0.0
    for i in range(cnt):
        w[i] = weights[i]
        total += w[i]
    first = 0  # the first and the last card not drawn yet
    last = cnt - 1
    for t in range(n):
        r = random(rs) * total
        j = first
        while j < last and r >= w[j]:
            r -= w[j]
            j += 1
        out[t] = unknown[j]
        total -= w[j]
        w[j] = 0.0
        drawn[j] = 1
        while first < last and drawn[first]:
            first += 1
        while last > first and drawn[last]:
            last -= 1


@jit
def sample_one(pos: Sequence[int], fl: Floats, unknown: Sequence[int], weights: Floats,
               rs: Ints, style: int, tab: Ints, memo: Memo) -> int:
    """One draw of the opponent's hand (playing ``style``): its known cards, the unknown
    ones dealt by weight, then one improvement per turn it played (the belief's model); a
    quick knocker improves less (it does not play for gin)."""
    n = pos[P_OPP_UNKNOWN]
    draws = pos[P_DRAWS]
    improve = fl[F_QUICK_IMPROVE] if style == QUICK else fl[F_IMPROVE]
    if improve < 0:  # a fresh chance per sample, uniform on 0..-improve
        improve = -improve * random(rs)
    whole = math.floor(improve)
    part = improve - whole
    extra = int(whole) * draws
    for _ in range(draws):
        if random(rs) < part:
            extra += 1
    extra = min(extra, len(unknown) - n)
    cards = ints(n + extra)
    _weighted(rs, unknown, weights, n + extra, cards)
    known = pos[P_OPP_KNOWN]
    hand = known
    for t in range(n):
        hand |= 1 << cards[t]
    for t in range(n, n + extra):
        w = hand | 1 << cards[t]
        hand = _improve(w, known, tabulate(w, tab, memo))
    return hand


@jit
def _improve(w: int, known: int, tab: Sequence[int]) -> int:
    """``w`` less the card whose discard leaves the least deadwood (``tab``), the first
    such card not among the ``known`` ones (they are still held)."""
    worst = -1
    least = BIG
    x = w & ~known
    while x:
        i = popcount((x & -x) - 1)  # the lowest card's index
        x &= x - 1
        if tab[i] < least:
            worst = i
            least = tab[i]
    return w & ~(1 << worst)


@jit
def fits_last_discard(pos: Sequence[int], hand: int, tab: Ints, memo: Memo) -> bool:
    """Whether the opponent's latest discard left the least deadwood of the 11 cards it
    held then (``hand`` plus that card), the card it had just taken excepted (R5)."""
    d = pos[P_LAST_DISCARD]
    if d < 0 or hand >> d & 1:
        return True
    w = hand | 1 << d
    t = tabulate(w, tab, memo)
    return t[d] <= least_left(w, t, pos[P_LAST_TAKEN])


@jit
def knock_refutes(pos: Sequence[int], dw: int, style: int) -> bool:
    """Whether an opponent playing ``style`` would have knocked (R6) at its latest discard
    with a hand of deadwood ``dw`` now: gin always; a quick or club opponent by its
    schedule (when the position trusts the styles, ``P_QUICK_CONSISTENT``)."""
    if dw == 0:
        return True
    return style != PATIENT and dw <= knocks_at(style, pos[P_OPP_TURNS] - 1, pos[P_LIMIT]) \
        and pos[P_QUICK_CONSISTENT] != 0


@jit
def early_doubt(pos: Sequence[int], fl: Floats, dw: int, rs: Ints) -> bool:
    """Whether a sample that could have knocked in the opponent's first ``KNOCK_TURNS``
    turns survives the doubt (redrawn with chance ``F_EARLY_REJECT``)."""
    if dw <= pos[P_LIMIT] and pos[P_OPP_TURNS] <= KNOCK_TURNS:
        return random(rs) >= fl[F_EARLY_REJECT]
    return True


@jit
def plausible(pos: Sequence[int], fl: Floats, hand: int, rs: Ints, style: int,
              tab: Ints, memo: Memo) -> bool:
    """Whether a sampled hand agrees with the opponent (playing ``style``) not having
    knocked (R6, :func:`knock_refutes`, :func:`early_doubt`) and, for a quick one, with
    its latest discard (:func:`fits_last_discard`, when ``P_QUICK_DISCARDS``)."""
    if pos[P_OPP_TURNS] == 0:
        return True
    dw = deadwood(hand)
    if knock_refutes(pos, dw, style):
        return False
    if style == QUICK and pos[P_QUICK_DISCARDS] \
            and not fits_last_discard(pos, hand, tab, memo):
        return False
    return early_doubt(pos, fl, dw, rs)


@jit
def sample_hand(pos: Sequence[int], fl: Floats, unknown: Sequence[int], weights: Floats,
                rs: Ints, style: int, tab: Ints, memo: Memo) -> int:
    """One opponent hand from the belief, for an opponent playing ``style``: drawn, and
    redrawn while implausible (at most the retries the position allows)."""
    hand = sample_one(pos, fl, unknown, weights, rs, style, tab, memo)
    retries = pos[P_QUICK_RETRIES] if style == QUICK else pos[P_RETRIES]
    for _ in range(retries):
        if plausible(pos, fl, hand, rs, style, tab, memo):
            break
        hand = sample_one(pos, fl, unknown, weights, rs, style, tab, memo)
    return hand


@jit
def opponent_style(fl: Floats, rs: Ints) -> int:
    """The opponent's style for one sampled deal: quick with chance ``F_QUICK_SHARE``,
    club with ``F_CLUB_SHARE``, else patient (no random number drawn when both are 0)."""
    qs = fl[F_QUICK_SHARE]
    cs = fl[F_CLUB_SHARE]
    if qs <= 0 and cs <= 0:
        return PATIENT
    u = random(rs)
    if u < qs:
        return QUICK
    return CLUB if u < qs + cs else PATIENT


@jit
def sample_stock(unknown: Sequence[int], hand: int, rs: Ints, stock: Ints) -> int:
    """The stock for a sampled opponent ``hand`` into ``stock``: the other unseen cards,
    shuffled (top last); returns how many."""
    n = 0
    for u in unknown:
        if not hand >> u & 1:
            stock[n] = u
            n += 1
    shuffle(rs, stock, n)
    return n


@jit
def belief_logits(rows: Sequence[int], n: int, nf: int, scale: Floats, hidden: int,
                  w1: Floats, b1: Floats, w2: Floats, b2: float,
                  out: MutableSequence[float]) -> None:
    """``out[:n]``: the learned belief's score of each of ``n`` feature rows (flat, ``nf`` a
    row; :func:`ginrummy.evaluator.learned.logits`, the same loops): a ReLU layer of
    ``hidden`` units then a linear output, or (``hidden`` 0) a linear model."""
    x = floats(nf)
    for i in range(n):
        base = i * nf
        for f in range(nf):
            x[f] = rows[base + f] * scale[f]
        z = b2
        if hidden == 0:
            for f in range(nf):
                z += w2[f] * x[f]
        else:
            for h in range(hidden):
                a = b1[h]
                wb = h * nf
                for f in range(nf):
                    a += w1[wb + f] * x[f]
                if a > 0.0:
                    z += w2[h] * a
        out[i] = z
