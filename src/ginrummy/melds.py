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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

from .cards import Card, CardError, CardsLike, from_mask, parse_cards

__all__ = [
    "Arrangement",
    "Meld",
    "arrange",
    "best_arrangements",
    "deadwood",
    "deadwood_by_discard",
    "deadwood_mask",
    "deadwood_by_discard_mask",
    "is_meld",
]

_SUIT = 0x1FFF
_CARD_POINTS = tuple(min(r + 1, 10) for r in range(13))


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
                    total += sum(_CARD_POINTS[start:r])
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


def _set_choices(m: int, trips: int) -> list[int]:
    """All set-choice masks to try for hand ``m`` whose 3+-held ranks are ``trips``."""
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    run_cards = _run_melded(m)
    per_rank = []
    while trips:
        low = trips & -trips
        r = low.bit_length() - 1
        trips ^= low
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
    trips = (a & b & (c | d)) | (c & d & (a | b))
    rd = _RUN_DW
    if not trips:
        return rd[a] + rd[b] + rd[c] + rd[d]
    best = 1000
    for sets in _set_choices(m, trips):
        rest = m & ~sets
        v = rd[rest & _SUIT] + rd[rest >> 13 & _SUIT] + rd[rest >> 26 & _SUIT] + rd[rest >> 39]
        if v < best:
            best = v
    return best


def deadwood_by_discard_mask(m: int) -> dict[int, int]:
    """For each card index in ``m``, the least deadwood of ``m`` without it, in one pass.

    Every set choice of the full hand is scored once; each discard outside the chosen
    sets then costs one table look-up (a discard inside a set is covered by the choice
    that leaves that set out or shrinks it).
    """
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    trips = (a & b & (c | d)) | (c & d & (a | b))
    rd = _RUN_DW
    drops = _DROPS
    if not trips:
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
    per_rank = []
    t = trips
    while t:
        low = t & -t
        r = low.bit_length() - 1
        t ^= low
        present = (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3
        per_rank.append(_ALL_SET_OPTIONS[r][present])
    choices = per_rank[0] if len(per_rank) == 1 else [sum(x) for x in product(*per_rank)]
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


# ----------------------------------------------------------------------------- public API


@dataclass(frozen=True, slots=True)
class Meld:
    """A set (3-4 cards of one rank) or a run (3+ consecutive cards of one suit), R2."""

    cards: tuple[Card, ...]

    @property
    def kind(self) -> str:
        """``"set"`` or ``"run"``."""
        return "set" if self.cards[0].rank_index == self.cards[-1].rank_index else "run"

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A way to lay out a hand: melds, the cards left over, and their point total.

    ``melds`` are tuples of cards (runs low to high, sets in suit order), sets first.
    """

    melds: tuple[tuple[Card, ...], ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int

    @property
    def melded_cards(self) -> tuple[Card, ...]:
        """Every card in some meld."""
        return tuple(c for m in self.melds for c in m)

    def __str__(self) -> str:
        parts = ["[" + " ".join(map(str, m)) + "]" for m in self.melds]
        if self.deadwood_cards:
            parts.append(" ".join(map(str, self.deadwood_cards)))
        return " ".join(parts) + f" ({self.deadwood})"


def _hand_mask(cards: CardsLike, lo: int = 0, hi: int = 11) -> int:
    parsed = parse_cards(cards)
    if not lo <= len(parsed) <= hi:
        if lo == hi:
            raise CardError(f"Expected exactly {lo} cards, got {len(parsed)}.")
        raise CardError(f"Expected {lo} to {hi} cards, got {len(parsed)}.")
    m = 0
    for c in parsed:
        m |= c.mask
    return m


def _arrangement(m: int, sets: int) -> Arrangement:
    """The arrangement of hand ``m`` with the given set cards (runs follow, R2)."""
    melds: list[tuple[Card, ...]] = []
    for rank in range(13):
        group = tuple(
            Card.from_index(s * 13 + rank) for s in range(4) if sets >> (s * 13 + rank) & 1
        )
        if group:
            melds.append(group)
    rest = m & ~sets
    runs = _run_melded(rest)
    for s in range(4):
        sm = runs >> (13 * s) & _SUIT
        r = 0
        while r < 13:
            if sm >> r & 1:
                start = r
                while r < 13 and sm >> r & 1:
                    r += 1
                melds.append(tuple(Card.from_index(s * 13 + k) for k in range(start, r)))
            else:
                r += 1
    dead = tuple(from_mask(rest & ~runs))
    return Arrangement(tuple(melds), dead, sum(c.points for c in dead))


def arrangements_mask(m: int) -> list[Arrangement]:
    """Every least-deadwood arrangement of hand ``m`` (distinct in which cards form sets).

    Runs are shown merged: two touching runs of one suit read as one longer run, which
    changes neither the deadwood nor what can be laid off on them (R8).
    """
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    trips = (a & b & (c | d)) | (c & d & (a | b))
    if not trips:
        return [_arrangement(m, 0)]
    per_rank = []
    t = trips
    while t:
        low = t & -t
        r = low.bit_length() - 1
        t ^= low
        present = (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3
        per_rank.append(_ALL_SET_OPTIONS[r][present])
    scored = []
    rd = _RUN_DW
    for combo in product(*per_rank):
        sets = sum(combo)
        rest = m & ~sets
        v = rd[rest & _SUIT] + rd[rest >> 13 & _SUIT] + rd[rest >> 26 & _SUIT] + rd[rest >> 39]
        scored.append((v, sets))
    best = min(v for v, _ in scored)
    out: list[Arrangement] = []
    seen: set[tuple[tuple[Card, ...], ...]] = set()
    for v, sets in scored:
        if v == best:
            arr = _arrangement(m, sets)
            key = tuple(sorted(arr.melds))
            if key not in seen:  # a 3-set beside a 4th card that is itself deadwood-free
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
    return deadwood_mask(_hand_mask(cards))


def arrange(cards: CardsLike) -> Arrangement:
    """A least-deadwood arrangement of 0 to 11 cards (R2); see :func:`best_arrangements`.

    >>> a = arrange("7C 8C 9C 9D 9H 9S KD QH 4S 2H")
    >>> a.melds
    ((Card.parse('9D'), Card.parse('9H'), Card.parse('9S')), (Card.parse('7C'), Card.parse('8C'), Card.parse('9C')))
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
    (18, 24)
    """
    m = _hand_mask(cards, 11, 11)
    return {Card.from_index(k): v for k, v in sorted(deadwood_by_discard_mask(m).items())}


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


def melds_as_strings(melds: Iterable[Sequence[Card]]) -> list[list[str]]:
    """Melds as lists of R1 strings (for JSON)."""
    return [[str(c) for c in m] for m in melds]
