"""What an evaluation returns: each action's estimated match-winning chance and points,
with standard errors, and the per-sample outcomes behind them for paired comparisons."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..hand import Action

__all__ = ["ActionValue", "Evaluation"]


@dataclass(frozen=True)
class ActionValue:
    """One action's estimates for the deciding seat."""

    action: Action
    win: float
    win_se: float
    points: float
    points_se: float


@dataclass(frozen=True)
class Evaluation:
    """Estimates for every evaluated action, in ``view.legal`` order, and the samples used.

    ``win_samples[i][s]`` / ``points_samples[i][s]`` are action i's outcomes on sample s
    (the same samples for every action), kept for paired comparisons.
    """

    values: tuple[ActionValue, ...]
    samples: int
    win_samples: tuple[tuple[float, ...], ...] = field(default=(), repr=False, compare=False)
    points_samples: tuple[tuple[float, ...], ...] = field(default=(), repr=False,
                                                          compare=False)
    preferred: Action | None = field(default=None, compare=False)
    """The action an earlier, independent evaluation ranked first (the review's screen),
    or None: a choice not made on these samples, so its value here carries no winner's
    curse."""
    capped: bool = field(default=False, compare=False)
    """Whether the time limit stopped the sampling before the sample budget was reached
    (the result then depends on the machine's speed, not only on the view and seed)."""

    def best(self) -> ActionValue:
        """The highest win chance; ties: the most points, then the first."""
        best = self.values[0]
        for v in self.values[1:]:
            if (v.win, v.points) > (best.win, best.points):
                best = v
        return best

    def value_of(self, action: Action) -> ActionValue:
        """The estimates of ``action``; KeyError if it was not evaluated."""
        for v in self.values:
            if v.action == action:
                return v
        raise KeyError(f"The action {action} was not evaluated.")

    def _index(self, action: Action) -> int:
        for i, v in enumerate(self.values):
            if v.action == action:
                return i
        raise KeyError(f"The action {action} was not evaluated.")

    def cross_fitted_loss(self, played: Action) -> float | None:
        """The win chance ``played`` gives up against the best action, estimated without
        the winner's curse: the samples are split in two (even and odd), the best is
        chosen on one half and the loss measured on the other, both ways, and the two
        averaged. Unbiased for the loss against an action chosen on half the samples (a
        little below the loss against the true best); negative when ``played`` measured
        better. None with fewer than four samples.

        >>> from ginrummy.hand import DRAW_STOCK, PASS
        >>> values = (ActionValue(PASS, 0.55, 0, 0, 0), ActionValue(DRAW_STOCK, 0.4, 0, 0, 0))
        >>> ev = Evaluation(values, 4, ((0.6, 0.5, 0.6, 0.5), (0.4, 0.4, 0.4, 0.4)))
        >>> round(ev.cross_fitted_loss(DRAW_STOCK), 4), round(ev.cross_fitted_loss(PASS), 4)
        (0.15, 0.0)
        """
        rows = self.win_samples
        i = self._index(played)
        if not rows or len(rows[i]) < 4:
            return None
        halves = [[r[0::2] for r in rows], [r[1::2] for r in rows]]
        total = 0.0
        for pick, judge in ((0, 1), (1, 0)):
            means = [sum(r) / len(r) for r in halves[pick]]
            choice = max(range(len(means)), key=lambda j: (means[j], -j))
            got = halves[judge]
            total += (sum(got[choice]) - sum(got[i])) / len(got[i])
        return total / 2

    def difference(self, a: Action, b: Action, *, points: bool = False) -> tuple[float, float]:
        """Mean and standard error of ``a``'s win chance (or points) minus ``b``'s on the
        same samples (common random numbers: much tighter than the two SEs suggest)."""
        rows = self.points_samples if points else self.win_samples
        xa, xb = rows[self._index(a)], rows[self._index(b)]
        d = [x - y for x, y in zip(xa, xb, strict=True)]
        n = len(d)
        mean = sum(d) / n
        if n < 2:
            return mean, math.inf
        var = sum((x - mean) ** 2 for x in d) / (n - 1)
        return mean, math.sqrt(var / n)
