"""The single-agent environment: episodes, rewards (R9, R10), seeding, illegal actions
refused without change (R5), and an opponent that sees only its own view (R11)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from ginrummy import Action, Match, View
from ginrummy.bots import Bot, BotError, make_bot
from ginrummy.knowledge import Knowledge
from ginrummy.rl.encoding import NUM_ACTIONS, OBS_SIZE
from ginrummy.rl.gym_env import GinRummyEnv, IllegalActionIdError


def pick(info: dict[str, Any], rng: random.Random) -> int:
    return rng.choice([i for i, m in enumerate(info["action_mask"]) if m])


def run_episode(env: GinRummyEnv, seed: int, rng: random.Random) -> tuple[list[Any], float]:
    obs, info = env.reset(seed=seed)
    trace: list[Any] = [list(obs)]
    total = 0.0
    for _ in range(5000):
        obs, reward, term, trunc, info = env.step(pick(info, rng))
        trace.append((list(obs), reward))
        total += reward
        if term or trunc:
            return trace, total
    raise AssertionError("episode did not end")


def expected_hand_points(match: Match, seat: int) -> int:
    """R9: the scorer gains the points, the other player loses them; dead hands 0 (R7)."""
    result = match.hands[0].result
    assert result is not None
    if result.scorer is None:
        return 0
    return result.points if result.scorer == seat else -result.points


@pytest.mark.parametrize("opponent", ["simple", "random"])
def test_hand_episodes_end_with_the_hands_points(opponent: str) -> None:
    env = GinRummyEnv(opponent=opponent, seat=None)
    rng = random.Random(3)
    seats = set()
    for seed in range(25):
        _, total = run_episode(env, seed, rng)
        assert env.match is not None
        seats.add(env.agent_seat)
        assert total == expected_hand_points(env.match, env.agent_seat)
    assert seats == {0, 1}


def test_normalised_hand_rewards_lie_in_unit_range() -> None:
    env = GinRummyEnv(opponent="simple", normalize=True)
    rng = random.Random(4)
    seen_nonzero = False
    for seed in range(15):
        _, total = run_episode(env, seed, rng)
        assert env.match is not None
        assert -1.0 <= total <= 1.0
        assert total == pytest.approx(expected_hand_points(env.match, 0) / 125)
        seen_nonzero |= total != 0
    assert seen_nonzero


def test_match_episodes_reward_the_winner_r10() -> None:
    env = GinRummyEnv(opponent="simple", episode="match")
    rng = random.Random(5)
    for seed in range(3):
        trace, total = run_episode(env, seed, rng)
        m = env.match
        assert m is not None and m.is_over()
        assert all(r == 0 for _, r in trace[1:-1])
        assert total == (0 if m.winner is None else (1 if m.winner == 0 else -1))


def test_terminal_info_and_mask() -> None:
    env = GinRummyEnv(opponent="simple")
    obs, info = env.reset(seed=8)
    assert len(obs) == OBS_SIZE and len(info["action_mask"]) == NUM_ACTIONS
    assert isinstance(info["view"], View) and info["view"].seat == 0
    rng = random.Random(8)
    while True:
        obs, reward, term, trunc, info = env.step(pick(info, rng))
        if term:
            break
    assert sum(info["action_mask"]) == 0 and not trunc
    assert info["hand_results"] and info["hand_points"] == reward
    with pytest.raises(ValueError, match="episode is over"):
        env.step(0)


def test_same_seed_same_episode() -> None:
    a, b = GinRummyEnv(opponent="simple", seat=None), GinRummyEnv(opponent="simple", seat=None)
    for seed in (1, 2, 3):
        ta, ra = run_episode(a, seed, random.Random(seed))
        tb, rb = run_episode(b, seed, random.Random(seed))
        assert ta == tb and ra == rb
    # Unseeded resets continue the generator of the last seed: also reproducible.
    a.reset(seed=10)
    b.reset(seed=10)
    oa, _ = a.reset()
    ob, _ = b.reset()
    assert list(oa) == list(ob)
    firsts = {tuple(run_episode(a, s, random.Random(0))[0][0]) for s in range(6)}
    assert len(firsts) > 1  # different seeds, different deals


def _snapshot(env: GinRummyEnv) -> str:
    assert env.match is not None
    return json.dumps([env.match.to_record(), env.match.view(0).to_json(),
                       env.match.view(1).to_json()])


def test_illegal_ids_are_refused_and_change_nothing_r5() -> None:
    env = GinRummyEnv(opponent="simple", illegal="raise")
    obs, info = env.reset(seed=12)
    illegal = [i for i, m in enumerate(info["action_mask"]) if not m]
    before = _snapshot(env)
    for i in illegal[:20]:
        with pytest.raises(IllegalActionIdError, match="is not legal now"):
            env.step(i)
        assert _snapshot(env) == before
    for bad in (-1, NUM_ACTIONS, "1", 1.0, True):
        with pytest.raises(ValueError):
            env.step(bad)
        assert _snapshot(env) == before
    env.step(pick(info, random.Random(0)))  # still playable
    assert _snapshot(env) != before


def test_illegal_straight_back_says_why_r5() -> None:
    """A refused discard quotes the rule's sentence (R5)."""
    env = GinRummyEnv(opponent="simple", illegal="raise")
    for seed in range(200):
        _, info = env.reset(seed=seed)
        if info["action_mask"][2]:
            _, _, term, _, info = env.step(2)  # take the up-card
            taken = Knowledge.of(info["view"]).taken
            assert taken is not None and not info["action_mask"][3 + taken]
            with pytest.raises(ValueError, match="You cannot put that straight back."):
                env.step(3 + taken)
            return
    pytest.fail("no deal offered the up-card to the agent")


def test_penalty_mode_returns_the_same_state() -> None:
    assert GinRummyEnv().illegal == "penalty"  # the default, so that check_env passes
    env = GinRummyEnv(opponent="simple", illegal_penalty=-2.5)
    obs, info = env.reset(seed=13)
    before = _snapshot(env)
    bad = next(i for i, m in enumerate(info["action_mask"]) if not m)
    obs2, reward, term, trunc, info2 = env.step(bad)
    assert reward == -2.5 and not term and not trunc and info2["illegal_action"]
    assert list(obs2) == list(obs) and _snapshot(env) == before
    assert list(info2["action_mask"]) == list(info["action_mask"])


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(BotError, match="Unknown bot"):
        GinRummyEnv(opponent="nobody")
    with pytest.raises(ValueError, match="episode"):
        GinRummyEnv(episode="game")
    with pytest.raises(ValueError, match="seat"):
        GinRummyEnv(seat=2)
    with pytest.raises(ValueError, match="illegal"):
        GinRummyEnv(illegal="ignore")
    env = GinRummyEnv()
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed="7")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seat"):
        env.reset(options={"hand": 1})


class SpyBot(Bot):
    """Records the views it is given and plays like ``simple``."""

    name = "spy"

    def __init__(self) -> None:
        super().__init__(0)
        self.inner = make_bot("simple", 0)
        self.views: list[View] = []

    def decide(self, view: View) -> Action:
        self.views.append(view)
        return self.inner.decide(view)


def test_opponent_decides_from_its_own_view_r11() -> None:
    spy = SpyBot()
    env = GinRummyEnv(opponent=spy, seat=1)
    rng = random.Random(1)
    for seed in range(5):
        run_episode(env, seed, rng)
    assert spy.views
    for v in spy.views:
        assert isinstance(v, View) and v.seat == 0 and v.is_my_turn and v.legal
        assert v.revealed is None
