"""A build of the kernel: its functions (run as written, or compiled by numba) behind the
entry points its callers use, which take and return Python values and the build's own
arrays. The Python build is :data:`PYTHON`; the compiled one is :mod:`.compiled`'s.

>>> from ginrummy.cards import cards_mask
>>> PYTHON.deadwood(cards_mask("7C 8C 9C KD")[0]), PYTHON.name
(10, 'python')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from . import batch, playout, sampler, solver, spec, splitmix
from .jit import CORE, FUNCTIONS, PRIMITIVES
from .spec import NPILE, NSTOCK
from .splitmix import Random

__all__ = ["PYTHON", "Arrays", "Build", "ListArrays"]

_MODULES = (batch, playout, sampler, solver, splitmix, spec)
"""The kernel's modules: importing them marks every kernel function (:mod:`.jit`)."""


class Arrays:
    """How a build holds its arrays (the Python build: lists; the compiled one: numpy)."""

    def ints(self, values: Sequence[int]) -> Any:
        """A whole-number array of ``values``."""
        raise NotImplementedError

    def floats(self, values: Sequence[float]) -> Any:
        """A float array of ``values``."""
        raise NotImplementedError

    def float_matrix(self, rows: int, cols: int) -> Any:
        """A ``rows`` x ``cols`` float matrix of zeros."""
        raise NotImplementedError

    def rows(self, matrix: Any, n: int) -> tuple[tuple[float, ...], ...]:
        """The first ``n`` columns of every row, as tuples of floats."""
        raise NotImplementedError

    def state(self, state: int) -> Any:
        """A random state array holding ``state`` (:mod:`.splitmix`)."""
        raise NotImplementedError

    def memo(self) -> dict[int, Any] | None:
        """A memo of discard tables for one search (:func:`.solver.tabulate`), or None."""
        raise NotImplementedError

    def int_matrix(self, rows: int, cols: int) -> Any:
        """A ``rows`` x ``cols`` whole-number matrix of zeros."""
        raise NotImplementedError

    def distinct(self, codes: Any, n: int) -> list[int]:
        """The distinct codes in the first ``n`` columns, sorted."""
        raise NotImplementedError

    def place(self, dst: Any, rows: Sequence[int], start: int, src: Any, count: int) -> None:
        """``dst[rows[r]][start:start + count] = src[r][:count]`` for every r."""
        raise NotImplementedError

    def place_vec(self, dst: Any, start: int, src: Any, count: int) -> None:
        """``dst[start:start + count] = src[:count]``."""
        dst[start:start + count] = src[:count]

    def take(self, codes: Any, rows: Sequence[int], n: int) -> Any:
        """The first ``n`` columns of the given rows, as a new matrix."""
        raise NotImplementedError


class ListArrays(Arrays):
    """Python lists."""

    def ints(self, values: Sequence[int]) -> list[int]:
        return list(values)

    def floats(self, values: Sequence[float]) -> list[float]:
        return [float(v) for v in values]

    def float_matrix(self, rows: int, cols: int) -> list[list[float]]:
        return [[0.0] * cols for _ in range(rows)]

    def rows(self, matrix: Any, n: int) -> tuple[tuple[float, ...], ...]:
        return tuple(tuple(r[:n]) for r in matrix)

    def state(self, state: int) -> list[int]:
        return [state]

    def memo(self) -> dict[int, Any]:
        return {}

    def int_matrix(self, rows: int, cols: int) -> list[list[int]]:
        return [[0] * cols for _ in range(rows)]

    def distinct(self, codes: Any, n: int) -> list[int]:
        seen: set[int] = set()
        for row in codes:
            seen.update(row[:n])
        return sorted(seen)

    def place(self, dst: Any, rows: Sequence[int], start: int, src: Any, count: int) -> None:
        for r, i in enumerate(rows):
            dst[i][start:start + count] = src[r][:count]

    def take(self, codes: Any, rows: Sequence[int], n: int) -> list[list[int]]:
        return [list(codes[i][:n]) for i in rows]


