"""A single-agent, Gymnasium-style environment: the agent holds one seat against a project bot.

``reset(seed=...)`` returns ``(obs, info)``; ``step(action_id)`` returns
``(obs, reward, terminated, truncated, info)``; ``info["action_mask"]`` flags the legal
action ids (see :mod:`ginrummy.rl.encoding`). The opponent decides from its own
:class:`~ginrummy.hand.View` only (R11), like every bot at the table.

Episodes: ``episode="hand"`` is one hand (R3-R9), rewarded with the points it moved:
``+points`` when the agent scores, ``-points`` when the opponent does, 0 for a dead hand
(R7, R9); ``normalize=True`` divides by 125, the most one hand can score (gin 25 + at most
100 deadwood), so rewards lie in [-1, 1]. ``episode="match"`` is a whole match (R10),
rewarded +1 / -1 / 0 (win, loss, tie at the hand limit) at its end and 0 before.

When gymnasium is installed the class is a real ``gymnasium.Env`` with ``Box``/``Discrete``
spaces, registered as ``ginrummy/GinRummy-v0``; without it, it keeps the same API.

>>> env = GinRummyEnv(opponent="random")
>>> obs, info = env.reset(seed=1)
>>> int(sum(info["action_mask"])) > 0
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..bots import Bot, BotError, make_bot
from ..bots.random_bot import RandomBot
from ..hand import Action, Hand, HandResult, IllegalActionError, Operation, View
from ..match import Match
from ..options import Options
from . import _compat
from .encoding import ACTIONS, _as_id, describe_action, encode, legal_ids, legal_mask
from .spaces import action_space, observation_space
from .tracker import HandTracker, is_legal

__all__ = [
    "EPISODES",
    "GYM_ID",
    "GinRummyEnv",
    "ILLEGAL_MODES",
    "IllegalActionIdError",
    "MAX_HAND_ACTIONS",
    "MAX_HAND_POINTS",
    "register_gymnasium",
    "signed_points",
    "view_text",
]

EPISODES = ("hand", "match")
ILLEGAL_MODES = ("raise", "penalty")
MAX_HAND_POINTS = 125
"""The most one hand can score (R9): gin's 25 plus at most 100 deadwood in 10 cards."""
GYM_ID = "ginrummy/GinRummy-v0"
MAX_HAND_ACTIONS = 1000
"""Actions after which a hand that has not ended is cut off (truncated): only players
who keep drawing from the discard pile get there (R5 and R7 set no limit)."""
_MAX_REDEALS = 1000

if TYPE_CHECKING:
    _EnvBase = object
else:
    _EnvBase = _compat.gymnasium.Env if _compat.gymnasium is not None else object


class IllegalActionIdError(ValueError):
    """An action id that is not legal for the agent now; the environment did not change."""


def signed_points(result: HandResult, seat: int) -> int:
    """The points a hand moved, seen from ``seat``: + if it scored, - if the other seat did
    (R9: only one player scores), 0 for a dead hand (R7)."""
    if result.scorer is None:
        return 0
    return result.points if result.scorer == seat else -result.points


def view_text(view: View) -> str:
    """A one-line text picture of a seat's view (for ``render``)."""
    top = str(view.discards[-1]) if view.discards else "-"
    hand = " ".join(str(c) for c in view.hand)
    turn = "your turn" if view.is_my_turn else ("over" if view.to_play is None else "waiting")
    return (f"seat {view.seat} | hand {view.hand_index} | {view.phase.value} ({turn}) | "
            f"hand: {hand} | top: {top} | stock {view.stock_count} | "
            f"scores {view.scores[0]}-{view.scores[1]}")


