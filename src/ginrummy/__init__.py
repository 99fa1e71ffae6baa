"""ginrummy: the exact rules of Gin Rummy, a fast meld solver, bots, and tables to play at.

The core (cards, melds, hand, match, record) is pure standard library and does no I/O.

>>> import ginrummy
>>> ginrummy.deadwood("7C 8C 9C 9D 9H 9S KD QH 4S 2H")
26
"""

from .cards import Card, CardError, CardSet, deck, format_cards, parse_cards
from .driver import Driver
from .hand import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    ActionKind,
    CardNotInHandError,
    Deal,
    DealError,
    DrawSource,
    Hand,
    HandEnd,
    HandOverError,
    HandResult,
    IllegalActionError,
    InvalidActionError,
    KnockNotAllowedError,
    NotYourTurnError,
    Operation,
    Phase,
    StraightBackError,
    View,
    WrongPhaseError,
)
from .match import HAND_LIMIT, Match, MatchOverError, Outcome, Termination
from .melds import (
    Arrangement,
    Showdown,
    arrange,
    best_arrangements,
    best_layoff,
    deadwood,
    deadwood_by_discard,
    is_meld,
    showdown,
)
from .options import Options, OptionsError
from .record import RecordError, match_from_record, match_to_record, replay
from .scoring import GIN_BONUS, UNDERCUT_BONUS, knock_points

__version__ = "0.1.0"

__all__ = [
    "Action", "ActionKind", "arrange", "Arrangement", "best_arrangements", "best_layoff", "Card",
    "CardError", "CardNotInHandError", "CardSet", "deadwood", "deadwood_by_discard", "Deal",
    "DealError", "deck", "DRAW_DISCARD", "DRAW_STOCK", "DrawSource", "Driver", "format_cards",
    "GIN_BONUS", "Hand", "knock_points", "UNDERCUT_BONUS",
    "HAND_LIMIT", "HandEnd", "HandOverError", "HandResult", "IllegalActionError",
    "InvalidActionError", "is_meld", "KnockNotAllowedError", "Match", "match_from_record",
    "match_to_record", "MatchOverError", "NotYourTurnError", "Operation", "Options",
    "OptionsError", "Outcome", "parse_cards", "PASS", "Phase", "RecordError", "replay", "Showdown",
    "showdown", "StraightBackError", "Termination", "View", "WrongPhaseError",
]
