"""The kernel's meld solver and settlement on 52-bit card masks (R2, R8, R9).

Built on the core's own tables and helpers: the run-only deadwood of every suit mask
(:func:`ginrummy.melds._build_run_tables`), the lay-off search (R8) and the score of a
knock (R9, :func:`ginrummy.scoring.knock_score`) are the core's functions, compiled with
the kernel in its compiled build. What is the kernel's own is the enumeration of set
choices on card masks, in the subset numba compiles (:mod:`.jit`); the tests hold it to
the core's :func:`~ginrummy.melds.deadwood_mask` and :func:`~ginrummy.melds.showdown_mask`.

Runs are forced once the sets are chosen (R2), so the least deadwood is the least, over
every choice of sets among the ranks held three or four times, of the run-only deadwood
of the rest: four table look-ups.

>>> from ginrummy.cards import cards_mask
>>> deadwood(cards_mask("7C 8C 9C 9D 9H 9S KD QH 4S 2H")[0])
26
>>> knocker, _ = cards_mask("5C 6C 7C JD JH JS 2S 3S 4S 9H")
>>> defender, _ = cards_mask("8C 9C 2D 3D 4D KH KD QC TH AH")
>>> settle(0, knocker, defender) == outcome(0, 41 - 9)  # 8C 9C laid off on the run
True
"""

from __future__ import annotations

from collections.abc import MutableSequence

from ..cards import ALL_CARDS, trips
from ..melds import _RUN_DW, _RUN_MELDED, _fourths, _layoff_search, deadwood_mask
from ..scoring import knock_score
from .jit import ints, jit, popcount, stands_for
from .spec import outcome

__all__ = ["BIG", "CACHE_LIMIT", "Memo", "completers", "deadwood",
           "deadwood_by_discard", "run_deadwood", "settle", "tabulate"]

Ints = MutableSequence[int]
"""A whole-number array: a list here, a numpy array in the compiled build."""
Memo = dict[int, Ints] | None
"""The Python build's memo of discard tables (:func:`tabulate`); the compiled build's is
None (it recomputes a table faster than Python looks one up)."""

CACHE_LIMIT = 200_000
"""At most this many hands' discard tables are remembered per memo (an evaluation)."""

BIG = 1000
"""More deadwood than any hand holds."""

_SUIT = 0x1FFF
_BOT = sum(1 << (s * 13) for s in range(4))
"""Rank 0 (the aces) of every suit; ``_BOT << r``: rank r of every suit."""
_NOT_TOP = ALL_CARDS & ~(_BOT << 12)
_NOT_BOT = ALL_CARDS & ~_BOT


# ----------------------------------------------------------------------------- bits
@jit
def run_deadwood(m: int) -> int:
    """Deadwood of ``m`` when only runs are melded (R2): one look-up per suit."""
    return _RUN_DW[m & _SUIT] + _RUN_DW[m >> 13 & _SUIT] + _RUN_DW[m >> 26 & _SUIT] \
        + _RUN_DW[m >> 39]


@jit
def _run_melded(m: int) -> int:
    """The cards of ``m`` in its runs, with no sets taken."""
    return _RUN_MELDED[m & _SUIT] | _RUN_MELDED[m >> 13 & _SUIT] << 13 \
        | _RUN_MELDED[m >> 26 & _SUIT] << 26 | _RUN_MELDED[m >> 39] << 39


# ----------------------------------------------------------------------------- set choices
# Only ranks held three or four times can form sets (R2), and a hand of 11 cards holds
# at most three such ranks. Each has a few choices: no set, the whole set and, with four
# held, each set of three. With the sets chosen the runs are forced, so the least
# deadwood is the least over every choice of the run-only deadwood of the rest.
@jit
def _next_rank(m: int, t3: int) -> tuple[int, int, int]:
    """The lowest rank of ``t3`` held three or four times in ``m`` (-1: none), how many
    set choices it has (1 for none), and ``t3`` without it."""
    if not t3:
        return -1, 1, 0
    low = t3 & -t3
    rank = popcount(low - 1)
    return rank, 6 if m & (_BOT << rank) == _BOT << rank else 2, t3 ^ low


@jit
def _set_option(m: int, rank: int, k: int) -> int:
    """Choice ``k`` of a rank: 0 no set, 1 every card of it, 2..5 the four without the
    card of suit ``k - 2``."""
    if k == 0:
        return 0
    full = m & (_BOT << rank)
    return full if k == 1 else full ^ (1 << ((k - 2) * 13 + rank))


