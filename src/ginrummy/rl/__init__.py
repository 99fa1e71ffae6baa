"""Reinforcement-learning environments for Gin Rummy, built on the core's public API.

- :mod:`ginrummy.rl.encoding`: fixed-size observations of a seat's view (R11) and the
  107 action ids, with legal-action masks.
- :class:`GinRummyEnv`: one agent against a project bot, Gymnasium-style (a real
  ``gymnasium.Env`` when gymnasium is installed).
- :class:`GinRummyAECEnv`: two agents, PettingZoo AEC-style (a ``pettingzoo.AECEnv``
  when pettingzoo is installed); :func:`env` (wrapped) and :func:`raw_env` build it the
  way PettingZoo's classic games are built.
- :class:`GinRummyVectorEnv`: a batch of single-agent games stepped in one call (a
  ``gymnasium.vector.VectorEnv``), numpy in and out.

numpy, gymnasium and pettingzoo are optional: without numpy observations are lists.
See ``docs/rl.md``.
"""

from .encoding import (
    ACTIONS,
    ENCODING_VERSION,
    NUM_ACTIONS,
    OBS_SIZE,
    action_to_id,
    encode,
    encode_list,
    id_to_action,
    layout,
    legal_ids,
    legal_mask,
)
from .gym_env import GYM_ID, GinRummyEnv, IllegalActionIdError, register_gymnasium
from .pettingzoo import GinRummyAECEnv, env, raw_env
from .vector import GinRummyVectorEnv

__all__ = [
    "ACTIONS",
    "ENCODING_VERSION",
    "GYM_ID",
    "GinRummyAECEnv",
    "GinRummyEnv",
    "GinRummyVectorEnv",
    "IllegalActionIdError",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "action_to_id",
    "encode",
    "encode_list",
    "env",
    "id_to_action",
    "layout",
    "legal_ids",
    "legal_mask",
    "raw_env",
    "register_gymnasium",
]
