"""Every registered bot plays only legal actions from a view alone (R5, R6, R11), and a
seeded bot plays the same way every time."""

from __future__ import annotations

from typing import Any

import pytest

from ginrummy.bots import BOTS, Bot, make_bot
from ginrummy.bots.expert import ExpertBot
from ginrummy.bots.strong import StrongBot
from ginrummy.cards import Card
from ginrummy.hand import Action, View
from ginrummy.match import Match

FAST = {"strong": "strong-fast"}
EXPERTS = {"expert", "expert-fast", "expert-max", "expert-distilled", "hard"}
"""The full-strength search bots are exercised through cheap variants here."""


def _bot(name: str, seed: int) -> Bot:
    if name in FAST:
        return StrongBot(seed, samples=6)
    if name in EXPERTS:
        return ExpertBot(seed, samples=2)
    return make_bot(name, seed)


def _play(names: tuple[str, str], seed: int, max_hands: int = 4) -> tuple[Match, list[Action]]:
    """A match (cut short after ``max_hands`` hands) with every action checked legal."""
    bots = [_bot(names[0], seed), _bot(names[1], seed + 1)]
    match = Match(seed=seed)
    actions: list[Action] = []
    while not match.is_over() and len(match.hands) <= max_hands:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        action = bots[seat].decide(view)
        assert action in view.legal, f"{names[seat]} chose {action} not in {view.legal}"
        actions.append(action)
        match.play(action, seat)
    return match, actions


@pytest.mark.parametrize("name", sorted(BOTS))
def test_bot_plays_only_legal_actions_r5_r6(name: str) -> None:
    for seed in (11,) if name in EXPERTS else (11, 12):
        _play((name, "random"), seed)
        _play(("simple", name), seed)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_same_seed_same_play(name: str) -> None:
    _, first = _play((name, "simple"), 21, max_hands=2)
    _, again = _play((name, "simple"), 21, max_hands=2)
    assert first == again


class _Spy(Bot):
    """Wraps a bot and records the type of every argument ``decide`` receives."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(0)
        self.inner = inner
        self.seen: list[type] = []

    def decide(self, view: View) -> Action:
        self.seen.append(type(view))
        return self.inner.decide(view)


def _hidden_cards(match: Match, seat: int) -> set[Card]:
    """Cards the seat may not see now (R11): the opponent's cards not taken from the pile,
    and the stock."""
    hand = match.hand
    view = hand.view(seat)
    took = set(view.opponent_took)
    return (set(hand.cards_of(1 - seat)) - took) | set(hand.stock)


def _cards_in(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(_cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(_cards_in(v) for v in obj)) if obj else set()
    return set()


@pytest.mark.parametrize("name", ["simple", "marjj", "strong", "expert"])
def test_bots_get_only_views_without_hidden_cards_r11(name: str) -> None:
    spies = [_Spy(_bot(name, 3)), _Spy(_bot("random", 4))]
    match = Match(seed=5)
    decisions = 0
    while not match.is_over() and len(match.hands) <= 3:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        hidden = {str(c) for c in _hidden_cards(match, seat)}
        assert not hidden & _cards_in(view.to_json())
        # the bot decides the same from the protocol form: it uses nothing but the view
        twin = View.from_json(view.to_json(), [a.to_json() for a in view.legal])
        if seat == 0:
            assert _bot(name, decisions).decide(view) == _bot(name, decisions).decide(twin)
            decisions += 1
        match.play(spies[seat].decide(view), seat)
    assert spies[0].seen and set(spies[0].seen) == {View}
