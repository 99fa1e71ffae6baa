"""The two-agent AEC environment: PettingZoo's cycle (observe/last/step), zero-sum hand
rewards (R9), match rewards (R10), seeding, masks and illegal actions (R5, R11)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from ginrummy.rl.encoding import NUM_ACTIONS, legal_ids
from ginrummy.rl.gym_env import IllegalActionIdError
from ginrummy.rl.pettingzoo import AGENTS, GinRummyAECEnv


def rollout(
    env: GinRummyAECEnv, seed: int, rng: random.Random
) -> tuple[list[Any], dict[str, float]]:
    """Random legal play through ``agent_iter``, knocking whenever a knock is legal (so
    hands get scored); returns the trace and each agent's final reward."""
    env.reset(seed=seed)
    trace: list[Any] = []
    final: dict[str, float] = {}
    for agent in env.agent_iter(max_iter=20000):
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = reward
            env.step(None)
            continue
        legal = [i for i, m in enumerate(obs["action_mask"]) if m]
        knocks = [i for i in legal if i >= 55]
        action = rng.choice(knocks or legal)
        trace.append((agent, list(obs["observation"]), action))
        env.step(action)
    assert env.agents == []
    return trace, final


def test_hand_rewards_are_zero_sum_and_the_points_r9() -> None:
    env = GinRummyAECEnv(episode="hand")
    rng = random.Random(1)
    nonzero = 0
    for seed in range(20):
        _, final = rollout(env, seed, rng)
        assert set(final) == set(AGENTS)
        assert final["player_0"] + final["player_1"] == 0
        assert env.match is not None
        result = env.match.hands[0].result
        assert result is not None
        if result.scorer is None:
            assert final == {"player_0": 0, "player_1": 0}
        else:
            nonzero += 1
            assert final[AGENTS[result.scorer]] == result.points
    assert nonzero > 0


def test_match_rewards_r10() -> None:
    env = GinRummyAECEnv(episode="match")
    _, final = rollout(env, 3, random.Random(3))
    m = env.match
    assert m is not None and m.is_over()
    if m.winner is None:
        assert final == {"player_0": 0, "player_1": 0}
    else:
        assert final[AGENTS[m.winner]] == 1 and final[AGENTS[1 - m.winner]] == -1


def test_observe_masks_only_the_agent_to_act() -> None:
    env = GinRummyAECEnv()
    env.reset(seed=4)
    rng = random.Random(4)
    for _ in range(30):
        if env.terminations[env.agent_selection]:
            break
        me = env.agent_selection
        other = AGENTS[1 - AGENTS.index(me)]
        mine, theirs = env.observe(me), env.observe(other)
        assert sum(theirs["action_mask"]) == 0
        assert env.match is not None
        view = env.match.view(AGENTS.index(me))
        assert [i for i, m in enumerate(mine["action_mask"]) if m] == legal_ids(view)
        env.step(rng.choice(legal_ids(view)))


def test_same_seed_same_game() -> None:
    a, _ = rollout(GinRummyAECEnv(), 9, random.Random(0))
    b, _ = rollout(GinRummyAECEnv(), 9, random.Random(0))
    c, _ = rollout(GinRummyAECEnv(), 10, random.Random(0))
    assert a == b and a != c


def test_illegal_and_dead_steps_are_refused_without_change() -> None:
    env = GinRummyAECEnv()
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    env.reset(seed=5)
    assert env.match is not None
    before = json.dumps(env.match.to_record())
    mask = env.observe(env.agent_selection)["action_mask"]
    for i in [i for i in range(NUM_ACTIONS) if not mask[i]][:10]:
        with pytest.raises(IllegalActionIdError, match="is not legal for player_"):
            env.step(i)
    for bad in (None, -3, "x"):
        with pytest.raises(ValueError):
            env.step(bad)
    assert json.dumps(env.match.to_record()) == before
    with pytest.raises(ValueError, match="Unknown agent"):
        env.observe("player_2")
    rollout(env, 5, random.Random(5))
    with pytest.raises(ValueError, match="episode is over"):
        env.step(0)
