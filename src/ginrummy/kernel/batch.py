"""The evaluator's batch in the kernel: sampled deals, every action played out on each, and
the outcomes summarised as match-winning chances and points with standard errors.

Every action is played out on the same deals (common random numbers), deal after deal
from one random state; the sampled opponent hand's deadwood is kept as a control variate,
its mean estimated from a larger pool of cheap samples (:func:`pool`).
"""

from __future__ import annotations

import math
from collections.abc import MutableSequence, Sequence

from ..cards import POINTS
from .jit import floats, ints, jit, popcount
from .playout import play_out
from .sampler import opponent_style, sample_hand, sample_stock
from .solver import BIG, Memo, deadwood, deadwood_by_discard
from .spec import (
    DEALER,
    LIMIT,
    NPILE,
    NSTOCK,
    P_DEALER,
    P_LIMIT,
    P_ME,
    P_MINE,
    P_MY_STYLE,
    P_MY_TURNS,
    P_NPILE,
    P_OPP_KNOWN,
    P_OPP_TURNS,
    P_PHASE,
    PATIENT,
    PHASE,
    STATE_SIZE,
    STYLE,
    TAKEN,
    TO_PLAY,
    TOOK0,
    TURNS0,
)
from .splitmix import random

__all__ = ["discard_stats", "fill_pool", "pick", "play_sample", "pool", "pool_tilted", "rake",
           "sample_and_play", "sample_and_play_tilted", "summarize"]

Ints = MutableSequence[int]
Floats = MutableSequence[float]
IntMatrix = Sequence[MutableSequence[int]]
FloatMatrix = Sequence[MutableSequence[float]]

@jit
def play_sample(pos: Sequence[int], pile0: Sequence[int], hand: int, stock: Sequence[int],
                nstock: int, opp_style: int, actions: Sequence[int], codes: IntMatrix,
                col: int, tab: Ints, st: Ints, stk: Ints, pl: Ints, memo: Memo) -> None:
    """Every action on one sampled deal (opponent ``hand`` playing ``opp_style``, the first
    ``nstock`` cards of ``stock``, top last), each played out: ``codes[i][col]`` is action
    i's outcome. ``tab``, ``st``, ``stk`` and ``pl`` are scratch arrays (52, the state's
    size, 52, 52); ``memo`` the Python build's memo (:func:`~.solver.tabulate`) or None."""
    me = pos[P_ME]
    npile = pos[P_NPILE]
    styles = pos[P_MY_STYLE] << (2 * me) | opp_style << (2 * (1 - me))
    for i in range(len(actions)):
        for j in range(STATE_SIZE):
            st[j] = 0
        st[me] = pos[P_MINE]
        st[1 - me] = hand
        st[TO_PLAY] = me
        st[PHASE] = pos[P_PHASE]
        st[TAKEN] = -1
        st[TURNS0 + me] = pos[P_MY_TURNS]
        st[TURNS0 + 1 - me] = pos[P_OPP_TURNS]
        st[LIMIT] = pos[P_LIMIT]
        st[DEALER] = pos[P_DEALER]
        st[STYLE] = styles
        st[NSTOCK] = nstock
        st[NPILE] = npile
        st[TOOK0 + 1 - me] = pos[P_OPP_KNOWN]  # what the opponent took and holds (R11)
        for j in range(nstock):
            stk[j] = stock[j]
        for j in range(npile):
            pl[j] = pile0[j]
        codes[i][col] = play_out(st, stk, pl, actions[i], tab, memo)


@jit
def sample_and_play(pos: Sequence[int], fl: Sequence[float], pile0: Sequence[int],
                    unknown: Sequence[int], weights: Sequence[float], actions: Sequence[int],
                    rs: Ints, start: int, count: int, codes: IntMatrix, xs: Floats,
                    memo: Memo) -> None:
    """Samples ``start`` .. ``start + count - 1`` of an evaluation: for each, the opponent's
    style, its hand and the stock, then every action played out (:func:`play_sample`);
    ``xs[s]`` is the sampled hand's deadwood (the control variate)."""
    tab = ints(52)
    st = ints(STATE_SIZE)
    stock = ints(52)
    stk = ints(52)
    pl = ints(52)
    for s in range(start, start + count):
        style = opponent_style(fl, rs)
        hand = sample_hand(pos, fl, unknown, weights, rs, style, tab, memo)
        n = sample_stock(unknown, hand, rs, stock)
        xs[s] = float(deadwood(hand))
        play_sample(pos, pile0, hand, stock, n, style, actions, codes, s, tab, st, stk, pl,
                    memo)


