"""The mask-level play-out kernel agrees with the real state machine (R4-R9): the same
policy driven through :class:`Hand` ends every hand with the same result."""

from __future__ import annotations

import random

import pytest

from ginrummy.cards import Card
from ginrummy.evaluator.rollout import (
    KNOCK_TURNS,
    OFFER_NON_DEALER,
    choose_discard,
    completers,
    least_deadwood_discard,
    play_out,
    wants_top,
)
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Deal, Hand, Phase
from ginrummy.knowledge import in_some_meld
from ginrummy.melds import deadwood_by_discard_mask


def _drive(hand: Hand, quick: int = 0) -> tuple[int, int]:
    """Play ``hand`` out through the core with the kernel's policy, card by card (seats
    set in ``quick`` knock as soon as they may, take any up-card that melds and discard
    for the least deadwood)."""
    turns = [0, 0]
    taken = -1
    while not hand.is_over():
        seat = hand.to_play
        assert seat is not None
        q = bool(quick >> seat & 1)
        mask = hand.mask_of(seat)
        top = hand.top_discard
        if hand.phase is Phase.DISCARD:
            dead = sum(c.mask for c in hand.discards)
            table = deadwood_by_discard_mask(mask)
            card, dw = least_deadwood_discard(table, taken) if q \
                else choose_discard(mask, table, taken, dead)
            turns[seat] += 1
            knock = dw <= hand.knock_limit and (dw == 0 or turns[seat] <= KNOCK_TURNS or q)
            hand.play(Action.discard(Card.from_index(card), knock))
        elif top is not None and wants_top(mask, top.index, quick=q):
            taken = top.index
            hand.play(DRAW_DISCARD)
        else:
            taken = -1
            hand.play(PASS if hand.phase is Phase.OFFER else DRAW_STOCK)
    result = hand.result
    assert result is not None
    return (-1 if result.scorer is None else result.scorer), result.points


@pytest.mark.parametrize("seed", range(40))
def test_play_out_matches_the_state_machine(seed: int) -> None:
    _check(seed, quick=0)


@pytest.mark.parametrize("seed", range(10))
def test_play_out_with_quick_knockers_matches_the_state_machine(seed: int) -> None:
    _check(seed, quick=1 + seed % 3)


def _check(seed: int, quick: int) -> None:
    rng = random.Random(seed)
    deal = Deal.shuffled(rng)
    dealer = seed % 2
    hands = [sum(c.mask for c in deal.hands[0]), sum(c.mask for c in deal.hands[1])]
    stock = [c.index for c in reversed(deal.stock)]
    got = play_out(hands, stock, [deal.upcard.index], 1 - dealer, OFFER_NON_DEALER, -1,
                   [0, 0], 10, dealer, quick=quick)
    assert got == _drive(Hand(deal, dealer), quick)


def test_a_quick_knockers_discard_leaves_the_least_deadwood_r5() -> None:
    """A quick seat throws the card leaving the least deadwood, never the card it just took
    from the pile (R5), ties to the higher card."""
    rng = random.Random(11)
    for _ in range(200):
        h = sum(1 << i for i in rng.sample(range(52), 11))
        table = deadwood_by_discard_mask(h)
        taken = rng.choice([-1, *table])
        card, dw = least_deadwood_discard(table, taken)
        assert card != taken and dw == table[card]
        assert dw == min(v for k, v in table.items() if k != taken)


def test_completers_are_exactly_the_meld_completing_cards_r2() -> None:
    rng = random.Random(3)
    for _ in range(200):
        h = sum(1 << i for i in rng.sample(range(52), 10))
        want = sum(1 << c for c in range(52) if not h >> c & 1 and in_some_meld(h | 1 << c, c))
        assert completers(h) == want


def test_a_play_out_that_cycles_ends_as_a_dead_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """R5-R7 set no limit on a hand: when both seats always take the discard the stock never
    shrinks. A play-out then stops after MAX_DISCARDS discards with no result (-1, 0)."""
    import signal

    from ginrummy.evaluator import rollout

    monkeypatch.setattr(rollout, "wants_top", lambda h, top, memo=None, quick=0: True)

    def too_long(*_: object) -> None:
        raise AssertionError("the play-out did not end")

    deck = list(range(52))
    random.Random(7).shuffle(deck)
    hands = [sum(1 << c for c in deck[:10]), sum(1 << c for c in deck[10:20])]
    pile, stock = [deck[20]], deck[21:]
    turns = [0, 0]
    old = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(20)
    try:
        # knock limit -1: nobody ever knocks, not even with gin
        result = rollout.play_out(hands, stock, pile, 0, rollout.DRAW, -1, turns, -1, 1)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert result == (-1, 0)
    assert sum(turns) == rollout.MAX_DISCARDS
    assert len(stock) == 31  # every draw was a take from the pile
