"""``ginrummy bench``: microseconds per call of the meld solver and the showdown.

Every repetition of a benchmark gets a fresh list of distinct inputs, prepared before the
clock starts (the solver keeps no cache, and no input is solved twice in one run). One
pass over the list is timed with :func:`time.perf_counter` (or, with ``--clock cpu``, the
process's CPU time, steadier on a busy machine), with the garbage collector paused as
:mod:`timeit` does; the table shows the median over the repetitions. The repetitions of
all chosen benchmarks are interleaved, so a ratio between two of them (the ``x baseline``
column: the baseline's time over this one's) sees the same machine load.

The evaluator's, the hand kernel's and the review's speed come from the modules of this
package (:mod:`.evaluator`, :mod:`.kernel`, :mod:`.review`), which nothing else needs.
Other benchmarks (say, random-play hands per second) plug in through :func:`register`:
a :class:`Benchmark` names a ``prepare(rng, n)`` that builds its inputs and returns a
runner doing ``n`` operations of its ``unit``; the table then reports both the time per
operation and operations per second.

    ginrummy bench                 # the table
    ginrummy bench --json          # the same figures as one JSON object
    ginrummy bench --only showdown --number 500 --repeat 3
    ginrummy bench --only OpenSpiel --only "list of Card" --only CardSet --only command --clock cpu
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from .. import exits
from ..cards import Card, CardSet, format_cards, from_mask
from ..hand import Deal, Hand
from ..melds import (
    deadwood,
    deadwood_by_discard,
    deadwood_by_discard_mask,
    deadwood_mask,
    showdown,
    showdown_mask,
)

__all__ = ["BENCHMARKS", "Benchmark", "Result", "main", "register", "run_benchmark"]

Runner = Callable[[], int]
"""Does the timed work once and returns how many operations that was."""
Prepare = Callable[[random.Random, int], Runner]
"""Builds ``n`` fresh inputs from ``rng`` (untimed) and returns the runner over them."""

OPENSPIEL = "OpenSpiel (C++)"
RLCARD = "RLCard"
REFERENCE_NOTE = (
    "Reference figures of other libraries (microseconds per call, measured elsewhere on "
    "other hardware; for comparison only)."
)


@dataclass(frozen=True)
class Benchmark:
    """One named measurement: how to prepare its inputs, and what one operation is."""

    name: str
    prepare: Prepare
    unit: str = "call"
    references: dict[str, float] = field(default_factory=dict)
    """Published figures to print beside ours: source -> microseconds per operation."""
    baseline: str | None = None
    """Name of a benchmark run in the same process to report a speed ratio against (a
    ratio is steadier than microseconds on a shared, noisy machine)."""
    inputs: Callable[[random.Random, int], list[Any]] | None = None
    """For benchmarks over a list of inputs: draws them exactly as ``prepare`` does, so a
    test can check the answers on the very inputs that are timed."""
    keep_gc: bool = False
    """Leave the garbage collector running, as for a whole program users run (the
    complete-hand benchmarks); micro-benchmarks pause it as :mod:`timeit` does."""
    inputs_as: str | None = None
    """Draw the inputs as a benchmark of this name would (two benchmarks sharing it time
    the very same inputs, e.g. the two builds of the kernel)."""


@dataclass(frozen=True)
class Result:
    """The timings of one benchmark: microseconds per operation over the repetitions."""

    name: str
    unit: str
    number: int
    samples_us: tuple[float, ...]
    references: dict[str, float]
    baseline: str | None = None

    @property
    def median_us(self) -> float:
        """Median microseconds per operation (the figure reported)."""
        return statistics.median(self.samples_us)

    @property
    def per_second(self) -> float:
        """Operations per second at the median speed."""
        return 1e6 / self.median_us if self.median_us > 0 else float("inf")

    def as_json(self) -> dict[str, Any]:
        """A plain JSON-ready dict of the result."""
        return {
            "name": self.name,
            "unit": self.unit,
            "number": self.number,
            "repeat": len(self.samples_us),
            "median_us": round(self.median_us, 3),
            "min_us": round(min(self.samples_us), 3),
            "max_us": round(max(self.samples_us), 3),
            "per_second": round(self.per_second, 1),
            "references_us": dict(self.references),
            "baseline": self.baseline,
        }


BENCHMARKS: list[Benchmark] = []
"""The registry, in display order; :func:`register` appends to it."""


def register(bench: Benchmark) -> Benchmark:
    """Add a benchmark to the registry (names must be unique) and return it."""
    if any(b.name == bench.name for b in BENCHMARKS):
        raise ValueError(f"A benchmark named {bench.name!r} is already registered.")
    BENCHMARKS.append(bench)
    return bench


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""``wall`` (elapsed time) or ``cpu`` (this process's CPU time: steadier on a busy machine)."""