@jit
def pool(pos: Sequence[int], fl: Sequence[float], unknown: Sequence[int],
         weights: Sequence[float], rs: Ints, out: Floats, start: int, count: int,
         memo: Memo) -> None:
    """``out[start:start + count]``: deadwoods of more sampled hands (patient), for the
    control variate's mean."""
    tab = ints(52)
    for j in range(start, start + count):
        out[j] = float(deadwood(sample_hand(pos, fl, unknown, weights, rs, PATIENT, tab,
                                            memo)))


@jit
def fill_pool(pos: Sequence[int], fl: Sequence[float], unknown: Sequence[int],
              weights: Sequence[float], rs: Ints, style: int, hands: Ints, start: int,
              count: int, memo: Memo) -> None:
    """``hands[start:start + count]``: more of the belief's own hands of an opponent
    playing ``style`` (:func:`~.sampler.sample_hand`): a pool for :func:`rake`."""
    tab = ints(52)
    for j in range(start, start + count):
        hands[j] = sample_hand(pos, fl, unknown, weights, rs, style, tab, memo)


@jit
def rake(hands: Sequence[int], n: int, items: Sequence[int], target: Sequence[float],
         rounds: int, cum: Floats) -> float:
    """Weights for the pool ``hands[:n]`` under which each card ``items[i]`` is held with
    chance about ``target[i]`` (raking: ``rounds`` passes over the cards, each scaling the
    weights of the hands that hold the card so that its chance is met exactly; a card no
    pooled hand holds stays at 0). ``cum[:n]`` gets the running sums of the weights (for
    :func:`pick`); returns the pool's effective size share (sum w)^2 / (n sum w^2)."""
    w = floats(n)
    for j in range(n):
        w[j] = 1.0
    total = float(n)
    for _ in range(rounds):
        for i in range(len(items)):
            c = items[i]
            held = 0.0
            for j in range(n):
                if hands[j] >> c & 1:
                    held += w[j]
            if total <= 0.0:
                break
            cur = held / total
            if cur <= 0.0 or cur >= 1.0:
                continue
            t = min(max(target[i], 1e-3), 1.0 - 1e-3)
            ratio = (t / cur) / ((1.0 - t) / (1.0 - cur))
            for j in range(n):
                if hands[j] >> c & 1:
                    w[j] *= ratio
            total += held * (ratio - 1.0)
        scale = n / total  # keep the weights near 1 (no overflow over many rounds)
        total = 0.0
        for j in range(n):
            w[j] *= scale
            total += w[j]
    acc = 0.0
    sq = 0.0
    for j in range(n):
        acc += w[j]
        sq += w[j] * w[j]
        cum[j] = acc
    return acc * acc / (n * sq) if sq > 0 else 0.0


@jit
def pick(cum: Sequence[float], n: int, rs: Ints) -> int:
    """An index into a raked pool of ``n`` drawn by weight (``cum``: running sums)."""
    u = random(rs) * cum[n - 1]
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@jit
def sample_and_play_tilted(pos: Sequence[int], fl: Sequence[float], pile0: Sequence[int],
                           unknown: Sequence[int], hands: IntMatrix, cum: FloatMatrix,
                           sizes: Sequence[int], actions: Sequence[int], rs: Ints,
                           start: int, count: int, codes: IntMatrix, xs: Floats,
                           memo: Memo) -> None:
    """:func:`sample_and_play` with the opponent's hand drawn by weight from a raked pool
    (``hands[style][:sizes[style]]``, running weights ``cum[style]``) of the style drawn
    for the deal: the belief's hands of that style, tilted to other card chances."""
    tab = ints(52)
    st = ints(STATE_SIZE)
    stock = ints(52)
    stk = ints(52)
    pl = ints(52)
    for s in range(start, start + count):
        style = opponent_style(fl, rs)
        hand = hands[style][pick(cum[style], sizes[style], rs)]
        n = sample_stock(unknown, hand, rs, stock)
        xs[s] = float(deadwood(hand))
        play_sample(pos, pile0, hand, stock, n, style, actions, codes, s, tab, st, stk, pl,
                    memo)


