"""The steps of a hand on card masks and the play-out policy both seats follow (R4-R7).

The policy sees only its own cards, the discard pile and which cards are out of play:

* draw: take the pile's top card when it gives gin, or when it joins a meld and lowers
  the least deadwood (MARJJ's rule); otherwise draw from the stock (R4, R5);
* discard: among the discards leaving near-least deadwood (within ``MARGIN``), the one
  minimising ``deadwood - live meld-completing cards`` (R5: never the card just taken);
* knock: gin always; otherwise by the seat's schedule (R6); a discard leaving two stock
  cards without a knock ends the hand dead (R7).

Each seat has a style (:mod:`.spec`): ``PATIENT`` as above, knocking short of gin only in
its first ``KNOCK_TURNS`` turns; ``QUICK`` models a player who knocks as soon as it may
(R6) and races for it as ``simple`` does: it takes the pile's top card whenever the card
lies in a meld (R2) and discards the card leaving the least deadwood, with no regard for
outs; ``CLUB`` plays for outs as the patient seat does but knocks by a schedule that
tightens turn by turn (``KNOCK_AT``).

The state is one int array (slots named in :mod:`.spec`) and two card arrays, the stock
and the pile, top at the end; ``tab`` is a scratch array of 52 and ``memo`` the Python
build's memo of discard tables (:func:`~.solver.tabulate`), else None.

>>> from ginrummy.cards import cards_mask
>>> from ginrummy.kernel.jit import ints
>>> from ginrummy.kernel.spec import PATIENT
>>> nine, _ = cards_mask("AS 2S 3S 4S 5S 6S 7S 8S 9S KD")
>>> other, _ = cards_mask("AH 3H 5H 7H 9H JH KH 2C 4C 6C")
>>> st = new_state(nine, other, 0, DRAW, -1, 0, 0, 10, 1, PATIENT)
>>> stock, pile = [1, 2, 3, 48] + [0] * 48, [11] + [0] * 51
>>> st[NSTOCK], st[NPILE] = 4, 1
>>> play_out(st, stock, pile, -1, ints(52), None)  # seat 0 draws TS: gin, 82 points
338
>>> scorer_of(338), points_of(338)
(0, 82)
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence

from ..cards import ALL_CARDS, POINTS
from .jit import jit, popcount
from .solver import BIG, Memo, completers, deadwood, settle, tabulate
from .spec import (
    DEAD,
    DEADCARDS,
    DEALER,
    DISCARD,
    DISCARD_BASE,
    DISCARDS,
    DISTILLED,
    DISTILLED_NET,
    DISTILLED_WEIGHTS,
    DRAW,
    DRAW_PILE,
    DRAW_STOCK,
    KNOCK_AT,
    KNOCK_AT_TURNS,
    KNOCK_BASE,
    KNOCKED,
    LIMIT,
    MARGIN,
    MAX_DISCARDS,
    NET_ROW,
    NPILE,
    NSTOCK,
    OFFER_DEALER,
    OFFER_NON_DEALER,
    PASS,
    PHASE,
    QUICK,
    RULE_WEIGHTS,
    RUNNING,
    STATE_SIZE,
    STYLE,
    TAKEN,
    TO_PLAY,
    TOOK0,
    TURNS0,
    points_of,
    scorer_of,
)

__all__ = ["PARTNERS", "choose_discard", "distilled_discard", "knocks_at", "least_discard",
           "new_state", "play_out", "policy", "points_of", "scorer_of", "step", "wants_top",
           "weighted_discard"]

Ints = MutableSequence[int]
"""A whole-number array: a list here, a numpy array in the compiled build."""

# ----------------------------------------------------------------------------- the policy
@jit
def least_discard(h: int, tab: Sequence[int], taken: int) -> tuple[int, int]:
    """A quick knocker's discard from 11 cards ``h`` (``tab``: their deadwood by discard)
    and the deadwood it leaves: the card leaving the least, never ``taken``, the card just
    drawn from the pile (R5); ties go to the higher card, then the lower index.

    >>> from ginrummy.cards import Card, cards_mask
    >>> from ginrummy.kernel.solver import deadwood_by_discard
    >>> h, _ = cards_mask("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH")
    >>> tab = [0] * 52
    >>> deadwood_by_discard(h, tab)
    >>> card, left = least_discard(h, tab, -1)
    >>> str(Card.from_index(card)), left  # a ten-point card; 9 + 9 + 10 + 10 left
    ('KC', 38)
    """
    card = -1
    best = BIG
    x = h
    while x:
        k = popcount((x & -x) - 1)  # the lowest card's index
        x &= x - 1
        v = tab[k]
        if k != taken and (v < best or (v == best and POINTS[k] > POINTS[card])):
            card = k
            best = v
    return card, best


@jit
def least_left(h: int, tab: Sequence[int], taken: int) -> int:
    """The least deadwood a discard from ``h`` leaves (``tab``), never discarding
    ``taken`` (R5)."""
    best = BIG
    x = h
    while x:
        k = popcount((x & -x) - 1)
        x &= x - 1
        if tab[k] < best and k != taken:
            best = tab[k]
    return best


def _partners(k: int) -> int:
    """The cards that make a meld's pair with card ``k`` (R2): its rank in the other
    suits, and its suit's cards one and two ranks away."""
    suit, rank = divmod(k, 13)
    mask = 0
    for s in range(4):
        if s != suit:
            mask |= 1 << (s * 13 + rank)
    for d in (-2, -1, 1, 2):
        if 0 <= rank + d < 13:
            mask |= 1 << (suit * 13 + rank + d)
    return mask