def bench_rng(bench: Benchmark, seed: int) -> random.Random:
    """The generator a benchmark's inputs come from (its first pass uses its first draws)."""
    return random.Random(f"{seed}:{bench.inputs_as or bench.name}")


def _time_pass(bench: Benchmark, rng: random.Random, number: int,
               clock: Callable[[], float]) -> float:
    """Microseconds per operation of one pass over fresh inputs (GC paused, as timeit)."""
    runner = bench.prepare(rng, number)
    was_enabled = gc.isenabled()
    if not bench.keep_gc:
        gc.disable()
    try:
        start = clock()
        done = runner()
        elapsed = clock() - start
    finally:
        if was_enabled:
            gc.enable()
    return elapsed / max(done, 1) * 1e6


def run_benchmark(bench: Benchmark, number: int, repeat: int, seed: int = 0,
                  clock: str = "wall") -> Result:
    """Time ``repeat`` passes of ``number`` operations, each pass on fresh inputs."""
    return run_benchmarks([bench], number, repeat, seed, clock)[0]


def run_benchmarks(benches: Sequence[Benchmark], number: int, repeat: int, seed: int = 0,
                   clock: str = "wall") -> list[Result]:
    """Time several benchmarks with their passes interleaved (pass 1 of each, then pass 2
    of each, ...), so a ratio between two of them sees the same machine load."""
    tick = CLOCKS[clock]
    rngs = [bench_rng(b, seed) for b in benches]
    samples: list[list[float]] = [[] for _ in benches]
    for _ in range(repeat):
        for b, rng, out in zip(benches, rngs, samples, strict=True):
            out.append(_time_pass(b, rng, number, tick))
    return [Result(b.name, b.unit, number, tuple(out), dict(b.references), b.baseline)
            for b, out in zip(benches, samples, strict=True)]


# ----------------------------------------------------------------------------- inputs


def _uniform(rng: random.Random, k: int) -> int:
    """``k`` cards drawn from the whole deck, as a mask."""
    return sum(1 << c for c in rng.sample(range(52), k))


def _rich(rng: random.Random, k: int) -> int:
    """``k`` cards from a window of 5 adjacent ranks in all four suits (many melds)."""
    start = rng.randrange(9)
    window = [s * 13 + r for s in range(4) for r in range(start, start + 5)]
    return sum(1 << c for c in rng.sample(window, k))


def _distinct(rng: random.Random, n: int, draw: Callable[[random.Random], int]) -> list[int]:
    """``n`` pairwise distinct masks from ``draw``, in the order drawn."""
    seen: set[int] = set()
    out: list[int] = []
    tries = 0
    while len(out) < n:
        tries += 1
        if tries > 100 * n + 1000:
            raise RuntimeError("Cannot draw that many distinct hands.")
        m = draw(rng)
        if m not in seen:
            seen.add(m)
            out.append(m)
    return out


def _greedy_turn(hand: int, card: int) -> int:
    """``hand`` after drawing ``card`` and discarding the card that leaves least deadwood."""
    options = deadwood_by_discard_mask(hand | 1 << card)
    best = min(options.values())
    return (hand | 1 << card) & ~(1 << max(k for k, v in options.items() if v == best))


