"""Observation and action spaces: gymnasium spaces when gymnasium is installed, else small
stand-ins with the same ``shape``/``n``/``contains``/``sample`` so code can size networks
without the dependency.

>>> int(action_space().n)
107
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import _compat
from .encoding import NUM_ACTIONS, OBS_SIZE

__all__ = ["BoxSpec", "DictSpec", "DiscreteSpec", "action_space", "observation_space"]


@dataclass(frozen=True)
class BoxSpec:
    """A box of numbers in ``[low, high]`` with a fixed shape (stand-in for gymnasium's Box)."""

    shape: tuple[int, ...]
    low: float
    high: float
    dtype: str

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a flat sequence of the right length with values in range."""
        try:
            values = list(x)
        except TypeError:
            return False
        return len(values) == self.shape[0] and all(self.low <= v <= self.high for v in values)


@dataclass(frozen=True)
class DiscreteSpec:
    """The integers ``0 .. n-1`` (stand-in for gymnasium's Discrete)."""

    n: int

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an integer in range."""
        return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < self.n

    def sample(self, mask: Sequence[int] | None = None,
               rng: random.Random | None = None) -> int:
        """A uniformly random id, among those where ``mask`` is 1 when a mask is given."""
        r = rng or random
        if mask is None:
            return r.randrange(self.n)
        choices = [i for i, m in enumerate(mask) if m]
        if not choices:
            raise ValueError("The mask allows no action.")
        return r.choice(choices)


@dataclass(frozen=True)
class DictSpec:
    """Named sub-spaces (stand-in for gymnasium's Dict)."""

    spaces: dict[str, BoxSpec]

    def __getitem__(self, key: str) -> BoxSpec:
        return self.spaces[key]

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a mapping with exactly these keys, each value in its space."""
        return (isinstance(x, dict) and set(x) == set(self.spaces)
                and all(s.contains(x[k]) for k, s in self.spaces.items()))


def observation_space(with_mask: bool = False) -> Any:
    """The observation space: a box of ``OBS_SIZE`` floats in [0, 1]; with ``with_mask``, a
    dict of that box (``observation``) and the 107 ``action_mask`` flags (PettingZoo style)."""
    gym = _compat.gymnasium
    if gym is None:
        box = BoxSpec((OBS_SIZE,), 0.0, 1.0, "float32")
        if not with_mask:
            return box
        return DictSpec({"observation": box,
                         "action_mask": BoxSpec((NUM_ACTIONS,), 0, 1, "int8")})
    np = _compat.np
    obs = gym.spaces.Box(low=0.0, high=1.0, shape=(OBS_SIZE,), dtype=np.float32)
    if not with_mask:
        return obs
    return gym.spaces.Dict({
        "observation": obs,
        "action_mask": gym.spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
    })


def action_space() -> Any:
    """The action space: ``Discrete(107)`` (see :mod:`ginrummy.rl.encoding` for the ids)."""
    gym = _compat.gymnasium
    if gym is None:
        return DiscreteSpec(NUM_ACTIONS)
    return gym.spaces.Discrete(NUM_ACTIONS)
