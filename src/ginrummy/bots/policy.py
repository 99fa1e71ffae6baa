"""Bots that play a small trained network: the research baselines ``ppo`` and ``bc``.

A policy file (``.npz``, numpy's archive, read without pickle) holds a multilayer
perceptron over the RL observation (:mod:`ginrummy.rl.encoding`, 589 values) whose last
layer gives the logits of the 107 action ids. :class:`PolicyBot` encodes its view, masks
the ids that are not legal and plays the likeliest legal one, so its play is a pure
function of the view (the seed is not used). The files are written by the training
scripts (``scripts/train_ppo.py``, ``scripts/train_bc.py``, docs/research.md "Baselines
to beat") with :func:`save_mlp`; the ones shipped in ``ginrummy/data`` are played by the
registered names ``ppo`` and ``bc``.

Playing needs numpy only (no PyTorch): it is imported when a policy bot is made, so the
rest of the package still imports without it, and a missing numpy is a clear
:class:`~.base.BotError`.

One rule sits on top of the network, as it does on ``marjj``, ``strong`` and ``expert``:
the bot never takes back a card it discarded since the stock was last drawn from
(:func:`ginrummy.heuristics.takes_back`), so a hand with it always ends (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module, resources
from pathlib import Path
from typing import Any

from ..hand import Action, View
from ..heuristics import takes_back
from .base import Bot, BotError

__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "MLP",
    "POLICY_BOTS",
    "PolicyBot",
    "bc_bot",
    "guarded_mask",
    "load_mlp",
    "ppo_bot",
    "save_mlp",
    "shipped_policy",
]

FORMAT = "ginrummy-mlp-policy/1"
"""The ``format`` entry of a policy file; a file of another format is refused."""

ACTIVATIONS = ("tanh", "relu")
"""Hidden-layer activations a policy file may name (the last layer has none)."""

POLICY_BOTS = ("ppo", "bc")
"""The registered bots that play a shipped policy file (``ginrummy bot NAME --policy FILE``
plays another file under that name)."""

DRAW_DISCARD_ID = 2
"""The action id of a draw from the discard pile (taking the up-card included)."""

_NUMPY_MISSING = ("The {name} bot plays a trained network with numpy, which is not "
                  "installed: pip install numpy (the fast, rl and research extras bring it).")


def _numpy(name: str = "policy") -> Any:
    """numpy, imported now (the package does not need it elsewhere); a BotError if missing."""
    try:
        return import_module("numpy")
    except ImportError:
        raise BotError(_NUMPY_MISSING.format(name=name)) from None


class MLP:
    """A multilayer perceptron: ``x @ W + b`` per layer, ``activation`` between layers.

    ``weights[k]`` has shape ``(inputs, outputs)``; the last layer's outputs are the 107
    action logits. ``meta`` is free-form JSON-able text about the file (how it was made).
    """

    def __init__(self, weights: list[Any], biases: list[Any], activation: str,
                 meta: str = "") -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, not {activation!r}.")
        if not weights or len(weights) != len(biases):
            raise ValueError("A policy needs one bias per weight matrix, and at least one.")
        for k in range(1, len(weights)):
            if weights[k].shape[0] != weights[k - 1].shape[1]:
                raise ValueError(f"Layer {k}'s inputs do not match layer {k - 1}'s outputs.")
        self.weights = weights
        self.biases = biases
        self.activation = activation
        self.meta = meta

    @property
    def inputs(self) -> int:
        """How many values the network reads (the observation size)."""
        return int(self.weights[0].shape[0])

    @property
    def outputs(self) -> int:
        """How many logits it writes (the number of action ids)."""
        return int(self.weights[-1].shape[1])

    def logits(self, obs: Any) -> Any:
        """The logits, ``(..., outputs)``, of observations ``(..., inputs)``."""
        np = _numpy()
        x = np.asarray(obs, dtype=np.float32)
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = x @ w + b
            if k < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x


def save_mlp(path: str | Path, weights: list[Any], biases: list[Any], activation: str,
             meta: str = "", encoding_version: int | None = None,
             dtype: str = "float32") -> Path:
    """Write a policy file (compressed ``.npz``) that :func:`load_mlp` reads; the path.

    Weights are stored ``(inputs, outputs)`` as ``dtype``: float32, or float16 to halve
    the file of a wider network (read back as float32; the logits move by about 1e-3).
    ``encoding_version`` defaults to the current observation encoding's, which a bot
    checks when it loads the file.
    """
    np = _numpy()
    if dtype not in ("float32", "float16"):
        raise ValueError(f"dtype must be float32 or float16, not {dtype!r}.")
    from ..rl.encoding import ENCODING_VERSION

    MLP(weights, biases, activation)  # refuse a malformed network before writing
    arrays: dict[str, Any] = {
        "format": np.array(FORMAT),
        "activation": np.array(activation),
        "meta": np.array(meta),
        "encoding_version": np.array(
            ENCODING_VERSION if encoding_version is None else encoding_version),
        "layers": np.array(len(weights)),
    }
    for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
        arrays[f"w{k}"] = np.asarray(w, dtype=dtype)
        arrays[f"b{k}"] = np.asarray(b, dtype=np.float32)
    out = Path(path)
    with out.open("wb") as f:
        np.savez_compressed(f, **arrays)
    return out


def load_mlp(path: str | Path) -> MLP:
    """Read a policy file written by :func:`save_mlp`.

    Raises ValueError for a file that is not one (another format, another observation
    encoding, the wrong sizes), OSError when it cannot be read.
    """
    np = _numpy()
    from ..rl.encoding import ENCODING_VERSION, NUM_ACTIONS, OBS_SIZE

    try:
        data: Mapping[str, Any] = dict(np.load(Path(path), allow_pickle=False))
    except (ValueError, OSError) as e:
        raise ValueError(f"{path}: not a policy file ({e}).") from None
    if str(data.get("format", "")) != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file.")
    version = int(data["encoding_version"])
    if version != ENCODING_VERSION:
        raise ValueError(f"{path}: trained on observation encoding {version}, "
                         f"this ginrummy encodes version {ENCODING_VERSION}.")
    n = int(data["layers"])
    mlp = MLP([np.asarray(data[f"w{k}"], dtype=np.float32) for k in range(n)],
              [np.asarray(data[f"b{k}"], dtype=np.float32) for k in range(n)],
              str(data["activation"]), str(data["meta"]))
    if mlp.inputs != OBS_SIZE or mlp.outputs != NUM_ACTIONS:
        raise ValueError(f"{path}: a network from {mlp.inputs} to {mlp.outputs} values, "
                         f"not from the observation ({OBS_SIZE}) to the actions "
                         f"({NUM_ACTIONS}).")
    return mlp


def shipped_policy(name: str) -> Path:
    """The path of a policy file shipped with the package (``ppo`` or ``bc``)."""
    return Path(str(resources.files("ginrummy") / "data" / f"{name}.npz"))


def guarded_mask(view: View, mask: Any) -> Any:
    """``mask`` (the legal ids, 1 or 0) without the draw from the discard pile when that
    would take back this seat's own discard (:func:`ginrummy.heuristics.takes_back`);
    the stock draw stays legal then, so some id is always left. Changed in place."""
    if takes_back(view) and mask[1]:
        mask[DRAW_DISCARD_ID] = 0
    return mask


class PolicyBot(Bot):
    """Plays the likeliest legal action of a trained network (see the module doc)."""

    def __init__(self, seed: int | None = None, path: str | Path | None = None,
                 name: str = "policy", policy: MLP | None = None) -> None:
        super().__init__(seed)
        self.name = name
        self._np = _numpy(name)
        from ..rl import encoding

        self._encoding = encoding
        if policy is None:
            if path is None:
                raise BotError("A policy bot needs a policy file (path=...).")
            try:
                policy = load_mlp(path)
            except (ValueError, OSError) as e:
                raise BotError(f"The {name} bot cannot load its policy: {e}") from None
        self.policy = policy

    def scores(self, view: View) -> dict[Action, float]:
        """Each legal action's logit in ``view`` (after the take-back rule, see
        :func:`guarded_mask`: a refused take-back gets minus infinity)."""
        np, enc = self._np, self._encoding
        ids = [enc.action_to_id(a) for a in view.legal]
        mask = np.zeros(enc.NUM_ACTIONS, dtype=np.int8)
        mask[ids] = 1
        guarded_mask(view, mask)
        logits = self.policy.logits(np.asarray(enc.encode_list(view), dtype=np.float32))
        return {a: (float(logits[i]) if mask[i] else float("-inf"))
                for a, i in zip(view.legal, ids, strict=True)}

    def decide(self, view: View) -> Action:
        """The legal action with the largest logit (the first one on a tie)."""
        if len(view.legal) == 1:
            return view.legal[0]
        scores = self.scores(view)
        return max(view.legal, key=lambda a: scores[a])


def _shipped(name: str) -> Callable[[int | None], Bot]:
    """A factory for the bot that plays the shipped policy file ``name``."""

    def make(seed: int | None = None) -> Bot:
        return PolicyBot(seed, shipped_policy(name), name=name)

    make.__name__ = f"{name}_bot"
    make.__doc__ = f"The ``{name}`` baseline: the shipped policy ``data/{name}.npz``."
    return make


ppo_bot = _shipped("ppo")
"""MaskablePPO's network (sb3-contrib), trained against project bots (docs/research.md)."""

bc_bot = _shipped("bc")
"""Behaviour cloning of ``expert`` on its labelled self-play (docs/research.md)."""
