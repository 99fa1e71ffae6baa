"""What the two baseline trainers share (``train_ppo.py``, ``train_bc.py``): the greedy
evaluation of a policy on fresh hands, and the learning-curve picture.

The evaluation plays :class:`ginrummy.bots.policy.PolicyBot` (the exact code that plays
the shipped files) for one seat of ``ginrummy.rl.GinRummyEnv`` hand episodes against a
project bot, the seat drawn per hand, on hands dealt from a fixed seed, so two
checkpoints are compared on the same deals.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ginrummy.bots.policy import MLP, PolicyBot
from ginrummy.rl import GinRummyEnv
from ginrummy.rl.encoding import action_to_id


def evaluate(policy: MLP, opponent: str, hands: int, seed: int = 10_000) -> dict[str, float]:
    """The greedy policy on ``hands`` fresh hands against ``opponent``: the mean points a
    hand (+ scored, - conceded), its standard error, and the shares scored and conceded.

    A hand still going after 300 actions is cut off and counts 0 (it cannot happen with
    the take-back rule unless both players loop, which the rule prevents; kept as a guard).
    """
    env = GinRummyEnv(opponent=opponent, episode="hand", seat=None, max_hand_actions=300)
    bot = PolicyBot(policy=policy, name="eval")
    points: list[float] = []
    _, info = env.reset(seed=seed)
    for _ in range(hands):
        done, reward = False, 0.0
        while not done:
            action = action_to_id(bot.decide(info["view"]))
            _, r, terminated, truncated, info = env.step(action)
            reward += float(r)
            done = terminated or truncated
        points.append(reward)
        _, info = env.reset()
    n = len(points)
    mean = sum(points) / n
    var = sum((p - mean) ** 2 for p in points) / max(n - 1, 1)
    return {"points": round(mean, 3), "se": round(math.sqrt(var / n), 3),
            "scored": round(sum(p > 0 for p in points) / n, 3),
            "conceded": round(sum(p < 0 for p in points) / n, 3)}


def plot_curve(curve: list[dict[str, Any]], x: str, xlabel: str, series: list[str],
               title: str, path: str | Path) -> bool:
    """A PNG of the curve: one line per key of ``series`` (``opponent`` -> points a
    hand, with its standard error as a band). False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [p[x] for p in curve]
    for name in series:
        ys = [p["eval"][name]["points"] for p in curve]
        se = [p["eval"][name]["se"] for p in curve]
        ax.plot(xs, ys, marker="o", ms=3, label=f"greedy vs {name}")
        ax.fill_between(xs, [y - s for y, s in zip(ys, se, strict=True)],
                        [y + s for y, s in zip(ys, se, strict=True)], alpha=0.2)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("points a hand (± 1 s.e.)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def write_json(path: str | Path, data: dict[str, Any]) -> None:
    """``data`` as indented JSON (the curve's numbers beside the weights)."""
    Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
