"""A deliberately naive reference for the meld solver's tests (R1, R2): enumerate every
meld and every collection of disjoint melds. Slow, obviously correct, independent of
the package's tables."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

Meld = frozenset[int]


def points(index: int) -> int:
    """R1 points of a card index (suit * 13 + rank)."""
    return min(index % 13 + 1, 10)


def is_valid_meld(cards: frozenset[int]) -> bool:
    """R2: 3-4 cards of a rank, or 3+ consecutive cards of a suit (aces low)."""
    if len(cards) < 3:
        return False
    ranks = sorted(c % 13 for c in cards)
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    return len({c // 13 for c in cards}) == 1 and ranks == list(range(ranks[0], ranks[-1] + 1))


def all_melds(hand: frozenset[int]) -> list[Meld]:
    """Every set (3 or 4 of a rank) and run (3+ consecutive of a suit) inside ``hand``."""
    out: list[Meld] = []
    for rank in range(13):
        same = [s * 13 + rank for s in range(4) if s * 13 + rank in hand]
        for size in (3, 4):
            out.extend(frozenset(c) for c in combinations(same, size))
    for suit in range(4):
        for lo in range(13):
            for hi in range(lo + 2, 13):
                run = frozenset(suit * 13 + r for r in range(lo, hi + 1))
                if not run <= hand:
                    break
                out.append(run)
    return out


def every_arrangement(hand: frozenset[int]) -> Iterator[tuple[Meld, ...]]:
    """Every collection of pairwise disjoint melds from ``hand`` (the empty one included)."""
    melds = all_melds(hand)

    def rec(
        start: int, used: frozenset[int], chosen: tuple[Meld, ...]
    ) -> Iterator[tuple[Meld, ...]]:
        yield chosen
        for i in range(start, len(melds)):
            if not melds[i] & used:
                yield from rec(i + 1, used | melds[i], chosen + (melds[i],))

    return rec(0, frozenset(), ())
