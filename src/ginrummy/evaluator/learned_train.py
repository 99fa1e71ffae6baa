"""Training and batch scoring of the learned belief (:mod:`.learned`) on numpy arrays.

For ``scripts/train_belief.py`` and ``scripts/belief_report.py`` only (numpy needed; the
players' inference is :func:`ginrummy.evaluator.learned.card_chances`, pure Python). The
data are ``scripts/belief_data.py``'s: ``x`` (one row of :data:`~.learned.FEATURES` per
unseen card), ``y`` (1 where the opponent holds the card), ``count`` (rows a position)
and ``n`` (the opponent's unknown cards a position).

The model scores each row, and one shift a position makes its chances add up to ``n``
(:func:`~.learned.fit_total`). Because the labels of a position add up to ``n`` too, the
log-loss's gradient with respect to a row's score is just ``p - y``: the shift needs no
gradient of its own. Full determinism for a seed: one random generator, fixed batch
order, float64 throughout.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .learned import FEATURES, FORMAT, NF, LearnedModel, model_from_json

__all__ = ["Data", "TrainSettings", "chances", "log_loss", "model_json", "scores",
           "segments", "shifted", "train"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


@dataclass(frozen=True)
class Data:
    """Positions: ``x`` (rows, features), ``y`` (rows), ``count`` and ``n`` (positions)."""

    x: NDArray[Any]
    y: NDArray[Any]
    count: NDArray[Any]
    n: NDArray[Any]

    def positions(self, which: NDArray[Any]) -> Data:
        """The positions whose indexes are in ``which`` (in that order)."""
        start = np.concatenate([[0], np.cumsum(self.count)[:-1]])
        rows = np.concatenate([np.arange(start[i], start[i] + self.count[i]) for i in which]) \
            if len(which) else np.zeros(0, dtype=np.int64)
        return Data(self.x[rows], self.y[rows], self.count[which], self.n[which])


def segments(count: NDArray[Any]) -> I64:
    """The position index of every row, from the rows a position."""
    return np.repeat(np.arange(len(count), dtype=np.int64), count)


def shifted(z: F64, seg: I64, n: NDArray[Any], iterations: int = 60) -> F64:
    """``sigmoid(z + b[position])`` with each position's ``b`` making its rows add up to
    its ``n``: :func:`~.learned.fit_total` for many positions at once."""
    npos = len(n)
    cnt = np.bincount(seg, minlength=npos).astype(np.float64)
    tot = n.astype(np.float64)
    inner = (tot > 0) & (tot < cnt)
    safe_tot = np.clip(tot, 0.5, np.maximum(cnt - 0.5, 0.5))
    b = np.log(safe_tot / np.maximum(cnt - safe_tot, 0.5)) - \
        np.bincount(seg, weights=z, minlength=npos) / np.maximum(cnt, 1.0)
    for _ in range(iterations):
        p = _sigmoid(z + b[seg])
        g = np.bincount(seg, weights=p, minlength=npos) - tot
        d = np.bincount(seg, weights=p * (1.0 - p), minlength=npos)
        live = inner & (np.abs(g) >= 1e-12) & (d > 0)
        if not live.any():
            break
        step = np.zeros(npos)
        step[live] = np.clip(g[live] / d[live], -4.0, 4.0)
        b -= step
    p = _sigmoid(z + b[seg])
    p[(tot <= 0)[seg]] = 0.0
    p[(tot >= cnt)[seg]] = 1.0
    return p


def _sigmoid(z: F64) -> F64:
    out: F64 = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    e = np.exp(z[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def scores(model: LearnedModel, x: NDArray[Any]) -> F64:
    """Each row's score (:func:`~.learned.logits`, vectorized)."""
    xs = x.astype(np.float64) * np.array(model.scale)
    if model.hidden == 0:
        out: F64 = xs @ np.array(model.w2) + model.b2
        return out
    w1 = np.array(model.w1).reshape(model.hidden, NF)
    a = np.maximum(xs @ w1.T + np.array(model.b1), 0.0)
    out = a @ np.array(model.w2) + model.b2
    return out


def chances(model: LearnedModel, data: Data) -> F64:
    """Each row's chance that the opponent holds the card."""
    return shifted(scores(model, data.x), segments(data.count), data.n)