class Build:
    """One build of the kernel, named ``name`` (``"python"`` or ``"numba"``): the kernel's
    ``functions`` by name, on arrays made by ``arrays``. Both builds give the same results
    for the same inputs (the tests hold them to it, and to the core)."""

    def __init__(self, name: str, functions: Mapping[str, Callable[..., Any]],
                 arrays: Arrays) -> None:
        self.name = name
        self.k = SimpleNamespace(**functions)
        self.arrays = arrays
        self.ints = arrays.ints
        self.floats = arrays.floats
        self.float_matrix = arrays.float_matrix
        self.rows = arrays.rows
        self.new_memo = arrays.memo
        self.int_matrix = arrays.int_matrix
        self.distinct = arrays.distinct
        self.place = arrays.place
        self.place_vec = arrays.place_vec
        self.take = arrays.take

    def __repr__(self) -> str:
        return f"<ginrummy.kernel build {self.name!r}>"

    def _scratch(self) -> Any:
        return self.k.ints(52)

    # ------------------------------------------------------------------ the rules
    def deadwood(self, m: int) -> int:
        """Least deadwood of a hand of at most 11 cards (R2)."""
        return int(self.k.deadwood(m))

    def deadwood_by_discard(self, m: int, out: Any) -> None:
        """``out[k]``: least deadwood of ``m`` without card k, for each card k of ``m``."""
        self.k.deadwood_by_discard(m, out)

    def settle(self, knocker: int, hk: int, hd: int) -> int:
        """The outcome code of a knock (R8-R9, :func:`.spec.outcome`)."""
        return int(self.k.settle(knocker, hk, hd))

    def finish(self, st: Sequence[int], stock: Sequence[int], pile: Sequence[int],
               act: int, memo: Any = None) -> int:
        """The outcome of applying ``act`` (none if negative) in state ``st``, then playing
        the hand out by the policy; the stock and pile are lists, top last (left as they
        were)."""
        arr = self.ints(st)
        arr[NSTOCK] = len(stock)
        arr[NPILE] = len(pile)
        return int(self.k.play_out(arr, self.ints([*stock, *[0] * (52 - len(stock))]),
                                   self.ints([*pile, *[0] * (52 - len(pile))]), act,
                                   self._scratch(), memo))

    def discard_stats(self, h: int, taken: int, plane: Any) -> tuple[int, int, int]:
        """For 11 cards: deadwood after each discard / 100 into ``plane`` (a float array,
        numpy in either build), and the least deadwood a discard leaves, the least without
        ``taken`` (R5), the least of deadwood + points thrown (:func:`.batch.discard_stats`)."""
        least, best, whole = self.k.discard_stats(h, taken, plane, self._scratch())
        return int(least), int(best), int(whole)

    # ------------------------------------------------------------------ the belief, the batch
    def draw_hand(self, pos: Any, fl: Any, unknown: Any, weights: Any, rng: Random,
                  style: int) -> int:
        """One opponent hand from the belief (:func:`.sampler.sample_hand`), advancing
        ``rng``."""
        rs = self.arrays.state(rng.state)
        hand = self.k.sample_hand(pos, fl, unknown, weights, rs, style, self._scratch(), None)
        rng.state = int(rs[0])
        return int(hand)

    def sample_and_play(self, pos: Any, fl: Any, pile0: Any, unknown: Any, weights: Any,
                        actions: Any, state: int, start: int, count: int, codes: Any,
                        xs: Any, memo: Any) -> int:
        """:func:`.batch.sample_and_play` from the random ``state`` (``memo`` from
        :meth:`new_memo`); returns the state after it."""
        rs = self.arrays.state(state)
        self.k.sample_and_play(pos, fl, pile0, unknown, weights, actions, rs, start, count,
                               codes, xs, memo)
        return int(rs[0])

    def pool(self, pos: Any, fl: Any, unknown: Any, weights: Any, state: int, out: Any,
             start: int, count: int, memo: Any) -> int:
        """:func:`.batch.pool` from the random ``state``; returns the state after it."""
        rs = self.arrays.state(state)
        self.k.pool(pos, fl, unknown, weights, rs, out, start, count, memo)
        return int(rs[0])

    def belief_logits(self, rows: Any, n: int, nf: int, scale: Any, hidden: int, w1: Any,
                      b1: Any, w2: Any, b2: float) -> list[float]:
        """:func:`.sampler.belief_logits`: the learned belief's score of each row."""
        out = self.k.floats(n)
        self.k.belief_logits(rows, n, nf, scale, hidden, w1, b1, w2, float(b2), out)
        return [float(z) for z in out]

    def fill_pool(self, pos: Any, fl: Any, unknown: Any, weights: Any, state: int,
                  style: int, hands: Any, start: int, count: int, memo: Any) -> int:
        """:func:`.batch.fill_pool` from the random ``state``; returns the state after it."""
        rs = self.arrays.state(state)
        self.k.fill_pool(pos, fl, unknown, weights, rs, style, hands, start, count, memo)
        return int(rs[0])

    def rake(self, hands: Any, n: int, items: Any, target: Any, rounds: int,
             cum: Any) -> float:
        """:func:`.batch.rake`: the running weights into ``cum``; the effective size share."""
        return float(self.k.rake(hands, n, items, target, rounds, cum))

    def sample_and_play_tilted(self, pos: Any, fl: Any, pile0: Any, unknown: Any,
                               hands: Any, cum: Any, sizes: Any, actions: Any, state: int,
                               start: int, count: int, codes: Any, xs: Any,
                               memo: Any) -> int:
        """:func:`.batch.sample_and_play_tilted` from the random ``state``; returns the
        state after it."""
        rs = self.arrays.state(state)
        self.k.sample_and_play_tilted(pos, fl, pile0, unknown, hands, cum, sizes, actions,
                                      rs, start, count, codes, xs, memo)
        return int(rs[0])

    def pool_tilted(self, hands: Any, cum: Any, sizes: Any, state: int, out: Any,
                    start: int, count: int) -> int:
        """:func:`.batch.pool_tilted` from the random ``state``; returns the state after."""
        rs = self.arrays.state(state)
        self.k.pool_tilted(hands, cum, sizes, rs, out, start, count)
        return int(rs[0])

    def play_sample(self, pos: Any, pile0: Any, hand: int, stock: Sequence[int],
                    opp_style: int, actions: Any, codes: Any, col: int, memo: Any) -> None:
        """Every action played out on one given deal (:func:`.batch.play_sample`; the
        stock a list, top last)."""
        k = self.k
        self.k.play_sample(pos, pile0, hand, self.ints([*stock, *[0] * (52 - len(stock))]),
                           len(stock), opp_style, actions, codes, col, k.ints(52),
                           k.ints(spec.STATE_SIZE), k.ints(52), k.ints(52), memo)

    def summarize(self, codes: Any, n: int, win_of: Any, pts_of: Any, shift: Any, xs: Any,
                  pool_vals: Any, npool: int, wins: Any, pts: Any, stats: Any) -> None:
        """:func:`.batch.summarize` (every argument the build's arrays)."""
        self.k.summarize(codes, n, win_of, pts_of, shift, xs, pool_vals, npool, wins, pts,
                         stats)

def functions() -> dict[str, Callable[..., Any]]:
    """Every kernel function of :data:`_MODULES` (and the core's it calls, and the
    primitives) by name, as written."""
    return {f.__name__: f for f in (*FUNCTIONS, *CORE, *PRIMITIVES)}


PYTHON = Build("python", functions(), ListArrays())
"""The Python build: the kernel's functions run as written, on lists."""
