"""Measure environment throughput (agent steps per second) with a uniformly random agent.

Run ``python -m ginrummy.rl.throughput [--steps N] [--opponent NAME] [--seed S]``; prints
one JSON object with steps per second for :class:`~ginrummy.rl.gym_env.GinRummyEnv` (hand and
match episodes) and :class:`~ginrummy.rl.pettingzoo.GinRummyAECEnv`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from .gym_env import GinRummyEnv
from .pettingzoo import GinRummyAECEnv

__all__ = ["main", "measure_aec", "measure_single"]


def _pick(mask: Any, rng: random.Random) -> int:
    """A random legal id from a mask."""
    return rng.choice([i for i, m in enumerate(mask) if m])


def measure_single(steps: int, opponent: str, episode: str, seed: int) -> dict[str, float]:
    """Random agent against ``opponent`` for at least ``steps`` agent steps."""
    env = GinRummyEnv(opponent=opponent, episode=episode)
    rng = random.Random(seed)
    _, info = env.reset(seed=seed)
    done_steps = episodes = 0
    t0 = time.perf_counter()
    while done_steps < steps:
        _, _, term, trunc, info = env.step(_pick(info["action_mask"], rng))
        done_steps += 1
        if term or trunc:
            episodes += 1
            _, info = env.reset()
    dt = time.perf_counter() - t0
    return {"steps": done_steps, "episodes": episodes, "seconds": round(dt, 3),
            "steps_per_second": round(done_steps / dt, 1)}


def measure_aec(steps: int, episode: str, seed: int) -> dict[str, float]:
    """Two random agents in the AEC environment for at least ``steps`` live steps."""
    env = GinRummyAECEnv(episode=episode)
    rng = random.Random(seed)
    env.reset(seed=seed)
    done_steps = episodes = 0
    t0 = time.perf_counter()
    while done_steps < steps:
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                env.step(_pick(obs["action_mask"], rng))
                done_steps += 1
        episodes += 1
        env.reset()
    dt = time.perf_counter() - t0
    return {"steps": done_steps, "episodes": episodes, "seconds": round(dt, 3),
            "steps_per_second": round(done_steps / dt, 1)}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: print the measurements as JSON; exit status 2 on bad arguments."""
    p = argparse.ArgumentParser(prog="python -m ginrummy.rl.throughput",
                                description="RL environment steps per second.")
    p.add_argument("--steps", type=int, default=20000, help="agent steps per measurement")
    p.add_argument("--opponent", default="simple", help="opponent bot of GinRummyEnv")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.steps <= 0:
        p.error("--steps must be positive")
    out = {
        "GinRummyEnv(hand)": measure_single(args.steps, args.opponent, "hand", args.seed),
        "GinRummyEnv(match)": measure_single(args.steps, args.opponent, "match", args.seed),
        "GinRummyAECEnv(hand)": measure_aec(args.steps, "hand", args.seed),
    }
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