def log_loss(p: F64, y: NDArray[Any], floor: float = 1e-6) -> float:
    """The mean log-loss (nats a card) of chances ``p`` for labels ``y``."""
    q = np.clip(p, floor, 1.0 - floor)
    return float(-np.mean(np.where(y > 0, np.log(q), np.log(1.0 - q))))


@dataclass(frozen=True)
class TrainSettings:
    """How to train: ``hidden`` units (0: logistic), ``epochs``, positions a ``batch``,
    Adam's learning rate ``lr`` (cosine-decayed to a tenth), L2 ``decay``, ``seed``."""

    hidden: int = 32
    epochs: int = 6
    batch: int = 256
    lr: float = 3e-3
    decay: float = 1e-5
    seed: int = 1


def train(data: Data, settings: TrainSettings,
          report: Callable[[int, LearnedModel], None] | None = None) -> LearnedModel:
    """A model fitted to ``data`` by minibatch Adam on the log-loss (see the module);
    ``report(epoch, model)`` hears of each epoch's end."""
    s = settings
    rng = np.random.default_rng(s.seed)
    mx = data.x.max(axis=0).astype(np.float64) if len(data.x) else np.ones(NF)
    scale = 1.0 / np.maximum(mx, 1.0)
    h = s.hidden
    if h:
        params = [rng.normal(0.0, math.sqrt(2.0 / NF), (h, NF)), np.zeros(h),
                  rng.normal(0.0, math.sqrt(1.0 / h), h)]
    else:
        params = [np.zeros(NF)]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    start = np.concatenate([[0], np.cumsum(data.count)[:-1]]).astype(np.int64)
    npos = len(data.count)
    steps = s.epochs * max(1, math.ceil(npos / s.batch))
    t = 0
    for epoch in range(s.epochs):
        order = rng.permutation(npos)
        for lo in range(0, npos, s.batch):
            which = np.sort(order[lo:lo + s.batch])
            cnt = data.count[which]
            rows = np.repeat(start[which], cnt) + (
                np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt))
            xs = data.x[rows].astype(np.float64) * scale
            y = data.y[rows].astype(np.float64)
            seg = segments(cnt)
            if h:
                w1, b1, w2 = params
                pre = xs @ w1.T + b1
                a = np.maximum(pre, 0.0)
                z = a @ w2
            else:
                z = xs @ params[0]
            p = shifted(z, seg, data.n[which])
            dz = (p - y) / len(rows)
            if h:
                da = np.outer(dz, w2) * (pre > 0)
                grads = [da.T @ xs + s.decay * w1, da.sum(axis=0), a.T @ dz + s.decay * w2]
            else:
                grads = [xs.T @ dz + s.decay * params[0]]
            t += 1
            lr = s.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * t / steps)))
            for i, g in enumerate(grads):
                m1[i] = 0.9 * m1[i] + 0.1 * g
                m2[i] = 0.999 * m2[i] + 0.001 * g * g
                mhat = m1[i] / (1.0 - 0.9 ** t)
                vhat = m2[i] / (1.0 - 0.999 ** t)
                params[i] = params[i] - lr * mhat / (np.sqrt(vhat) + 1e-8)
        if report is not None:
            report(epoch + 1, _model(params, scale, h, {}))
    return _model(params, scale, h, {})


def _model(params: list[F64], scale: F64, hidden: int, meta: dict[str, Any]) -> LearnedModel:
    if hidden:
        w1, b1, w2 = params
        return LearnedModel(hidden, scale.tolist(), w1.ravel().tolist(), b1.tolist(),
                            w2.tolist(), 0.0, meta)
    return LearnedModel(0, scale.tolist(), [], [], params[0].tolist(), 0.0, meta)


def _num(v: float) -> float:
    return float(f"{v:.8g}")


def model_json(model: LearnedModel, meta: dict[str, Any]) -> tuple[str, LearnedModel]:
    """The model file's text (weights to 8 significant digits) and the model it reads
    back as (what is shipped is what is measured)."""
    obj = {
        "format": FORMAT,
        "features": list(FEATURES),
        "hidden": model.hidden,
        "scale": [_num(v) for v in model.scale],
        "w1": [_num(v) for v in model.w1],
        "b1": [_num(v) for v in model.b1],
        "w2": [_num(v) for v in model.w2],
        "b2": _num(model.b2),
        "meta": meta,
    }
    text = json.dumps(obj, separators=(",", ":")) + "\n"
    return text, model_from_json(json.loads(text))
