"""numpy, gymnasium and pettingzoo stay optional: the core and ginrummy.rl import and play
without them (observations are lists, the AEC environment runs duck-typed)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import ginrummy

SRC = str(Path(ginrummy.__file__).resolve().parent.parent)

SCRIPT = textwrap.dedent('''
    import sys

    BLOCKED = ("numpy", "gymnasium", "pettingzoo")

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is blocked for this test")
            return None

    sys.meta_path.insert(0, Block())
    import random
    import ginrummy
    import ginrummy.rl
    from ginrummy.rl import GinRummyAECEnv, GinRummyEnv, encode
    from ginrummy.rl.spaces import BoxSpec, DiscreteSpec

    env = GinRummyEnv(opponent="simple")
    obs, info = env.reset(seed=1)
    assert type(obs) is list and type(info["action_mask"]) is list, type(obs)
    assert isinstance(env.observation_space, BoxSpec) and env.observation_space.contains(obs)
    assert isinstance(env.action_space, DiscreteSpec)
    rng = random.Random(1)
    done = False
    while not done:
        action = env.action_space.sample(info["action_mask"], rng)
        obs, reward, done, trunc, info = env.step(action)
    try:
        encode(info["view"], as_numpy=True)
    except ValueError as e:
        assert "numpy" in str(e)
    else:
        raise AssertionError("as_numpy=True without numpy must fail")

    aec = GinRummyAECEnv()
    assert type(aec).__mro__[1].__name__ == "_DuckAECEnv"
    for seed in range(5):
        aec.reset(seed=seed)
        final = {}
        for agent in aec.agent_iter():
            o, r, term, trunc, inf = aec.last()
            if term or trunc:
                final[agent] = r
                aec.step(None)
            else:
                legal = [i for i, m in enumerate(o["action_mask"]) if m]
                aec.step(rng.choice([i for i in legal if i >= 55] or legal))
        assert aec.agents == [] and sum(final.values()) == 0 and len(final) == 2
    assert not any(m.split(".")[0] in BLOCKED for m in sys.modules)
    print("OK")
''')


def test_rl_imports_and_plays_without_numpy_gymnasium_pettingzoo() -> None:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"
