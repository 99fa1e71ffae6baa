"""Environment throughput (steps per second) with uniformly random legal actions, and the
same measured side by side with RLCard's gin-rummy environment when it is installed.

Run ``python -m ginrummy.rl.throughput [--steps N] [--rounds R] [--num-envs N]``; it
prints one JSON object. RLCard is not a dependency of this project: install it with
``pip install rlcard`` to get the comparison (it is skipped, and said so, without it).
The comparison alternates short rounds of each environment in one process and reports
the median of each and the ratio of the medians, which holds up on a busy machine better
than two separate runs.

A step is one action of the player to act, observation and mask included: for the AEC
environment ``last()`` (observation and mask of the agent to act) then ``step``; for
RLCard ``step``, which returns the next player's state with its legal actions.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from . import _compat
from .gym_env import GinRummyEnv
from .pettingzoo import GinRummyAECEnv, env
from .vector import GinRummyVectorEnv

__all__ = ["compare", "main", "measure_aec", "measure_rlcard", "measure_single",
           "measure_vector"]

RLCARD_HINT = "not installed: pip install rlcard (not a dependency of this project)"


def _legal(mask: Any) -> list[int]:
    """The legal ids of a mask (a numpy array or a list)."""
    np = _compat.np
    if np is not None and isinstance(mask, np.ndarray):
        ids: list[int] = mask.nonzero()[0].tolist()
        return ids
    return [i for i, m in enumerate(mask) if m]


def _rate(steps: int, episodes: int, seconds: float) -> dict[str, float]:
    return {"steps": steps, "episodes": episodes, "seconds": round(seconds, 3),
            "steps_per_second": round(steps / seconds, 1)}


def measure_aec(steps: int, episode: str = "hand", seed: int = 0,
                wrapped: bool = False) -> dict[str, float]:
    """Two random agents in the AEC environment (``wrapped``: as :func:`env` builds it)
    for at least ``steps`` live steps."""
    e: Any = env(episode=episode) if wrapped else GinRummyAECEnv(episode=episode)
    rng = random.Random(seed)
    e.reset(seed=seed)
    done_steps = episodes = 0
    t0 = time.perf_counter()
    while done_steps < steps:
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
            else:
                e.step(rng.choice(_legal(obs["action_mask"])))
                done_steps += 1
        episodes += 1
        e.reset()
    return _rate(done_steps, episodes, time.perf_counter() - t0)


def measure_rlcard(steps: int, seed: int = 0) -> dict[str, float] | None:
    """RLCard's gin-rummy environment with random legal actions for ``steps`` steps, or
    None when rlcard is not installed."""
    rlcard = _compat.load("rlcard")
    if rlcard is None:
        return None
    e = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)
    state, _ = e.reset()
    done_steps = episodes = 0
    t0 = time.perf_counter()
    while done_steps < steps:
        state, _ = e.step(rng.choice(list(state["legal_actions"])))
        done_steps += 1
        if e.is_over():
            episodes += 1
            state, _ = e.reset()
    return _rate(done_steps, episodes, time.perf_counter() - t0)


def measure_single(steps: int, opponent: str = "random", episode: str = "hand",
                   seed: int = 0) -> dict[str, float]:
    """A random agent against ``opponent`` in :class:`GinRummyEnv` for ``steps`` agent
    steps (each includes the opponent's replies)."""
    e = GinRummyEnv(opponent=opponent, episode=episode)
    rng = random.Random(seed)
    _, info = e.reset(seed=seed)
    done_steps = episodes = 0
    t0 = time.perf_counter()
    while done_steps < steps:
        _, _, term, trunc, info = e.step(rng.choice(_legal(info["action_mask"])))
        done_steps += 1
        if term or trunc:
            episodes += 1
            _, info = e.reset()
    return _rate(done_steps, episodes, time.perf_counter() - t0)


def measure_vector(steps: int, num_envs: int = 64, opponent: str = "random",
                   seed: int = 0) -> dict[str, float]:
    """Random masked agents in :class:`GinRummyVectorEnv` for at least ``steps`` agent
    steps in all (actions drawn for the whole batch at once from the masks)."""
    np = _compat.np
    venv = GinRummyVectorEnv(num_envs, opponent=opponent)
    gen = np.random.default_rng(seed)
    _, info = venv.reset(seed=seed)
    done_steps = episodes = 0
    t0 = time.perf_counter()
    while done_steps < steps:
        masks = info["action_mask"]
        actions = (gen.random(masks.shape) * masks).argmax(axis=1)
        _, _, term, _, info = venv.step(actions)
        done_steps += num_envs
        episodes += int(term.sum())
    return _rate(done_steps, episodes, time.perf_counter() - t0)


def compare(steps: int, rounds: int, seed: int = 0) -> dict[str, Any]:
    """Alternate rounds of the AEC environment and RLCard's (``steps`` each); medians and
    their ratio. Without rlcard, only this project's side."""
    ours: list[float] = []
    wrapped: list[float] = []
    theirs: list[float] = []
    for r in range(rounds):
        ours.append(measure_aec(steps, seed=seed + r)["steps_per_second"])
        wrapped.append(measure_aec(steps, seed=seed + r, wrapped=True)["steps_per_second"])
        other = measure_rlcard(steps, seed=seed + r)
        if other is not None:
            theirs.append(other["steps_per_second"])
    out: dict[str, Any] = {
        "steps_per_round": steps,
        "rounds": rounds,
        "ginrummy_aec_raw_env": {"median": statistics.median(ours), "rounds": ours},
        "ginrummy_aec_env_wrapped": {"median": statistics.median(wrapped),
                                     "rounds": wrapped},
    }
    if theirs:
        out["rlcard_gin_rummy"] = {"median": statistics.median(theirs), "rounds": theirs}
        out["ratio_raw_env_to_rlcard"] = round(statistics.median(ours)
                                               / statistics.median(theirs), 2)
        out["ratio_wrapped_env_to_rlcard"] = round(statistics.median(wrapped)
                                                   / statistics.median(theirs), 2)
    else:
        out["rlcard_gin_rummy"] = RLCARD_HINT
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: print the measurements as JSON; exit status 2 on bad arguments."""
    p = argparse.ArgumentParser(prog="python -m ginrummy.rl.throughput",
                                description="RL environment steps per second, side by side "
                                            "with RLCard's gin-rummy when installed.")
    p.add_argument("--steps", type=int, default=5000, help="steps per round and measurement")
    p.add_argument("--rounds", type=int, default=5, help="alternating comparison rounds")
    p.add_argument("--num-envs", type=int, default=64, help="games in the vector env")
    p.add_argument("--opponent", default="random", help="opponent bot of the 1-agent envs")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.steps <= 0 or args.rounds <= 0 or args.num_envs <= 0:
        p.error("--steps, --rounds and --num-envs must be positive")
    if _compat.np is None:
        p.error("the benchmark needs numpy: pip install 'ginrummy[rl]'")
    try:
        GinRummyEnv(opponent=args.opponent)
    except ValueError as e:
        p.error(str(e))
    out = {
        "aec_vs_rlcard": compare(args.steps, args.rounds, args.seed),
        "GinRummyEnv(hand)": measure_single(args.steps, args.opponent, "hand", args.seed),
        "GinRummyEnv(match)": measure_single(args.steps, args.opponent, "match", args.seed),
        f"GinRummyVectorEnv({args.num_envs})": measure_vector(
            args.steps * 4, args.num_envs, args.opponent, args.seed),
    }
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
