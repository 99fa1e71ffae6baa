"""A prototype: sampled opponent hands that follow the learned card chances (:mod:`.learned`).

Not used by any bot yet (the search samples in the hand kernel, :mod:`ginrummy.kernel`);
``scripts/belief_report.py --sampling`` measures these ways against the heuristic's own
samples. Three ways, plain functions on flat lists (for a later port to the kernel):

* **draw** (:func:`cb_table`, :func:`cb_draw`): the opponent's unknown cards drawn as a
  conditional Bernoulli sample: independent cards with the model's odds, conditioned on
  exactly the right number. Marginals close to the model's; no shape beyond them (a
  drawn hand's cards do not fit together as a player keeps them).
* **weights**: the heuristic sampler (:class:`.belief.Belief`: deal, improve, redraw)
  with the model's odds as its card weights in place of the shed and take factors. The
  shape of the heuristic's hands; the improvement steps still move the chances.
* **tilt** (:func:`tilt`): a pool of hands (the heuristic's, and drawn ones so that every
  card the model allows appears), reweighted so that the pool's card chances become the
  model's (each hand's weight a product of one factor per card it holds, fitted by
  raking: the smallest change of the pool's law with the model's marginals), then drawn
  from by weight. Shapes from the pool, the model's chances.

>>> odds = [1.0, 3.0, 0.5, 2.0]
>>> table = cb_table(odds, 2)
>>> from ginrummy.kernel.splitmix import Random
>>> cb_draw([7, 8, 9, 10], odds, table, 2, Random(1)).bit_count()
2
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernel.splitmix import Random

__all__ = ["cb_draw", "cb_table", "draw_by_weight", "tilt"]


def cb_table(odds: Sequence[float], n: int) -> list[float]:
    """``t[j * (n + 1) + k]``: the sum over ``k``-card subsets of items ``j``.. of the
    product of their odds (``t[j][0]`` is 1): what :func:`cb_draw` needs, once a position."""
    m = len(odds)
    w = n + 1
    t = [0.0] * ((m + 1) * w)
    t[m * w] = 1.0
    for j in range(m - 1, -1, -1):
        t[j * w] = 1.0
        for k in range(1, w):
            t[j * w + k] = t[(j + 1) * w + k] + odds[j] * t[(j + 1) * w + k - 1]
    return t


def cb_draw(items: Sequence[int], odds: Sequence[float], table: Sequence[float], n: int,
            rng: Random) -> int:
    """A mask of exactly ``n`` of ``items`` (card indexes), each set of ``n`` drawn with
    chance proportional to the product of its odds (exact, one pass)."""
    w = n + 1
    hand = 0
    k = n
    for j in range(len(items)):
        if k == 0:
            break
        p = odds[j] * table[(j + 1) * w + k - 1] / table[j * w + k]
        if rng.random() < p:
            hand |= 1 << items[j]
            k -= 1
    return hand


def tilt(hands: Sequence[int], items: Sequence[int], target: Sequence[float],
         rounds: int = 8) -> list[float]:
    """Weights for a pool of ``hands`` (masks) under which each card ``items[i]`` is held
    with chance about ``target[i]`` (raking: ``rounds`` passes over the cards, each
    scaling the weights of the hands that hold the card so that its chance is met
    exactly; only ratios matter, so the others keep theirs). A card no pooled hand holds
    stays at chance 0: the pool must cover the cards."""
    holders: list[list[int]] = [[s for s, h in enumerate(hands) if h >> c & 1] for c in items]
    weights = [1.0] * len(hands)
    total = float(len(hands))
    for _ in range(rounds):
        for j, hs in enumerate(holders):
            if not hs:
                continue
            held = 0.0
            for s in hs:
                held += weights[s]
            cur = held / total
            if not 0.0 < cur < 1.0:
                continue
            t = min(max(target[j], 1e-3), 1.0 - 1e-3)
            ratio = (t / cur) / ((1.0 - t) / (1.0 - cur))
            for s in hs:
                weights[s] *= ratio
            total += held * (ratio - 1.0)
    return weights


def draw_by_weight(weights: Sequence[float], count: int, rng: Random) -> list[int]:
    """``count`` indexes into ``weights`` by systematic resampling (one random number)."""
    total = sum(weights)
    out: list[int] = []
    step = total / count
    u = rng.random() * step
    acc = 0.0
    i = -1
    for _ in range(count):
        while acc <= u and i + 1 < len(weights):
            i += 1
            acc += weights[i]
        out.append(i)
        u += step
    return out
