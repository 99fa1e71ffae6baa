"""The meld solver (R2): exact least-deadwood arrangements, best discards, and lay-offs (R8).

Hands are 52-bit masks internally (bit ``suit * 13 + rank``, see :mod:`ginrummy.cards`).
Two facts make the solver small and fast:

* With sets fixed, runs are forced: in each suit every maximal block of 3 or more
  consecutive cards is melded and nothing else can be, so the run-only deadwood
  of a suit is one table look-up (``_RUN_DW``, 8192 entries).
* Only ranks held 3 or 4 times can form sets, and a set matters only where it
  competes with a run; the solver enumerates just those few choices.

>>> deadwood("7C 8C 9C 9D 9H 9S KD QH 4S 2H")
26
>>> arrange("7C 7D 7H 7S 8C 9C").deadwood
0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from operator import attrgetter
from typing import Any

from .cards import (
    ALL_CARDS,
    POINTS,
    Card,
    CardError,
    CardSet,
    CardsLike,
    cards_mask,
    deck,
    format_cards,
    from_mask,
    parse_cards,
    trips,
)

__all__ = [
    "Arrangement",
    "Meld",
    "Showdown",
    "arrange",
    "arrangements_mask",
    "best_arrangements",
    "best_layoff",
    "deadwood",
    "deadwood_by_discard",
    "deadwood_mask",
    "deadwood_by_discard_mask",
    "is_meld",
    "showdown",
    "showdown_mask",
]

_SUIT = 0x1FFF
_RANK_ALL_SUITS = 1 | 1 << 13 | 1 << 26 | 1 << 39  # rank 0 (aces) of every suit


def _build_run_tables() -> tuple[list[int], list[int]]:
    """Per-suit run-only deadwood and melded-mask for every 13-bit suit mask."""
    dw = [0] * 8192
    melded = [0] * 8192
    for m in range(8192):
        total = 0
        mel = 0
        r = 0
        while r < 13:
            if m >> r & 1:
                start = r
                while r < 13 and m >> r & 1:
                    r += 1
                block = ((1 << (r - start)) - 1) << start
                if r - start >= 3:
                    mel |= block
                else:
                    total += sum(POINTS[start:r])
            else:
                r += 1
        dw[m] = total
        melded[m] = mel
    return dw, melded


_RUN_DW, _RUN_MELDED = _build_run_tables()

# _DROPS[m]: for each rank held in suit mask m, (rank, run-only deadwood of m without it).
_DROPS: list[tuple[tuple[int, int], ...]] = [
    tuple((r, _RUN_DW[m ^ (1 << r)]) for r in range(13) if m >> r & 1) for m in range(8192)
]


def _set_options(rank: int, present: int, run_cards: int) -> tuple[int, ...]:
    """The set choices worth trying for one rank held 3+ times, as 52-bit masks.

    ``present`` has bit s for each suit held; ``run_cards`` is the hand's run-melded
    mask with no sets taken. Dropping a card that is in no run from a 4-set never
    helps, so only 3-subsets that leave out a run card are tried.
    """
    full = 0
    for s in range(4):
        if present >> s & 1:
            full |= 1 << (s * 13 + rank)
    if not full & run_cards:
        return (full,)  # no competition with runs: the whole set is always right
    opts = [0, full]
    if present == 0b1111:
        for s in range(4):
            bit = 1 << (s * 13 + rank)
            if bit & run_cards:
                opts.append(full ^ bit)
    return tuple(opts)


def _run_melded(m: int) -> int:
    return (
        _RUN_MELDED[m & _SUIT]
        | _RUN_MELDED[m >> 13 & _SUIT] << 13
        | _RUN_MELDED[m >> 26 & _SUIT] << 26
        | _RUN_MELDED[m >> 39] << 39
    )


def _set_choices(m: int, t3: int) -> list[int]:
    """All set-choice masks to try for hand ``m`` whose 3+-held ranks are ``t3``."""
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    run_cards = _run_melded(m)
    per_rank = []
    while t3:
        low = t3 & -t3
        r = low.bit_length() - 1
        t3 ^= low
        present = (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3
        per_rank.append(_set_options(r, present, run_cards))
    if len(per_rank) == 1:
        return list(per_rank[0])
    return [sum(combo) for combo in product(*per_rank)]


def deadwood_mask(m: int) -> int:
    """Least deadwood of the hand given as a 52-bit mask (any number of cards).

    >>> deadwood_mask(0b111)  # AC 2C 3C
    0
    """
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    t3 = (a & b & (c | d)) | (c & d & (a | b))  # cards.trips(m), inlined: the hot path
    rd = _RUN_DW
    if not t3:
        return rd[a] + rd[b] + rd[c] + rd[d]
    if not t3 & (t3 - 1):
        # One rank held 3+ times (the usual case): try no set, the whole set and, for four
        # of a kind, each 3-card set; cheaper than pruning the choices first.
        best = rd[a] + rd[b] + rd[c] + rd[d]
        full = m & (_RANK_ALL_SUITS << (t3.bit_length() - 1))
        rest = m ^ full
        v = rd[rest & _SUIT] + rd[rest >> 13 & _SUIT] + rd[rest >> 26 & _SUIT] + rd[rest >> 39]
        if v < best:
            best = v
        if full.bit_count() == 4:
            f = full
            while f:
                low = f & -f
                f ^= low
                rest = m ^ full ^ low
                v = (rd[rest & _SUIT] + rd[rest >> 13 & _SUIT] + rd[rest >> 26 & _SUIT]
                     + rd[rest >> 39])
                if v < best:
                    best = v
        return best
    best = 1000
    for sets in _set_choices(m, t3):
        rest = m & ~sets
        v = rd[rest & _SUIT] + rd[rest >> 13 & _SUIT] + rd[rest >> 26 & _SUIT] + rd[rest >> 39]
        if v < best:
            best = v
    return best


def deadwood_by_discard_mask(m: int) -> dict[int, int]:
    """For each card index in ``m``, the least deadwood of ``m`` without it, in one pass.

    Every set choice of the full hand is scored once; each discard outside the chosen
    sets then costs one table look-up (a discard inside a set is covered by the choice
    that leaves that set out or shrinks it). The keys come in increasing order: the
    first choice tried is always "no sets", which visits every card in index order.
    """
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    t3 = (a & b & (c | d)) | (c & d & (a | b))  # cards.trips(m), inlined: the hot path
    rd = _RUN_DW
    drops = _DROPS
    if not t3:
        ra, rb, rc, rdd = rd[a], rd[b], rd[c], rd[d]
        total = ra + rb + rc + rdd
        out: dict[int, int] = {}
        base = total - ra
        for r, v in drops[a]:
            out[r] = base + v
        base = total - rb
        for r, v in drops[b]:
            out[13 + r] = base + v
        base = total - rc
        for r, v in drops[c]:
            out[26 + r] = base + v
        base = total - rdd
        for r, v in drops[d]:
            out[39 + r] = base + v
        return out
    # The set choices of the 11 cards, plus those of every 10-card sub-hand: dropping a
    # run card can change which set choices are worth trying, so use the full option
    # list (no run-competition pruning) for correctness.
    choices = _all_set_choices(t3, a, b, c, d)
    best: dict[int, int] = {}
    get = best.get
    for sets in choices:
        rest = m & ~sets
        sa, sb, sc, sd = rest & _SUIT, rest >> 13 & _SUIT, rest >> 26 & _SUIT, rest >> 39
        ra, rb, rc, rdd = rd[sa], rd[sb], rd[sc], rd[sd]
        total = ra + rb + rc + rdd
        for off, sm, rs in ((0, sa, ra), (13, sb, rb), (26, sc, rc), (39, sd, rdd)):
            base = total - rs
            for r, v in drops[sm]:
                k = off + r
                val = base + v
                old = get(k)
                if old is None or val < old:
                    best[k] = val
    return best


def _all_set_options(rank: int, present: int) -> tuple[int, ...]:
    full = 0
    for s in range(4):
        if present >> s & 1:
            full |= 1 << (s * 13 + rank)
    opts = [0, full]
    if present == 0b1111:
        opts += [full ^ (1 << (s * 13 + rank)) for s in range(4)]
    return tuple(opts)


_ALL_SET_OPTIONS = [
    [_all_set_options(r, p) if bin(p).count("1") >= 3 else () for p in range(16)]
    for r in range(13)
]


def _all_set_choices(t3: int, a: int, b: int, c: int, d: int) -> list[int]:
    """Every choice of sets (R2) among the ranks in ``t3`` (ranks held three or four times),
    as masks: per rank each 3- or 4-card set or none, combined over the ranks. ``a``..``d``
    are the four suits' 13-bit masks."""
    per_rank = []
    while t3:
        low = t3 & -t3
        r = low.bit_length() - 1
        t3 ^= low
        present = (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3
        per_rank.append(_ALL_SET_OPTIONS[r][present])
    if len(per_rank) == 1:
        return list(per_rank[0])
    return [sum(x) for x in product(*per_rank)]


# ----------------------------------------------------------------------------- public API


class Meld(tuple[Card, ...]):
    """A set (3-4 cards of one rank) or a run (3+ consecutive cards of one suit), R2: a
    tuple of its cards (runs low to high, sets in suit order) that knows which it is.

    >>> m = arrange("7C 8C 9C").melds[0]
    >>> m.kind, str(m), m.points, m == tuple(parse_cards("7C 8C 9C"))
    ('run', '7C 8C 9C', 24, True)
    """

    __slots__ = ()

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards, as a plain tuple."""
        return tuple(self)

    @property
    def kind(self) -> str:
        """``"set"`` or ``"run"``."""
        return "set" if self[0].rank_index == self[-1].rank_index else "run"

    @property
    def points(self) -> int:
        """The cards' points (R1)."""
        return sum(c.points for c in self)

    def __str__(self) -> str:
        return " ".join(str(c) for c in self)

    def describe(self, symbols: bool = False) -> str:
        """``[7C 8C 9C]``, or with suit symbols."""
        return "[" + format_cards(self, symbols) + "]"


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A way to lay out a hand: melds, the cards left over, and their point total.

    ``melds`` are :class:`Meld` values, tuples of cards (runs low to high, sets in suit
    order), sets first.
    """

    melds: tuple[Meld, ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int

    @property
    def melded_cards(self) -> tuple[Card, ...]:
        """Every card in some meld."""
        return tuple(c for m in self.melds for c in m)

    def to_json(self) -> dict[str, Any]:
        """``{"melds": [[...]], "deadwood_cards": [...], "deadwood": n}`` in R1 notation, as
        ``ginrummy analyze --json`` and the web table show it."""
        return {
            "melds": [[str(c) for c in m] for m in self.melds],
            "deadwood_cards": [str(c) for c in self.deadwood_cards],
            "deadwood": self.deadwood,
        }

    def describe(self, symbols: bool = False) -> str:
        """The narration the text faces show: ``[7C 8C 9C]  deadwood KD 2H = 12``.

        >>> arrange("7C 8C 9C KD 2H").describe()
        '[7C 8C 9C]  deadwood KD 2H = 12'
        """
        melds = "  ".join(m.describe(symbols) for m in self.melds) or "no melds"
        loose = format_cards(self.deadwood_cards, symbols) or "-"
        return f"{melds}  deadwood {loose} = {self.deadwood}"

    def __str__(self) -> str:
        parts = ["[" + " ".join(map(str, m)) + "]" for m in self.melds]
        if self.deadwood_cards:
            parts.append(" ".join(map(str, self.deadwood_cards)))
        return " ".join(parts) + f" ({self.deadwood})"


def _hand_mask(cards: CardsLike, lo: int = 0, hi: int = 11) -> int:
    m, n = cards_mask(cards)
    if not lo <= n <= hi:
        if lo == hi:
            raise CardError(f"Expected exactly {lo} cards, got {n}.")
        raise CardError(f"Expected {lo} to {hi} cards, got {n}.")
    return m


_CARDS: tuple[Card, ...] = tuple(deck())


def _run_spans(m: int) -> tuple[tuple[int, int], ...]:
    """(first rank, rank after the last) of each maximal block of 3+ ranks in suit mask ``m``."""
    spans = []
    r = 0
    while r < 13:
        if m >> r & 1:
            start = r
            while r < 13 and m >> r & 1:
                r += 1
            if r - start >= 3:
                spans.append((start, r))
        else:
            r += 1
    return tuple(spans)


_RUN_SPANS: list[tuple[tuple[int, int], ...]] = [_run_spans(m) for m in range(8192)]


def _arrangement(m: int, sets: int) -> Arrangement:
    """The arrangement of hand ``m`` with the given set cards (runs follow, R2)."""
    melds: list[Meld] = []
    cards = _CARDS
    if sets:
        ranks = (sets | sets >> 13 | sets >> 26 | sets >> 39) & _SUIT
        while ranks:
            low = ranks & -ranks
            ranks ^= low
            melds.append(Meld(from_mask(sets & _RANK_ALL_SUITS * low)))
    rest = m & ~sets
    for off in (0, 13, 26, 39):
        for lo, hi in _RUN_SPANS[rest >> off & _SUIT]:
            melds.append(Meld(cards[off + lo : off + hi]))
    dead = tuple(from_mask(rest & ~_run_melded(rest)))
    return Arrangement(tuple(melds), dead, sum(c.points for c in dead))


def _scored_set_choices(m: int) -> list[tuple[int, int]]:
    """(deadwood, set-card mask) for every set choice of hand ``m``, in a fixed order."""
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    t3 = trips(m)
    rd = _RUN_DW
    if not t3:
        return [(rd[a] + rd[b] + rd[c] + rd[d], 0)]
    scored = []
    for sets in _all_set_choices(t3, a, b, c, d):
        rest = m & ~sets
        v = rd[rest & _SUIT] + rd[rest >> 13 & _SUIT] + rd[rest >> 26 & _SUIT] + rd[rest >> 39]
        scored.append((v, sets))
    return scored


def _least_set_choices(m: int) -> tuple[int, list[int]]:
    """The least deadwood of hand ``m`` and every set-card mask that reaches it, in order."""
    scored = _scored_set_choices(m)
    if len(scored) == 1:
        return scored[0][0], [scored[0][1]]
    best = min(v for v, _ in scored)
    return best, [sets for v, sets in scored if v == best]


def _best_arrangement_mask(m: int) -> Arrangement:
    """The first least-deadwood arrangement of ``m``: the same as ``arrangements_mask(m)[0]``."""
    return _arrangement(m, _least_set_choices(m)[1][0])


def arrangements_mask(m: int) -> list[Arrangement]:
    """Every least-deadwood arrangement of hand ``m`` (distinct in which cards form sets).

    Runs are shown merged: two touching runs of one suit read as one longer run, which
    changes neither the deadwood nor what can be laid off on them (R8).
    """
    _, choices = _least_set_choices(m)
    out: list[Arrangement] = []
    seen: set[tuple[tuple[Card, ...], ...]] = set()
    for sets in choices:
        arr = _arrangement(m, sets)
        key = tuple(sorted(arr.melds))
        if key not in seen:
            seen.add(key)
            out.append(arr)
    return out


def deadwood(cards: CardsLike) -> int:
    """Least deadwood of 0 to 11 cards (R2).

    >>> deadwood("")
    0
    >>> deadwood("KS QS JS TD")
    10
    """
    given: Any = cards
    if type(given) is list:  # Card objects, the common case: no call but the solver's
        m: int
        try:
            m = sum(map(_MASK_OF, given))
        except AttributeError:
            m = -1
        if 0 <= m <= ALL_CARDS and m.bit_count() == len(given) <= 11:
            a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
            if not (a & b & (c | d)) | (c & d & (a | b)):  # no rank held 3 times: runs only
                rd = _RUN_DW
                return rd[a] + rd[b] + rd[c] + rd[d]
            return deadwood_mask(m)
    elif type(given) is CardSet and given.mask.bit_count() <= 11:
        return deadwood_mask(given.mask)
    return deadwood_mask(_hand_mask(cards))


def arrange(cards: CardsLike) -> Arrangement:
    """A least-deadwood arrangement of 0 to 11 cards (R2); see :func:`best_arrangements`.

    >>> a = arrange("7C 8C 9C 9D 9H 9S KD QH 4S 2H")
    >>> [" ".join(map(str, m)) for m in a.melds]
    ['9D 9H 9S', '7C 8C 9C']
    >>> a.deadwood
    26
    """
    return arrangements_mask(_hand_mask(cards))[0]


def best_arrangements(cards: CardsLike) -> list[Arrangement]:
    """Every least-deadwood arrangement of 0 to 11 cards (needed by R8's tie-break)."""
    return arrangements_mask(_hand_mask(cards))


def deadwood_by_discard(cards: CardsLike) -> dict[Card, int]:
    """For 11 cards: each card -> least deadwood of the 10 left after discarding it.

    >>> d = deadwood_by_discard("7C 8C 9C 9D 9H 9S KD QH 4S 2H 3H")
    >>> d[Card.parse('KD')], d[Card.parse('7C')]
    (19, 37)
    """
    m = -1
    given: Any = cards
    tc = type(given)
    if tc is CardSet:
        m = given.mask
    elif tc is list and len(given) == 11:
        try:
            m = sum(map(_MASK_OF, given))
        except AttributeError:
            m = -1
    if not (0 <= m <= ALL_CARDS and m.bit_count() == 11):
        m = _hand_mask(cards, 11, 11)
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    # Runs only (no sets) first: every card gets a value, in index order, Card keys
    # straight from the tables.
    rd = _RUN_DW
    drops = _DROPS
    ra, rb, rc, rdd = rd[a], rd[b], rd[c], rd[d]
    total = ra + rb + rc + rdd
    out: dict[Card, int] = {}
    suit, base = _SUIT_CARDS[0], total - ra
    for r, v in drops[a]:
        out[suit[r]] = base + v
    suit, base = _SUIT_CARDS[1], total - rb
    for r, v in drops[b]:
        out[suit[r]] = base + v
    suit, base = _SUIT_CARDS[2], total - rc
    for r, v in drops[c]:
        out[suit[r]] = base + v
    suit, base = _SUIT_CARDS[3], total - rdd
    for r, v in drops[d]:
        out[suit[r]] = base + v
    t3 = (a & b & (c | d)) | (c & d & (a | b))  # cards.trips(m), inlined: the hot path
    if not t3:
        return out
    # Then every other set choice (as deadwood_by_discard_mask): a discard outside the
    # chosen sets may do better with them.
    choices = _all_set_choices(t3, a, b, c, d)
    for sets in choices:
        if not sets:
            continue  # the runs-only choice, done above
        rest = m & ~sets
        sa, sb, sc, sd = rest & _SUIT, rest >> 13 & _SUIT, rest >> 26 & _SUIT, rest >> 39
        ra, rb, rc, rdd = rd[sa], rd[sb], rd[sc], rd[sd]
        total = ra + rb + rc + rdd
        for suit, x, base in ((_SUIT_CARDS[0], sa, total - ra), (_SUIT_CARDS[1], sb, total - rb),
                              (_SUIT_CARDS[2], sc, total - rc),
                              (_SUIT_CARDS[3], sd, total - rdd)):
            for r, v in drops[x]:
                card = suit[r]
                if base + v < out[card]:
                    out[card] = base + v
    return out


_MASK_OF = attrgetter("mask")
_SUIT_CARDS = tuple(_CARDS[13 * s : 13 * s + 13] for s in range(4))


def is_meld(cards: CardsLike) -> bool:
    """Whether the cards form one valid set or run (R2).

    >>> is_meld("AH 2H 3H"), is_meld("QS KS AS"), is_meld("5C 5D 5S")
    (True, False, True)
    """
    cs = parse_cards(cards)
    if len(cs) < 3:
        return False
    if len({c.rank_index for c in cs}) == 1:
        return len(cs) <= 4
    if len({c.suit_index for c in cs}) != 1:
        return False
    ranks = sorted(c.rank_index for c in cs)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


# ----------------------------------------------------------------------------- lay-offs (R8)

_TOP = sum(1 << (s * 13 + 12) for s in range(4))
_BOT = sum(1 << (s * 13) for s in range(4))
_NOT_TOP = ALL_CARDS & ~_TOP
_NOT_BOT = ALL_CARDS & ~_BOT


def _closure(seed: int, allowed: int) -> int:
    """``seed`` grown one rank at a time, within each suit, through the cards of ``allowed``."""
    x = seed
    while True:
        y = x | (((x & _NOT_TOP) << 1 | (x & _NOT_BOT) >> 1) & allowed)
        if y == x:
            return x
        x = y


def _meldless(m: int) -> int:
    """Cards of ``m`` that lie in no possible meld of ``m`` (so in none of any part of it)."""
    l1 = (m & _NOT_TOP) << 1  # rank r-1 held, same suit
    l2 = (l1 & _NOT_TOP) << 1  # rank r-2 held
    r1 = (m & _NOT_BOT) >> 1  # rank r+1 held
    r2 = (r1 & _NOT_BOT) >> 1  # rank r+2 held
    return m & ~((l1 & l2) | (l1 & r1) | (r1 & r2) | trips(m) * _BOT)


def _fourths(sets: int) -> int:
    """The missing fourth card of every 3-card set in the set-card mask ``sets``."""
    a, b, c, d = sets & _SUIT, sets >> 13 & _SUIT, sets >> 26 & _SUIT, sets >> 39
    three = trips(sets) & ~(a & b & c & d)
    return (three & ~a) | (three & ~b) << 13 | (three & ~c) << 26 | (three & ~d) << 39


_bits = int.bit_count  # a function, so the compiled kernel can put its own in its place


def _layoff_search(runs: int, fourths: int, defender: int) -> tuple[int, int]:
    """Least defender deadwood over every legal lay-off, and the lay-off mask reaching it.

    ``runs`` are the knocker's run cards and ``fourths`` the cards that would complete the
    knocker's 3-card sets. A set ``L`` of defender cards can be laid off iff each card of
    it completes a set or lies, within its suit, in a block of ``runs | L`` that holds a run
    (so chains work at both ends, R8). Cards in no possible defender meld are laid off
    whenever they can be, which only helps; the few other candidates are tried both ways.
    Ties go to fewer laid-off cards (the defender keeps their own melds). Integer code
    only: the hand kernel (:mod:`ginrummy.kernel`) compiles this very function.
    """
    cand = (_closure(runs, runs | defender) | fourths) & defender
    if not cand:
        return deadwood_mask(defender), 0
    free = cand & _meldless(defender)
    contested = cand ^ free
    best_dw = 1000
    best_lay = 0
    sub = contested
    while True:
        reach = _closure(runs, runs | sub | free) | fourths
        if not sub & ~reach:
            lay = sub | (free & reach)
            dw = deadwood_mask(defender & ~lay)
            if dw < best_dw or (dw == best_dw and _bits(lay) < _bits(best_lay)):
                best_dw, best_lay = dw, lay
        if not sub:
            return best_dw, best_lay
        sub = (sub - 1) & contested


def _assign_layoffs(
    lay: int, runs: int, meld_of: dict[int, int], fourth_of: dict[int, int]
) -> tuple[tuple[Card, int], ...]:
    """Name the knocker meld each laid-off card goes on, ordered by meld then card.

    A card joined to a run through laid-off cards goes on that run (the nearest one below,
    else above), so every run's additions stay contiguous; any other card completes a set.
    """
    reach = _closure(runs, runs | lay)
    out: list[tuple[int, int]] = []
    m = lay
    while m:
        low = m & -m
        k = low.bit_length() - 1
        m ^= low
        if reach & low:
            lo = k - k % 13
            j = k - 1
            while j >= lo and lay >> j & 1:
                j -= 1
            if j < lo or not runs >> j & 1:
                j = k + 1
                while j < lo + 13 and lay >> j & 1:
                    j += 1
            out.append((meld_of[j], k))
        else:
            out.append((fourth_of[k], k))
    out.sort()
    return tuple((Card.from_index(k), i) for i, k in out)


@dataclass(frozen=True, slots=True)
class Showdown:
    """What a knock reveals (R8): both arrangements, the lay-offs, and the deadwood scored.

    ``defender_arrangement`` is the defender's own melds and remaining deadwood after
    lay-offs; laid-off cards are in neither. ``layoffs`` pairs each laid-off card with the
    index of the knocker meld (in ``knocker_arrangement.melds``) it goes on.
    """

    knocker_arrangement: Arrangement
    defender_arrangement: Arrangement
    layoffs: tuple[tuple[Card, int], ...]
    knocker_deadwood: int
    defender_deadwood: int
    gin: bool

    @property
    def laid_off(self) -> tuple[Card, ...]:
        """The defender's laid-off cards, in the order of ``layoffs`` (by meld, then card)."""
        return tuple(c for c, _ in self.layoffs)

    def describe(self, knocker: str = "The knocker", defender: str = "The defender",
                 symbols: bool = False) -> list[str]:
        """The showdown as the text faces narrate it, one line each: what each player
        shows, then the lay-offs (R8).

        >>> sd = showdown("5C 6C 7C JD JH JS 2S 3S 4S 9H", "8C 9C 2D 3D 4D KH KD QC TH AH")
        >>> for line in sd.describe("Ann", "Bob"):
        ...     print(line)
        Ann shows [JD JH JS]  [5C 6C 7C]  [2S 3S 4S]  deadwood 9H = 9
        Bob shows [2D 3D 4D]  deadwood QC KD AH TH KH = 41
        Bob lays off 8C on [5C 6C 7C], 9C on [5C 6C 7C]
        """
        lines = [f"{knocker} shows {self.knocker_arrangement.describe(symbols)}",
                 f"{defender} shows {self.defender_arrangement.describe(symbols)}"]
        if self.layoffs:
            melds = self.knocker_arrangement.melds
            lays = ", ".join(f"{format_cards([c], symbols)} on {melds[i].describe(symbols)}"
                             for c, i in self.layoffs)
            lines.append(f"{defender} lays off {lays}")
        return lines


def _meld_maps(melds: Sequence[Sequence[Card]]) -> tuple[int, int, dict[int, int], dict[int, int]]:
    """Run-card mask, set-completing-card mask, and card -> meld index maps for lay-offs."""
    runs = 0
    fourths = 0
    meld_of: dict[int, int] = {}
    fourth_of: dict[int, int] = {}
    for i, meld in enumerate(melds):
        first = meld[0]
        if all(c.rank_index == first.rank_index for c in meld):
            if len(meld) == 3:
                suits = {c.suit_index for c in meld}
                missing = next(s for s in range(4) if s not in suits)
                k = missing * 13 + first.rank_index
                fourths |= 1 << k
                fourth_of[k] = i
        else:
            for c in meld:
                runs |= c.mask
                meld_of[c.index] = i
    return runs, fourths, meld_of, fourth_of


def showdown_mask(knocker: int, defender: int) -> Showdown:
    """Settle a knock (R8) from card masks: arrangements, lay-offs and both deadwoods.

    Normally both hands hold 10 cards (the caller checks that the knock is allowed, R6).
    Among the knocker's least-deadwood arrangements the one that lets the defender finish
    lowest is used; after gin nothing is laid off.
    """
    if knocker & defender:
        both = " ".join(map(str, from_mask(knocker & defender)))
        raise CardError(f"The knocker and the defender cannot both hold {both}.")
    if knocker < 0 or defender < 0 or (knocker | defender) > ALL_CARDS:
        raise CardError("A card mask must be a 52-bit non-negative integer.")
    kdw, choices = _least_set_choices(knocker)
    if kdw == 0:
        own = _best_arrangement_mask(defender)
        return Showdown(_arrangement(knocker, choices[0]), own, (), 0, own.deadwood, True)
    best: tuple[int, int, int] | None = None
    seen: set[tuple[int, int]] = set()
    for sets in choices:
        runs = _run_melded(knocker & ~sets)
        fourths = _fourths(sets)
        if len(choices) > 1:
            if (runs, fourths) in seen:
                continue
            seen.add((runs, fourths))
        dw, lay = _layoff_search(runs, fourths, defender)
        if best is None or (dw, lay.bit_count()) < (best[0], best[1].bit_count()):
            best = (dw, lay, sets)
    assert best is not None
    dw, lay, sets = best
    k_arr = _arrangement(knocker, sets)
    d_arr = _best_arrangement_mask(defender & ~lay)
    layoffs: tuple[tuple[Card, int], ...] = ()
    if lay:
        runs, _, meld_of, fourth_of = _meld_maps(k_arr.melds)
        layoffs = _assign_layoffs(lay, runs, meld_of, fourth_of)
    return Showdown(k_arr, d_arr, layoffs, kdw, dw, False)


def showdown(knocker: CardsLike, defender: CardsLike) -> Showdown:
    """Settle a knock (R8) between two 10-card hands given as R1 strings or cards.

    >>> sd = showdown("5C 6C 7C JD JH JS 2S 3S 4S 9H", "8C 9C 2D 3D 4D KH KD QC TH AH")
    >>> sd.knocker_deadwood, sd.defender_deadwood, [str(c) for c in sd.laid_off]
    (9, 41, ['8C', '9C'])
    """
    k = _hand_mask(knocker, 10, 10)
    d = _hand_mask(defender, 10, 10)
    return showdown_mask(k, d)


def best_layoff(
    knocker_melds: Sequence[Sequence[Card]], defender: CardsLike
) -> tuple[Arrangement, tuple[tuple[Card, int], ...]]:
    """The defender's own arrangement and lay-offs onto the given melds, chosen together (R8).

    Returns the arrangement of the cards not laid off and ``(card, meld index)`` pairs;
    together they give the defender the least deadwood possible.

    >>> arr, lay = best_layoff([parse_cards("5C 6C 7C"), parse_cards("JD JH JS")], "8C 9C JC 2H")
    >>> arr.deadwood, [(str(c), i) for c, i in lay]
    (2, [('8C', 0), ('9C', 0), ('JC', 1)])
    """
    d = _hand_mask(defender)
    melds = [tuple(parse_cards(m)) for m in knocker_melds]
    used = 0
    for meld in melds:
        if not is_meld(meld):
            raise CardError(f"Not a meld: {' '.join(map(str, meld)) or '(empty)'}.")
        for c in meld:
            if used & c.mask or d & c.mask:
                raise CardError(f"Card {c} appears twice among the melds and the defender's hand.")
            used |= c.mask
    runs, fourths, meld_of, fourth_of = _meld_maps(melds)
    _, lay = _layoff_search(runs, fourths, d)
    layoffs = _assign_layoffs(lay, runs, meld_of, fourth_of) if lay else ()
    return _best_arrangement_mask(d & ~lay), layoffs
