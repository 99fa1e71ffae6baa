"""Positions as values: Hand.copy, push/pop (undo), identity comparison, Match.copy."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ginrummy import Deal, Hand, IllegalActionError, Match


def _state(hand: Hand) -> Any:
    """Everything observable about a position (both views, private cards, stock)."""
    return (
        hand.view(0).to_json(), hand.view(1).to_json(), hand.legal_actions(),
        hand.mask_of(0), hand.mask_of(1), hand.stock, tuple(hand.discards),
        tuple(hand.history), hand.phase, hand.to_play, hand.result,
        hand.knock_discards(),
    )


@pytest.mark.parametrize("seed", range(12))
def test_pop_takes_back_every_action_exactly(seed: int) -> None:
    rng = random.Random(seed)
    hand = Hand(Deal.shuffled(rng), dealer=seed % 2)
    states = [_state(hand)]
    views = [hand.view(0)]
    while not hand.is_over():
        hand.push(rng.choice(hand.legal_actions()))
        states.append(_state(hand))
        views.append(hand.view(0))
    frozen = [v.to_json() for v in views]
    while hand.history:
        assert _state(hand) == states[len(hand.history)]
        hand.pop()
        # a different line of play after an undo must not alter views taken before
        if rng.random() < 0.3 and not hand.is_over():
            hand.push(rng.choice(hand.legal_actions()))
            hand.view(0)
            hand.pop()
    assert _state(hand) == states[0]
    assert [v.to_json() for v in views] == frozen
    with pytest.raises(IllegalActionError, match="no action to take back"):
        hand.pop()


def test_copy_is_independent_and_hands_compare_by_identity() -> None:
    rng = random.Random(3)
    hand = Hand(Deal.shuffled(rng), dealer=0)
    for _ in range(7):
        hand.play(rng.choice(hand.legal_actions()))
    twin = hand.copy()
    assert twin != hand and twin == twin and len({hand, twin}) == 2
    before = _state(hand)
    assert _state(twin) == before
    while not twin.is_over():
        twin.play(rng.choice(twin.legal_actions()))
    assert _state(hand) == before
    fresh = Hand(hand.deal, hand.dealer)
    assert fresh != Hand(hand.deal, hand.dealer)  # same deal, different positions


def test_match_copy_plays_on_independently_with_the_same_deals() -> None:
    m = Match(seed=11)
    rng = random.Random(11)
    for _ in range(150):
        m.play(rng.choice(m.legal_actions()))
    twin = m.copy()
    record = m.to_record()
    script = random.Random(5)
    moves = []
    while not twin.is_over() and len(twin.hands) < len(m.hands) + 2:
        a = script.choice(twin.legal_actions())
        moves.append(a)
        twin.play(a)
    assert m.to_record() == record  # the original did not move
    for a in moves:  # the same moves give the same deals on the original
        m.play(a)
    assert m.to_record() == twin.to_record()