def _deal(rng: random.Random, knockable: bool) -> int:
    """A knocker's and a defender's 10 cards, packed as ``knocker | defender << 52``.

    With ``knockable`` both players draw from the stock in turn and keep their least
    deadwood, until the knocker's deadwood is at most 10 (R6): a plausible knock.
    """
    while True:
        cards = list(range(52))
        rng.shuffle(cards)
        knocker = sum(1 << c for c in cards[:10])
        defender = sum(1 << c for c in cards[10:20])
        if not knockable:
            return knocker | defender << 52
        stock = cards[20:]
        while stock and deadwood_mask(knocker) > 10:
            knocker = _greedy_turn(knocker, stock.pop())
            if stock:
                defender = _greedy_turn(defender, stock.pop())
        if deadwood_mask(knocker) <= 10:
            return knocker | defender << 52


def _text(rng: random.Random, mask: int) -> str:
    """The cards of ``mask`` in R1 notation, in a shuffled order as a caller might give them."""
    cards = from_mask(mask)
    rng.shuffle(cards)
    return format_cards(cards)


_MASK = (1 << 52) - 1


# ----------------------------------------------------------------------------- benchmarks


def _hand_inputs(k: int, rich: bool, text: bool) -> Callable[[random.Random, int], list[Any]]:
    """Distinct k-card hands, as masks or (``text``) as R1 strings in a shuffled order."""
    def inputs(rng: random.Random, n: int) -> list[Any]:
        masks = _distinct(rng, n, lambda r: _rich(r, k) if rich else _uniform(r, k))
        return [_text(rng, m) for m in masks] if text else masks

    return inputs


def _hands_bench(fn: Callable[[Any], object], k: int, rich: bool, text: bool) -> Prepare:
    """Time ``fn`` on distinct k-card hands, as masks or (``text``) as R1 strings."""
    inputs = _hand_inputs(k, rich, text)
    return lambda rng, n: _loop(fn, inputs(rng, n))


def _loop(fn: Callable[[Any], object], hands: list[Any]) -> Runner:
    """A runner calling ``fn`` once on each input."""
    def run() -> int:
        for h in hands:
            fn(h)
        return len(hands)

    return run


def _masks_bench(fn: Callable[[int], object], k: int, rich: bool) -> Prepare:
    return _hands_bench(fn, k, rich, text=False)


def _text_bench(fn: Callable[[str], object], k: int, rich: bool) -> Prepare:
    return _hands_bench(fn, k, rich, text=True)


def _showdown_bench(knockable: bool, text: bool) -> Prepare:
    def prepare(rng: random.Random, n: int) -> Runner:
        deals = _distinct(rng, n, lambda r: _deal(r, knockable))
        pairs = [(d & _MASK, d >> 52) for d in deals]
        if text:
            texts = [(_text(rng, k), _text(rng, d)) for k, d in pairs]

            def run_text() -> int:
                for k, d in texts:
                    showdown(k, d)
                return len(texts)

            return run_text

        def run() -> int:
            for k, d in pairs:
                showdown_mask(k, d)
            return len(pairs)

        return run

    return prepare


_REF_DW_UNIFORM = {OPENSPIEL: 1.3, RLCARD: 18.0}
_REF_DW_RICH = {OPENSPIEL: 4.1, RLCARD: 55.0}
_REF_DISCARD_UNIFORM = {OPENSPIEL: 17.0, RLCARD: 190.0}
_REF_DISCARD_RICH = {OPENSPIEL: 48.0, RLCARD: 606.0}

for _name, _prep, _ref in [
    ("deadwood_mask, 10 cards, uniform", _masks_bench(deadwood_mask, 10, False), _REF_DW_UNIFORM),
    ("deadwood_mask, 10 cards, meld-rich", _masks_bench(deadwood_mask, 10, True), _REF_DW_RICH),
    ("deadwood_by_discard_mask, 11, uniform",
     _masks_bench(deadwood_by_discard_mask, 11, False), _REF_DISCARD_UNIFORM),
    ("deadwood_by_discard_mask, 11, meld-rich",
     _masks_bench(deadwood_by_discard_mask, 11, True), _REF_DISCARD_RICH),
    ("showdown_mask, random deal", _showdown_bench(False, False), {}),
    ("showdown_mask, knockable knocker", _showdown_bench(True, False), {}),
    ("deadwood(str), 10 cards, uniform", _text_bench(deadwood, 10, False), _REF_DW_UNIFORM),
    ("deadwood(str), 10 cards, meld-rich", _text_bench(deadwood, 10, True), _REF_DW_RICH),
    ("deadwood_by_discard(str), 11, uniform",
     _text_bench(deadwood_by_discard, 11, False), _REF_DISCARD_UNIFORM),
    ("deadwood_by_discard(str), 11, meld-rich",
     _text_bench(deadwood_by_discard, 11, True), _REF_DISCARD_RICH),
    ("showdown(str), random deal", _showdown_bench(False, True), {}),
    ("showdown(str), knockable knocker", _showdown_bench(True, True), {}),
]:
    register(Benchmark(_name, _prep, "call", _ref))


