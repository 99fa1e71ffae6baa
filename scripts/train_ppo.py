"""Train the ``ppo`` baseline: sb3-contrib's MaskablePPO on ``ginrummy/GinRummy-v0``.

    python scripts/train_ppo.py --minutes 20 --seed 0 --out src/ginrummy/data/ppo.npz \
        --curve docs/img/ppo_curve.png

The agent plays one hand an episode (reward: the hand's points / 125) from a seat drawn
per hand against project bots, one opponent per environment copy, round robin over
``--opponents``; the legal-action mask comes from the environment's ``info`` with the
take-back rule the shipped bot also plays by (:func:`ginrummy.bots.policy.guarded_mask`).
The policy is sb3's ``MlpPolicy`` (``--hidden``, tanh), masked; every ``--eval-every``
steps its actor is exported and played greedily on the same fresh hands against
``--eval-opponents`` (the learning curve). At the end the actor goes to ``--out`` as a
numpy policy file (:func:`ginrummy.bots.policy.save_mlp`, played without PyTorch), the
curve's numbers to the same name with ``.json`` and the picture to ``--curve``.

Needs the research extra (``pip install -e '.[research]'``: PyTorch, stable-baselines3,
sb3-contrib, gymnasium).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402 - after the thread settings, which numpy and torch read
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

import ginrummy.rl  # noqa: E402,F401 - registers ginrummy/GinRummy-v0
from ginrummy.bots.policy import MLP, guarded_mask, save_mlp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from baseline_eval import evaluate, plot_curve, write_json  # noqa: E402


class Masked(gym.Wrapper):  # type: ignore[type-arg]
    """Keeps the last ``info["action_mask"]`` (with the take-back rule applied) and
    answers ``action_masks()``, the method MaskablePPO asks every environment for."""

    def __init__(self, env: gym.Env) -> None:  # type: ignore[type-arg]
        super().__init__(env)
        self._mask = np.ones(107, dtype=bool)

    def _keep(self, info: dict[str, Any]) -> None:
        mask = np.array(info["action_mask"], dtype=np.int8)
        self._mask = guarded_mask(info["view"], mask).astype(bool)

    def reset(self, **kwargs: Any) -> Any:
        obs, info = self.env.reset(**kwargs)
        self._keep(info)
        return obs, info

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._keep(info)
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal ids now, as booleans."""
        return self._mask


def make_env(opponent: str) -> Any:
    """A thunk for DummyVecEnv: one masked, monitored hand-episode environment."""

    def thunk() -> gym.Env:  # type: ignore[type-arg]
        env = gym.make("ginrummy/GinRummy-v0", opponent=opponent, episode="hand", seat=None,
                       normalize=True, max_hand_actions=300)
        return Masked(Monitor(env))

    return thunk


def actor(model: MaskablePPO) -> MLP:
    """The policy network (shared features, the actor's hidden layers, the action head)
    as a numpy :class:`MLP`: what the bot plays. sb3's ``MlpPolicy`` flattens the
    observation and applies ``mlp_extractor.policy_net`` then ``action_net``."""
    layers = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(model.policy.action_net)
    weights = [m.weight.detach().cpu().numpy().T.copy() for m in layers]
    biases = [m.bias.detach().cpu().numpy().copy() for m in layers]
    return MLP(weights, biases, "tanh")


