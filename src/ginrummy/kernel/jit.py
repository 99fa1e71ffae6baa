"""How the kernel is written once and built twice.

Every function of the kernel is plain Python in the subset numba compiles: whole numbers,
floats, tuples, flat tables, and arrays indexed one cell at a time. :func:`jit` marks such
a function; in the Python build it runs as written, on lists. The compiled build
(:mod:`.compiled`) makes a twin of every marked function, and of the core's few helpers
the kernel calls (:data:`CORE`), whose names resolve to the other twins, with the tables
as numpy arrays and the primitives below in numba's spelling; numba compiles the twins.

The primitives are the only code numba and Python need spelled apart: a new array of
zeros, a whole number made unsigned for 64-bit arithmetic that wraps, and the count of
a mask's cards (``int.bit_count``, which numba does not know).

>>> ints(3), floats(2), unsigned(7), popcount(0b1011)
([0, 0, 0], [0.0, 0.0], 7, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..cards import trips
from ..melds import _closure, _fourths, _layoff_search, _meldless
from ..scoring import knock_score

__all__ = ["CORE", "FUNCTIONS", "PRIMITIVES", "STANDS_FOR", "floats", "ints", "jit", "popcount",
           "stands_for", "unsigned"]

F = TypeVar("F", bound=Callable[..., Any])

FUNCTIONS: list[Callable[..., Any]] = []
"""Every kernel function, in the order they were marked."""

CORE: tuple[Callable[..., Any], ...] = (trips, _closure, _meldless, _fourths, _layoff_search,
                                        knock_score)
"""The core's own functions the kernel calls as they are (R2, R8, R9): integer functions,
compiled with the kernel rather than restated in it."""

STANDS_FOR: dict[Any, Callable[..., Any]] = {}
"""A kernel function for each function the :data:`CORE` helpers call that numba cannot
compile (the core's meld solver): in the compiled build the helpers call the kernel's
instead (the same answers: the tests hold them to the core's)."""


def jit(fn: F) -> F:
    """Mark ``fn`` as a kernel function (numba's subset): returned unchanged, and compiled
    by numba in the compiled build."""
    FUNCTIONS.append(fn)
    return fn


def stands_for(core_fn: Any) -> Callable[[F], F]:
    """Mark a kernel function as the compiled build's stand-in for ``core_fn``."""
    def mark(fn: F) -> F:
        STANDS_FOR[core_fn] = fn
        return fn

    return mark


def ints(n: int) -> list[int]:
    """``n`` zeros, a whole-number array."""
    return [0] * n


def floats(n: int) -> list[float]:
    """``n`` zeros, a float array."""
    return [0.0] * n


def unsigned(n: int) -> int:
    """``n`` as an unsigned 64-bit number (Python's whole numbers need no such thing: the
    random numbers mask to 64 bits, which numba's unsigned arithmetic does by itself)."""
    return n


popcount = int.bit_count
"""How many cards the mask holds."""

PRIMITIVES: tuple[Callable[..., Any], ...] = (ints, floats, unsigned, popcount)
"""The functions :mod:`.compiled` replaces by numba's spelling, name for name."""
