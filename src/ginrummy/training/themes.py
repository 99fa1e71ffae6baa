"""A puzzle's themes, each by a rule anyone can check against the position (its seat's view
only, R11) and the measured values of its moves. A puzzle may have several themes or
none. The rules (docs/training.md lists them too):

* ``take-or-pass``: the decision is whether to take the face-up card (the up-card offer,
  R4, or a draw, R5).
* ``safe-discard``: the best move is a plain discard that leaves more deadwood than the
  least possible, and the card that would leave the least is likelier to complete a meld
  for the opponent (``strong``'s :func:`~ginrummy.bots.strong.meld_chance`).
* ``knock-or-play-on``: a knock short of gin is legal (R6).
* ``gin-or-knock``: a knock short of gin is legal and gin is legal too, or some plain
  discard leaves a hand that one unseen card would turn into gin.
* ``lay-off-counting``: the best move is a knock short of gin and a card the opponent took
  from the pile (and still holds) would lay off on the melds it leaves (R8), or another
  knock leaves less deadwood.
* ``undercut-danger``: a knock short of gin is legal and the knock leaving the least
  deadwood would be undercut (R9) in at least :data:`UNDERCUT_SHARE` of the opponent hands
  the review samples (:func:`~ginrummy.review.explain.undercut_chance`).
* ``reading-pile-takes``: a discard, with the opponent holding a card it took from the
  pile, where some legal discard could meld with that card (same rank, or same suit
  within two ranks) and the best move is not such a discard.
* ``last-cards``: at most :data:`LAST_CARDS` cards are left in the stock (the hand dies
  when a discard leaves two, R7).

>>> sorted(THEMES)[:3]
['gin-or-knock', 'knock-or-play-on', 'last-cards']
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import Card, iter_mask
from ..hand import Action, Phase, View
from ..heuristics import meld_chance
from ..i18n import N_
from ..knowledge import Knowledge
from ..melds import arrange, deadwood_by_discard, deadwood_by_discard_mask
from ..review.explain import undercut_chance

__all__ = ["LAST_CARDS", "THEMES", "UNDERCUT_SHARE", "themes_of"]

THEMES: dict[str, str] = {
    "take-or-pass": N_("Take or pass: whether to take the face-up card."),
    "safe-discard": N_("Safe discard: a card the opponent is less likely to use, at a cost "
                       "in deadwood."),
    "knock-or-play-on": N_("Knock or play on: a knock is allowed; is it the time?"),
    "gin-or-knock": N_("Gin or knock: knock now, or play on for gin."),
    "lay-off-counting": N_("Lay-off counting: what the opponent could lay off on your "
                           "melds."),
    "undercut-danger": N_("Undercut danger: a knock the opponent may beat."),
    "reading-pile-takes": N_("Reading pile takes: what the opponent's takes from the pile "
                             "say."),
    "last-cards": N_("The last cards of the stock: the hand is about to die."),
}
"""Every theme's name and its one-line title, in the order the board lists them (the title
in English: a page says it with ``t``)."""

LAST_CARDS = 8
"""Stock cards at most for ``last-cards``: four turns each before the hand dies (R7)."""
UNDERCUT_SHARE = 0.2
"""The undercut chance from which a legal knock counts as ``undercut-danger``."""
THEME_SAMPLES = 200
"""Opponent hands sampled for the undercut chance."""


def _related(a: Card, b: Card) -> bool:
    """Whether two cards can be in one meld (same rank, or same suit within two ranks)."""
    if a.rank_index == b.rank_index:
        return True
    return a.suit_index == b.suit_index and abs(a.rank_index - b.rank_index) <= 2


def _lays_off(melds: Sequence[Sequence[Card]], card: Card) -> bool:
    """Whether ``card`` lays off on one of ``melds`` (R8: a set's fourth card, a run's
    next card at either end)."""
    for meld in melds:
        ranks = sorted(c.rank_index for c in meld)
        if ranks[0] == ranks[-1]:
            if card.rank_index == ranks[0]:
                return True
        elif card.suit_index == meld[0].suit_index and card.rank_index in (ranks[0] - 1,
                                                                          ranks[-1] + 1):
            return True
    return False


def _one_from_gin(hand: int, unseen: int) -> bool:
    """Whether some unseen card would let the 10-card ``hand`` (a mask) discard to gin."""
    for i in iter_mask(unseen):
        table = deadwood_by_discard_mask(hand | 1 << i)
        if any(v == 0 for c, v in table.items() if c != i):
            return True
    return False


def themes_of(view: View, best: Action) -> tuple[str, ...]:
    """The themes of the decision at ``view`` whose best move is ``best`` (module
    docstring), in :data:`THEMES` order."""
    found: set[str] = set()
    k = Knowledge.of(view)
    if view.phase in (Phase.OFFER, Phase.DRAW):
        found.add("take-or-pass")
    if view.stock_count <= LAST_CARDS:
        found.add("last-cards")
    if view.phase is Phase.DISCARD:
        found |= _discard_themes(view, k, best)
    return tuple(t for t in THEMES if t in found)


def _discard_themes(view: View, k: Knowledge, best: Action) -> set[str]:
    found: set[str] = set()
    by = deadwood_by_discard(list(view.hand))
    knocks = [a for a in view.legal if a.knock and a.card is not None]
    short = [a for a in knocks if a.card is not None and by[a.card] > 0]
    gin = any(a.card is not None and by[a.card] == 0 for a in knocks)
    plain = [a for a in view.legal if a.act == "discard" and not a.knock and a.card is not None]
    if short:
        found.add("knock-or-play-on")
        least = min(short, key=lambda a: (by[a.card], a.card) if a.card else (0, a.card))
        assert least.card is not None
        if undercut_chance(view, least.card, THEME_SAMPLES) >= UNDERCUT_SHARE:
            found.add("undercut-danger")
        if gin or any(_one_from_gin(k.mine & ~a.card.mask, k.unseen)
                      for a in plain if a.card is not None and by[a.card] <= 10):
            found.add("gin-or-knock")
    if best.knock and best.card is not None and by[best.card] > 0:
        left = [c for c in view.hand if c != best.card]
        melds = arrange(left).melds
        held = [Card.from_index(i) for i in iter_mask(k.opp_known)]
        if any(_lays_off(melds, c) for c in held) or any(
                a.card is not None and by[a.card] < by[best.card] for a in short):
            found.add("lay-off-counting")
    if not best.knock and best.card is not None and plain:
        least_dw = min(by[a.card] for a in plain if a.card is not None)
        if by[best.card] > least_dw:
            mine = meld_chance(best.card.index, k)
            if any(a.card is not None and by[a.card] == least_dw
                   and meld_chance(a.card.index, k) > mine for a in plain):
                found.add("safe-discard")
    held = [Card.from_index(i) for i in iter_mask(k.opp_known)]
    if held and best.act == "discard" and best.card is not None:
        feeding = [a.card for a in plain
                   if a.card is not None and any(_related(a.card, h) for h in held)]
        if feeding and best.card not in feeding:
            found.add("reading-pile-takes")
    return found