def _random_play_bench() -> Prepare:
    """Complete hands of uniformly random legal play through the public Hand API."""

    def prepare(rng: random.Random, n: int) -> Callable[[], int]:
        deals = [Deal.shuffled(rng) for _ in range(n)]
        dealers = [rng.randrange(2) for _ in range(n)]
        chooser = random.Random(rng.random())

        def run() -> int:
            choice = chooser.choice
            for deal, dealer in zip(deals, dealers, strict=True):
                hand = Hand(deal, dealer)
                while not hand.is_over():
                    hand.play(choice(hand.legal_actions()))
            return n

        return run

    return prepare


register(Benchmark("random play, complete hands (Hand API)", _random_play_bench(), "hand",
                   {OPENSPIEL: 1e6 / 340, RLCARD: 1e6 / 93}))


def _naive_deadwood(mask: int) -> int:
    """A textbook solver kept as a same-process baseline: list every meld in the hand, then
    search every collection of disjoint melds for the most points melded."""
    cards = [i for i in range(52) if mask >> i & 1]
    melds: list[tuple[int, int]] = []  # (mask, points)
    for rank in range(13):
        same = [s * 13 + rank for s in range(4) if mask >> (s * 13 + rank) & 1]
        for size in (3, 4):
            for combo in combinations(same, size):
                melds.append((sum(1 << c for c in combo), size * min(rank + 1, 10)))
    for suit in range(4):
        for lo in range(11):
            run, pts = 0, 0
            for r in range(lo, 13):
                if not mask >> (suit * 13 + r) & 1:
                    break
                run |= 1 << (suit * 13 + r)
                pts += min(r + 1, 10)
                if r - lo >= 2:
                    melds.append((run, pts))
    total = sum(min(c % 13 + 1, 10) for c in cards)
    best = 0

    def search(start: int, used: int, melded: int) -> None:
        nonlocal best
        best = max(best, melded)
        for k in range(start, len(melds)):
            m, p = melds[k]
            if not m & used:
                search(k + 1, used | m, melded + p)

    search(0, 0, 0)
    return total - best


for _name, _prep, _base in [
    ("naive baseline, 10 cards, uniform", _masks_bench(_naive_deadwood, 10, False),
     "deadwood_mask, 10 cards, uniform"),
    ("naive baseline, 10 cards, meld-rich", _masks_bench(_naive_deadwood, 10, True),
     "deadwood_mask, 10 cards, meld-rich"),
]:
    register(Benchmark(_name, _prep, "call"))
    for _i, _b in enumerate(BENCHMARKS):
        if _b.name == _base:
            BENCHMARKS[_i] = Benchmark(_b.name, _b.prepare, _b.unit, _b.references, _name,
                                       _hand_inputs(10, "meld-rich" in _b.name, False))


# ----------------------------------------------------------------------------- vs OpenSpiel
# What users meet, side by side with OpenSpiel in the same process (when ``open_spiel`` is
# installed): the public solver on card lists and card sets against OpenSpiel's C++
# ``min_deadwood`` (10 cards; and 11 calls for the 11-card discard table), and the whole
# ``ginrummy match random random --jobs 1`` command against OpenSpiel's own Python loop of
# uniformly random hands. Each input is fresh: hands are drawn anew for every repetition.

