"""Why the computer made its move, in a player's words: ``ginrummy play`` prints one
reason after each of the computer's moves ("Hard draws from the stock: the 2♦ helps
nothing.").

A reason is read from the deciding seat's own view only (R11): its cards, the discard
pile, the cards the opponent took from the pile; never the opponent's hidden cards. Where
the bot consulted the evaluator (``hard``/``expert`` keep its :class:`Evaluation` in
``bot.last``), the reason also says what the figures say: the margin in match-winning
chance over the runner-up, or that the evaluator overruled the bot's first choice
(``bot.default``). Every clause is a fact a test can check:

* outs (:func:`outs`) are the live unseen cards (not held, not in the pile, not known to
  be the opponent's) that would make a meld (R2) with two cards kept;
* deadwood is the least over all arrangements (R2), after the best discard where a card
  is drawn (R5: not the card just taken);
* an undercut chance is :func:`~ginrummy.review.explain.undercut_chance` (R8, R9);
* a meld is named as the review names it (:func:`~ginrummy.review.explain.meld_words`);
* without the evaluator a discard is compared with the one leaving the least deadwood,
  and where neither outs nor deadwood favour it, by ``strong``'s own measures: the mean
  deadwood after the next draw (:func:`~ginrummy.heuristics.draw_outlook`) or the
  chance the opponent can meld the card (:func:`~ginrummy.heuristics.meld_chance`);
* the evaluator's margins are in match wins (points of match-winning chance, paired on
  the same sampled deals), "too close to call" within two standard errors.

>>> from ginrummy import Action, Deal, Hand
>>> hand = Hand(Deal.build("7C 8C 2D 4D 6D 9H JH KS QS 3H",
...                        "AS 3S 5S 7S 9S JS 2H 4H 6H 8H", "9C"), dealer=1)
>>> reason(hand.view(0), Action.parse("draw discard"))
'it makes the 7-8-9 of clubs, deadwood down from 69 to 44'
>>> _ = hand.play(Action.parse("draw discard"))
>>> reason(hand.view(0), Action.parse("discard KS"))
'7 outs and 44 deadwood left (the least possible)'
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import Card, from_mask
from ..evaluator.evaluation import Evaluation
from ..hand import Action, View
from ..heuristics import draw_outlook, meld_chance, related, takes_back
from ..kernel.solver import completers
from ..knowledge import Knowledge, in_some_meld
from ..melds import arrange, arrangements_mask, deadwood_by_discard_mask, deadwood_mask
from . import said
from .explain import CardWords, broken_said, meld_said, percent, run_words, undercut_chance
from .said import Num, Said, Value

__all__ = ["outs", "reason", "reason_said"]


def outs(hand: int, unseen: int) -> int:
    """How many cards of ``unseen`` would make a meld (R2) with two cards of ``hand``
    (card masks): the hand's live outs, counted as the review's
    :func:`~ginrummy.review.explain.live_outs` counts them for a discard.

    >>> from ginrummy.cards import to_mask, parse_cards
    >>> outs(to_mask(parse_cards("7H 8H KS")), to_mask(parse_cards("6H 9H TH KD 2C")))
    2
    """
    return (completers(hand) & unseen).bit_count()


def reason(view: View, action: Action, evaluation: Evaluation | None = None, *,
           first_choice: Action | None = None, card: CardWords = str) -> str:
    """Why the seat of ``view`` plays ``action`` (one of ``view.legal``), as a clause
    that follows the move's own words ("draws from the stock: " + reason), in the
    language of the moment.

    ``evaluation``: the evaluator's figures for this decision, if the bot consulted it
    (ignored when ``action`` is not among them); ``first_choice``: the move the bot
    would have made without the evaluator (``expert``'s ``default``). ``card`` writes
    a card.
    """
    return str(reason_said(view, action, evaluation, first_choice=first_choice, card=card))


def reason_said(view: View, action: Action, evaluation: Evaluation | None = None, *,
                first_choice: Action | None = None, card: CardWords = str) -> Value:
    """:func:`reason`, to be said in the reader's language (:mod:`.said`)."""
    k = Knowledge.of(view)
    ev = evaluation if evaluation is not None and _rated(evaluation, action) else None
    text: Value
    if action.act == "discard":
        assert action.card is not None
        if action.knock:
            text = _knock_why(view, k, action.card)
        else:
            text = _discard_why(view, k, action.card, ev, first_choice, card)
    else:
        text = _draw_why(view, k, action, card)
    if ev is not None:
        text = said.clauses([text, _evaluator_words(view, k, ev, action, first_choice, card)])
    return text


# ---------------------------------------------------------------------------- draws


def _draw_why(view: View, k: Knowledge, action: Action, card: CardWords) -> Said:
    """Taking the face-up card, passing on it, or drawing from the stock."""
    if k.top is None:
        return said.t("the discard pile is empty")
    top = card(Card.from_index(k.top))
    kind, meld, now, after = _top_effect(k)
    change = _change(now, after)
    if action.act == "draw" and action.source == "discard":
        if kind == "gin":
            return said.t("it gives gin")
        if kind == "meld":
            return said.t("it makes {meld}, {change}", meld=meld or "", change=change)
        if kind == "lower":  # (the deadwood is lower after: R5's best discard)
            return said.t("it makes no meld but brings the deadwood down from {now} to "
                          "{after}", now=now, after=after)
        if kind == "steal":
            return said.t("it makes a meld only by breaking another; {change}",
                          change=change)
        if kind == "partial":
            return said.t("it makes no meld, only {meld}; {change}", meld=meld,
                          change=change) if meld \
                else said.t("it makes no meld; {change}", change=change)
        return said.t("it goes with no card held; {change}", change=change)
    if kind == "none":
        return said.t("the {card} helps nothing", card=top)
    if kind == "partial":
        return said.t("the {card} makes no meld and lowers no deadwood", card=top)
    if kind == "steal" and after >= now:
        return said.t("the {card} makes a meld only by breaking another and lowers no "
                      "deadwood", card=top)
    if kind == "gin":
        words = said.t("the {card} would give gin", card=top)
    elif kind == "meld":
        words = said.t("the {card} would make {meld}, {change}", card=top, meld=meld or "",
                       change=change)
    elif kind == "steal":
        words = said.t("the {card} would make a meld only by breaking another, {change}",
                       card=top, change=change)
    else:  # "lower": the deadwood is lower after
        words = said.t("the {card} would make no meld but bring the deadwood down from "
                       "{now} to {after}", card=top, now=now, after=after)
    if takes_back(view):
        return said.t("{reason}, but it threw that card itself", reason=words)
    return words


def _top_effect(k: Knowledge) -> tuple[str, Said | None, int, int]:
    """What the face-up card does for the hand: ``gin``; a ``meld`` (named) in a
    least-deadwood arrangement (R2) of the hand with it; a meld only in a worse one
    (``steal``: it breaks another); a ``lower`` deadwood with no meld possible; only a
    ``partial`` meld (named if with a loose card: it may go only with melded cards); or
    ``none`` (no card held shares a meld with it). Then the deadwood now and after the
    best discard other than that card (R5)."""
    assert k.top is not None
    top = Card.from_index(k.top)
    with_top = k.mine | top.mask
    now = deadwood_mask(k.mine)
    after = min(v for i, v in deadwood_by_discard_mask(with_top).items() if i != k.top)
    if after == 0:
        return "gin", None, now, after
    for arrangement in arrangements_mask(with_top):
        for meld in arrangement.melds:
            if top in meld:
                return "meld", meld_said(meld), now, after
    if in_some_meld(with_top, top.index):
        return "steal", None, now, after
    if after < now:
        return "lower", None, now, after
    group = _partial(k, with_top, top)
    if group is not None:
        return "partial", group[0], now, after
    if any(_related(top, c) for c in from_mask(k.mine)):
        return "partial", None, now, after
    return "none", None, now, after


def _change(now: int, after: int) -> Said:
    """The deadwood before and after, in words."""
    if after < now:
        return said.t("deadwood down from {now} to {after}", now=now, after=after)
    if after > now:
        return said.t("deadwood up from {now} to {after}", now=now, after=after)
    return said.t("deadwood stays {now}", now=now)


# ---------------------------------------------------------------------------- discards


def _discard_why(view: View, k: Knowledge, thrown: Card, ev: Evaluation | None,
                 first: Action | None, card: CardWords) -> Value:
    """A plain discard: what it keeps (outs, deadwood), against the move compared (the
    evaluator names that one itself); or, where it could knock, that it plays on and
    what a knock would risk."""
    table = deadwood_by_discard_mask(k.mine)
    plain = [a.card for a in view.legal if a.act == "discard" and not a.knock and a.card]
    least = min(table[c.index] for c in plain)
    kept = k.mine & ~thrown.mask
    n, d = outs(kept, k.unseen), table[thrown.index]
    knocks = [a.card for a in view.legal if a.knock and a.card is not None]
    if knocks:
        best = min(knocks, key=lambda c: (table[c.index], c.index))
        dk = table[best.index]
        if dk == 0:
            return said.t("could go gin but plays on, with {outs} and {deadwood} deadwood",
                          outs=_outs(n), deadwood=d)
        return said.t("could knock with {knock} ({undercut}) but plays on, with {outs} and "
                      "{deadwood} deadwood", knock=dk, undercut=_undercut_words(view, best),
                      outs=_outs(n), deadwood=d)
    alt = _alternative(k, thrown, plain, table, ev, first)
    if d == least:
        facts = said.t("{outs} and {deadwood} deadwood left (the least possible)",
                       outs=_outs(n), deadwood=d)
    else:
        facts = said.t("{outs} and {deadwood} deadwood left", outs=_outs(n), deadwood=d)
    broken = broken_said(from_mask(k.mine), thrown)
    if alt is None:
        return said.joined(", ", [broken, facts]) if broken else facts
    other = k.mine & ~alt.mask
    n_alt, d_alt = outs(other, k.unseen), table[alt.index]
    keeps = _keeps(k, kept, alt) if n > n_alt else None  # alt's group gives the outs
    text: Value = said.joined(", ", [broken, facts]) if broken \
        else said.joined(", ", [said.t("keeps {meld}", meld=keeps), facts]) if keeps \
        else facts
    if ev is not None:
        return text  # the evaluator's words name the move compared, with its figures
    took = [t for t in from_mask(k.opp_known) if _related(t, alt)]
    if took:
        words = said.t("throwing {card} would leave {outs} and {deadwood} deadwood and could "
                       "help the opponent, who took {cards}", card=card(alt),
                       outs=_outs(n_alt), deadwood=d_alt,
                       cards=_and([card(t) for t in took]))
    elif n <= n_alt and d >= d_alt:  # neither outs nor deadwood: the next draw, or safety
        words = _next_draw_or_safety(k, thrown, alt, kept, other, card, _outs(n_alt), d_alt)
    else:
        words = said.t("throwing {card} would leave {outs} and {deadwood} deadwood",
                       card=card(alt), outs=_outs(n_alt), deadwood=d_alt)
    return said.clauses([text, words])


def _next_draw_or_safety(k: Knowledge, thrown: Card, alt: Card, kept: int, other: int,
                         card: CardWords, alt_outs: Said, alt_deadwood: int) -> Said:
    """Throwing ``alt`` instead, where outs and deadwood do not favour ``thrown`` over it:
    a higher deadwood expected after the next draw with ``alt`` thrown (each unseen card
    equally likely), or a larger chance that the opponent holds two cards making a meld
    with ``alt``, or just its outs and deadwood."""
    e, _ = draw_outlook(kept, k.unseen)
    e_alt, _ = draw_outlook(other, k.unseen)
    if round(e, 1) < round(e_alt, 1):
        return said.t("throwing {card} would leave {outs} and {deadwood} deadwood, but more "
                      "after the next draw: {expected} deadwood on average against {mine}",
                      card=card(alt), outs=alt_outs, deadwood=alt_deadwood,
                      expected=Num(e_alt, 1), mine=Num(e, 1))
    p, p_alt = meld_chance(thrown.index, k), meld_chance(alt.index, k)
    if round(p, 2) < round(p_alt, 2):
        return said.t("throwing {card} would leave {outs} and {deadwood} deadwood, but the "
                      "opponent is likelier to meld {card} (about {chance}% against "
                      "{thrown_chance}% for {thrown})", card=card(alt), outs=alt_outs,
                      deadwood=alt_deadwood, chance=percent(p_alt),
                      thrown_chance=percent(p), thrown=card(thrown))
    return said.t("throwing {card} would leave {outs} and {deadwood} deadwood",
                  card=card(alt), outs=alt_outs, deadwood=alt_deadwood)


def _alternative(k: Knowledge, thrown: Card, plain: list[Card], table: dict[int, int],
                 ev: Evaluation | None, first: Action | None) -> Card | None:
    """The discard to compare with: the first choice the evaluator overruled, else its
    best-rated other plain discard; without an evaluation, the discard leaving the least
    deadwood (most outs on a tie) when ``thrown`` leaves more, else none."""
    if ev is not None:
        if first is not None and first.card is not None and not first.knock \
                and first.card != thrown and _rated(ev, first):
            return first.card
        others = [v for v in ev.values if v.action.act == "discard" and not v.action.knock
                  and v.action.card is not None and v.action.card != thrown]
        if not others:
            return None
        return max(others, key=lambda v: (v.win, v.points)).action.card
    least = min(table[c.index] for c in plain)
    if table[thrown.index] == least:
        return None
    return min((c for c in plain if c != thrown),
               key=lambda c: (table[c.index], -outs(k.mine & ~c.mask, k.unseen), c.index))


def _keeps(k: Knowledge, kept: int, alt: Card) -> Said | None:
    """The meld or two-card start of one that ``alt`` (kept) belongs to, in words."""
    for meld in arrange(from_mask(kept)).melds:
        if alt in meld:
            return meld_said(meld)
    group = _partial(k, kept, alt)
    return group[0] if group is not None else None


def _partial(k: Knowledge, hand: int, c: Card) -> tuple[Said, int] | None:
    """The two-card start of a meld (a pair, two of a suit within two ranks) that ``c``
    makes with a loose card of ``hand``, in words, with its live outs: the one with the
    most outs, or None."""
    loose = arrange(from_mask(hand)).deadwood_cards
    best: tuple[Said, int] | None = None
    for o in loose:
        if o == c or not _related(o, c):
            continue
        n = outs(c.mask | o.mask, k.unseen)
        lo, hi = sorted((c, o), key=lambda x: x.rank_index)
        if lo.rank_index == hi.rank_index:
            words = said.t("the pair of {rank}s", rank=lo.rank)
        elif hi.rank_index - lo.rank_index == 1:
            words = run_words(lo.suit, f"{lo.rank}-{hi.rank}")
        else:
            words = run_words(lo.suit, _and([lo.rank, hi.rank]))
        if best is None or n > best[1]:
            best = (words, n)
    return best


def _related(a: Card, b: Card) -> bool:
    """Whether two cards can share a meld (R2): same rank, or one suit within two ranks."""
    return related(a.index, b.index)


# ---------------------------------------------------------------------------- knocks


def _knock_why(view: View, k: Knowledge, thrown: Card) -> Said:
    """A knock (R6): the deadwood and how likely an undercut is; gin needs no more."""
    left = deadwood_by_discard_mask(k.mine)[thrown.index]
    if left == 0:
        return said.t("the ten cards left all meld")
    return said.t("with {deadwood} deadwood, {undercut}", deadwood=left,
                  undercut=_undercut_words(view, thrown))


def _undercut_words(view: View, thrown: Card) -> Said:
    """``an undercut is about 8% likely`` for knocking with ``thrown``."""
    chance = undercut_chance(view, thrown)
    if chance < 0.005:
        return said.t("an undercut is very unlikely")
    if chance > 0.995:
        return said.t("an undercut is all but certain")
    return said.t("an undercut is about {chance}% likely", chance=percent(chance))


# ---------------------------------------------------------------------------- evaluator


def _rated(ev: Evaluation, action: Action) -> bool:
    """Whether ``ev`` rated ``action`` against at least one other move, with samples."""
    return (len(ev.values) >= 2 and any(v.action == action for v in ev.values)
            and bool(ev.win_samples))


def _evaluator_words(view: View, k: Knowledge, ev: Evaluation, action: Action,
                     first: Action | None, card: CardWords) -> Said:
    """What the evaluator's figures say, in match wins (match-winning chance, paired on
    the same sampled deals): the gain over the bot's first choice where it overruled
    that, else the margin over the runner-up, "too close to call" within two standard
    errors."""
    if first is not None and first != action and _rated(ev, first):
        gain, _ = ev.difference(action, first)
        return said.t("the evaluator gives it {gain} more match wins than its first choice, "
                      "{move}", gain=_pct(gain), move=_name(view, k, first, card))
    runner = max((v for v in ev.values if v.action != action), key=lambda v: (v.win, v.points))
    name = _name(view, k, runner.action, card)
    gain, se = ev.difference(action, runner.action)
    close = abs(gain) <= 2 * se
    if gain >= 0:
        if close:
            return said.t("the evaluator gives it {gain} more match wins than {move}, too "
                          "close to call", gain=_pct(gain), move=name)
        return said.t("the evaluator gives it {gain} more match wins than {move}",
                      gain=_pct(gain), move=name)
    if close:
        return said.t("by the evaluator, {move} wins the match {gain} more often, too close "
                      "to call", move=name, gain=_pct(-gain))
    return said.t("by the evaluator, {move} wins the match {gain} more often", move=name,
                  gain=_pct(-gain))


def _name(view: View, k: Knowledge, a: Action, card: CardWords) -> Said:
    """A move as a phrase: ``the stock``, ``taking 9♣``, ``throwing 8♥ (4 outs, 21
    deadwood)``, ``throwing 5♠ to knock with 6``."""
    if a.act == "pass":
        return said.t("passing")
    if a.act == "draw":
        if a.source == "stock" or not view.discards:
            return said.t("the stock")
        return said.t("taking {card}", card=card(view.discards[-1]))
    assert a.card is not None
    left = deadwood_by_discard_mask(k.mine)[a.card.index]
    if a.knock:
        if left == 0:
            return said.t("throwing {card} for gin", card=card(a.card))
        return said.t("throwing {card} to knock with {deadwood}", card=card(a.card),
                      deadwood=left)
    kept = k.mine & ~a.card.mask
    return said.t("throwing {card} ({outs}, {deadwood} deadwood)", card=card(a.card),
                  outs=_outs(outs(kept, k.unseen)), deadwood=left)


def _pct(x: float) -> Said:
    """A difference in match-winning chance in percent, e.g. ``1.2%``."""
    p = abs(x) * 100
    return said.t("under 0.1%") if p < 0.05 else said.t("{percent}%", percent=Num(p, 1))


# ---------------------------------------------------------------------------- words


def _outs(n: int) -> Said:
    """``1 out``, ``6 outs``."""
    return said.tn("{n} out", "{n} outs", n)


def _and(words: Iterable[Value]) -> Value:
    """``A``, ``A and B``, ``A, B and C``."""
    ws = list(words)
    if len(ws) == 1:
        return ws[0]
    return said.t("{first} and {last}", first=said.joined(", ", ws[:-1]), last=ws[-1])
