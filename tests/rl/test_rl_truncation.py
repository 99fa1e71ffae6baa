"""R5 and R7 set no limit on draws from the discard pile: players who keep taking each
other's discards never end a hand. The environments cut such a hand off after
``max_hand_actions`` actions with ``truncated`` (reward 0) instead of running forever."""

from __future__ import annotations

import pytest

from ginrummy.bots import Bot
from ginrummy.hand import Action, View
from ginrummy.rl import GinRummyAECEnv, GinRummyEnv, GinRummyVectorEnv
from ginrummy.rl.encoding import action_to_id


def pile_first(legal: tuple[Action, ...] | list[Action]) -> Action:
    """Always take the pile's top (R4, R5) and never knock: a hand that never ends."""
    for a in legal:
        if a.act == "draw" and a.source == "discard":
            return a
    return next(a for a in legal if not (a.act == "discard" and a.knock))


class PileBot(Bot):
    name = "pile"

    def decide(self, view: View) -> Action:
        return pile_first(view.legal)


def pile_id(mask: object) -> int:
    from ginrummy.rl.encoding import ACTIONS

    legal = [ACTIONS[i] for i, m in enumerate(mask) if m]  # type: ignore[call-overload]
    return action_to_id(pile_first(legal))


def test_single_agent_episode_is_truncated() -> None:
    env = GinRummyEnv(opponent=PileBot(), max_hand_actions=40)
    obs, info = env.reset(seed=1)
    steps = 0
    while steps < 100:
        obs, reward, term, trunc, info = env.step(pile_id(info["action_mask"]))
        steps += 1
        if trunc:
            break
    assert trunc and not term and reward == 0
    assert env.match is not None and not env.match.hand.is_over()
    assert 40 <= len(env.match.hand.history) <= 43 and steps < 25  # + replies
    with pytest.raises(ValueError, match="episode is over"):
        env.step(pile_id(info["action_mask"]))


def test_aec_agents_are_truncated() -> None:
    env = GinRummyAECEnv(max_hand_actions=30)
    env.reset(seed=2)
    for _agent in env.agent_iter(max_iter=200):
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0
            env.step(None)
        else:
            env.step(pile_id(obs["action_mask"]))
    assert env.agents == [] and env.match is not None
    assert len(env.match.hand.history) == 30 and not env.match.hand.is_over()


def test_vector_game_is_truncated_and_dealt_again() -> None:
    venv = GinRummyVectorEnv(1, opponent=PileBot(), max_hand_actions=20)
    obs, info = venv.reset(seed=3)
    for _ in range(30):
        obs, rewards, term, trunc, info = venv.step([pile_id(info["action_mask"][0])])
        if trunc[0]:
            break
    assert trunc[0] and not term[0] and rewards[0] == 0 and info["_final_obs"][0]
    assert len(venv.envs[0].match.hand.history) < 5  # type: ignore[union-attr]


def test_bad_limit_is_refused() -> None:
    for bad in (0, 9, "100", True):
        with pytest.raises(ValueError, match="max_hand_actions"):
            GinRummyEnv(max_hand_actions=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="max_hand_actions"):
            GinRummyAECEnv(max_hand_actions=bad)  # type: ignore[arg-type]
