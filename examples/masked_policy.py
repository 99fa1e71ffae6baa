"""A small masked policy for ginrummy.rl, in numpy only: the model the examples train,
save (.npz) and play.

The policy is linear, with its discard weights shared by the 52 cards: the logit of
"discard card i" (and of "discard i and knock") is a weighted sum of card i's values in
the eleven observation planes (held, on the pile, deadwood left after discarding it, ...)
and a constant; the deadwood plane is scaled to tens of points, so that a few updates can
tell a 3-point difference. The logits of pass / draw from the stock / draw from the pile
are a linear function of the whole observation. Illegal actions get probability 0 (the
mask). About 1,800 weights: it learns in minutes on a CPU.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ginrummy.rl.encoding import OBS_SIZE, PLANES

N_PLANES = len(PLANES)  # 11 planes of 52 cards
CARD_FEATURES = N_PLANES + 1  # a card's planes and a constant
FORMAT = "ginrummy-masked-policy/2"
_SCALE = np.array([1.0] * (N_PLANES - 1) + [10.0, 1.0])  # deadwood_after in tens of points


def card_features(obs: np.ndarray) -> np.ndarray:
    """(B, 52, CARD_FEATURES): each card's plane values (scaled) and a 1."""
    b = obs.shape[0]
    planes = obs[:, : 52 * N_PLANES].reshape(b, N_PLANES, 52).transpose(0, 2, 1)
    ones = np.ones((b, 52, 1), dtype=obs.dtype)
    return np.concatenate([planes, ones], axis=2) * _SCALE


def with_bias(obs: np.ndarray) -> np.ndarray:
    """(B, OBS_SIZE + 1): the observations and a constant 1."""
    return np.concatenate([obs, np.ones((obs.shape[0], 1), dtype=obs.dtype)], axis=1)


class MaskedPolicy:
    """Logits for the 107 action ids from a batch of observations; see the module doc."""

    def __init__(self, params: dict[str, np.ndarray] | None = None) -> None:
        self.params = params or {
            "head": np.zeros((OBS_SIZE + 1, 3)),  # pass, draw stock, draw pile
            "discard": np.zeros(CARD_FEATURES),
            "knock": np.zeros(CARD_FEATURES),
            "value": np.zeros(OBS_SIZE + 1),  # a baseline for training (not for play)
        }

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """(B, 107) logits before masking."""
        x = card_features(obs)
        p = self.params
        return np.concatenate([with_bias(obs) @ p["head"], x @ p["discard"], x @ p["knock"]],
                              axis=1)

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B, 107) action probabilities, 0 wherever ``mask`` is 0."""
        z = np.where(mask > 0, self.logits(obs), -np.inf)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
            ) -> np.ndarray:
        """One legal action id per row: sampled when ``rng`` is given, else the likeliest."""
        p = self.probabilities(obs, mask)
        if rng is None:
            return p.argmax(axis=1)
        c = p.cumsum(axis=1)
        u = rng.random((p.shape[0], 1)) * c[:, -1:]  # in [0, total): lands on a legal id
        return (c <= u).sum(axis=1)

    def value(self, obs: np.ndarray) -> np.ndarray:
        """(B,) the baseline's estimate of each observation's return."""
        return with_bias(obs) @ self.params["value"]

    def gradients(self, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray,
                  advantages: np.ndarray, returns: np.ndarray) -> dict[str, np.ndarray]:
        """Gradients to ascend: the policy's sum of advantage * log-probability (REINFORCE)
        and the baseline's negative squared error, each averaged over the batch."""
        b = obs.shape[0]
        g = -self.probabilities(obs, mask)
        g[np.arange(b), actions] += 1.0
        g *= advantages[:, None] / b
        x = card_features(obs)
        xb = with_bias(obs)
        return {
            "head": xb.T @ g[:, :3],
            "discard": np.einsum("bi,bif->f", g[:, 3:55], x),
            "knock": np.einsum("bi,bif->f", g[:, 55:], x),
            "value": xb.T @ (returns - self.value(obs)) / b,
        }

    def save(self, path: str | Path, **meta: float | int | str) -> None:
        """Write the weights (and ``meta`` numbers or strings) to an .npz file."""
        np.savez(path, format=np.array(FORMAT), **self.params,
                 **{f"meta_{k}": np.array(v) for k, v in meta.items()})

    @classmethod
    def load(cls, path: str | Path) -> MaskedPolicy:
        """Read weights written by :meth:`save`; ValueError for any other file."""
        try:
            with np.load(path) as data:  # never unpickles (allow_pickle is off)
                fmt = str(data["format"]) if "format" in data else None
                params = {k: data[k].astype(np.float64)
                          for k in ("head", "discard", "knock", "value") if k in data}
        except (OSError, ValueError, EOFError, AttributeError) as e:
            raise ValueError(f"Cannot read the policy {path}: {e}") from None
        if fmt != FORMAT or len(params) != 4:
            raise ValueError(f"{path} is not a {FORMAT} file.")
        shapes = {"head": (OBS_SIZE + 1, 3), "discard": (CARD_FEATURES,),
                  "knock": (CARD_FEATURES,), "value": (OBS_SIZE + 1,)}
        for k, shape in shapes.items():
            if params[k].shape != shape:
                raise ValueError(f"{path}: {k} has shape {params[k].shape}, not {shape}.")
        return cls(params)


class Adam:
    """Adam steps for a dict of numpy arrays (gradient ascent)."""

    def __init__(self, params: dict[str, np.ndarray], lr: float | dict[str, float] = 0.01,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
        self.params, self.betas, self.eps = params, betas, eps
        self.lr = lr if isinstance(lr, dict) else dict.fromkeys(params, lr)
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, grads: dict[str, np.ndarray]) -> None:
        """Move every parameter up its gradient."""
        self.t += 1
        b1, b2 = self.betas
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            m_hat = self.m[k] / (1 - b1 ** self.t)
            v_hat = self.v[k] / (1 - b2 ** self.t)
            self.params[k] += self.lr[k] * m_hat / (np.sqrt(v_hat) + self.eps)
