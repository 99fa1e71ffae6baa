"""Train a small masked policy against the ``random`` bot on the CPU, in minutes.

    python examples/train_policy.py --minutes 2 --out model.npz --plot curve.png

REINFORCE with a learned linear baseline, numpy only: a batch of games
(``ginrummy.rl.GinRummyVectorEnv``, one hand per episode, rewards = the hand's points /
125) is played by the policy of ``masked_policy.py``; each finished hand's reward updates
the policy. It writes the weights (.npz), the learning curve (a PNG, with matplotlib) and
its numbers (JSON), then evaluates the greedy policy on fresh hands. Play the result in
whole matches with ``ginrummy match exec:"python examples/policy_bot.py model.npz" random``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from masked_policy import Adam, MaskedPolicy  # noqa: E402

from ginrummy.rl import GinRummyVectorEnv  # noqa: E402


def evaluate(policy: MaskedPolicy, opponent: str, hands: int, seed: int,
             num_envs: int = 64) -> dict[str, float]:
    """The greedy policy over ``hands`` fresh hands: mean points per hand (raw, not /125)
    and the share of hands it scored in and lost."""
    venv = GinRummyVectorEnv(num_envs, opponent=opponent, seat=None)
    obs, info = venv.reset(seed=seed)
    rewards: list[float] = []
    while len(rewards) < hands:
        obs, r, term, _, info = venv.step(policy.act(obs, info["action_mask"]))
        rewards += r[term].tolist()
    arr = np.array(rewards[:hands])
    return {"hands": hands, "mean_points": round(float(arr.mean()), 3),
            "points_se": round(float(arr.std() / np.sqrt(len(arr))), 3),
            "scored": round(float((arr > 0).mean()), 4),
            "conceded": round(float((arr < 0).mean()), 4)}


def train(args: argparse.Namespace) -> dict[str, object]:
    """Run the training; returns the curve and the evaluation (also written to disk)."""
    rng = np.random.default_rng(args.seed)
    policy = MaskedPolicy()
    # Adam moves every weight by about its step size per update, whatever its gradient:
    # the 3 x 590 weights on the whole observation (dozens of them active at once) need
    # much smaller steps than the 2 x 12 shared card weights to move a logit as far
    opt = Adam(policy.params, lr={"head": args.obs_lr, "value": args.obs_lr,
                                  "discard": args.lr, "knock": args.lr})
    venv = GinRummyVectorEnv(args.envs, opponent=args.opponent, seat=None, normalize=True)
    obs, info = venv.reset(seed=args.seed)
    mask = info["action_mask"]
    # each game's decisions of its unfinished hand: (observation, mask, action)
    open_steps: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(args.envs)]
    ready: list[tuple[np.ndarray, np.ndarray, int, float]] = []
    curve: list[dict[str, float]] = []
    recent: list[float] = []
    hands = steps = updates = 0
    start = time.perf_counter()
    deadline = start + 60 * args.minutes
    while updates < args.updates if args.updates else time.perf_counter() < deadline:
        actions = policy.act(obs, mask, rng)
        for k in range(args.envs):
            open_steps[k].append((obs[k], mask[k], int(actions[k])))
        obs, rewards, term, _, info = venv.step(actions)
        mask = info["action_mask"]
        steps += args.envs
        for k in np.flatnonzero(term):
            ready += [(o, m, a, float(rewards[k])) for o, m, a in open_steps[k]]
            open_steps[k] = []
            recent.append(float(rewards[k]))
            hands += 1
        if len(ready) >= args.batch:
            o = np.stack([r[0] for r in ready])
            m = np.stack([r[1] for r in ready])
            a = np.array([r[2] for r in ready])
            ret = np.array([r[3] for r in ready])
            adv = ret - policy.value(o)
            opt.step(policy.gradients(o, m, a, adv, ret))
            ready = []
            updates += 1
            if updates % args.log_every == 0:
                point = {"update": updates, "hands": hands, "steps": steps,
                         "seconds": round(time.perf_counter() - start, 1),
                         "mean_reward": round(float(np.mean(recent)), 4),
                         "scored": round(float(np.mean(np.array(recent) > 0)), 4)}
                if args.eval_every and updates % args.eval_every == 0:
                    greedy = evaluate(policy, args.opponent, args.curve_eval_hands,
                                      args.seed + updates)
                    point["greedy_mean_points"] = greedy["mean_points"]
                    point["greedy_scored"] = greedy["scored"]
                curve.append(point)
                recent = []
                if not args.quiet:
                    print(json.dumps(point), flush=True)
    seconds = time.perf_counter() - start
    policy.save(args.out, opponent=args.opponent, hands=hands, steps=steps,
                seconds=round(seconds, 1), seed=args.seed)
    result: dict[str, object] = {
        "model": str(args.out), "opponent": args.opponent, "updates": updates,
        "hands": hands, "steps": steps, "seconds": round(seconds, 1), "curve": curve,
        "evaluation": evaluate(policy, args.opponent, args.eval_hands, args.seed + 10**6),
        "untrained_policy_evaluation": evaluate(MaskedPolicy(), args.opponent,
                                             args.eval_hands, args.seed + 10**6),
    }
    if args.plot:
        plot(curve, args.plot, args.opponent)
    Path(args.out).with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def plot(curve: list[dict[str, float]], path: str, opponent: str) -> None:
    """The learning curve: mean hand reward and share of hands scored, against hands."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    x = [p["hands"] for p in curve]
    ax.plot(x, [p["scored"] for p in curve], label="hands scored, sampled actions (training)")
    ax.plot(x, [p["mean_reward"] for p in curve],
            label="mean hand reward, sampled actions (points / 125)")
    ev = [p for p in curve if "greedy_scored" in p]
    if ev:
        ax.plot([p["hands"] for p in ev], [p["greedy_scored"] for p in ev], "o-",
                label="hands scored, greedy policy (fresh hands)")
        ax.plot([p["hands"] for p in ev], [p["greedy_mean_points"] / 125 for p in ev], "s-",
                label="mean hand reward, greedy policy (points / 125)")
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("training hands")
    ax.set_ylim(-0.2, 1.05)
    ax.set_title(f"Masked linear policy against {opponent!r}")
    ax.legend(loc="center right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; prints the evaluation as JSON at the end."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=2.0, help="training time (wall clock)")
    p.add_argument("--updates", type=int, default=0,
                   help="stop after this many updates instead of a time (0: use --minutes)")
    p.add_argument("--envs", type=int, default=64, help="games played side by side")
    p.add_argument("--batch", type=int, default=1024, help="decisions per update")
    p.add_argument("--lr", type=float, default=0.05,
                   help="Adam step size of the shared card (discard, knock) weights")
    p.add_argument("--obs-lr", type=float, default=0.002,
                   help="Adam step size of the weights on the whole observation")
    p.add_argument("--opponent", default="random", help="the bot to train against")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-hands", type=int, default=2000, help="hands for the evaluation")
    p.add_argument("--log-every", type=int, default=5, help="updates per curve point")
    p.add_argument("--eval-every", type=int, default=20,
                   help="updates between greedy evaluations for the curve (0: none)")
    p.add_argument("--curve-eval-hands", type=int, default=256,
                   help="fresh hands in each of those evaluations")
    p.add_argument("--out", default="model.npz", help="where to save the weights")
    p.add_argument("--plot", default=None, help="write the learning curve here (PNG)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    if args.minutes <= 0 and args.updates <= 0:
        p.error("give --minutes or --updates a positive value")
    if min(args.envs, args.batch, args.eval_hands, args.log_every,
           args.curve_eval_hands) <= 0:
        p.error("--envs, --batch, --eval-hands, --curve-eval-hands and --log-every must be "
                "positive")
    if args.eval_every < 0 or args.eval_every % args.log_every:
        p.error("--eval-every must be a multiple of --log-every (or 0)")
    try:
        result = train(args)
    except ValueError as e:  # an unknown opponent, say
        p.error(str(e))
    summary = {k: v for k, v in result.items() if k != "curve"}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
