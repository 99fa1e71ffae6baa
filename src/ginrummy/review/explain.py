"""The "why" of a graded decision, in words, from the deciding seat's view only (R11).

Only facts the seat could see are used: its cards, the discard pile, the cards the
opponent took from the pile (read once, through :class:`~ginrummy.knowledge.Knowledge`),
and the evaluator's figures for the two actions.

>>> from ginrummy.cards import parse_cards
>>> melds_broken(parse_cards("7C 8C 9C 2D 5H 9H KS QS 4D 3S JH"), parse_cards("8C")[0])
'breaks the 7-8-9 of clubs'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ..cards import SUIT_NAMES, Card
from ..hand import Action, View
from ..knowledge import Knowledge
from ..melds import arrange, deadwood_by_discard, showdown_mask

if TYPE_CHECKING:
    from ..evaluator import ActionValue

__all__ = ["CardWords", "explain", "live_outs", "melds_broken", "meld_words",
           "undercut_chance"]

CardWords = Callable[[Card], str]
"""How a sentence writes a card: ``str`` (``9C``, R1) by default; a front end passes its
own, so the coach writes a card as its table shows it (the web table: ``9♣``, ``10♦``)."""

UNDERCUT_SAMPLES = 200
"""Opponent hands sampled to estimate how often a knock is undercut."""


def _cards(mask: int) -> list[Card]:
    return [Card.from_index(i) for i in range(52) if mask >> i & 1]


def _rank(c: Card) -> str:
    """The rank as a player writes it: ``10`` for a ten."""
    return "10" if c.rank == "T" else c.rank


def meld_words(meld: Sequence[Card]) -> str:
    """``the 7-8-9 of clubs`` or ``the set of 10s``-style words for a meld (R2).

    >>> from ginrummy.cards import parse_cards
    >>> meld_words(parse_cards("9H TH JH")), meld_words(parse_cards("TC TD TS"))
    ('the 9-10-J of hearts', 'the set of 10s')
    """
    ranks = sorted(meld, key=lambda c: c.rank_index)
    if ranks[0].rank_index == ranks[-1].rank_index:
        return f"the set of {_rank(ranks[0])}s"
    return "the " + "-".join(_rank(c) for c in ranks) + f" of {SUIT_NAMES[ranks[0].suit]}"


def melds_broken(hand: Iterable[Card], card: Card) -> str | None:
    """``breaks the 7-8-9 of clubs`` when ``card`` is in a meld of the hand's best
    arrangement, else None."""
    for meld in arrange(list(hand)).melds:
        if card in meld:
            return f"breaks {meld_words(meld)}"
    return None


def undercut_chance(view: View, card: Card, samples: int = UNDERCUT_SAMPLES) -> float:
    """How often knocking with ``card`` would be undercut (R8, R9), over opponent hands
    sampled from the view (the evaluator's belief; hidden cards are never read)."""
    import random

    from ..evaluator.belief import Belief

    k = Knowledge.of(view)
    belief = Belief(k, view.knock_limit)
    rng = random.Random(repr((k.mine, k.opp_known, k.opp_discarded, view.stock_count)))
    knocker = k.mine & ~card.mask
    hits = 0
    for _ in range(samples):
        sd = showdown_mask(knocker, belief.sample_hand(rng))
        hits += not sd.gin and sd.defender_deadwood <= sd.knocker_deadwood
    return hits / samples


def _feeds(view: View, card: Card, words: CardWords = str) -> str | None:
    """Words for a discard that helps a meld the opponent is visibly collecting: they took
    cards of the same rank, or of the same suit within two ranks, from the pile."""
    taken = _cards(Knowledge.of(view).opp_known)
    same_rank = [c for c in taken if c.rank_index == card.rank_index]
    near = [c for c in taken if c.suit_index == card.suit_index
            and 0 < abs(c.rank_index - card.rank_index) <= 2]
    if len(near) >= 1 and (len(near) >= 2 or not same_rank):
        shown = " and ".join(words(c) for c in near)
        return f"feeds the run the opponent is collecting: they took {shown}"
    if same_rank:
        shown = " and ".join(words(c) for c in same_rank)
        return f"feeds the set the opponent is collecting: they took {shown}"
    return None


def _take_words(view: View, card: CardWords = str) -> tuple[str, bool]:
    """What taking the top discard would do for the hand, and whether it helps (makes a
    meld or lowers the deadwood after the discard)."""
    top = view.discards[-1]
    now = arrange(list(view.hand)).deadwood
    with_top = [*view.hand, top]
    by = deadwood_by_discard(with_top)
    after = min(v for c, v in by.items() if c != top)  # R5: not straight back
    for meld in arrange(with_top).melds:
        if top in meld:
            return (f"taking {card(top)} makes {meld_words(meld)} (deadwood {now} -> "
                    f"{after})"), True
    if after < now:
        return f"taking {card(top)} lowers the deadwood from {now} to {after}", True
    return (f"taking {card(top)} makes no meld and lowers no deadwood ({now} -> {after})",
            False)


def explain(view: View, played: Action, played_value: ActionValue,
            best_value: ActionValue, card: CardWords = str) -> str | None:
    """Why ``best_value.action`` beats ``played`` where that can be said in words (each
    card written by ``card``)."""
    best = best_value.action
    if played.act == "discard" and best.act == "discard":
        return _explain_discard(view, played, played_value, best, best_value, card)
    if best.act == "draw" and best.source == "discard" and view.discards:
        words, helps = _take_words(view, card)
        return words if helps else None
    if played.act == "draw" and played.source == "discard" and view.discards:
        words, helps = _take_words(view, card)
        return None if helps else f"{words}; the stock offers more"
    return None


def _explain_discard(view: View, played: Action, pv: ActionValue, best: Action,
                     bv: ActionValue, card: CardWords = str) -> str | None:
    assert played.card is not None and best.card is not None
    by = deadwood_by_discard(list(view.hand))
    dw_played, dw_best = by[played.card], by[best.card]
    parts: list[str] = []
    if best.knock and dw_best == 0 and not (played.knock and dw_played == 0):
        parts.append(f"gin was there: discard {card(best.card)} and go gin")
    elif best.knock and not played.knock:
        chance = undercut_chance(view, best.card)
        parts.append(f"knocking with {dw_best} deadwood (discard {card(best.card)}) was better "
                     f"than playing on: an undercut is only about {chance:.0%} likely")
    elif played.knock and not best.knock:
        chance = undercut_chance(view, played.card)
        if chance >= 0.05:
            parts.append(f"knocking with {dw_played} deadwood here loses to an undercut about "
                         f"{chance:.0%} of the time; playing on was better")
        else:  # the undercut is not the reason: say what is, not "about 0%"
            gain = bv.points - pv.points
            why = (f"is worth {gain:+.1f} points this hand" if gain >= 0.5
                   else "keeps more chances to win the match at this score")
            parts.append(f"knocking with {dw_played} deadwood is rarely undercut here, but "
                         f"playing on (for gin or a lower count) {why}")
    broken = melds_broken(view.hand, played.card)
    if broken and not played.knock:
        parts.append(broken)
    if dw_played > dw_best and not parts:
        parts.append(f"leaves {dw_played} deadwood where {card(best.card)} leaves {dw_best}")
    fed = _feeds(view, played.card, card)
    if fed:
        parts.append(fed)
    if not parts:
        fact = _discard_facts(view, played.card, best.card, bv.points - pv.points, card)
        if fact:
            parts.append(fact)
    return "; ".join(parts) or None


def live_outs(view: View, card: Card) -> int:
    """How many unseen cards would complete a meld (R2) with the hand left after
    discarding ``card`` (cards in the pile or the opponent's known takes are no outs)."""
    from ..kernel.solver import completers

    k = Knowledge.of(view)
    return (completers(k.mine & ~card.mask) & k.unseen).bit_count()


def _discard_facts(view: View, played: Card, best: Card, gain: float,
                   card: CardWords = str) -> str | None:
    """What the better discard keeps or denies, in numbers a player can check: outs, the
    chance of feeding the opponent a meld, or the points it is worth."""
    from ..heuristics import meld_chance

    outs_p, outs_b = live_outs(view, played), live_outs(view, best)
    if outs_b > outs_p:
        return (f"discarding {card(best)} keeps {outs_b} live cards that would complete a "
                f"meld, {card(played)} keeps {outs_p}")
    k = Knowledge.of(view)
    feed_p, feed_b = meld_chance(played.index, k), meld_chance(best.index, k)
    if feed_p >= feed_b + 0.05:
        return (f"{card(played)} completes a meld for the opponent {feed_p:.0%} of the time, "
                f"{card(best)} {feed_b:.0%}")
    if gain >= 0.5:
        return f"{card(best)} is worth {gain:+.1f} points this hand in the coach's play-outs"
    return None