OPENSPIEL_DW = "OpenSpiel min_deadwood (C++), 10 cards, uniform"
OPENSPIEL_DBD = "OpenSpiel 11 x min_deadwood, 11 cards, uniform"
OPENSPIEL_PLAY = "OpenSpiel Python loop, uniformly random hands"
MATCH_COMMAND = "ginrummy match random random --jobs 1 (whole command)"


def _openspiel_utils() -> Any:
    """OpenSpiel's gin rummy utilities, or None when ``open_spiel`` is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)


def _uniform_indexes(k: int) -> Callable[[random.Random, int], list[Any]]:
    """Distinct uniform k-card hands, as lists of card indexes in a shuffled order."""
    def draw(rng: random.Random, n: int) -> list[Any]:
        masks = _distinct(rng, n, lambda r: _uniform(r, k))
        out = []
        for m in masks:
            idx = [c.index for c in from_mask(m)]
            rng.shuffle(idx)
            out.append(idx)
        return out

    return draw


def _as_cards(draw: Callable[[random.Random, int], list[Any]], form: str
              ) -> Callable[[random.Random, int], list[Any]]:
    """The hands of ``draw`` as lists of :class:`Card` or as :class:`CardSet` values."""
    def inputs(rng: random.Random, n: int) -> list[Any]:
        hands = [[Card.from_index(i) for i in h] for h in draw(rng, n)]
        return hands if form == "list" else [CardSet(h) for h in hands]

    return inputs


def _over(fn: Callable[[Any], object], inputs: Callable[[random.Random, int], list[Any]]
          ) -> Prepare:
    return lambda rng, n: _loop(fn, inputs(rng, n))


def _openspiel_dbd(utils: Any) -> Callable[[list[int]], list[int]]:
    """OpenSpiel's way to the 11-card discard table: one min_deadwood per discard."""
    def by_discard(hand: list[int]) -> list[int]:
        return [utils.min_deadwood(hand[:i] + hand[i + 1:]) for i in range(len(hand))]

    return by_discard