PARTNERS = [_partners(k) for k in range(52)]
"""``PARTNERS[k]``: the cards that would meld with card k (a table: one look-up)."""


@jit
def weighted_discard(h: int, tab: Sequence[int], taken: int, dead: int, took: int,
                     w: Sequence[int]) -> tuple[int, int]:
    """A patient seat's discard from 11 cards ``h`` and the deadwood it leaves, by the
    weights ``w`` (:data:`~.spec.RULE_WEIGHTS` or :data:`~.spec.DISTILLED_WEIGHTS`).

    ``tab`` is their deadwood by discard; ``taken`` the card just drawn from the pile (R5)
    or -1; ``dead`` the cards out of play (the pile), which are no outs; ``took`` the cards
    the opponent took from the pile and holds. With gin in hand, the highest card leaving
    gin; otherwise, among the discards within ``MARGIN`` of the least deadwood, the least
    ``w`` times (the deadwood it leaves, the live cards completing a meld after it, its
    points, the live cards, the hand's cards and ``took``'s cards melding with it), the
    lower index on a tie (whole numbers: both builds order discards exactly alike).
    """
    best = least_left(h, tab, taken)
    if best == 0:
        return least_discard(h, tab, taken)
    live = ALL_CARDS & ~h & ~dead
    limit = best + MARGIN
    choice = -1
    choice_score = 1 << 40
    x = h
    while x:
        k = popcount((x & -x) - 1)  # the lowest card's index
        x &= x - 1
        v = tab[k]
        if v <= limit and k != taken:
            score = w[0] * v + w[1] * popcount(completers(h & ~(1 << k)) & live) \
                + w[2] * POINTS[k]
            if w[3] or w[4] or w[5]:  # (today's rule reads none of these)
                m = PARTNERS[k]
                score += w[3] * popcount(m & live) + w[4] * popcount(m & h) \
                    + w[5] * popcount(m & took)
            if score < choice_score:
                choice = k
                choice_score = score
    return choice, tab[choice]


@jit
def choose_discard(h: int, tab: Sequence[int], taken: int, dead: int) -> tuple[int, int]:
    """The patient policy's discard (:func:`weighted_discard` by
    :data:`~.spec.RULE_WEIGHTS`: the least ``OUTS_PER_POINT * (deadwood - live outs) -
    points``)."""
    return weighted_discard(h, tab, taken, dead, 0, RULE_WEIGHTS)


