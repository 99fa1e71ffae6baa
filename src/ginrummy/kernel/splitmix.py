"""The kernel's random numbers: SplitMix64 (Steele, Lea and Flood 2014), a 64-bit state,
one add and a mix a number. The state is a one-cell array (``rs``), so the kernel's
functions advance it in place in either build, and a seed gives the same numbers in each.

>>> r = Random(1)
>>> r.next64(), r.state
(10451216379200822465, 11400714819323198486)
>>> 0.0 <= Random(2).random() < 1.0, Random(3).below(6) in range(6)
(True, True)
"""

from __future__ import annotations

from collections.abc import MutableSequence

from .jit import jit, unsigned
from .spec import GOLDEN, MASK64, MIX1, MIX2

__all__ = ["Random", "below", "next64", "random", "shuffle"]

_2_53 = 1.0 / 9007199254740992.0


@jit
def next64(rs: MutableSequence[int]) -> int:
    """The next 64-bit number of the state ``rs[0]`` (advanced). The masks keep Python's
    whole numbers to 64 bits; numba's unsigned numbers wrap by themselves."""
    s = (rs[0] + GOLDEN) & MASK64
    rs[0] = s
    z = ((s ^ (s >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


@jit
def random(rs: MutableSequence[int]) -> float:
    """A float in [0, 1) with 53 random bits."""
    return float(next64(rs) >> 11) * _2_53


@jit
def below(rs: MutableSequence[int], n: int) -> int:
    """A whole number in [0, n), for 0 < n < 2**32 (the top 32 bits, scaled)."""
    return int(((next64(rs) >> 32) * unsigned(n)) >> 32)


@jit
def shuffle(rs: MutableSequence[int], xs: MutableSequence[int], n: int) -> None:
    """Shuffle ``xs[:n]`` in place (Fisher-Yates, from the end)."""
    for i in range(n - 1, 0, -1):
        j = below(rs, i + 1)
        xs[i], xs[j] = xs[j], xs[i]


class Random:
    """A SplitMix64 generator for Python callers (the belief's samples, scripts): the
    kernel's own functions on its state ``rs``, which the kernel's functions take as is.

    >>> r = Random(5)
    >>> xs = [1, 2, 3, 4]
    >>> r.shuffle(xs)
    >>> sorted(xs)
    [1, 2, 3, 4]
    """

    __slots__ = ("rs",)

    def __init__(self, state: int) -> None:
        self.rs = [state & MASK64]

    @property
    def state(self) -> int:
        """The 64-bit state (set it to go on from another generator's)."""
        return self.rs[0]

    @state.setter
    def state(self, value: int) -> None:
        self.rs[0] = value & MASK64

    def next64(self) -> int:
        """The next 64-bit number."""
        return next64(self.rs)

    def random(self) -> float:
        """A float in [0, 1) with 53 random bits."""
        return random(self.rs)

    def below(self, n: int) -> int:
        """A whole number in [0, n), for 0 < n < 2**32."""
        return below(self.rs, n)

    def shuffle(self, xs: MutableSequence[int]) -> None:
        """Shuffle ``xs`` in place, as the kernel shuffles a sampled stock."""
        shuffle(self.rs, xs, len(xs))
