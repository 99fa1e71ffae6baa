"""The compiled build: every kernel function (:mod:`.jit`) compiled by numba, on numpy
arrays.

:func:`build` makes a twin of each kernel function, and of the core's helpers it calls:
the same code, whose global names resolve to the other twins, to numpy copies of the
tables, and to numba's spelling of the primitives. So both builds run the same lines,
with the same SplitMix64 numbers and the same floating-point operations in the same
order, and give identical results (the tests check it on thousands of deals and
positions). Compiled code is cached on disk beside the sources (numba's ``cache=True``),
so only the first process after an install pays for compiling. numba keys a cached
function to its own file, but a twin holds copies of its callees' code and tables from
other files (the core's among them): each twin's key also carries a digest of every
source the twins come from, so a change to any of them compiles them all afresh.

Importing this module needs numba and numpy; :mod:`ginrummy.kernel` falls back to the
Python build when either is missing or fails.
"""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numba import types as nbtypes

from .builds import Arrays, Build
from .jit import (
    CORE,
    FUNCTIONS,
    STANDS_FOR,
    floats,
    ints,
    popcount,
    unsigned,
)
from .spec import (
    DRAW,
    DRAW_PILE,
    DRAW_STOCK,
    F_EARLY_REJECT,
    F_QUICK_SHARE,
    F_SIZE,
    P_LIMIT,
    P_MINE,
    P_NPILE,
    P_NUNKNOWN,
    P_OPP_UNKNOWN,
    P_PHASE,
    P_RETRIES,
    P_SIZE,
    STATE_SIZE,
)
from .splitmix import Random

__all__ = ["NumpyArrays", "build", "cached", "warm_up"]


@njit(cache=True)
def _ints(n: int) -> Any:
    return np.zeros(n, dtype=np.int64)


@njit(cache=True)
def _floats(n: int) -> Any:
    return np.zeros(n, dtype=np.float64)


@njit(cache=True)
def _unsigned(n: int) -> Any:
    return np.uint64(n)


@njit(cache=True)
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


_SPELLED: dict[Any, Any] = {ints: _ints, floats: _floats, unsigned: _unsigned,
                            popcount: _popcount}
"""numba's spelling of each primitive of :mod:`.jit`."""


class NumpyArrays(Arrays):
    """numpy arrays: int64, float64, the random state uint64."""

    def ints(self, values: Sequence[int]) -> Any:
        return np.array(values, dtype=np.int64)

    def floats(self, values: Sequence[float]) -> Any:
        return np.array(values, dtype=np.float64)

    def float_matrix(self, rows: int, cols: int) -> Any:
        return np.zeros((rows, cols), dtype=np.float64)

    def rows(self, matrix: Any, n: int) -> tuple[tuple[float, ...], ...]:
        return tuple(tuple(r) for r in matrix[:, :n].tolist())

    def state(self, state: int) -> Any:
        return np.array([state], dtype=np.uint64)

    def memo(self) -> None:
        return None

    def int_matrix(self, rows: int, cols: int) -> Any:
        return np.zeros((rows, cols), dtype=np.int64)

    def distinct(self, codes: Any, n: int) -> list[int]:
        return [int(c) for c in np.unique(codes[:, :n])]

    def place(self, dst: Any, rows: Sequence[int], start: int, src: Any, count: int) -> None:
        dst[np.asarray(rows, dtype=np.int64), start:start + count] = src[:, :count]

    def take(self, codes: Any, rows: Sequence[int], n: int) -> Any:
        return np.ascontiguousarray(codes[np.asarray(rows, dtype=np.int64), :n])


def _table(value: object) -> Any:
    """A numpy copy of a table of whole numbers (flat, or rows of one length), else None."""
    if not isinstance(value, (list, tuple)) or not value:
        return None
    if all(type(x) is int for x in value):
        return np.array(value, dtype=np.int64)
    if all(type(row) is tuple and all(type(x) is int for x in row) for row in value) \
            and len({len(row) for row in value}) == 1:
        return np.array(value, dtype=np.int64)
    return None


def _digest(modules: Iterable[str]) -> str:
    """A digest of the sources of the named modules."""
    h = hashlib.sha256()
    for name in sorted(modules):
        path = getattr(sys.modules[name], "__file__", None)
        h.update(Path(path).read_bytes() if path else name.encode())
    return h.hexdigest()[:16]


_DIGEST: list[str] = []
"""The digest of the sources the twins of the last :func:`build` come from."""


def _keyed(dispatcher: Any, digest: str) -> None:
    """Add ``digest`` to the key numba files the dispatcher's compiled code under (where
    this numba's cache has the hook; else its own file's date alone keys it)."""
    cache: Any = getattr(dispatcher, "_cache", None)
    index_key = getattr(cache, "_index_key", None)
    if index_key is not None:
        cache._index_key = lambda sig, codegen: (*index_key(sig, codegen), digest)