@jit
def net_discard(h: int, tab: Sequence[int], taken: int, dead: int, took: int,
                net: Sequence[int], units: int) -> tuple[int, int]:
    """A discard from 11 cards ``h`` scored by a network of ``units`` hidden units
    (``net``: :data:`~.spec.DISTILLED_NET`'s layout) and the deadwood it leaves: with gin in
    hand, the highest card leaving gin; otherwise the least score among every discard
    but ``taken`` (R5), the lower index on a tie. Whole numbers throughout, so both
    builds pick alike. ``tab``, ``dead``, ``took``: as :func:`weighted_discard`'s.

    >>> from ginrummy.cards import Card, cards_mask
    >>> from ginrummy.kernel.solver import deadwood_by_discard
    >>> h, _ = cards_mask("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH")
    >>> tab = [0] * 52
    >>> deadwood_by_discard(h, tab)
    >>> one = (1, 0, 0, 0, 0, 0, 0, 0, 1)  # one unit: the deadwood left, least goes
    >>> str(Card.from_index(net_discard(h, tab, -1, 0, 0, one, 1)[0]))
    'KC'
    """
    best = least_left(h, tab, taken)
    if best == 0:
        return least_discard(h, tab, taken)
    live = ALL_CARDS & ~h & ~dead
    choice = -1
    choice_score = 1 << 62
    x = h
    while x:
        k = popcount((x & -x) - 1)  # the lowest card's index
        x &= x - 1
        if k == taken:
            continue
        v = tab[k]
        m = PARTNERS[k]
        outs = popcount(completers(h & ~(1 << k)) & live)
        over = max(0, v - best - MARGIN)
        mates, held, fed = popcount(m & live), popcount(m & h), popcount(m & took)
        score = 0
        for j in range(units):
            r = j * NET_ROW
            a = net[r] * v + net[r + 1] * outs + net[r + 2] * POINTS[k] + net[r + 3] * mates \
                + net[r + 4] * over + net[r + 5] * held + net[r + 6] * fed + net[r + 7]
            if a > 0:
                score += net[r + 8] * a
        if score < choice_score:
            choice = k
            choice_score = score
    return choice, tab[choice]