def _openspiel_random_hands(rng: random.Random, n: int) -> Runner:
    """``n`` complete hands of OpenSpiel's gin rummy, every chance outcome and every
    action drawn uniformly, as a Python program drives the game."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    seed = rng.random()

    def run() -> int:
        r = random.Random(seed)
        choice = r.choice
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(choice(state.legal_actions()))
        return n

    return run


def _match_command(rng: random.Random, n: int) -> Runner:
    """The whole ``ginrummy match random random --matches M --seed S --jobs 1 --json``
    command in this process (argument parsing, match runner, bots, statistics, output),
    with M matches for about ``n`` hands (random play averages ~58 hands a match)."""
    from contextlib import redirect_stdout
    from io import StringIO

    from ..cli import main as cli_main

    matches = max(2, 2 * round(n / 116))
    seed = rng.randrange(2**31)

    def run() -> int:
        out = StringIO()
        with redirect_stdout(out):
            status = cli_main(["match", "random", "random", "--matches", str(matches),
                               "--seed", str(seed), "--jobs", "1", "--json"])
        if status != 0:
            raise RuntimeError(f"ginrummy match exited with {status}")
        return int(json.loads(out.getvalue())["hands"])

    return run


def _register_vs_openspiel() -> None:
    utils = _openspiel_utils()
    dw10, dw11 = _uniform_indexes(10), _uniform_indexes(11)
    if utils is not None:
        register(Benchmark(OPENSPIEL_DW, _over(utils.min_deadwood, dw10), inputs=dw10))
        register(Benchmark(OPENSPIEL_DBD, _over(_openspiel_dbd(utils), dw11), inputs=dw11))
        register(Benchmark(OPENSPIEL_PLAY, _openspiel_random_hands, "hand", keep_gc=True))
    base_dw = OPENSPIEL_DW if utils is not None else None
    base_dbd = OPENSPIEL_DBD if utils is not None else None
    for form in ("list", "CardSet"):
        what = "list of Card" if form == "list" else "CardSet"
        inputs = _as_cards(dw10, form)
        register(Benchmark(f"deadwood({what}), 10 cards, uniform", _over(deadwood, inputs),
                           baseline=base_dw, inputs=inputs))
        inputs = _as_cards(dw11, form)
        register(Benchmark(f"deadwood_by_discard({what}), 11 cards, uniform",
                           _over(deadwood_by_discard, inputs), baseline=base_dbd,
                           inputs=inputs))
    register(Benchmark(MATCH_COMMAND, _match_command, "hand",
                       baseline=OPENSPIEL_PLAY if utils is not None else None, keep_gc=True))
    if utils is not None:
        for i, b in enumerate(BENCHMARKS):
            if b.unit == "hand" and b.baseline is None and b.name != OPENSPIEL_PLAY:
                BENCHMARKS[i] = Benchmark(b.name, b.prepare, b.unit, b.references,
                                          OPENSPIEL_PLAY, b.inputs, keep_gc=True)


_register_vs_openspiel()


def _ratio(base: Result, r: Result) -> str:
    x = base.median_us / r.median_us
    return f"{x:.2f}x" if x < 10 else f"{x:.0f}x"


# ----------------------------------------------------------------------------- the command


# ----------------------------------------------------------------------------- evaluator
def _register_evaluator() -> None:
    """The evaluator's play-outs per second and the ``expert`` bot's time per decision
    (percentiles: ``benchmarks/expert_timing.py``)."""
    from .evaluator import evaluator_prepare, expert_prepare

    register(Benchmark("evaluator play-outs (all legal actions, 8 samples)",
                       evaluator_prepare(8), "play-out"))
    register(Benchmark("expert decision (real positions)", expert_prepare(), "decision"))


_register_evaluator()


# ----------------------------------------------------------------------------- the kernel
KERNEL_PREFIX = "kernel "


def _register_kernel() -> None:
    """Both builds of the hand kernel on the same inputs, the compiled one's speed-up over
    the Python build in the ``x baseline`` column (``--only kernel``)."""
    from ..kernel import COMPILED, REFERENCE
    from .evaluator import evaluator_prepare, expert_prepare
    from .kernel import DEALS, PER_VIEW, available, rl_prepare

    compiled = COMPILED in available()

    groups: list[tuple[str, Callable[[str], Prepare], str]] = [
        (f"evaluator play-outs ({DEALS} deals a view)",
         lambda build: evaluator_prepare(DEALS, build, PER_VIEW), "play-out"),
        ("expert decision", expert_prepare, "decision"),
        ("RL raw env step (tracker)", rl_prepare, "step"),
    ]
    for what, factory, unit in groups:
        base = f"{KERNEL_PREFIX}{REFERENCE}: {what}"
        register(Benchmark(base, factory(REFERENCE), unit, keep_gc=True, inputs_as=what))
        if compiled:  # without numba only the Python build is timed
            register(Benchmark(f"{KERNEL_PREFIX}{COMPILED}: {what}", factory(COMPILED),
                               unit, baseline=base, keep_gc=True, inputs_as=what))


_register_kernel()


def _format_table(results: Sequence[Result]) -> str:
    sources: list[str] = []
    for r in results:
        sources += [s for s in r.references if s not in sources]
    name_w = max([len("benchmark")] + [len(r.name) for r in results])
    by_name = {r.name: r for r in results}
    head = f"{'benchmark':<{name_w}}  {'us/op':>9}  {'ops/s':>11}  {'unit':<5}"
    head += f"  {'x baseline':>10}" + "".join(f"  {s:>15}" for s in sources)
    lines = [head, "-" * len(head)]
    for r in results:
        line = f"{r.name:<{name_w}}  {r.median_us:>9.2f}  {r.per_second:>11,.0f}  {r.unit:<5}"
        base = by_name.get(r.baseline) if r.baseline else None
        line += f"  {_ratio(base, r) if base else '':>10}"
        for s in sources:
            ref = r.references.get(s)
            line += f"  {'' if ref is None else f'{ref:g}':>15}"
        lines.append(line)
    return "\n".join(lines)


def _with_ratio(r: Result, results: Sequence[Result]) -> dict[str, Any]:
    """``r`` as JSON, with its speed-up over its same-process baseline when that ran."""
    out = r.as_json()
    base = next((b for b in results if b.name == r.baseline), None)
    if base is not None:
        out["speedup_vs_baseline"] = round(base.median_us / r.median_us, 2)
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ginrummy bench",
        description="Time the meld solver and the showdown (median microseconds per call).",
        epilog=exits.epilog("timed", usage="a wrong command line (unknown option, bad "
                            "value, an --only that matches nothing)"),
    )
    p.add_argument("--number", type=int, default=2000, metavar="N",
                   help="distinct inputs (operations) per repetition (default 2000)")
    p.add_argument("--repeat", type=int, default=7, metavar="R",
                   help="repetitions, each on fresh inputs; the median is reported (default 7)")
    p.add_argument("--seed", type=int, default=0, help="seed for the inputs (default 0)")
    p.add_argument("--only", action="append", default=[], metavar="TEXT",
                   help="run only benchmarks whose name contains TEXT (repeatable)")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="time elapsed (wall, default) or this process's CPU time (cpu)")
    p.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the registered benchmarks and print a table (or JSON); returns the exit status."""
    args = _parser().parse_args(argv)
    if args.number < 1 or args.repeat < 1:
        print("ginrummy bench: --number and --repeat must be at least 1.", file=sys.stderr)
        return exits.USAGE
    chosen = [b for b in BENCHMARKS if not args.only or any(t in b.name for t in args.only)]
    if args.list:
        for b in chosen:
            print(b.name)
        return 0
    if not chosen and not any(t in "review" for t in args.only):
        print("ginrummy bench: no benchmark matches --only.", file=sys.stderr)
        return exits.USAGE
    results = run_benchmarks(chosen, args.number, args.repeat, args.seed, args.clock)
    env = f"{platform.python_implementation()} {platform.python_version()}"
    review = _review_block(args)
    decisions = _decisions_block(args)
    if args.json:
        print(json.dumps({
            "python": env,
            "number": args.number,
            "repeat": args.repeat,
            "seed": args.seed,
            "clock": args.clock,
            "results": [_with_ratio(r, results) for r in results],
            "reference_note": REFERENCE_NOTE,
            **({"review": review} if review else {}),
            **({"expert_decisions": decisions} if decisions else {}),
        }, indent=2))
        return 0
    if chosen:
        print(f"{env}; {args.number} distinct inputs x {args.repeat} repetitions "
              f"(interleaved); median {args.clock}-clock time shown.")
        print(_format_table(results))
        print(REFERENCE_NOTE)
    if review:
        from .review import format_speed

        print()
        print(format_speed(review))
    if decisions:
        print()
        print(_format_decisions(decisions))
    return 0


