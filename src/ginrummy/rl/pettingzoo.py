"""A two-agent AEC (agent environment cycle) environment following PettingZoo's API.

Agents ``player_0`` and ``player_1`` hold seats 0 and 1. ``observe(agent)`` returns
``{"observation": ..., "action_mask": ...}`` built from that seat's view only (R11; the
mask is all zeros when the agent is not to act); ``step(action_id)`` plays for
``agent_selection``; ``last()``, ``rewards``, ``terminations``, ``truncations``,
``infos`` and ``agent_iter()`` behave as in PettingZoo. When pettingzoo is installed the
class subclasses ``pettingzoo.AECEnv``; without it, a small built-in base supplies the
same helper methods (``last``, ``agent_iter``, dead-agent steps), so it works duck-typed.

As PettingZoo's classic games, :func:`env` gives it wrapped (order enforcing, bounds
checks, an illegal move ending the episode with :func:`illegal_reward`) and
:func:`raw_env` bare (an illegal move raises and changes nothing). With numpy,
observations come from a :class:`~ginrummy.rl.tracker.HandTracker` updated at each step
(the same values as encoding the seat's view, without rebuilding it).

Episodes and rewards are as in :mod:`ginrummy.rl.gym_env`: ``episode="hand"`` gives each
player the signed points of the hand (zero-sum, R9), ``episode="match"`` gives +1/-1
(0 and 0 for a tie at the hand limit, R10) at the end of the match.

>>> env = GinRummyAECEnv()
>>> env.reset(seed=2)
>>> sorted(env.observe(env.agent_selection))
['action_mask', 'observation']
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..hand import Hand, IllegalActionError, View
from ..match import Match
from ..options import Options
from . import _compat
from .encoding import ACTIONS, _as_id, describe_action, encode, legal_ids, legal_mask
from .gym_env import (
    EPISODES,
    MAX_HAND_ACTIONS,
    MAX_HAND_POINTS,
    IllegalActionIdError,
    _check_max_hand_actions,
    _check_seed,
    signed_points,
    view_text,
)
from .spaces import action_space, observation_space
from .tracker import HandTracker, is_legal

__all__ = ["AGENTS", "GinRummyAECEnv", "env", "illegal_reward", "raw_env"]

AGENTS = ("player_0", "player_1")
"""Agent names; ``player_s`` plays seat ``s``."""
_SEAT = {a: s for s, a in enumerate(AGENTS)}


class _DuckAECEnv:
    """The parts of ``pettingzoo.AECEnv`` that environments inherit, for use when pettingzoo
    is not installed: the same names and semantics (``last``, ``agent_iter``, dead steps)."""

    possible_agents: list[str]
    agents: list[str]
    rewards: dict[str, float]
    _cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]
    agent_selection: str
    _skip_agent_selection: str | None = None

    def observe(self, agent: str) -> Any:
        """The observation of ``agent`` (overridden)."""
        raise NotImplementedError

    @property
    def num_agents(self) -> int:
        """Agents still in the episode."""
        return len(self.agents)

    @property
    def max_num_agents(self) -> int:
        """All agents that can appear."""
        return len(self.possible_agents)

    @property
    def unwrapped(self) -> _DuckAECEnv:
        """The environment itself (no wrappers here)."""
        return self

    def _clear_rewards(self) -> None:
        """Zero the per-step rewards."""
        for agent in self.rewards:
            self.rewards[agent] = 0.0

    def _accumulate_rewards(self) -> None:
        """Add this step's rewards to each agent's reward since it last acted."""
        for agent, reward in self.rewards.items():
            self._cumulative_rewards[agent] += reward

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, reward since it last acted, terminated, truncated and info of the
        agent to act (``agent_selection``)."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """Yield ``agent_selection`` until every agent is done (step each one)."""
        left = max_iter
        while self.agents and left > 0:
            left -= 1
            yield self.agent_selection

    def _was_dead_step(self, action: Any) -> None:
        """Step a terminated agent: the action must be None; the agent leaves the episode
        and the next done agent (or the live one) is selected."""
        if action is not None:
            raise ValueError("When an agent is done, the only valid action is None.")
        agent = self.agent_selection
        for d in (self.terminations, self.truncations, self.rewards,
                  self._cumulative_rewards, self.infos):
            del d[agent]
        self.agents.remove(agent)
        dead = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if dead:
            if self._skip_agent_selection is None:
                self._skip_agent_selection = self.agent_selection
            self.agent_selection = dead[0]
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        self._clear_rewards()


if TYPE_CHECKING:
    _AECBase = _DuckAECEnv
else:
    _AECBase = _compat.pettingzoo.AECEnv if _compat.pettingzoo is not None else _DuckAECEnv


class GinRummyAECEnv(_AECBase):
    """Two learning agents at one table (self-play, or any two policies).

    A hand that reaches ``max_hand_actions`` actions without ending (only possible when
    the players keep drawing from the discard pile: R5 and R7 set no limit) truncates
    both agents, with reward 0.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "ginrummy_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        episode: str = "hand",
        options: Options | None = None,
        normalize: bool = False,
        render_mode: str | None = None,
        as_numpy: bool | None = None,
        max_hand_actions: int = MAX_HAND_ACTIONS,
    ) -> None:
        _check_max_hand_actions(max_hand_actions)
        if episode not in EPISODES:
            raise ValueError(f"episode must be 'hand' or 'match', not {episode!r}.")
        if options is not None and not isinstance(options, Options):
            raise ValueError("options must be a ginrummy Options object (R12).")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}.")
        self.episode = episode
        self.table = options or Options()
        self.normalize = normalize
        self.render_mode = render_mode
        self.as_numpy = as_numpy
        self.max_hand_actions = max_hand_actions
        self.possible_agents = list(AGENTS)
        self.agents = []
        self.observation_spaces = {a: observation_space(with_mask=True) for a in AGENTS}
        self.action_spaces = {a: action_space() for a in AGENTS}
        self.rewards = {}
        self._cumulative_rewards = {}
        self.terminations = {}
        self.truncations = {}
        self.infos = {}
        self.agent_selection = AGENTS[0]
        self._skip_agent_selection = None
        self._rng: random.Random | None = None
        self._match: Match | None = None
        self._hand: Hand | None = None
        # numpy observations come from a tracker updated at each step (same values as
        # encode(view), far faster); lists (as_numpy=False or no numpy) from views
        self._fast = _compat.np is not None and as_numpy is not False
        self._tracker: HandTracker | None = None
        self._infos_dirty = False

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> Any:
        """A dict of the observation box and the 107 action-mask flags."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        """``Discrete(107)``: see :mod:`ginrummy.rl.encoding` for the ids."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API

    @property
    def match(self) -> Match | None:
        """The match being played (for inspection and records)."""
        return self._match

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new episode; the same ``seed`` gives the same deals. ``options`` is
        accepted for PettingZoo API compatibility and ignored (table options are set in the
        constructor)."""
        seed = _check_seed(seed)
        if seed is not None:
            self._rng = random.Random(seed)
        elif self._rng is None:
            self._rng = random.Random(random.SystemRandom().randrange(2**63))
        # a hand episode needs only the first hand: no second deal when it ends
        self._match = Match(self.table, seed=self._rng.randrange(2**63),
                            auto_deal=self.episode == "match")
        if self.episode == "hand":
            self._match.start_hand()
        self._hand = self._match.hand
        self._tracker = HandTracker(self._hand) if self._fast else None
        self._infos_dirty = False
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {"seat": s} for s, a in enumerate(AGENTS)}
        self._skip_agent_selection = None
        self._select()

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"observation", "action_mask"}`` of ``agent``, from its own view (R11)."""
        seat = self._seat_of(agent)
        t = self._tracker
        if t is not None:
            return {"observation": t.observation(seat), "action_mask": t.action_mask(seat)}
        view = self._view(seat)
        return {"observation": encode(view, self.as_numpy),
                "action_mask": legal_mask(view, self.as_numpy)}

    def step(self, action: Any) -> None:
        """Play ``action`` (an id 0..106) for ``agent_selection``; a done agent must pass
        None. An illegal id raises :class:`~ginrummy.rl.gym_env.IllegalActionIdError` (a
        ValueError) and changes nothing."""
        match = self._match
        if match is None:
            raise ValueError("Call reset() before step().")
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        if agent not in self.agents:
            raise ValueError("The episode is over: call reset() to start another.")
        seat = _SEAT[agent]
        i = _as_id(action)
        act = ACTIONS[i]
        hand = match.hand
        if hand.to_play != seat or not is_legal(act, hand.legal_actions()):
            try:
                match.verify(act, seat)
                reason = "it is not among the legal actions."  # pragma: no cover
            except IllegalActionError as e:
                reason = str(e)
            raise IllegalActionIdError(
                f"Action {describe_action(i)} is not legal for {agent} now: {reason} "
                f"Legal ids: {legal_ids(self._view(seat))}."
            )
        self._cumulative_rewards[agent] = 0.0
        op = match.play(act, seat)
        if self._tracker is not None:
            self._tracker.apply(op)
        if self._infos_dirty:
            for s, a in enumerate(AGENTS):
                self.infos[a] = {"seat": s}
            self._infos_dirty = False
        if hand.result is None:
            # rewards are all zero between the deal and the end (set only when it ends)
            if len(hand.history) >= self.max_hand_actions:
                self._clear_rewards()  # an endless hand is cut off: both truncated
                self.truncations = dict.fromkeys(AGENTS, True)
                self.agent_selection = AGENTS[1 - seat]
            else:
                self._select()
        else:
            self._hand_ended(hand, seat)
        if self.render_mode == "human":
            self.render()

    def _hand_ended(self, hand: Hand, seat: int) -> None:
        """Score the hand that ``seat``'s action ended: infos, rewards and terminations."""
        match = self._match
        assert match is not None and hand.result is not None
        self._clear_rewards()
        result = hand.result
        for s, a in enumerate(AGENTS):
            self.infos[a] = {"seat": s, "hand_result": result.to_json(), "scores": match.scores}
        self._infos_dirty = True
        done = False
        if self.episode == "hand":
            done = True
            for s, a in enumerate(AGENTS):
                pts = float(signed_points(result, s))
                self.rewards[a] = pts / MAX_HAND_POINTS if self.normalize else pts
        elif match.is_over():
            done = True
            winner = match.winner
            for s, a in enumerate(AGENTS):
                self.rewards[a] = 0.0 if winner is None else (1.0 if winner == s else -1.0)
                self.infos[a]["winner"] = winner
        if done:
            self.terminations = dict.fromkeys(AGENTS, True)
            self.agent_selection = AGENTS[1 - seat]
        else:
            if self._tracker is not None:
                self._tracker = HandTracker(match.hand)
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: both seats' views as text; ``human``: print them."""
        if self._match is None:
            return None
        text = "\n".join(view_text(self._view(s)) for s in (0, 1))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------ internals

    def _seat_of(self, agent: str) -> int:
        try:
            return _SEAT[agent]
        except (KeyError, TypeError):
            raise ValueError(f"Unknown agent {agent!r}: use 'player_0' or 'player_1'.") from None

    def _current_hand(self) -> Hand:
        """The episode's hand (hand mode) or the match's current hand (match mode)."""
        assert self._match is not None
        if self.episode == "hand":
            assert self._hand is not None
            return self._hand
        return self._match.hand

    def _view(self, seat: int) -> View:
        if self._match is None:
            raise ValueError("Call reset() first.")
        return self._current_hand().view(seat)

    def _select(self) -> None:
        """Point ``agent_selection`` at the seat to play."""
        to_play = self._current_hand().to_play
        assert to_play is not None
        self.agent_selection = AGENTS[to_play]


def raw_env(**kwargs: Any) -> GinRummyAECEnv:
    """The environment without PettingZoo's wrappers (PettingZoo's classic naming): an
    illegal action id raises :class:`~ginrummy.rl.gym_env.IllegalActionIdError`."""
    return GinRummyAECEnv(**kwargs)


def illegal_reward(episode: str = "hand", normalize: bool = False) -> float:
    """The reward of an illegal move under :func:`env`: the worst outcome of the episode
    (-125 points for a raw hand, -1 for a normalised hand or a match), so that an illegal
    move never pays better than playing on."""
    return -float(MAX_HAND_POINTS) if episode == "hand" and not normalize else -1.0


def env(**kwargs: Any) -> Any:
    """The environment as PettingZoo's classic games ship it, when pettingzoo is installed:
    ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw)))``. An
    illegal action id ends the episode: the offender gets :func:`illegal_reward`, the other
    agent 0. Without pettingzoo, the bare environment."""
    e = GinRummyAECEnv(**kwargs)
    if _compat.pettingzoo is None:
        return e
    wrappers = _compat.load("pettingzoo.utils.wrappers")
    penalty = illegal_reward(e.episode, e.normalize)
    return wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(e, penalty)))
