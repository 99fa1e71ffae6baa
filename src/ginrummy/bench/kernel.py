"""The hand kernel's speed, both builds side by side (``ginrummy bench --only kernel``):
evaluator play-outs per second, ``expert``'s time per decision and the RL environment's
steps per second, each timed on the same inputs with the Python build and the
compiled build, interleaved so their ratio sees the same machine load.

With ``--clock cpu`` the figures are this process's CPU time, steady on a busy machine.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from ..kernel import COMPILED, REFERENCE, backend, use
from .evaluator import positions, summary

__all__ = ["DEALS", "PER_VIEW", "available", "decision_percentiles", "rl_prepare"]

DEALS = 128
"""Sampled deals per view in the play-out benchmark (every legal action on each)."""
PER_VIEW = 6
"""Legal actions a view is counted for when drawing the play-out benchmark's views."""


def available() -> list[str]:
    """The builds that load here (the Python one always; the compiled one with numba)."""
    try:
        backend(COMPILED)
    except ValueError:
        return [REFERENCE]
    return [REFERENCE, COMPILED]


def rl_prepare(build: str) -> Callable[[random.Random, int], Any]:
    """A bench input builder: ``n`` steps of the raw PettingZoo-style environment with two
    random agents (observation and mask of the agent to act, then the step), its tracker
    on the kernel ``build``; the runner returns the steps taken."""
    from ..rl.pettingzoo import GinRummyAECEnv

    def prepare(rng: random.Random, n: int) -> Callable[[], int]:
        seed = rng.randrange(1 << 30)
        picks = random.Random(seed)

        def run() -> int:
            with use(build):
                env = GinRummyAECEnv()
                env.reset(seed=seed)
                steps = 0
                while steps < n:
                    agent = env.agent_selection
                    obs, _, term, trunc, _ = env.last()
                    if term or trunc:
                        env.reset(seed=picks.randrange(1 << 30))
                        continue
                    legal = obs["action_mask"].nonzero()[0]
                    env.step(int(legal[picks.randrange(len(legal))]))
                    steps += 1
                    del agent
            return steps

        return run

    return prepare


def decision_percentiles(decisions: int = 100, seed: int = 0) -> dict[str, Any]:
    """``expert``'s CPU time per decision (median, 90th, 99th percentile, maximum, in ms)
    with each available build, on the same real positions."""
    from ..bots.expert import ExpertBot

    views = positions(random.Random(seed), decisions)
    out: dict[str, Any] = {"decisions": len(views)}
    for build in available():
        bot = ExpertBot(seed, kernel=build)
        bot.decide(views[0])  # loading (or compiling) the build is not a decision
        times = []
        for v in views:
            t = time.thread_time()
            bot.decide(v)
            times.append(time.thread_time() - t)
        out[build] = {k: round(v, 2) for k, v in summary(times).items()}
    return out