@jit
def _walk_sets(m: int, t3: int, out: Ints | None) -> int:
    """Every choice of sets of ``m`` but none (``t3``: its ranks held three or four
    times): the least run-only deadwood of the rest (:func:`deadwood`), or with an array
    ``out`` each choice's drops into it (:func:`deadwood_by_discard`; then BIG)."""
    best = BIG
    r0, n0, t3 = _next_rank(m, t3)
    r1, n1, t3 = _next_rank(m, t3)
    r2, n2, t3 = _next_rank(m, t3)
    for i0 in range(n0):  # (choice 0 is no set: not worth a call in Python)
        s0 = _set_option(m, r0, i0) if i0 else 0
        for i1 in range(n1):
            s1 = s0 | _set_option(m, r1, i1) if i1 else s0
            for i2 in range(n2):
                sets = s1 | _set_option(m, r2, i2) if i2 else s1
                if not sets:
                    continue
                if out is not None:
                    _drops(m & ~sets, out, False)
                else:
                    best = min(best, run_deadwood(m & ~sets))
    return best


@jit
@stands_for(deadwood_mask)
def deadwood(m: int) -> int:
    """Least deadwood of a hand of at most 11 cards (R2)."""
    t3 = trips(m)
    if not t3:
        return run_deadwood(m)
    return min(run_deadwood(m), _walk_sets(m, t3, None))


@jit
def _drops(rest: int, out: Ints, first: bool) -> None:
    """For each card k of ``rest``: the run-only deadwood of ``rest`` without k into
    ``out[k]`` (``first``), or the less of that and ``out[k]``."""
    total = run_deadwood(rest)
    for off in range(0, 52, 13):
        sm = rest >> off & _SUIT
        if sm:
            base = total - _RUN_DW[sm]
            x = sm
            while x:
                low = x & -x
                x ^= low
                v = base + _RUN_DW[sm ^ low]
                k = off + popcount(low - 1)
                if first or v < out[k]:
                    out[k] = v


@jit
def deadwood_by_discard(m: int, out: Ints) -> None:
    """``out[k]``: least deadwood of ``m`` without card k, for every card k of ``m`` (R2).
    Every set choice is scored once; a discard outside the chosen sets is one look-up, one
    inside a set is covered by the choice that leaves that set out or shrinks it."""
    _drops(m, out, True)  # no sets
    t3 = trips(m)
    if t3:
        _walk_sets(m, t3, out)


@jit
def tabulate(h: int, tab: Ints, memo: Memo) -> Ints:
    """:func:`deadwood_by_discard` of ``h``: into ``tab``, or with a ``memo`` (the Python
    build's) the table remembered for ``h`` (with common random numbers the same hands
    recur across a search's actions; the caller must not change it). numba drops the
    memo's branch when ``memo`` is None."""
    if memo is not None:
        t = memo.get(h)
        if t is None:
            t = ints(52)
            deadwood_by_discard(h, t)
            if len(memo) < CACHE_LIMIT:
                memo[h] = t
        return t
    deadwood_by_discard(h, tab)
    return tab


@jit
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
    return ((l1 & l2) | (l1 & r1) | (r1 & r2) | pairs * _BOT) & ~h & ALL_CARDS


# ----------------------------------------------------------------------------- a knock
@jit
def settle(knocker: int, hk: int, hd: int) -> int:
    """The outcome (:func:`~.spec.outcome`) of a knock by seat ``knocker`` holding ``hk``
    against ``hd`` (R8-R9): among the knocker's least-deadwood arrangements the one that
    lets the defender lay off to the least deadwood, after gin nothing laid off."""
    kdw = deadwood(hk)
    if kdw == 0:
        pts = knock_score(True, 0, deadwood(hd))
    else:  # the knocker's choices of sets leaving kdw (R8: lay-offs go on their melds)
        dd = BIG
        r0, n0, t3 = _next_rank(hk, trips(hk))
        r1, n1, t3 = _next_rank(hk, t3)
        r2, n2, t3 = _next_rank(hk, t3)
        for i in range(n0 * n1 * n2):
            sets = _set_option(hk, r0, i % n0) | _set_option(hk, r1, i // n0 % n1) \
                | _set_option(hk, r2, i // (n0 * n1))
            if run_deadwood(hk & ~sets) == kdw:
                dd = min(dd, _layoff_search(_run_melded(hk & ~sets), _fourths(sets), hd)[0])
        pts = knock_score(False, kdw, dd)
    return outcome(knocker, pts) if pts > 0 else outcome(1 - knocker, -pts)