def _check_max_hand_actions(n: object) -> None:
    """``max_hand_actions`` is an integer of at least 10."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 10:
        raise ValueError(f"max_hand_actions must be an integer >= 10, not {n!r}.")


def _check_seed(seed: object) -> int | None:
    """A seed is None or an int; anything else is a clear error."""
    if seed is None or (isinstance(seed, int) and not isinstance(seed, bool)):
        return seed
    raise ValueError(f"A seed is an integer or None, not {seed!r}.")


class GinRummyEnv(_EnvBase):
    """The agent plays seat ``seat`` (0, 1, or None for a random seat each episode) against
    the bot ``opponent`` (a project bot name, or a :class:`~ginrummy.bots.Bot`).

    ``illegal="penalty"`` (default) answers an illegal action id with the same
    observation, reward ``illegal_penalty``, not terminated and
    ``info["illegal_action"] = True``, changing nothing (so Gymnasium's ``check_env``,
    which sends unmasked random actions, passes); ``illegal="raise"`` refuses it with
    :class:`IllegalActionIdError` (a ValueError), also changing nothing.

    The rules set no limit on draws from the discard pile (R5, R7), so two players who
    keep taking each other's discards never end a hand: a hand that reaches
    ``max_hand_actions`` actions (1000; real hands take under 100) ends the episode with
    ``truncated=True`` and reward 0.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        opponent: str | Bot = "simple",
        episode: str = "hand",
        seat: int | None = 0,
        options: Options | None = None,
        normalize: bool = False,
        illegal: str = "penalty",
        illegal_penalty: float = -1.0,
        render_mode: str | None = None,
        as_numpy: bool | None = None,
        max_hand_actions: int = MAX_HAND_ACTIONS,
    ) -> None:
        _check_max_hand_actions(max_hand_actions)
        if episode not in EPISODES:
            raise ValueError(f"episode must be 'hand' or 'match', not {episode!r}.")
        if seat not in (0, 1, None) or isinstance(seat, bool):
            raise ValueError(f"seat must be 0, 1 or None (random each episode), not {seat!r}.")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal must be 'raise' or 'penalty', not {illegal!r}.")
        if options is not None and not isinstance(options, Options):
            raise ValueError("options must be a ginrummy Options object (R12).")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}.")
        if isinstance(opponent, str):
            make_bot(opponent)  # fail now, clearly, on an unknown name
        elif not isinstance(opponent, Bot):
            raise BotError(f"opponent must be a bot name or a Bot, not {opponent!r}.")
        self.opponent = opponent
        self.episode = episode
        self.seat = seat
        self.table = options or Options()
        self.normalize = normalize
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.as_numpy = as_numpy
        self.max_hand_actions = max_hand_actions
        self.observation_space = observation_space()
        self.action_space = action_space()
        self._rng: random.Random | None = None
        self._match: Match | None = None
        self._hand: Hand | None = None  # the hand of a hand episode
        self._bot: Bot | None = None
        self._agent = 0
        self._done = True
        self._view: View | None = None
        # numpy observations come from a tracker updated at each action (the same values
        # as encode(view)); lists (as_numpy=False or no numpy) from views
        self._fast = _compat.np is not None and as_numpy is not False
        self._tracker: HandTracker | None = None
        self._bot_is_random = False

    # ------------------------------------------------------------------ API

    @property
    def agent_seat(self) -> int:
        """The seat the agent plays this episode."""
        return self._agent

    @property
    def match(self) -> Match | None:
        """The match being played (for inspection and records; agents should use obs)."""
        return self._match

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode; the same ``seed`` gives the same episode. Without a seed the
        environment's own generator (seeded by the last seed given) goes on.

        ``options`` may hold ``{"seat": 0 or 1}`` to pick the agent's seat for this episode.
        """
        seed = _check_seed(seed)
        seat = self.seat
        if options is not None:
            if not isinstance(options, Mapping) or set(options) - {"seat"}:
                raise ValueError("reset options may only hold 'seat'.")
            seat = options.get("seat", seat)
            if seat not in (0, 1, None) or isinstance(seat, bool):
                raise ValueError(f"seat must be 0, 1 or None, not {seat!r}.")
        if _compat.gymnasium is not None:
            _compat.gymnasium.Env.reset(self, seed=seed)
        skipped = self._new_episode(seed, seat)
        view = self._agent_view()
        info = self._info(view, [])
        info["skipped_hands"] = skipped
        return self._obs(view), info

    def _new_episode(self, seed: int | None, seat: int | None) -> int:
        """Deal until the agent has a decision (see :meth:`reset`); the hands skipped."""
        if seed is not None:
            self._rng = random.Random(seed)
        elif self._rng is None:
            self._rng = random.Random(random.SystemRandom().randrange(2**63))
        rng = self._rng
        skipped = 0
        while True:
            match_seed = rng.randrange(2**63)
            bot_seed = rng.randrange(2**63)
            agent = seat if seat is not None else rng.randrange(2)
            self._start(match_seed, agent, bot_seed)
            self._advance()
            if not self._episode_over():
                break
            # The opponent ended the hand (or match) before the agent had a decision: a
            # Gymnasium episode cannot start terminated, so deal again (counted in info).
            skipped += 1
            if skipped >= _MAX_REDEALS:  # pragma: no cover - ~1000 instant knocks in a row
                raise RuntimeError("Could not deal an episode in which the agent has a move.")
        self._done = False
        return skipped

    def step(self, action_id: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play the agent's action ``action_id`` (0..106), then the opponent's replies until
        the agent must act again or the episode ends."""
        if self._match is None:
            raise ValueError("Call reset() before step().")
        if self._done:
            raise ValueError("The episode is over: call reset() to start another.")
        i = _as_id(action_id)
        action = ACTIONS[i]
        hand = self._current()
        if hand.to_play != self._agent or not is_legal(action, hand.legal_actions()):
            view = self._agent_view()
            reason = self._why_illegal(i)
            if self.illegal == "raise":
                raise IllegalActionIdError(
                    f"Action {describe_action(i)} is not legal now: {reason} "
                    f"Legal ids: {legal_ids(view)}."
                )
            info = self._info(view, [])
            info["illegal_action"] = True
            info["error"] = reason
            return self._obs(view), self.illegal_penalty, False, False, info
        reward, terminated, ended = self._play(action)
        truncated = not terminated and self._too_long()
        self._done = terminated or truncated
        view = self._agent_view()
        if self.render_mode == "human":
            print(view_text(view))
        return self._obs(view), reward, terminated, truncated, self._info(view, ended)

    def _too_long(self) -> bool:
        """Whether the current hand has run to ``max_hand_actions`` (see the class doc)."""
        return len(self._current().history) >= self.max_hand_actions

    def _play(self, action: Action) -> tuple[float, bool, list[HandResult]]:
        """Play the agent's legal ``action`` and the opponent's replies; the reward, whether
        the episode ended and the hands that ended meanwhile."""
        match = self._match
        assert match is not None
        hand = match.hand
        self._record(match.play(action, self._agent), hand)
        self._view = None
        ended: list[HandResult] = []
        if hand.result is not None:
            ended.append(self._hand_over(hand))
        if not self._episode_over():
            ended += self._advance()
        terminated = self._episode_over()
        reward = 0.0
        if self.episode == "hand":
            if terminated and self._hand is not None and self._hand.result is not None:
                reward = float(signed_points(self._hand.result, self._agent))
                if self.normalize:
                    reward /= MAX_HAND_POINTS
        elif terminated:
            winner = match.winner
            reward = 0.0 if winner is None else (1.0 if winner == self._agent else -1.0)
        return reward, terminated, ended

    def _record(self, op: Operation, hand: Hand) -> None:
        """Pass an operation applied to ``hand`` to the tracker."""
        t = self._tracker
        if t is not None and t.hand is hand:
            t.apply(op)


    def render(self) -> str | None:
        """``ansi``: the agent's view as a line of text; ``human``: print it."""
        if self._match is None:
            return None
        text = view_text(self._agent_view())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (the project bots hold no resources)."""

    def action_mask(self) -> Any:
        """The legal-action flags now (the same as ``info["action_mask"]``)."""
        if self._match is None:
            raise ValueError("Call reset() first.")
        return self._mask()

    # ------------------------------------------------------------------ internals

    def _start(self, match_seed: int, agent: int, bot_seed: int) -> None:
        """A fresh match with the agent in seat ``agent`` and a freshly seeded opponent."""
        self._agent = agent
        bot = make_bot(self.opponent, bot_seed) if isinstance(self.opponent, str) \
            else self.opponent
        self._bot = bot
        bot.new_match(1 - agent)
        self._bot_is_random = type(bot) is RandomBot
        # a hand episode needs only the first hand: no second deal when it ends
        self._match = Match(self.table, seed=match_seed, auto_deal=self.episode == "match")
        if self.episode == "hand":
            self._match.start_hand()
        self._hand = self._match.hand
        self._tracker = HandTracker(self._hand) if self._fast else None
        self._view = None

    def _episode_over(self) -> bool:
        """Whether the episode's hand (hand mode) or the match (match mode) has ended."""
        assert self._match is not None
        if self.episode == "hand":
            assert self._hand is not None
            return self._hand.is_over()
        return self._match.is_over()

    def _advance(self) -> list[HandResult]:
        """Let the opponent play from its own view (R11) until the agent is to act or the
        episode ends; returns the results of hands that ended meanwhile."""
        match, bot = self._match, self._bot
        assert match is not None and bot is not None
        opp = 1 - self._agent
        ended: list[HandResult] = []
        while not self._episode_over():
            hand = match.hand
            if hand.to_play != opp:
                break
            if self._bot_is_random:
                # what RandomBot.decide(view) does, without building the view
                action = bot.rng.choice(hand.legal_actions())
            else:
                view = match.view(opp)
                action = bot.decide(view)
                if action not in view.legal:
                    raise BotError(f"The opponent bot {bot.name!r} chose an illegal action: "
                                   f"{action}.")
            self._record(match.play(action, opp), hand)
            if hand.result is not None:
                ended.append(self._hand_over(hand))
        self._view = None
        return ended

    def _hand_over(self, hand: Hand) -> HandResult:
        """Tell the opponent how a hand ended (its own final view, R11) and pass it on."""
        assert hand.result is not None and self._bot is not None
        if not self._bot_is_random:  # RandomBot ignores it: no view to build
            self._bot.hand_over(hand.view(1 - self._agent), hand.result)
        match = self._match
        if self._tracker is not None and match is not None and match.hand is not hand:
            self._tracker = HandTracker(match.hand)  # the next hand of the match, as dealt
        return hand.result

    def _agent_view(self) -> View:
        """The agent's view of the episode's current hand (cached until the next move)."""
        if self._view is None:
            assert self._match is not None
            hand = self._hand if self.episode == "hand" else self._match.hand
            assert hand is not None
            self._view = hand.view(self._agent)
        return self._view

    def _why_illegal(self, i: int) -> str:
        """The rules' sentence for refusing action id ``i`` (R5: refusals say why)."""
        assert self._match is not None
        try:
            self._match.verify(ACTIONS[i], self._agent)
        except IllegalActionError as e:
            return str(e)
        return "it is not among the legal actions."  # pragma: no cover - verify agrees

    def _current(self) -> Hand:
        """The episode's hand (hand mode) or the match's current hand (match mode)."""
        assert self._match is not None
        hand = self._hand if self.episode == "hand" else self._match.hand
        assert hand is not None
        return hand

    def _fast_tracker(self) -> HandTracker | None:
        """The tracker of the current hand, when observations are numpy arrays."""
        t = self._tracker
        assert t is None or t.hand is self._current()
        return t

    def _obs(self, view: View | None = None) -> Any:
        t = self._fast_tracker()
        if t is not None:
            return t.observation(self._agent)
        return encode(view or self._agent_view(), self.as_numpy)

    def _mask(self, view: View | None = None) -> Any:
        t = self._fast_tracker()
        if t is not None:
            return t.action_mask(self._agent)
        return legal_mask(view or self._agent_view(), self.as_numpy)

    def _info(self, view: View, ended: list[HandResult]) -> dict[str, Any]:
        """The step's info: the mask, the seat, the agent's view and finished hands."""
        assert self._match is not None
        info: dict[str, Any] = {
            "action_mask": self._mask(view),
            "seat": self._agent,
            "view": view,
            "scores": self._match.scores,
            "hand_results": [r.to_json() for r in ended],
            "hand_points": sum(signed_points(r, self._agent) for r in ended),
        }
        if self._match.is_over():
            info["winner"] = self._match.winner
        return info


def register_gymnasium() -> bool:
    """Register ``ginrummy/GinRummy-v0`` with gymnasium (if installed); True if available."""
    gym = _compat.gymnasium
    if gym is None:
        return False
    if GYM_ID not in gym.registry:
        gym.register(id=GYM_ID, entry_point="ginrummy.rl.gym_env:GinRummyEnv",
                     vector_entry_point="ginrummy.rl.vector:GinRummyVectorEnv")
    return True


register_gymnasium()
