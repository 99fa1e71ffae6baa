"""The kernel's names: the numbers that name phases, actions and outcomes, the layout of
the arrays it exchanges with the evaluator, and the play-out policy's constants.

The kernel (:mod:`.solver`, :mod:`.playout`, :mod:`.sampler`, :mod:`.batch`) and its
callers read these names, so a number means the same everywhere, in either build. Nothing
here runs the rules; it names them.

>>> outcome(1, 32), outcome(-1, 0), scorer_of(outcome(1, 32)), points_of(outcome(1, 32))
(544, 0, 1, 32)
>>> discard_code(51), knock_code(51), DRAW_PILE
(115, 179, 2)
"""

from __future__ import annotations

from .jit import jit

__all__ = [
    "DEAD",
    "DISCARD",
    "DRAW",
    "DRAW_PILE",
    "DRAW_STOCK",
    "KNOCKED",
    "KNOCK_TURNS",
    "MARGIN",
    "MAX_DISCARDS",
    "OFFER_DEALER",
    "OFFER_NON_DEALER",
    "PASS",
    "PATIENT",
    "QUICK",
    "CLUB",
    "DISTILLED",
    "DISTILLED_NET",
    "DISTILLED_WEIGHTS",
    "NET_ROW",
    "RULE_WEIGHTS",
    "RUNNING",
    "discard_code",
    "knock_code",
    "outcome",
    "points_of",
    "scorer_of",
]

# ------------------------------------------------------------------ phases of a hand (R4-R5)
OFFER_NON_DEALER = 0
"""The non-dealer decides on the up-card (R4.1)."""
OFFER_DEALER = 1
"""The dealer decides on the up-card after the non-dealer passed (R4.2)."""
DRAW = 2
"""An ordinary turn's draw (R5)."""
DISCARD = 3
"""The mover holds 11 cards and discards, perhaps knocking (R5, R6)."""

# ------------------------------------------------------------------ actions, as small ints
PASS = 0
"""Pass on the up-card (R4)."""
DRAW_STOCK = 1
"""Draw the stock's top card (R5)."""
DRAW_PILE = 2
"""Take the discard pile's top card (R4, R5)."""
DISCARD_BASE = 64
"""``DISCARD_BASE + card``: discard that card (R5)."""
KNOCK_BASE = 128
"""``KNOCK_BASE + card``: discard that card and knock (R6)."""


def discard_code(card: int) -> int:
    """The action code of discarding card index ``card`` without a knock."""
    return DISCARD_BASE + card


def knock_code(card: int) -> int:
    """The action code of discarding card index ``card`` and knocking (R6)."""
    return KNOCK_BASE + card


# ------------------------------------------------------------------ outcomes of a hand
RUNNING = -1
"""A step that did not end the hand."""
DEAD = 0
"""A dead hand (R7), or a play-out stopped after :data:`MAX_DISCARDS`: nobody scores."""
KNOCKED = -2
"""A step that knocked: the hand is over, its outcome the knock's settlement (R8-R9)."""


@jit
def outcome(scorer: int, points: int) -> int:
    """One int for a hand's end: ``(scorer + 1) * 256 + points``; a dead hand (scorer -1)
    is :data:`DEAD`. Points of a hand never reach 256 (R9: at most 100 + 25)."""
    return (scorer + 1) * 256 + points


def scorer_of(code: int) -> int:
    """The seat that scored in outcome ``code``, or -1 for a dead hand."""
    return code // 256 - 1


def points_of(code: int) -> int:
    """The points scored in outcome ``code`` (0 for a dead hand)."""
    return code % 256


# ------------------------------------------------------------------ the play-out policy
KNOCK_TURNS = 3
"""A patient seat knocks short of gin only within its first this many turns (MARJJ,
strong); a quick seat knocks as soon as it may (R6)."""

# How a seat plays in a play-out: its style. A quick seat races for a knock (takes any
# face-up card that melds, throws the card leaving the least deadwood); the others play
# for outs. Each style knocks by its own schedule (KNOCK_AT).
PATIENT = 0
"""Knocks short of gin only in its first ``KNOCK_TURNS`` turns (MARJJ, strong)."""
QUICK = 1
"""Knocks as soon as it may (R6), racing for it (``simple``)."""
CLUB = 2
"""Knocks early with up to 10, later only with less and less (a club player's habit:
knock with 5 on the eighth turn, with 2 on the tenth)."""
STYLES = 3
"""The opponent styles the evaluator samples (the three above)."""
DISTILLED = 3
"""The deciding seat's own play-outs only (``Evaluator(style=DISTILLED)``): plays as
``PATIENT`` but discards by weights fitted to expert's own discards
(:data:`DISTILLED_WEIGHTS`; issue 48, ``scripts/distill_playout.py``)."""

