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

from ..cards import Card
from ..hand import Action, View
from ..knowledge import Knowledge
from ..melds import arrange, deadwood_by_discard, showdown_mask
from . import said
from .said import Num, Said, Value

if TYPE_CHECKING:
    from ..evaluator import ActionValue

__all__ = ["CardWords", "and_words", "broken_said", "explain", "explain_said", "live_outs",
           "meld_said", "melds_broken", "meld_words", "percent", "run_words",
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


def run_words(suit: str, ranks: Value) -> Said:
    """``the 7-8-9 of clubs``: cards of one suit (``ranks`` as the table writes them: the
    run ``7-8-9``, the start ``7-8``, or ``7 and 9``), one whole message per suit."""
    if suit == "C":
        return said.t("the {ranks} of clubs", ranks=ranks)
    if suit == "D":
        return said.t("the {ranks} of diamonds", ranks=ranks)
    if suit == "H":
        return said.t("the {ranks} of hearts", ranks=ranks)
    return said.t("the {ranks} of spades", ranks=ranks)


def and_words(words: Sequence[Value]) -> Value:
    """``A``, ``A and B``, ``A and B and C``: each joined to the next by "and"."""
    out: Value = words[0]
    for w in words[1:]:
        out = said.t("{first} and {last}", first=out, last=w)
    return out


def percent(x: float, places: int = 0) -> Num:
    """A chance as a number of percent (``0.085`` -> ``8``, as ``f"{x:.0%}"`` writes it
    before its ``%``): the message writes the sign as its language does."""
    return Num(x * 100, places)


def meld_said(meld: Sequence[Card]) -> Said:
    """:func:`meld_words`, to be said in the reader's language (:mod:`.said`)."""
    ranks = sorted(meld, key=lambda c: c.rank_index)
    if ranks[0].rank_index == ranks[-1].rank_index:
        return said.t("the set of {rank}s", rank=_rank(ranks[0]))
    return run_words(ranks[0].suit, "-".join(_rank(c) for c in ranks))


def meld_words(meld: Sequence[Card]) -> str:
    """``the 7-8-9 of clubs`` or ``the set of 10s``-style words for a meld (R2).

    >>> from ginrummy.cards import parse_cards
    >>> meld_words(parse_cards("9H TH JH")), meld_words(parse_cards("TC TD TS"))
    ('the 9-10-J of hearts', 'the set of 10s')
    """
    return str(meld_said(meld))


def broken_said(hand: Iterable[Card], card: Card) -> Said | None:
    """:func:`melds_broken`, to be said in the reader's language."""
    for meld in arrange(list(hand)).melds:
        if card in meld:
            return said.t("breaks {meld}", meld=meld_said(meld))
    return None


def melds_broken(hand: Iterable[Card], card: Card) -> str | None:
    """``breaks the 7-8-9 of clubs`` when ``card`` is in a meld of the hand's best
    arrangement, else None."""
    broken = broken_said(hand, card)
    return None if broken is None else str(broken)


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


def _feeds(view: View, card: Card, words: CardWords = str) -> Said | None:
    """Words for a discard that helps a meld the opponent is visibly collecting: they took
    cards of the same rank, or of the same suit within two ranks, from the pile."""
    taken = _cards(Knowledge.of(view).opp_known)
    same_rank = [c for c in taken if c.rank_index == card.rank_index]
    near = [c for c in taken if c.suit_index == card.suit_index
            and 0 < abs(c.rank_index - card.rank_index) <= 2]
    if len(near) >= 1 and (len(near) >= 2 or not same_rank):
        shown = and_words([words(c) for c in near])
        return said.t("feeds the run the opponent is collecting: they took {cards}",
                      cards=shown)
    if same_rank:
        shown = and_words([words(c) for c in same_rank])
        return said.t("feeds the set the opponent is collecting: they took {cards}",
                      cards=shown)
    return None


def _take_words(view: View, card: CardWords = str) -> tuple[Said, bool]:
    """What taking the top discard would do for the hand, and whether it helps (makes a
    meld or lowers the deadwood after the discard)."""
    top = view.discards[-1]
    now = arrange(list(view.hand)).deadwood
    with_top = [*view.hand, top]
    by = deadwood_by_discard(with_top)
    after = min(v for c, v in by.items() if c != top)  # R5: not straight back
    for meld in arrange(with_top).melds:
        if top in meld:
            return said.t("taking {card} makes {meld} (deadwood {now} -> {after})",
                          card=card(top), meld=meld_said(meld), now=now, after=after), True
    if after < now:
        return said.t("taking {card} lowers the deadwood from {now} to {after}",
                      card=card(top), now=now, after=after), True
    return said.t("taking {card} makes no meld and lowers no deadwood ({now} -> {after})",
                  card=card(top), now=now, after=after), False


def explain(view: View, played: Action, played_value: ActionValue,
            best_value: ActionValue, card: CardWords = str) -> str | None:
    """Why ``best_value.action`` beats ``played`` where that can be said in words (each
    card written by ``card``), in the language of the moment."""
    why = explain_said(view, played, played_value, best_value, card)
    return None if why is None else str(why)


def explain_said(view: View, played: Action, played_value: ActionValue,
                 best_value: ActionValue, card: CardWords = str) -> Value | None:
    """:func:`explain`, to be said in the reader's language (:mod:`.said`: a review keeps
    it so, graded once for readers of any language)."""
    best = best_value.action
    if played.act == "discard" and best.act == "discard":
        return _explain_discard(view, played, played_value, best, best_value, card)
    if best.act == "draw" and best.source == "discard" and view.discards:
        words, helps = _take_words(view, card)
        return words if helps else None
    if played.act == "draw" and played.source == "discard" and view.discards:
        words, helps = _take_words(view, card)
        return None if helps else said.clauses([words, said.t("the stock offers more")])
    return None


def _explain_discard(view: View, played: Action, pv: ActionValue, best: Action,
                     bv: ActionValue, card: CardWords = str) -> Value | None:
    assert played.card is not None and best.card is not None
    by = deadwood_by_discard(list(view.hand))
    dw_played, dw_best = by[played.card], by[best.card]
    parts: list[Value] = []
    if best.knock and dw_best == 0 and not (played.knock and dw_played == 0):
        parts.append(said.t("gin was there: discard {card} and go gin", card=card(best.card)))
    elif best.knock and not played.knock:
        chance = undercut_chance(view, best.card)
        parts.append(said.t("knocking with {deadwood} deadwood (discard {card}) was better "
                            "than playing on: an undercut is only about {chance}% likely",
                            deadwood=dw_best, card=card(best.card), chance=percent(chance)))
    elif played.knock and not best.knock:
        chance = undercut_chance(view, played.card)
        if chance >= 0.05:
            parts.append(said.t("knocking with {deadwood} deadwood here loses to an undercut "
                                "about {chance}% of the time; playing on was better",
                                deadwood=dw_played, chance=percent(chance)))
        else:  # the undercut is not the reason: say what is, not "about 0%"
            gain = bv.points - pv.points
            if gain >= 0.5:
                parts.append(said.t("knocking with {deadwood} deadwood is rarely undercut "
                                    "here, but playing on (for gin or a lower count) is worth "
                                    "{gain} more points this hand",
                                    deadwood=dw_played, gain=Num(gain, 1)))
            else:
                parts.append(said.t("knocking with {deadwood} deadwood is rarely undercut "
                                    "here, but playing on (for gin or a lower count) keeps "
                                    "more chances to win the match at this score",
                                    deadwood=dw_played))
    broken = broken_said(view.hand, played.card)
    if broken and not played.knock:
        parts.append(broken)
    if dw_played > dw_best and not parts:
        parts.append(said.t("leaves {deadwood} deadwood where {card} leaves {best}",
                            deadwood=dw_played, card=card(best.card), best=dw_best))
    fed = _feeds(view, played.card, card)
    if fed:
        parts.append(fed)
    if not parts:
        fact = _discard_facts(view, played.card, best.card, bv.points - pv.points, card)
        if fact:
            parts.append(fact)
    if not parts:
        return None
    return said.clauses(parts)


def live_outs(view: View, card: Card) -> int:
    """How many unseen cards would complete a meld (R2) with the hand left after
    discarding ``card`` (cards in the pile or the opponent's known takes are no outs)."""
    from ..kernel.solver import completers

    k = Knowledge.of(view)
    return (completers(k.mine & ~card.mask) & k.unseen).bit_count()


def _discard_facts(view: View, played: Card, best: Card, gain: float,
                   card: CardWords = str) -> Said | None:
    """What the better discard keeps or denies, in numbers a player can check: outs, the
    chance of feeding the opponent a meld, or the points it is worth."""
    from ..heuristics import meld_chance

    outs_p, outs_b = live_outs(view, played), live_outs(view, best)
    if outs_b > outs_p:
        return said.t("discarding {best} keeps {outs} live cards that would complete a meld, "
                      "{played} keeps {played_outs}", best=card(best), outs=outs_b,
                      played=card(played), played_outs=outs_p)
    k = Knowledge.of(view)
    feed_p, feed_b = meld_chance(played.index, k), meld_chance(best.index, k)
    if feed_p >= feed_b + 0.05:
        return said.t("{played} completes a meld for the opponent {chance}% of the time, "
                      "{best} {best_chance}%", played=card(played), chance=percent(feed_p),
                      best=card(best), best_chance=percent(feed_b))
    if gain >= 0.5:  # (the difference of the two moves' points, not either move's own)
        return said.t("{best} is worth {gain} more points this hand than {played} in the "
                      "coach's play-outs", best=card(best), gain=Num(gain, 1),
                      played=card(played))
    return None