@jit
def pool_tilted(hands: IntMatrix, cum: FloatMatrix, sizes: Sequence[int], rs: Ints,
                out: Floats, start: int, count: int) -> None:
    """``out[start:start + count]``: deadwoods of more hands drawn by weight from the raked
    pool of patient hands (:func:`pool`'s twin, for the control variate's mean)."""
    for j in range(start, start + count):
        out[j] = float(deadwood(hands[PATIENT][pick(cum[PATIENT], sizes[PATIENT], rs)]))


@jit
def _mean_se(ys: Sequence[float], xs: Sequence[float], n: int, mu_x: float, mu_var: float,
             variate: bool) -> tuple[float, float]:
    """Mean and SE of ``ys[:n]``, adjusted by the control variate ``xs`` (known mean
    ``mu_x`` with variance ``mu_var``) when ``variate`` and that helps."""
    my = 0.0
    for j in range(n):
        my += ys[j]
    my /= n
    if n < 2:
        return my, math.inf
    vy = 0.0
    for j in range(n):
        e = ys[j] - my
        vy += e * e
    vy /= n - 1
    if not variate or n < 8:
        return my, math.sqrt(vy / n)
    mx = 0.0
    for j in range(n):
        mx += xs[j]
    mx /= n
    vx = 0.0
    cov = 0.0
    for j in range(n):
        e = xs[j] - mx
        vx += e * e
        cov += e * (ys[j] - my)
    vx /= n - 1
    cov /= n - 1
    if vx <= 0:
        return my, math.sqrt(vy / n)
    b = cov / vx
    adj_var = max(vy - 2 * b * cov + b * b * vx, 0.0) / n + b * b * mu_var
    if adj_var >= vy / n:
        return my, math.sqrt(vy / n)
    return my - b * (mx - mu_x), math.sqrt(adj_var)


@jit
def summarize(codes: Sequence[Sequence[int]], n: int, win_of: Sequence[float],
              pts_of: Sequence[float], shift: Sequence[float], xs: Sequence[float],
              pool_vals: Sequence[float], npool: int, wins: FloatMatrix, pts: FloatMatrix,
              stats: FloatMatrix) -> None:
    """Turn outcome codes into match-winning chances and points (``win_of`` / ``pts_of``
    by code, ``shift`` taken off each action's win), filling ``wins`` and ``pts`` row by
    row and ``stats[i]`` with action i's (win, win SE, points, points SE); the control
    variate is used when ``npool`` >= 2 (its mean from the pool)."""
    mu_x = 0.0
    mu_var = 0.0
    variate = npool >= 2
    if variate:
        for j in range(npool):
            mu_x += pool_vals[j]
        mu_x /= npool
        for j in range(npool):
            e = pool_vals[j] - mu_x
            mu_var += e * e
        mu_var = mu_var / (npool - 1) / npool
    for i in range(len(codes)):
        row = codes[i]
        wr = wins[i]
        pr = pts[i]
        for j in range(n):
            wr[j] = win_of[row[j]] - shift[i]
            pr[j] = pts_of[row[j]]
        w, wse = _mean_se(wr, xs, n, mu_x, mu_var, variate)
        p, pse = _mean_se(pr, xs, n, mu_x, mu_var, variate)
        out = stats[i]
        out[0] = w
        out[1] = wse
        out[2] = p
        out[3] = pse


@jit
def discard_stats(h: int, taken: int, plane: Floats, tab: Ints) -> tuple[int, int, int]:
    """For 11 cards ``h``: ``plane[k]`` = deadwood after discarding k / 100 (R2, R6);
    returns the least deadwood a discard leaves, the least without discarding ``taken``
    (R5), and the least of deadwood left + points of the card thrown (the 11 cards' own
    deadwood when that is positive)."""
    deadwood_by_discard(h, tab)
    least = best = whole = BIG
    x = h
    while x:
        i = popcount((x & -x) - 1)  # the lowest card's index
        x &= x - 1
        plane[i] = tab[i] / 100.0
        least = min(least, tab[i])
        if i != taken:
            best = min(best, tab[i])
        whole = min(whole, tab[i] + POINTS[i])
    return least, best, whole
