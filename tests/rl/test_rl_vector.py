"""The batched environment: the same games as single environments seeded alike,
same-step autoreset, masks, illegal ids and bad input."""

from __future__ import annotations

import random

import pytest

from ginrummy.rl import GinRummyEnv, GinRummyVectorEnv
from ginrummy.rl.encoding import NUM_ACTIONS, OBS_SIZE

np = pytest.importorskip("numpy", reason="GinRummyVectorEnv needs numpy")


def choose(masks: object, rng: random.Random) -> list[int]:
    return [rng.choice(np.flatnonzero(m).tolist()) for m in masks]  # type: ignore[union-attr]


def test_each_game_is_the_single_env_seeded_alike() -> None:
    n, seed = 3, 20
    venv = GinRummyVectorEnv(n, opponent="simple", seat=None)
    singles = [GinRummyEnv(opponent="simple", seat=None) for _ in range(n)]
    obs, info = venv.reset(seed=seed)
    single_info = []
    for k, e in enumerate(singles):
        o, i = e.reset(seed=seed + k)
        assert np.array_equal(obs[k], o) and np.array_equal(info["action_mask"][k],
                                                            i["action_mask"])
        single_info.append(i)
    rng = random.Random(0)
    episodes = 0
    for _ in range(120):
        actions = choose(info["action_mask"], rng)
        obs, rewards, term, trunc, info = venv.step(actions)
        assert obs.shape == (n, OBS_SIZE) and info["action_mask"].shape == (n, NUM_ACTIONS)
        assert not trunc.any()
        for k, e in enumerate(singles):
            o, r, t, _, i = e.step(actions[k])
            assert rewards[k] == r and term[k] == t
            if t:  # same-step autoreset: the final observation is kept in info
                episodes += 1
                assert info["_final_obs"][k] and np.array_equal(info["final_obs"][k], o)
                o, i = e.reset()
            assert np.array_equal(obs[k], o)
            assert np.array_equal(info["action_mask"][k], i["action_mask"])
    assert episodes >= 3
    assert np.array_equal(venv.action_masks(), info["action_mask"])


def test_illegal_ids_get_the_penalty_and_change_nothing() -> None:
    venv = GinRummyVectorEnv(2, illegal_penalty=-3.0)
    obs, info = venv.reset(seed=1)
    masks = info["action_mask"]
    bad = int(np.flatnonzero(masks[0] == 0)[0])
    good = int(np.flatnonzero(masks[1])[0])
    obs2, rewards, term, _, info2 = venv.step([bad, good])
    assert rewards[0] == -3.0 and not term[0] and info2["illegal_action"].tolist() == [True,
                                                                                       False]
    assert np.array_equal(obs2[0], obs[0]) and np.array_equal(info2["action_mask"][0],
                                                              masks[0])


def test_bad_input_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        GinRummyVectorEnv(0)
    with pytest.raises(ValueError, match="Unknown bot|bot"):
        GinRummyVectorEnv(2, opponent="nobody")
    venv = GinRummyVectorEnv(2)
    with pytest.raises(ValueError, match="reset"):
        venv.step([0, 0])
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="2 actions"):
        venv.step([1])
    with pytest.raises(ValueError, match="ids run from 0"):
        venv.step([1, 500])
    with pytest.raises(ValueError, match="2 seeds"):
        venv.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed="x")  # type: ignore[arg-type]
