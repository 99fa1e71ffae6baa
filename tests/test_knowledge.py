"""Knowledge (what a seat knows, R11) checked against the true hidden state."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy import Match, Phase
from ginrummy.cards import ALL_CARDS, CardSet
from ginrummy.hand import Hand
from ginrummy.knowledge import Knowledge


def _mask(cards: object) -> int:
    return CardSet(cards).mask  # type: ignore[arg-type]


def _positions(seed: int, moves: int) -> Iterator[tuple[Hand, int, Knowledge]]:
    """Both seats' knowledge after each of up to ``moves`` random legal moves of a match."""
    m = Match(seed=seed)
    rng = random.Random(seed)
    for step in range(moves + 1):
        if m.is_over():
            break
        for me in (0, 1):
            yield m.hand, me, Knowledge.of(m.hand.view(me))
        if step < moves:
            m.play(rng.choice(m.legal_actions()))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 400))
def test_knowledge_agrees_with_the_hidden_state_r11(seed: int, moves: int) -> None:
    """What Knowledge says the opponent holds is in their hand; what it calls unseen is
    exactly the opponent's other cards plus the stock; nothing else is claimed."""
    for hand, me, k in _positions(seed, moves):
        opp = hand.mask_of(1 - me)
        stock = _mask(hand.stock)
        assert k.mine == hand.mask_of(me)
        assert k.pile == _mask(hand.discards)
        assert k.opp_known & ~opp == 0, "claims a card the opponent does not hold"
        assert k.unseen == (opp & ~k.opp_known) | stock
        assert k.unseen & (k.mine | k.pile) == 0
        assert k.mine | k.pile | k.opp_known | k.unseen == ALL_CARDS
        if hand.to_play == me or hand.phase is Phase.OVER:
            assert k.opp_unknown == opp.bit_count() - k.opp_known.bit_count()
        # every card the opponent took from the pile and still holds is known
        took = 0
        for op in hand.history:
            if op.seat != me and op.action.source == "discard" and op.card is not None:
                took |= op.card.mask
        assert took & opp & ~k.opp_known == 0
        discarded = 0  # a card may be discarded twice (taken back, thrown again)
        for op in hand.history:
            if op.seat != me and op.action.card is not None:
                discarded |= op.action.card.mask
        assert k.opp_discarded == discarded
        if hand.to_play == me and hand.phase is Phase.DISCARD:
            last = hand.history[-1]
            expect = last.card.index if last.action.source == "discard" and last.card \
                else None
            assert k.taken == expect


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 200))
def test_the_opponents_latest_discard_and_its_hand_then_r5_r11(seed: int, moves: int) -> None:
    """``opp_last_discard`` is the opponent's latest discard while it has not drawn since:
    its hand then was its hand now plus that card; ``opp_last_taken`` the pile card it took
    on that turn (R5), which it still holds."""
    for hand, me, k in _positions(seed, moves):
        opp = 1 - me
        ops = [op for op in hand.history if op.seat == opp]
        last = ops[-1] if ops else None
        if last is not None and last.action.act == "discard" and not last.action.knock:
            assert last.action.card is not None
            assert k.opp_last_discard == last.action.card.index
            took = ops[-2] if len(ops) >= 2 else None
            if took is not None and took.action.act == "draw" \
                    and took.action.source == "discard":
                assert took.card is not None
                assert k.opp_last_taken == took.card.index
                assert hand.mask_of(opp) >> took.card.index & 1
            else:
                assert k.opp_last_taken is None
        elif last is None or last.action.act != "discard":
            assert k.opp_last_discard is None and k.opp_last_taken is None
