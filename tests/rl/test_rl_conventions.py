"""The layouts and checkers of the RL libraries: PettingZoo's classic-game layout
(``env`` wrapped, ``raw_env``, metadata, render modes) and its ``api_test``,
``seed_test`` and ``render_test``; Gymnasium's registration, ``check_env`` at the default
settings, and ``make_vec``."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import ginrummy.rl
from ginrummy.rl import GYM_ID, GinRummyAECEnv, GinRummyEnv, GinRummyVectorEnv
from ginrummy.rl.encoding import NUM_ACTIONS
from ginrummy.rl.pettingzoo import AGENTS, illegal_reward

pz_test = pytest.importorskip("pettingzoo.test", reason="pettingzoo is not installed")
gym = pytest.importorskip("gymnasium", reason="gymnasium is not installed")


def test_classic_layout() -> None:
    wrapped = ginrummy.rl.env()
    raw = ginrummy.rl.raw_env()
    assert isinstance(raw, GinRummyAECEnv)
    assert type(wrapped).__name__ == "OrderEnforcingWrapper"
    assert isinstance(wrapped.unwrapped, GinRummyAECEnv)
    for e in (wrapped, raw):
        assert e.metadata["name"] == "ginrummy_v0"
        assert e.metadata["render_modes"] == ["ansi", "human"]
        assert e.metadata["is_parallelizable"] is False
        assert e.possible_agents == list(AGENTS)
        assert e.action_space("player_0").n == NUM_ACTIONS
    assert ginrummy.rl.raw_env(render_mode="ansi").render_mode == "ansi"
    with pytest.raises(ValueError, match="render_mode"):
        ginrummy.rl.raw_env(render_mode="rgb_array")


@pytest.mark.parametrize("kwargs", [{}, {"episode": "match"}, {"normalize": True}])
def test_pettingzoo_api_test(kwargs: dict[str, Any]) -> None:
    with warnings.catch_warnings():  # it warns about dict observations, as for its own
        warnings.simplefilter("ignore")  # classic card games; failures raise
        pz_test.api_test(ginrummy.rl.env(**kwargs), num_cycles=300)
        pz_test.api_test(ginrummy.rl.raw_env(**kwargs), num_cycles=300)


def test_pettingzoo_seed_and_render_tests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pz_test.seed_test(ginrummy.rl.env, num_cycles=300)
        pz_test.seed_test(ginrummy.rl.raw_env, num_cycles=300)
        pz_test.render_test(ginrummy.rl.raw_env)


@pytest.mark.parametrize(("kwargs", "penalty"), [
    ({}, -125.0), ({"normalize": True}, -1.0), ({"episode": "match"}, -1.0)])
def test_wrapped_env_ends_the_episode_on_an_illegal_move(
    kwargs: dict[str, Any], penalty: float
) -> None:
    assert illegal_reward(kwargs.get("episode", "hand"), kwargs.get("normalize", False)) \
        == penalty
    e = ginrummy.rl.env(**kwargs)
    e.reset(seed=3)
    agent = e.agent_selection
    obs, *_ = e.last()
    bad = next(i for i in range(NUM_ACTIONS) if not obs["action_mask"][i])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns "illegal move made"
        e.step(bad)
    other = AGENTS[1 - AGENTS.index(agent)]
    assert e.terminations == {agent: True, other: True}
    assert e.rewards[agent] == penalty and e.rewards[other] == 0
    raw = ginrummy.rl.raw_env(**kwargs)  # the bare environment refuses it instead
    raw.reset(seed=3)
    with pytest.raises(ValueError, match="not legal"):
        raw.step(bad)


def test_gymnasium_make_and_check_env_at_default_settings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gymnasium.utils.env_checker import check_env

    made = gym.make(GYM_ID)
    assert isinstance(made.unwrapped, GinRummyEnv)
    assert made.unwrapped.illegal == "penalty"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        check_env(made.unwrapped)  # random unmasked actions, determinism, render modes
    capsys.readouterr()  # the checker's "human" render prints
    obs, info = made.reset(seed=1)
    obs, reward, term, trunc, info = made.step(made.action_space.sample(info["action_mask"]))
    assert made.observation_space.contains(obs)
    made.close()


def test_make_vec_builds_the_batched_env() -> None:
    venv = gym.make_vec(GYM_ID, num_envs=3, opponent="simple")
    assert isinstance(venv, GinRummyVectorEnv) and isinstance(venv, gym.vector.VectorEnv)
    obs, info = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    assert obs.shape == (3, venv.single_observation_space.shape[0])
    sync = gym.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync")
    obs, info = sync.reset(seed=0)
    assert obs.shape[0] == 2 and info["action_mask"].shape == (2, NUM_ACTIONS)
    sync.close()
