"""The environments' fast observations (a tracker updated at each action) equal the
encoding of the seat's view at every step: same knowledge, observation and mask (R11)."""

from __future__ import annotations

import random

import pytest

from ginrummy import Match, Options
from ginrummy.bots.random_bot import RandomBot
from ginrummy.knowledge import Knowledge
from ginrummy.rl import GinRummyAECEnv, GinRummyEnv
from ginrummy.rl.encoding import encode, legal_mask
from ginrummy.rl.tracker import HandTracker

np = pytest.importorskip("numpy", reason="the fast observations need numpy")

TABLES = [Options(), Options(gin_only=True), Options(oklahoma=True, target=150)]


def play_checked(match: Match, rng: random.Random, max_hands: int) -> int:
    """Random play (knocking often, so hands get scored) through several hands of
    ``match``, comparing the tracker with the views of both seats at every step."""
    checks = 0
    for _ in range(max_hands):
        hand = match.hand
        t = HandTracker(hand)
        while True:
            for seat in (0, 1):
                view = hand.view(seat)
                assert t.knowledge(seat) == Knowledge.of(view)
                assert np.array_equal(t.observation(seat), encode(view))
                assert np.array_equal(t.action_mask(seat), legal_mask(view))
                checks += 1
            if hand.is_over():
                break
            legal = hand.legal_actions()
            knocks = [a for a in legal if a.knock]
            t.apply(match.play(rng.choice(knocks if knocks and rng.random() < 0.6
                                          else legal)))
        if match.is_over():
            break
    return checks


@pytest.mark.parametrize("table", TABLES, ids=["standard", "gin_only", "oklahoma"])
def test_tracker_equals_the_view_encoding_at_every_step(table: Options) -> None:
    rng = random.Random(7)
    checks = sum(play_checked(Match(table, seed=s), rng, max_hands=3) for s in range(4))
    assert checks > 300


def test_tracker_starts_at_the_deal() -> None:
    m = Match(seed=1)
    m.play(m.legal_actions()[0])
    with pytest.raises(ValueError, match="already begun"):
        HandTracker(m.hand)


def test_observation_writes_into_a_given_row() -> None:
    m = Match(seed=2)
    t = HandTracker(m.hand)
    rows = np.full((2, 589), 7.0, dtype=np.float32)
    out = t.observation(1, out=rows[1])
    assert out.base is rows and np.array_equal(rows[1], encode(m.view(1)))
    assert (rows[0] == 7.0).all()


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_aec_observations_equal_the_view_encoding(episode: str) -> None:
    fast, slow = GinRummyAECEnv(episode=episode), GinRummyAECEnv(episode=episode,
                                                                 as_numpy=False)
    rng = random.Random(3)
    fast.reset(seed=11)
    slow.reset(seed=11)
    steps = 0
    for agent in fast.agent_iter(max_iter=500):
        obs, _, term, trunc, _ = fast.last()
        other = slow.observe(agent)
        assert np.array_equal(obs["observation"], np.asarray(other["observation"], np.float32))
        assert obs["action_mask"].tolist() == other["action_mask"]
        if term or trunc:
            fast.step(None)
            slow.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        knocks = [i for i in legal if i >= 55]
        action = rng.choice(knocks or legal)
        fast.step(action)
        slow.step(action)
        steps += 1
    assert steps > 50
    assert fast.rewards == slow.rewards and fast.infos == slow.infos


@pytest.mark.parametrize("opponent", ["random", "simple"])
def test_single_agent_observations_equal_the_view_encoding(opponent: str) -> None:
    env = GinRummyEnv(opponent=opponent, episode="match", seat=None)
    rng = random.Random(5)
    obs, info = env.reset(seed=4)
    for _ in range(400):
        view = info["view"]
        assert np.array_equal(obs, encode(view))
        assert np.array_equal(info["action_mask"], legal_mask(view))
        legal = np.flatnonzero(info["action_mask"]).tolist()
        obs, _, term, _, info = env.step(rng.choice(legal))
        if term:
            obs, info = env.reset()


class ViewRandom(RandomBot):
    """The random bot, but a subclass: the environment asks it through views."""


def test_random_opponent_plays_as_the_random_bot_does() -> None:
    """Without a view, the random opponent makes the same choices from the same seed."""
    for seed in range(4):
        traces = []
        for bot in (RandomBot(seed), ViewRandom(seed)):
            env = GinRummyEnv(opponent=bot, episode="match", seat=1)
            obs, info = env.reset(seed=seed)
            trace: list[object] = [obs.tolist()]
            rng = random.Random(seed)
            for _ in range(150):
                obs, reward, done, _, info = env.step(
                    rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
                trace.append((obs.tolist(), reward))
                if done:
                    break
            traces.append(trace)
        assert traces[0] == traces[1]