KNOCK_AT = (
    (10, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    (10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10),
    (10, 10, 10, 9, 8, 7, 6, 5, 4, 3, 2, 2, 1, 1, 1, 1),
    (10, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
)
"""``KNOCK_AT[style][t]``: the most deadwood a seat of that style knocks with on its
``t + 1``-th discard (the last entry for later ones; 0: gin only), never above the hand's
knock limit (R6)."""
KNOCK_AT_TURNS = 16

MAX_DISCARDS = 120
"""Discards after which a play-out is settled as a dead hand. The rules set no limit on a
hand (R5-R7): when both play-out policies keep taking the discard, the stock never shrinks
and the hand would cycle for ever; a real hand has about 30-40 discards."""

MARGIN = 6
"""Only discards within this many deadwood points of the least are weighed by outs."""

OUTS_PER_POINT = 100
"""A discard's score is ``OUTS_PER_POINT * (deadwood - live outs) - card points``: one
live meld-completing card is worth one deadwood point, and among equals the higher card
goes (whole numbers, so both builds order discards exactly alike)."""

RULE_WEIGHTS = (OUTS_PER_POINT, -OUTS_PER_POINT, -1, 0, 0, 0)
"""Today's discard rule as weights of the features :data:`DISTILLED_WEIGHTS` names:
``OUTS_PER_POINT * (deadwood - live outs) - points``."""

DISTILLED_WEIGHTS = (100, -87, 42, 92, 166, 188)
"""A :data:`DISTILLED` seat's discard score (the least goes, among the discards within
``MARGIN`` of the least deadwood): these weights times the deadwood the discard leaves, the
live cards completing a meld after it, its points, the live cards, the hand's cards and
the cards the opponent took from the pile and holds that would meld with it. Fitted as a
conditional logit to 43,301 of expert's discards (``scripts/distill_playout.py``); it
picks expert's discard in 57.2% of 9,213 held-out decisions, today's rule in 55.7%."""

NET_ROW = 9
"""Whole numbers a unit of :data:`DISTILLED_NET` takes: seven input weights, a bias and
an output weight."""

DISTILLED_NET = (0,) * NET_ROW
"""The learned discard network a :data:`DISTILLED` seat scores its discards with
(``scripts/distill_playout.py --mlp``), rows of :data:`NET_ROW` whole numbers, one a
hidden unit: the rectified sum of its weights times a discard's deadwood left, live outs
after it, points, live partners, deadwood past ``MARGIN`` of the least, the hand's
partners and the opponent's picks' partners, plus its bias; a discard's score is the
units' sum times their output weights, and the least goes, among all the discards. A
first unit with no output weight means no network: the linear :data:`DISTILLED_WEIGHTS`
within ``MARGIN`` (as shipped; the network is a research setting,
``scripts/playout_generation.py --net``)."""

# ------------------------------------------------------------------ the state of a play-out
# A play-out's state is one int array with these slots, beside two card arrays of 52: the
# stock and the pile, each with its top at the end (``NSTOCK``, ``NPILE`` cards of them).
HAND0 = 0
HAND1 = 1
TO_PLAY = 2
PHASE = 3
TAKEN = 4
"""The card just taken from the pile (R5: not discardable this turn), or -1."""
TURNS0 = 5
TURNS1 = 6
"""Each seat's discards so far this hand."""
LIMIT = 7
"""The knock limit (R6; 0 on a gin-only table, the up-card's points in Oklahoma)."""
DEALER = 8
STYLE = 9
"""Both seats' play-out styles: ``style0 | style1 << 2`` (``PATIENT``, ``QUICK``, ``CLUB``)."""
DEADCARDS = 10
"""The cards in the pile, as a mask (no outs)."""
DISCARDS = 11
"""Discards made since the play-out started (:data:`MAX_DISCARDS`)."""
NSTOCK = 12
NPILE = 13
TOOK0 = 14
TOOK1 = 15
"""The cards each seat took from the pile and still holds, as a mask (what the other
seat has seen it take, R11)."""
STATE_SIZE = 16

# ------------------------------------------------------------------ a position to evaluate
# The evaluator hands the kernel one int array with these slots (what the deciding seat
# knows, R11, and how the belief samples the rest) and one float array (FLOAT_*).
P_ME = 0
P_MINE = 1
P_OPP_KNOWN = 2
"""Cards the opponent took from the pile and still holds (R11: public)."""
P_OPP_UNKNOWN = 3
"""How many of the opponent's ten cards are unseen."""
P_DRAWS = 4
"""Turns of improvement a sample replays (the belief's ``draws``)."""
P_RETRIES = 5
P_QUICK_RETRIES = 6
P_QUICK_CONSISTENT = 7
P_QUICK_DISCARDS = 8
P_OPP_TURNS = 9
"""The opponent's discards so far."""
P_LAST_DISCARD = 10
"""The opponent's latest discard if it has not drawn since, else -1."""
P_LAST_TAKEN = 11
"""The pile card it took on that turn (R5), else -1."""
P_LIMIT = 12
P_DEALER = 13
P_PHASE = 14
"""The phase of the decision (OFFER_NON_DEALER, OFFER_DEALER, DRAW or DISCARD)."""
P_MY_TURNS = 15
P_NPILE = 16
P_NUNKNOWN = 17
P_STOCK = 18
"""Cards in the stock."""
P_MY_STYLE = 19
"""The deciding seat's own style in the play-outs."""
P_SIZE = 20

F_IMPROVE = 0
F_QUICK_IMPROVE = 1
F_EARLY_REJECT = 2
F_QUICK_SHARE = 3
"""The share of samples in which the opponent is a quick knocker."""
F_CLUB_SHARE = 4
"""The share of samples in which the opponent knocks as a club player (``CLUB``)."""
F_SIZE = 5

# ------------------------------------------------------------------ the random numbers
GOLDEN = 0x9E3779B97F4A7C15
"""SplitMix64's increment (:mod:`.splitmix`)."""
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
MASK64 = (1 << 64) - 1
