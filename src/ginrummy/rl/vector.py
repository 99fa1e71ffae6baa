"""A batch of single-agent games stepped in one call: numpy observations, masks and rewards.

``GinRummyVectorEnv(num_envs, opponent=..., ...)`` holds ``num_envs``
:class:`~ginrummy.rl.gym_env.GinRummyEnv` games. ``reset(seed=s)`` seeds game ``k`` with
``s + k`` and returns ``(obs, info)``; ``step(actions)`` plays one action id per game and
returns ``(obs, rewards, terminated, truncated, info)`` as arrays of ``num_envs`` rows.
A game whose episode ended (or was cut off after ``max_hand_actions`` actions in one
hand, ``truncated``, as in ``GinRummyEnv``) is dealt again in the same step
(Gymnasium's ``SAME_STEP`` autoreset): its row of ``obs`` is the new episode's first
observation, and ``info["final_obs"]`` holds the last one (``info["_final_obs"]`` flags
those rows).
``info["action_mask"]`` (also :meth:`action_masks`) is the ``(num_envs, 107)`` int8 mask
of the observations returned. An illegal id gets ``illegal_penalty`` and changes nothing
in its game (``info["illegal_action"]`` flags it), as in ``GinRummyEnv``'s default.

With gymnasium installed it is a ``gymnasium.vector.VectorEnv``, and
``gymnasium.make_vec("ginrummy/GinRummy-v0", num_envs=8)`` builds it. Needs numpy.

>>> venv = GinRummyVectorEnv(4, opponent="random")
>>> obs, info = venv.reset(seed=0)
>>> obs.shape, info["action_mask"].shape
((4, 589), (4, 107))
>>> actions = [int(m.nonzero()[0][0]) for m in info["action_mask"]]
>>> obs, rewards, terminated, truncated, info = venv.step(actions)
>>> rewards.shape
(4,)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..bots import Bot
from ..options import Options
from . import _compat
from .encoding import ACTIONS, NUM_ACTIONS, OBS_SIZE, _as_id
from .gym_env import MAX_HAND_ACTIONS, GinRummyEnv, _check_seed
from .spaces import action_space, observation_space
from .tracker import is_legal

__all__ = ["GinRummyVectorEnv"]

_AUTORESET: Any = (getattr(_compat.gymnasium.vector, "AutoresetMode", None)
                   if _compat.gymnasium is not None else None)

if TYPE_CHECKING:
    _VecBase = object
else:
    _VecBase = (_compat.gymnasium.vector.VectorEnv if _compat.gymnasium is not None
                else object)


class GinRummyVectorEnv(_VecBase):
    """``num_envs`` games of one agent against ``opponent``, stepped together."""

    metadata: dict[str, Any] = {"render_modes": []}
    if _AUTORESET is not None:  # gymnasium >= 1.1 names the autoreset modes
        metadata["autoreset_mode"] = _AUTORESET.SAME_STEP

    def __init__(
        self,
        num_envs: int = 8,
        opponent: str | Bot = "random",
        episode: str = "hand",
        seat: int | None = None,
        options: Options | None = None,
        normalize: bool = False,
        illegal_penalty: float = -1.0,
        max_hand_actions: int = MAX_HAND_ACTIONS,
    ) -> None:
        np = _compat.np
        if np is None:
            raise ValueError("GinRummyVectorEnv needs numpy, which is not installed.")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}.")
        if isinstance(opponent, Bot) and num_envs > 1:
            raise ValueError("Give the opponent as a bot name: one Bot object cannot sit at "
                             "several tables at once.")
        self.num_envs = num_envs
        self.envs = [GinRummyEnv(opponent=opponent, episode=episode, seat=seat,
                                 options=options, normalize=normalize, illegal="penalty",
                                 illegal_penalty=illegal_penalty,
                                 max_hand_actions=max_hand_actions)
                     for _ in range(num_envs)]
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = None
        self.single_observation_space = observation_space()
        self.single_action_space = action_space()
        gym = _compat.gymnasium
        if gym is not None:
            self.observation_space = gym.vector.utils.batch_space(
                self.single_observation_space, num_envs)
            self.action_space = gym.spaces.MultiDiscrete([NUM_ACTIONS] * num_envs)
        self._obs = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self._started = False

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a new episode in every game; an int ``seed`` seeds game ``k`` with
        ``seed + k``, a sequence gives each game its own (None: continue its generator)."""
        if options is not None:
            raise ValueError("GinRummyVectorEnv.reset takes no options.")
        if seed is None or isinstance(seed, int):
            s = _check_seed(seed)
            seeds: list[int | None] = [None if s is None else s + k
                                       for k in range(self.num_envs)]
        else:
            seeds = [_check_seed(x) for x in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"Give {self.num_envs} seeds, not {len(seeds)}.")
        skipped = []
        for k, env in enumerate(self.envs):
            skipped.append(env._new_episode(seeds[k], env.seat))
            self._write(k)
        self._started = True
        np = _compat.np
        return self._obs.copy(), {"action_mask": self._masks.copy(),
                                  "seat": np.array([e.agent_seat for e in self.envs]),
                                  "skipped_hands": np.array(skipped)}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Play one action id per game (an array or sequence of ``num_envs`` ids)."""
        if not self._started:
            raise ValueError("Call reset() before step().")
        np = _compat.np
        ids = [_as_id(a) for a in actions]
        if len(ids) != self.num_envs:
            raise ValueError(f"Give {self.num_envs} actions, not {len(ids)}.")
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        illegal = np.zeros(n, dtype=bool)
        final_obs = None
        for k, env in enumerate(self.envs):
            action = ACTIONS[ids[k]]
            hand = env._current()
            if hand.to_play != env.agent_seat or not is_legal(action, hand.legal_actions()):
                rewards[k] = self.illegal_penalty
                illegal[k] = True
                continue
            reward, done, _ = env._play(action)
            rewards[k] = reward
            cut = not done and env._too_long()
            if done or cut:
                terminated[k] = done
                truncated[k] = cut
                if final_obs is None:
                    final_obs = np.empty(n, dtype=object)
                final_obs[k] = env._obs()
                env._new_episode(None, env.seat)
            self._write(k)
        info: dict[str, Any] = {"action_mask": self._masks.copy(), "illegal_action": illegal}
        if final_obs is not None:
            info["final_obs"] = final_obs
            info["_final_obs"] = terminated | truncated
        return self._obs.copy(), rewards, terminated, truncated, info

    def action_masks(self) -> Any:
        """The ``(num_envs, 107)`` legal-action flags of the current observations."""
        return self._masks.copy()

    def close(self, **kwargs: Any) -> None:
        """Nothing to release."""

    def _write(self, k: int) -> None:
        """Game ``k``'s observation and mask into the batch arrays."""
        env = self.envs[k]
        t = env._fast_tracker()
        assert t is not None
        t.observation(env.agent_seat, out=self._obs[k])
        t.action_mask(env.agent_seat, out=self._masks[k])
