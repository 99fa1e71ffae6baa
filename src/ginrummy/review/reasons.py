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

from ..cards import SUIT_NAMES, Card, from_mask
from ..evaluator.evaluation import Evaluation
from ..hand import Action, View
from ..heuristics import draw_outlook, meld_chance, related, takes_back
from ..kernel.solver import completers
from ..knowledge import Knowledge, in_some_meld
from ..melds import arrange, arrangements_mask, deadwood_by_discard_mask, deadwood_mask
from .explain import CardWords, meld_words, melds_broken, undercut_chance

__all__ = ["outs", "reason"]


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
    that follows the move's own words ("draws from the stock: " + reason).

    ``evaluation``: the evaluator's figures for this decision, if the bot consulted it
    (ignored when ``action`` is not among them); ``first_choice``: the move the bot
    would have made without the evaluator (``expert``'s ``default``). ``card`` writes
    a card.
    """
    k = Knowledge.of(view)
    ev = evaluation if evaluation is not None and _rated(evaluation, action) else None
    if action.act == "discard":
        assert action.card is not None
        if action.knock:
            text = _knock_why(view, k, action.card)
        else:
            text = _discard_why(view, k, action.card, ev, first_choice, card)
    else:
        text = _draw_why(view, k, action, card)
    if ev is not None:
        text += "; " + _evaluator_words(view, k, ev, action, first_choice, card)
    return text


# ---------------------------------------------------------------------------- draws


def _draw_why(view: View, k: Knowledge, action: Action, card: CardWords) -> str:
    """Taking the face-up card, passing on it, or drawing from the stock."""
    if k.top is None:
        return "the discard pile is empty"
    top = Card.from_index(k.top)
    kind, meld, now, after = _top_effect(k)
    change = _change(now, after)
    if action.act == "draw" and action.source == "discard":
        if kind == "gin":
            return "it gives gin"
        if kind == "meld":
            return f"it makes {meld}, {change}"
        if kind == "lower":
            return f"it makes no meld but brings the {change}"
        if kind == "steal":
            return f"it makes a meld only by breaking another; {change}"
        if kind == "partial":
            return f"it makes no meld, only {meld}; {change}" if meld \
                else f"it makes no meld; {change}"
        return f"it goes with no card held; {change}"
    if kind == "none":
        return f"the {card(top)} helps nothing"
    if kind == "partial":
        return f"the {card(top)} makes no meld and lowers no deadwood"
    if kind == "steal" and after >= now:
        return f"the {card(top)} makes a meld only by breaking another and lowers no deadwood"
    if kind == "gin":
        words = f"the {card(top)} would give gin"
    elif kind == "meld":
        words = f"the {card(top)} would make {meld}, {change}"
    elif kind == "steal":
        words = f"the {card(top)} would make a meld only by breaking another, {change}"
    else:
        words = f"the {card(top)} would make no meld but bring the {change}"
    if takes_back(view):
        return words + ", but it threw that card itself"
    return words


def _top_effect(k: Knowledge) -> tuple[str, str, int, int]:
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
        return "gin", "", now, after
    for arrangement in arrangements_mask(with_top):
        for meld in arrangement.melds:
            if top in meld:
                return "meld", meld_words(meld), now, after
    if in_some_meld(with_top, top.index):
        return "steal", "", now, after
    if after < now:
        return "lower", "", now, after
    group = _partial(k, with_top, top)
    if group is not None:
        return "partial", group[0], now, after
    if any(_related(top, c) for c in from_mask(k.mine)):
        return "partial", "", now, after
    return "none", "", now, after


def _change(now: int, after: int) -> str:
    """The deadwood before and after, in words."""
    if after < now:
        return f"deadwood down from {now} to {after}"
    if after > now:
        return f"deadwood up from {now} to {after}"
    return f"deadwood stays {now}"


# ---------------------------------------------------------------------------- discards


def _discard_why(view: View, k: Knowledge, thrown: Card, ev: Evaluation | None,
                 first: Action | None, card: CardWords) -> str:
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
        could = ("could go gin" if dk == 0
                 else f"could knock with {dk} ({_undercut_words(view, best)})")
        return f"{could} but plays on, with {_n(n, 'out')} and {d} deadwood"
    alt = _alternative(k, thrown, plain, table, ev, first)
    facts = f"{_n(n, 'out')} and {d} deadwood left"
    if d == least:
        facts += " (the least possible)"
    broken = melds_broken(from_mask(k.mine), thrown)
    if alt is None:
        return f"{broken}, {facts}" if broken else facts
    other = k.mine & ~alt.mask
    n_alt, d_alt = outs(other, k.unseen), table[alt.index]
    keeps = _keeps(k, kept, alt) if n > n_alt else None  # alt's group gives the outs
    text = f"{broken}, {facts}" if broken else f"keeps {keeps}, {facts}" if keeps else facts
    if ev is not None:
        return text  # the evaluator's words name the move compared, with its figures
    words = f"throwing {card(alt)} would leave {_n(n_alt, 'out')} and {d_alt} deadwood"
    took = [t for t in from_mask(k.opp_known) if _related(t, alt)]
    if took:
        words += f" and could help the opponent, who took {_and(card(t) for t in took)}"
    elif n <= n_alt and d >= d_alt:  # neither outs nor deadwood: the next draw, or safety
        words += _next_draw_or_safety(k, thrown, alt, kept, other, card)
    return f"{text}; {words}"


def _next_draw_or_safety(k: Knowledge, thrown: Card, alt: Card, kept: int, other: int,
                         card: CardWords) -> str:
    """Where outs and deadwood do not favour ``thrown`` over ``alt``: a higher deadwood
    expected after the next draw with ``alt`` thrown (each unseen card equally likely),
    or a larger chance that the opponent holds two cards making a meld with ``alt``."""
    e, _ = draw_outlook(kept, k.unseen)
    e_alt, _ = draw_outlook(other, k.unseen)
    if round(e, 1) < round(e_alt, 1):
        return (f", but more after the next draw: {e_alt:.1f} deadwood on average against "
                f"{e:.1f}")
    p, p_alt = meld_chance(thrown.index, k), meld_chance(alt.index, k)
    if round(p, 2) < round(p_alt, 2):
        return (f", but the opponent is likelier to meld {card(alt)} (about {p_alt:.0%} "
                f"against {p:.0%} for {card(thrown)})")
    return ""


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


def _keeps(k: Knowledge, kept: int, alt: Card) -> str | None:
    """The meld or two-card start of one that ``alt`` (kept) belongs to, in words."""
    for meld in arrange(from_mask(kept)).melds:
        if alt in meld:
            return meld_words(meld)
    group = _partial(k, kept, alt)
    return group[0] if group is not None else None


def _partial(k: Knowledge, hand: int, c: Card) -> tuple[str, int] | None:
    """The two-card start of a meld (a pair, two of a suit within two ranks) that ``c``
    makes with a loose card of ``hand``, in words, with its live outs: the one with the
    most outs, or None."""
    loose = arrange(from_mask(hand)).deadwood_cards
    best: tuple[str, int] | None = None
    for o in loose:
        if o == c or not _related(o, c):
            continue
        n = outs(c.mask | o.mask, k.unseen)
        lo, hi = sorted((c, o), key=lambda x: x.rank_index)
        if lo.rank_index == hi.rank_index:
            words = f"the pair of {lo.rank}s"
        elif hi.rank_index - lo.rank_index == 1:
            words = f"the {lo.rank}-{hi.rank} of {SUIT_NAMES[lo.suit]}"
        else:
            words = f"the {lo.rank} and {hi.rank} of {SUIT_NAMES[lo.suit]}"
        if best is None or n > best[1]:
            best = (words, n)
    return best


def _related(a: Card, b: Card) -> bool:
    """Whether two cards can share a meld (R2): same rank, or one suit within two ranks."""
    return related(a.index, b.index)


# ---------------------------------------------------------------------------- knocks


def _knock_why(view: View, k: Knowledge, thrown: Card) -> str:
    """A knock (R6): the deadwood and how likely an undercut is; gin needs no more."""
    left = deadwood_by_discard_mask(k.mine)[thrown.index]
    if left == 0:
        return "the ten cards left all meld"
    return f"with {left} deadwood, {_undercut_words(view, thrown)}"


def _undercut_words(view: View, thrown: Card) -> str:
    """``an undercut is about 8% likely`` for knocking with ``thrown``."""
    chance = undercut_chance(view, thrown)
    if chance < 0.005:
        return "an undercut is very unlikely"
    if chance > 0.995:
        return "an undercut is all but certain"
    return f"an undercut is about {chance:.0%} likely"


# ---------------------------------------------------------------------------- evaluator


def _rated(ev: Evaluation, action: Action) -> bool:
    """Whether ``ev`` rated ``action`` against at least one other move, with samples."""
    return (len(ev.values) >= 2 and any(v.action == action for v in ev.values)
            and bool(ev.win_samples))


def _evaluator_words(view: View, k: Knowledge, ev: Evaluation, action: Action,
                     first: Action | None, card: CardWords) -> str:
    """What the evaluator's figures say, in match wins (match-winning chance, paired on
    the same sampled deals): the gain over the bot's first choice where it overruled
    that, else the margin over the runner-up, "too close to call" within two standard
    errors."""
    if first is not None and first != action and _rated(ev, first):
        gain, _ = ev.difference(action, first)
        return (f"the evaluator gives it {_pct(gain)} more match wins than its first "
                f"choice, {_name(view, k, first, card)}")
    runner = max((v for v in ev.values if v.action != action), key=lambda v: (v.win, v.points))
    name = _name(view, k, runner.action, card)
    gain, se = ev.difference(action, runner.action)
    close = ", too close to call" if abs(gain) <= 2 * se else ""
    if gain >= 0:
        return f"the evaluator gives it {_pct(gain)} more match wins than {name}{close}"
    return f"by the evaluator, {name} wins the match {_pct(-gain)} more often{close}"


def _name(view: View, k: Knowledge, a: Action, card: CardWords) -> str:
    """A move as a phrase: ``the stock``, ``taking 9♣``, ``throwing 8♥ (4 outs, 21
    deadwood)``, ``throwing 5♠ to knock with 6``."""
    if a.act == "pass":
        return "passing"
    if a.act == "draw":
        if a.source == "stock" or not view.discards:
            return "the stock"
        return f"taking {card(view.discards[-1])}"
    assert a.card is not None
    left = deadwood_by_discard_mask(k.mine)[a.card.index]
    if a.knock:
        return f"throwing {card(a.card)} " + ("for gin" if left == 0 else f"to knock with {left}")
    kept = k.mine & ~a.card.mask
    return f"throwing {card(a.card)} ({_n(outs(kept, k.unseen), 'out')}, {left} deadwood)"


def _pct(x: float) -> str:
    """A difference in match-winning chance in percent, e.g. ``1.2%``."""
    p = abs(x) * 100
    return "under 0.1%" if p < 0.05 else f"{p:.1f}%"


# ---------------------------------------------------------------------------- words


def _n(n: int, word: str) -> str:
    """``1 out``, ``6 outs``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _and(words: Iterable[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    ws = list(words)
    return ws[0] if len(ws) == 1 else ", ".join(ws[:-1]) + " and " + ws[-1]