def _decisions_block(args: argparse.Namespace) -> dict[str, Any] | None:
    """``expert``'s CPU time per decision with each kernel build (percentiles), a block of
    its own; run with the kernel benchmarks (``--only kernel``) or with everything."""
    if args.only and not any(t in KERNEL_PREFIX or t in "expert decisions" for t in args.only):
        return None
    from .kernel import decision_percentiles

    return decision_percentiles(decisions=max(2, min(200, args.number // 20)), seed=args.seed)


def _format_decisions(d: dict[str, Any]) -> str:
    lines = [f"expert, CPU milliseconds per decision ({d['decisions']} real positions):"]
    for build, row in d.items():
        if isinstance(row, dict):
            lines.append(f"  kernel {build:<7} median {row['median_ms']:>8.2f}  p90 "
                         f"{row['p90_ms']:>8.2f}  p99 {row['p99_ms']:>8.2f}  max "
                         f"{row['max_ms']:>8.2f}")
    return "\n".join(lines)


def _review_block(args: argparse.Namespace) -> dict[str, Any] | None:
    """Review speed (decisions/s), a separate block: not a micro-benchmark. Skipped when
    ``--only`` names other benchmarks; fewer decisions for small ``--number``."""
    if args.only and not any(t in "review" for t in args.only):
        return None
    from .review import review_speed

    return review_speed(decisions=max(2, min(40, args.number // 50)))


if __name__ == "__main__":
    sys.exit(main())