@jit
def distilled_discard(h: int, tab: Sequence[int], taken: int, dead: int,
                      took: int) -> tuple[int, int]:
    """A :data:`~.spec.DISTILLED` seat's discard (:func:`weighted_discard` by
    :data:`~.spec.DISTILLED_WEIGHTS`, or :func:`net_discard` by
    :data:`~.spec.DISTILLED_NET` where it holds a network; ``took``: the cards the
    opponent took from the pile and holds).

    >>> from ginrummy.cards import Card, cards_mask
    >>> from ginrummy.kernel.solver import deadwood_by_discard
    >>> h, _ = cards_mask("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH")
    >>> tab = [0] * 52
    >>> deadwood_by_discard(h, tab)
    >>> str(Card.from_index(distilled_discard(h, tab, -1, 0, 0)[0]))
    'KC'
    >>> took, _ = cards_mask("KH KS")  # the opponent took two kings: keep the king
    >>> str(Card.from_index(distilled_discard(h, tab, -1, 0, took)[0]))
    'QD'
    """
    if DISTILLED_NET[NET_ROW - 1] != 0:  # (read at run time: both paths are compiled)
        return net_discard(h, tab, taken, dead, took, DISTILLED_NET,
                           len(DISTILLED_NET) // NET_ROW)
    return weighted_discard(h, tab, taken, dead, took, DISTILLED_WEIGHTS)


@jit
def wants_top(h: int, top: int, quick: bool, tab: Ints, memo: Memo) -> bool:
    """Whether the policy takes the pile's top card: gin at once, or it joins a meld (R2)
    and lowers the least deadwood; a ``quick`` knocker whenever it joins a meld."""
    if not completers(h) >> top & 1:
        return False
    if quick:
        return True
    w = h | 1 << top
    after = least_left(w, tabulate(w, tab, memo), top)  # R5: not the card taken
    return after == 0 or after < deadwood(h)


_KNOCK_AT = [most for schedule in KNOCK_AT for most in schedule]
"""``KNOCK_AT`` in one row, style after style (a flat table: one look-up, compiled)."""


@jit
def knocks_at(style: int, turns: int, limit: int) -> int:
    """The most deadwood a seat of ``style`` knocks with after ``turns`` discards (R6: never
    above ``limit``; 0 gin only; -1 not even gin, a limit below 0 in tests)."""
    return min(limit, _KNOCK_AT[style * KNOCK_AT_TURNS + min(turns, KNOCK_AT_TURNS - 1)])


@jit
def policy(st: Ints, pile: Sequence[int], tab: Ints, memo: Memo) -> int:
    """The action code the play-out policy takes in state ``st`` (module docstring);
    ``tab``, ``memo``: for :func:`~.solver.tabulate`."""
    p = st[TO_PLAY]
    h = st[p]
    style = st[STYLE] >> (2 * p) & 3
    q = style == QUICK
    phase = st[PHASE]
    if phase == DISCARD:
        t = tabulate(h, tab, memo)
        if q:
            card, dw = least_discard(h, t, st[TAKEN])
        elif style == DISTILLED:
            card, dw = distilled_discard(h, t, st[TAKEN], st[DEADCARDS], st[TOOK0 + 1 - p])
        else:
            card, dw = choose_discard(h, t, st[TAKEN], st[DEADCARDS])
        if dw <= knocks_at(style, st[TURNS0 + p], st[LIMIT]):
            return KNOCK_BASE + card
        return DISCARD_BASE + card
    if st[NPILE] > 0 and wants_top(h, pile[st[NPILE] - 1], q, tab, memo):
        return DRAW_PILE
    return DRAW_STOCK if phase == DRAW else PASS


# ----------------------------------------------------------------------------- the steps
def new_state(h0: int, h1: int, to_play: int, phase: int, taken: int, turns0: int,
              turns1: int, limit: int, dealer: int, styles: int) -> list[int]:
    """A play-out state (slots of :mod:`.spec`; ``styles`` is ``style0 | style1 << 2``);
    the stock and pile lengths (``NSTOCK``, ``NPILE``) are the caller's to fill in."""
    st = [0] * STATE_SIZE
    st[0], st[1] = h0, h1
    st[TO_PLAY], st[PHASE], st[TAKEN] = to_play, phase, taken
    st[TURNS0], st[TURNS0 + 1] = turns0, turns1
    st[LIMIT], st[DEALER], st[STYLE] = limit, dealer, styles
    return st


@jit
def step(st: Ints, stock: Sequence[int], pile: Ints, act: int) -> int:
    """Apply action code ``act`` for the seat to play (R4-R7): :data:`~.spec.RUNNING`,
    the outcome of a dead hand (R7), or :data:`~.spec.KNOCKED` (the seat still to play;
    :func:`~.solver.settle` scores it). The caller has checked that it is legal."""
    p = st[TO_PLAY]
    if act >= DISCARD_BASE:
        card = act & 63
        h = st[p] & ~(1 << card)
        st[p] = h
        st[TOOK0 + p] &= ~(1 << card)
        st[TURNS0 + p] += 1
        st[DISCARDS] += 1
        if act >= KNOCK_BASE:
            return KNOCKED
        pile[st[NPILE]] = card
        st[NPILE] += 1
        st[DEADCARDS] |= 1 << card
        if st[NSTOCK] <= 2 or st[DISCARDS] >= MAX_DISCARDS:
            return DEAD  # R7 (or a play-out that cycles)
        st[TO_PLAY] = 1 - p
        st[PHASE] = DRAW
        st[TAKEN] = -1
    elif act == DRAW_PILE:
        st[NPILE] -= 1
        c = pile[st[NPILE]]
        st[DEADCARDS] &= ~(1 << c)
        st[p] |= 1 << c
        st[TOOK0 + p] |= 1 << c
        st[TAKEN] = c
        st[PHASE] = DISCARD
    elif act == DRAW_STOCK:
        st[NSTOCK] -= 1
        st[p] |= 1 << stock[st[NSTOCK]]
        st[TAKEN] = -1  # a stock card may be discarded at once; a pile card not (R5)
        st[PHASE] = DISCARD
    elif st[PHASE] == OFFER_NON_DEALER:  # a pass on the up-card (R4)
        st[TO_PLAY] = st[DEALER]
        st[PHASE] = OFFER_DEALER
    else:
        st[TO_PLAY] = 1 - st[DEALER]
        st[PHASE] = DRAW
    return RUNNING


@jit
def play_out(st: Ints, stock: Sequence[int], pile: Ints, act: int, tab: Ints,
             memo: Memo) -> int:
    """Apply the deciding seat's action ``act`` (none if negative), then play the hand out
    by the policy; returns the outcome. ``st`` holds the stock and pile lengths; the
    arrays are changed in place."""
    dead = 0
    for i in range(st[NPILE]):
        dead |= 1 << pile[i]
    st[DEADCARDS] = dead
    r = step(st, stock, pile, act) if act >= 0 else RUNNING
    while r == RUNNING:
        r = step(st, stock, pile, policy(st, pile, tab, memo))
    if r == KNOCKED:
        p = st[TO_PLAY]
        return settle(p, st[p], st[1 - p])
    return r
