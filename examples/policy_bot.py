"""A trained masked policy as a ginrummy-bot/1 program (docs/protocol.md).

    ginrummy match exec:"python examples/policy_bot.py model.npz" random --matches 200

For each ``decide`` it rebuilds the seat's view from the message, encodes it as the
environments do (``ginrummy.rl.encode``), masks the legal actions and answers the
likeliest one, returned unchanged as the protocol requires. Lines it cannot use are
reported on stderr and skipped. Needs ginrummy and numpy importable by this Python.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from masked_policy import MaskedPolicy  # noqa: E402

from ginrummy.hand import Action, View  # noqa: E402
from ginrummy.rl.encoding import NUM_ACTIONS, action_to_id, encode  # noqa: E402


def choose(policy: MaskedPolicy, view_json: dict[str, Any], legal: list[Any]) -> Any:
    """The legal action (as it was sent) that the policy likes best in this view."""
    actions = [Action.from_json(a) for a in legal]
    view = View.from_json(view_json, actions)
    ids = [action_to_id(a) for a in actions]
    mask = np.zeros((1, NUM_ACTIONS), dtype=np.int8)
    mask[0, ids] = 1
    obs = np.asarray(encode(view, as_numpy=True), dtype=np.float32)[None, :]
    best = int(policy.act(obs, mask)[0])
    return legal[ids.index(best)]


def main(argv: list[str] | None = None) -> int:
    """Serve the protocol on stdin/stdout until ``bye`` or end of input."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: policy_bot.py MODEL.npz", file=sys.stderr)
        return 2
    try:
        policy = MaskedPolicy.load(args[0])
    except ValueError as e:
        print(f"policy_bot: {e}", file=sys.stderr)
        return 2
    for line in sys.stdin:
        try:
            msg = json.loads(line)
            kind = msg["type"]
            if kind == "hello":
                answer: dict[str, Any] = {"type": "hello", "name": f"policy:{Path(args[0]).name}"}
            elif kind == "decide":
                answer = {"type": "action",
                          "action": choose(policy, msg["view"], msg["legal"])}
            elif kind == "bye":
                break
            else:  # hand_over: nothing to answer
                continue
        except (ValueError, KeyError, TypeError) as e:
            print(f"policy_bot: skipped a line it cannot use: {e}", file=sys.stderr)
            continue
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