class Curve(BaseCallback):
    """Every ``every`` steps (and at the end): the greedy actor's evaluation and the
    training episodes' mean reward; stops training when the time is up."""

    def __init__(self, every: int, opponents: list[str], hands: int, deadline: float,
                 quiet: bool) -> None:
        super().__init__()
        self.every, self.opponents, self.hands = every, opponents, hands
        self.deadline, self.quiet = deadline, quiet
        self.points: list[dict[str, Any]] = []
        self.start = time.monotonic()
        self.next_at = 0

    def record(self) -> None:
        """Evaluate now and append a point to the curve."""
        policy = actor(self.model)
        eval_ = {o: evaluate(policy, o, self.hands) for o in self.opponents}
        buf = self.model.ep_info_buffer or []
        train = float(np.mean([e["r"] for e in buf]) * 125) if buf else 0.0
        point = {"steps": int(self.num_timesteps),
                 "seconds": round(time.monotonic() - self.start, 1),
                 "train_points": round(train, 2), "eval": eval_}
        self.points.append(point)
        if not self.quiet:
            print(json.dumps(point), flush=True)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.record()
            self.next_at += self.every
        return time.monotonic() < self.deadline


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Train, write the files, return the summary written beside the weights."""
    torch.set_num_threads(args.threads)
    opponents = args.opponents.split(",")
    venv = DummyVecEnv([make_env(opponents[k % len(opponents)]) for k in range(args.envs)])
    model = MaskablePPO(
        "MlpPolicy", venv, seed=args.seed, n_steps=args.n_steps, batch_size=args.batch,
        n_epochs=args.epochs, learning_rate=args.lr, gamma=args.gamma, gae_lambda=0.95,
        ent_coef=args.ent_coef, verbose=0, device="cpu",
        policy_kwargs={"net_arch": {"pi": args.hidden, "vf": args.hidden}},
    )
    budget = args.minutes * 60 if args.minutes else float("inf")
    curve = Curve(args.eval_every, args.eval_opponents.split(","), args.eval_hands,
                  time.monotonic() + budget, args.quiet)
    start = time.monotonic()
    model.learn(total_timesteps=args.timesteps or 10**12, callback=curve)
    seconds = time.monotonic() - start
    if not curve.points or curve.points[-1]["steps"] != model.num_timesteps:
        curve.record()
    policy = actor(model)
    summary = {
        "algorithm": "MaskablePPO (sb3-contrib)", "opponents": opponents, "envs": args.envs,
        "hidden": args.hidden, "seed": args.seed, "steps": int(model.num_timesteps),
        "seconds": round(seconds, 1), "eval_hands": args.eval_hands, "curve": curve.points,
        "command": "python scripts/train_ppo.py " + " ".join(sys.argv[1:]) if args.cli else "",
    }
    meta = {k: summary[k] for k in ("algorithm", "opponents", "hidden", "seed", "steps")}
    save_mlp(args.out, policy.weights, policy.biases, "tanh", json.dumps(meta))
    write_json(Path(args.out).with_suffix(".json"), summary)
    if args.curve and not plot_curve(
            curve.points, "steps", "training steps (agent decisions)",
            args.eval_opponents.split(","), "MaskablePPO: greedy policy on fresh hands",
            args.curve):
        print("No picture of the curve: it needs matplotlib (pip install matplotlib); "
              "the numbers are in the .json.", file=sys.stderr)
    return summary


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=0.0, help="stop after this long")
    p.add_argument("--timesteps", type=int, default=0, help="stop after this many steps")
    p.add_argument("--opponents", default="simple,marjj,strong",
                   help="the environment copies' opponents, round robin")
    p.add_argument("--envs", type=int, default=8, help="environment copies")
    p.add_argument("--n-steps", type=int, default=256, help="steps per copy per rollout")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--hidden", type=int, nargs="+", default=[64, 64])
    p.add_argument("--threads", type=int, default=1, help="PyTorch threads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-every", type=int, default=50_000)
    p.add_argument("--eval-hands", type=int, default=200)
    p.add_argument("--eval-opponents", default="simple,strong")
    p.add_argument("--out", default="ppo.npz", help="the policy file (.npz)")
    p.add_argument("--curve", default="", help="the learning curve (.png)")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.cli = argv is None
    if not args.minutes and not args.timesteps:
        build_parser().error("give --minutes or --timesteps")
    summary = train(args)
    last = summary["curve"][-1]
    print(f"MaskablePPO: {summary['steps']} steps in {summary['seconds']} s; greedy: "
          + ", ".join(f"{o} {v['points']:+.1f} ± {v['se']:.1f} points a hand"
                      for o, v in last["eval"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
