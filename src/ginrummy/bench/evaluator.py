"""Speed of the evaluator and the ``expert`` bot, for ``ginrummy bench`` and
``benchmarks/expert_timing.py``: play-outs per second, and decision times, on either
build of the hand kernel.

Inputs are real positions: the views met while ``strong`` plays itself from a seeded deal.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from ..bots.expert import ExpertBot
from ..bots.strong import StrongBot
from ..evaluator import Evaluator
from ..hand import View
from ..match import Match

__all__ = ["decision_times", "evaluator_prepare", "expert_prepare", "positions", "summary"]


def positions(rng: random.Random, n: int) -> list[View]:
    """``n`` decision views (every phase) from seeded ``strong`` self-play."""
    out: list[View] = []
    while len(out) < n:
        seed = rng.randrange(1 << 30)
        match = Match(seed=seed)
        bots = [StrongBot(seed), StrongBot(seed + 1)]
        while not match.is_over() and len(out) < n:
            seat = match.to_play
            assert seat is not None
            view = match.view(seat)
            if len(view.legal) > 1:
                out.append(view)
            match.play(bots[seat].decide(view), seat)
    return out


def evaluator_prepare(samples: int = 8, build: str | None = None, per_view: int = 4,
                      ) -> Callable[[random.Random, int], Callable[[], int]]:
    """A bench input builder: about ``n`` play-outs (views with ``per_view`` legal actions
    on average, every one on ``samples`` sampled deals) on the kernel ``build`` (None: the
    process's); the runner returns the play-outs done."""

    def prepare(rng: random.Random, n: int) -> Callable[[], int]:
        views = positions(rng, max(1, n // (per_view * samples)))
        ev = Evaluator(samples=samples, seed=rng.randrange(1 << 30), kernel=build)

        def run() -> int:
            done = 0
            for v in views:
                done += ev.evaluate(v).samples * len(v.legal)
            return done

        return run

    return prepare


def expert_prepare(build: str | None = None,
                   ) -> Callable[[random.Random, int], Callable[[], int]]:
    """A bench input builder: ``max(2, n // 100)`` expert decisions on the kernel ``build``
    (None: the process's); the runner returns how many it made."""

    def prepare(rng: random.Random, n: int) -> Callable[[], int]:
        views = positions(rng, max(2, n // 100))
        bot = ExpertBot(rng.randrange(1 << 30), kernel=build)

        def run() -> int:
            for v in views:
                bot.decide(v)
            return len(views)

        return run

    return prepare


def decision_times(n: int, seed: int = 0, samples: int | None = None,
                   sampler: str | None = None, deep: int = 0, deep_ms: float = 60.0,
                   ) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds (this thread) of each of ``n`` expert decisions on real
    positions; CPU time is what one core would take on an otherwise idle machine
    (``samples``, ``sampler``, ``deep`` and ``deep_ms``: :class:`ExpertBot`'s, the bot's
    defaults unless given)."""
    rng = random.Random(seed)
    views = positions(rng, n)
    bot = ExpertBot(seed, sampler=sampler, deep=deep, deep_ms=deep_ms) if samples is None \
        else ExpertBot(seed, samples=samples, sampler=sampler, deep=deep, deep_ms=deep_ms)
    bot.decide(views[0])  # loading (or compiling) the hand kernel is not a decision
    wall: list[float] = []
    cpu: list[float] = []
    for v in views:
        start, start_cpu = time.perf_counter(), time.thread_time()
        bot.decide(v)
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return wall, cpu


def summary(times: list[float]) -> dict[str, float]:
    """Median, 90th, 99th percentile and maximum, in milliseconds."""
    ts = sorted(times)

    def pct(q: float) -> float:
        return ts[min(len(ts) - 1, int(q * len(ts)))] * 1000

    return {"n": len(ts), "median_ms": statistics.median(ts) * 1000, "p90_ms": pct(0.9),
            "p99_ms": pct(0.99), "max_ms": ts[-1] * 1000}
