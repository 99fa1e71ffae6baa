"""Shared test utilities: hand-made deals, scripted play, and state snapshots.

Tests build deals by hand (``deal``) and drive hands and matches through the public
API only; ``snapshot`` captures everything observable so a test can check that a
refused action changed nothing (R5).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any

from ginrummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Card,
    Deal,
    Hand,
    Match,
    Options,
    Phase,
    deck,
    parse_cards,
)
from ginrummy.cards import CardsLike

GIN_SPADES = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS"
"""Ten melded spades: gin for whoever holds them."""

LOOSE_25 = "AH 2H 3H 4H 5H 6H 7H KD QC 5D"
"""A run A-7 of hearts and K Q 5 loose: deadwood 25."""

LOOSE_57 = "AH 3H 5H 7H 9H JH KH 2D 4D 6D"
"""No meld at all: deadwood 57."""


def deal(hand0: CardsLike, hand1: CardsLike, upcard: str, stock_top: CardsLike = "") -> Deal:
    """A deal with the given hands and up-card; the stock starts with ``stock_top`` and
    goes on with the rest of the deck in index order."""
    top = parse_cards(stock_top)
    used = {*parse_cards(hand0), *parse_cards(hand1), Card.parse(upcard), *top}
    rest = [c for c in deck() if c not in used]
    return Deal.build(hand0, hand1, upcard, [*top, *rest])


def act(text: str) -> Action:
    """An action from its short text form, e.g. ``discard KH knock``."""
    return Action.parse(text)


def play_script(target: Hand | Match, *moves: str) -> None:
    """Play short-text moves in order, each by the seat to play (checked by the core)."""
    for move in moves:
        seat = target.to_play
        target.play(Action.parse(move), seat)


def knock_hand(knocker: CardsLike, defender: CardsLike, drawn: str = "KC",
               upcard: str = "QD", knock: bool = True, options: Options | None = None) -> Hand:
    """Seat 1 (non-dealer) holds ``knocker``, seat 0 ``defender``; both pass, seat 1 draws
    ``drawn`` from the stock and discards it, knocking (R6 judges the 10 cards left)."""
    hand = Hand(deal(defender, knocker, upcard, drawn), dealer=0, options=options or Options())
    last = f"discard {drawn}" + (" knock" if knock else "")
    play_script(hand, "pass", "pass", "draw stock", last)
    return hand


def snapshot(hand: Hand) -> tuple[Any, ...]:
    """Everything observable about a hand: full state, history, result, both views."""
    return (
        hand.phase,
        hand.to_play,
        tuple(hand.cards_of(0)),
        tuple(hand.cards_of(1)),
        hand.stock,
        tuple(hand.discards),
        tuple(hand.history),
        hand.result,
        hand.legal_actions(),
        json.dumps(hand.view(0).to_json(), sort_keys=True),
        json.dumps(hand.view(1).to_json(), sort_keys=True),
    )


def match_snapshot(match: Match) -> tuple[Any, ...]:
    """Everything observable about a match: its record, scores, outcome and current hand."""
    return (
        json.dumps(match.to_record(), sort_keys=True),
        match.scores,
        match.outcome(),
        len(match.hands),
        snapshot(match.hand),
    )


def every_action() -> list[Action]:
    """All actions there are: pass, both draws, and every discard with and without knock."""
    out = [PASS, DRAW_STOCK, DRAW_DISCARD]
    for c in deck():
        out += [Action.discard(c), Action.discard(c, knock=True)]
    return out


def play_gin_for(match: Match, winner: int) -> None:
    """Finish the current hand with a gin by ``winner``, who must hold gin already.

    Both pass the up-card, everyone draws from the stock and throws back the card just
    drawn; the winner knocks with it, so the loser's deadwood is what was dealt.
    """
    hand = match.hand
    index = len(match.hands)
    while len(match.hands) == index and not match.is_over():
        seat = hand.to_play
        assert seat is not None
        if hand.phase is Phase.OFFER:
            match.play(PASS, seat)
        elif hand.phase is Phase.DRAW:
            match.play(DRAW_STOCK, seat)
        else:
            drawn = hand.history[-1].card
            assert drawn is not None
            match.play(Action.discard(drawn, knock=seat == winner), seat)


def play_dead_hand(match: Match) -> None:
    """Finish the current hand as a dead hand (R7): pass, then draw and throw back the
    drawn card, never knocking, until two cards are left in the stock."""
    hand = match.hand
    while not hand.is_over():
        seat = hand.to_play
        assert seat is not None
        if hand.phase is Phase.OFFER:
            match.play(PASS, seat)
        elif hand.phase is Phase.DRAW:
            match.play(DRAW_STOCK, seat)
        else:
            drawn = hand.history[-1].card
            assert drawn is not None
            match.play(Action.discard(drawn), seat)


def gin_deal(winner: int, loser_cards: str = LOOSE_57) -> Deal:
    """A deal where ``winner`` holds gin (ten spades) and the other seat ``loser_cards``."""
    hands = [loser_cards, loser_cards]
    hands[winner] = GIN_SPADES
    return deal(hands[0], hands[1], "QS")


def random_play(match: Match, rng: random.Random, max_actions: int | None = None) -> int:
    """Play random legal actions until the match ends (or ``max_actions``); returns how many."""
    n = 0
    while not match.is_over() and (max_actions is None or n < max_actions):
        legal = match.legal_actions()
        match.play(rng.choice(legal), match.to_play)
        n += 1
    return n


def cards_in(obj: Any) -> set[str]:
    """Every string in a JSON value that is a card in R1 notation."""
    names = {str(c) for c in deck()}
    out: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, str):
            if v in names:
                out.add(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(obj)
    return out


def strs(cards: Iterable[Card]) -> list[str]:
    """Cards in R1 notation."""
    return [str(c) for c in cards]


# The replay --json object of tests/data/short_match.json (docs/records.md), worked out by
# hand: knock with lay-offs, dead hand, undercut, gin.
SAMPLE_SUMMARY = {
    "hands": [
        {"result": "knock", "knocker": 1, "scorer": 1, "points": 32, "deadwood": [41, 9],
         "layoffs": ["8C", "9C"]},
        {"result": "dead", "knocker": None, "scorer": None, "points": 0, "deadwood": None,
         "layoffs": []},
        {"result": "undercut", "knocker": 1, "scorer": 0, "points": 29, "deadwood": [5, 9],
         "layoffs": []},
        {"result": "gin", "knocker": 1, "scorer": 1, "points": 82, "deadwood": [57, 0],
         "layoffs": []},
    ],
    "scores": [29, 114],
    "finished": True,
    "winner": 1,
    "end": "target",
}