def _one_version(dispatcher: Any) -> Any:
    """Make a kernel function compile once per argument *type*, not once per constant:
    numba types a constant argument (``popcount(0)``, ``_drops(h, t, True)``) as a literal
    and compiles a version of the callee for that value, so a function called with a few
    constants compiled several times, each with all it calls (a fifth of the cold
    start). The call then resolves to the one version, the constant converted to its
    type."""
    template = dispatcher.get_call_template
    unliteral: Callable[[Any], Any] = nbtypes.unliteral

    def get_call_template(args: Any, kws: Any) -> Any:
        return template(tuple(unliteral(a) for a in args),
                        {k: unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


for _spelled in (_ints, _floats, _unsigned, _popcount):
    _one_version(_spelled)


def _twins() -> dict[str, Callable[..., Any]]:
    """numba's twin of every kernel function and core helper, by name."""
    originals = (*FUNCTIONS, *CORE)
    spaces: dict[str, dict[str, Any]] = {}
    for fn in originals:
        if fn.__module__ not in spaces:
            spaces[fn.__module__] = dict(sys.modules[fn.__module__].__dict__)
    digest = _digest(spaces)
    _DIGEST[:] = [digest]
    twins: dict[Any, Any] = {}
    for fn in originals:
        twin = types.FunctionType(fn.__code__, spaces[fn.__module__], fn.__name__,
                                  fn.__defaults__, fn.__closure__)
        twin.__qualname__ = fn.__qualname__
        twins[fn] = _one_version(njit(cache=True)(twin))
        _keyed(twins[fn], digest)
    swap = {**_SPELLED, **twins, **{core: twins[fn] for core, fn in STANDS_FOR.items()}}
    for space in spaces.values():
        for name, value in space.items():
            if callable(value) and value in swap:
                space[name] = swap[value]
            else:
                table = _table(value)
                if table is not None:
                    space[name] = table
    return {fn.__name__: twin for fn, twin in twins.items()} | {
        fn.__name__: spelled for fn, spelled in _SPELLED.items()}


def build() -> Build:
    """The compiled build (each function compiled on first use, or loaded from numba's
    disk cache; :func:`warm_up` does it at once)."""
    return Build("numba", _twins(), NumpyArrays())


def cached(b: Build) -> bool:
    """Whether numba's disk cache holds compiled code of every function of ``b`` from
    these very sources (so :func:`warm_up` loads it, well under a second, rather than
    compiling it). Reads only the cache's index files."""
    digest = _DIGEST[0] if _DIGEST else None
    spelled = {fn.__name__ for fn in _SPELLED}  # (keyed by their own file alone)
    for name, fn in vars(b.k).items():
        if name in spelled:
            continue
        cache: Any = getattr(fn, "_cache", None)
        index_file = getattr(cache, "_cache_file", None)
        if index_file is None:
            continue  # (a numba without the hook: nothing to tell by)
        try:
            index = index_file._load_index()
        except Exception:  # noqa: BLE001 - an unreadable index: not cached
            return False
        if not any(isinstance(key, tuple) and key[-1] == digest for key in index):
            return False
    return True


def warm_up(b: Build) -> None:
    """Compile (or load from the disk cache) every entry point of ``b`` on a tiny position,
    with the argument types the evaluator, the belief and the RL tracker pass."""
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
    codes = b.int_matrix(2, 1)
    xs = b.floats([0.0])
    memo = b.new_memo()
    state = b.sample_and_play(pos, fl, pile0, unknown, weights, actions, 1, 0, 1, codes, xs,
                              memo)
    out = b.floats([0.0])
    b.pool(pos, fl, unknown, weights, state, out, 0, 1, memo)
    hands = b.int_matrix(3, 2)
    cum = b.float_matrix(3, 2)
    sizes = b.ints([2, 2, 2])
    for s in range(3):
        state = b.fill_pool(pos, fl, unknown, weights, state, s, hands[s], 0, 2, memo)
        b.rake(hands[s], 2, unknown, weights, 1, cum[s])
    state = b.sample_and_play_tilted(pos, fl, pile0, unknown, hands, cum, sizes, actions,
                                     state, 0, 1, codes, xs, memo)
    b.pool_tilted(hands, cum, sizes, state, out, 0, 1)
    ones = b.floats([1.0, 1.0])
    b.belief_logits(b.ints([1, 2, 3, 4]), 2, 2, ones, 1, ones, ones[:1], ones[:1], 0.5)
    b.play_sample(pos, pile0, (1 << 20) - (1 << 10), list(range(20, 50)), 0, actions, codes, 0,
                  memo)
    b.draw_hand(pos, fl, unknown, weights, Random(3), 0)
    b.finish([0] * STATE_SIZE, list(range(20, 50)), [10], DRAW_STOCK)
    win = b.floats([0.0] * 768)
    b.summarize(codes, 1, win, win, b.floats([0.0, 0.0]), xs, out, 1, b.float_matrix(2, 1),
                b.float_matrix(2, 1), b.float_matrix(2, 4))
    b.deadwood_by_discard(0x7FF, b.ints([0] * 52))
    b.deadwood(0x3FF)
    b.discard_stats(0x7FF, -1, np.zeros(52, dtype=np.float32))
    b.settle(0, 0x3FF, 0x3FF << 13)

