"""The RL encoding: action ids, legal masks (R4-R6) and observations built from what one
seat may see (R11) only."""

from __future__ import annotations

import random

import pytest

from ginrummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Card,
    Deal,
    Hand,
    Match,
    Phase,
    View,
    deck,
)
from ginrummy.rl.encoding import (
    ACTIONS,
    NUM_ACTIONS,
    OBS_SIZE,
    PLANES,
    SCALARS,
    action_to_id,
    encode,
    encode_list,
    id_to_action,
    layout,
    legal_ids,
    legal_mask,
)

L = layout()


def plane(vec: list[float], name: str) -> set[str]:
    """The cards set in plane ``name`` of an observation."""
    a, b = L[name]
    return {str(Card.from_index(i)) for i, v in enumerate(vec[a:b]) if v}


def scalar(vec: list[float], name: str) -> float:
    return vec[L[name][0]]


# ----------------------------------------------------------------------------- actions


def test_action_ids_cover_every_action_once() -> None:
    assert NUM_ACTIONS == 107 == len(set(ACTIONS))
    assert id_to_action(0) is PASS and id_to_action(1) is DRAW_STOCK
    assert id_to_action(2) is DRAW_DISCARD
    for c in deck():
        assert action_to_id(Action.discard(c)) == 3 + c.index
        assert action_to_id(Action.discard(c, knock=True)) == 55 + c.index
    for i in range(NUM_ACTIONS):
        assert action_to_id(id_to_action(i)) == i


@pytest.mark.parametrize("bad", [-1, 107, 1000, "3", 2.0, True, None])
def test_bad_action_ids_are_refused_clearly(bad: object) -> None:
    with pytest.raises(ValueError, match="id"):
        id_to_action(bad)


def test_action_to_id_refuses_non_actions() -> None:
    with pytest.raises(ValueError, match="Not a Gin Rummy action"):
        action_to_id("pass")  # type: ignore[arg-type]


def test_numpy_integer_ids_are_accepted() -> None:
    np = pytest.importorskip("numpy")
    assert id_to_action(np.int64(57)) == Action.discard(Card.from_index(2), knock=True)


# ----------------------------------------------------------------------------- masks


def test_mask_equals_legal_actions_in_random_matches() -> None:
    """R4-R6: the mask is exactly the legal actions of the seat to play, zeros otherwise."""
    rng = random.Random(5)
    for seed in range(4):
        m = Match(seed=seed)
        steps = 0
        while not m.is_over() and steps < 400:
            seat = m.hand.to_play
            assert seat is not None
            legal = {action_to_id(a) for a in m.legal_actions()}
            mask = legal_mask(m.view(seat), as_numpy=False)
            assert {i for i, v in enumerate(mask) if v} == legal
            assert legal_ids(m.view(seat)) == sorted(legal)
            assert sum(legal_mask(m.view(1 - seat), as_numpy=False)) == 0
            m.play(rng.choice(m.legal_actions()))
            steps += 1


def test_mask_forbids_straight_back_and_allows_only_legal_knocks() -> None:
    """R5: the card just taken may not be discarded; R6: knock ids only within the limit."""
    deal = Deal.build("AS 2S 3S 4S 5S 6S 7S 8S 9S KD", "AH 3H 5H 7H 9H JH KH 2D 4D 6D", "TS")
    hand = Hand(deal, dealer=0)
    hand.play(PASS)
    hand.play(DRAW_DISCARD)  # seat 0 (dealer) takes the TS
    view = hand.view(0)
    mask = legal_mask(view, as_numpy=False)
    ts = Card.parse("TS").index
    assert mask[3 + ts] == 0 and mask[55 + ts] == 0  # R5
    kd = Card.parse("KD").index
    assert mask[3 + kd] == 1 and mask[55 + kd] == 1  # gin by discarding KD (R6)
    two = Card.parse("2S").index
    assert mask[3 + two] == 1 and mask[55 + two] == 0  # leaves AS + KD: 11 > 10
    assert hand.can_discard(Card.parse("2S"), knock=True) is bool(mask[55 + two])


# ----------------------------------------------------------------------------- observations


def test_layout_is_fixed_and_values_are_in_range() -> None:
    assert 52 * len(PLANES) + len(SCALARS) == OBS_SIZE
    spans = sorted(L.values())
    assert spans[0][0] == 0 and spans[-1][1] == OBS_SIZE
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    rng = random.Random(1)
    m = Match(seed=11)
    for _ in range(200):
        if m.is_over():
            break
        for s in (0, 1):
            vec = encode_list(m.view(s))
            assert len(vec) == OBS_SIZE and all(0.0 <= v <= 1.0 for v in vec)
        m.play(rng.choice(m.legal_actions()))


def test_planes_read_the_public_history() -> None:
    """R11: pile draws, passes and discards of the opponent are public; the taken card is
    marked (R5); the phase, stock count and deadwood scalars follow the view."""
    deal = Deal.build("AS 2S 3S 4S 5S 6S 7S 8S 9S KD", "AH 3H 5H 7H 9H JH KH 2D 4D 6D", "TS")
    hand = Hand(deal, dealer=0)  # seat 1 is offered the up-card first (R4)
    v0 = encode_list(hand.view(0))
    assert plane(v0, "hand") == {str(c) for c in deal.hands[0]}
    assert plane(v0, "top") == {"TS"} and plane(v0, "pile") == {"TS"}
    assert scalar(v0, "phase_offer") == 1.0 and scalar(v0, "my_turn") == 0.0
    assert scalar(v0, "is_dealer") == 1.0 and scalar(v0, "stock_count") == 1.0
    assert scalar(v0, "deadwood") == pytest.approx(10 / 110)
    hand.play(PASS)  # seat 1 passes on TS
    v0 = encode_list(hand.view(0))
    assert plane(v0, "opp_declined") == {"TS"}
    hand.play(DRAW_DISCARD)  # seat 0 takes TS
    v0 = encode_list(hand.view(0))
    assert plane(v0, "taken") == {"TS"} and scalar(v0, "phase_discard") == 1.0
    assert scalar(v0, "best_deadwood") == 0.0  # discarding KD is gin
    a, _ = L["deadwood_after"]
    assert v0[a + Card.parse("KD").index] == 0.0
    assert v0[a + Card.parse("AS").index] == pytest.approx(0.10)  # AS out: 2-T run, KD loose
    v1 = encode_list(hand.view(1))
    assert plane(v1, "opp_holds") == {"TS"} and plane(v1, "taken") == set()
    assert scalar(v1, "opp_unknown") == pytest.approx(0.9)
    hand.play(Action.discard("KD"))
    hand.play(DRAW_STOCK)  # seat 1 declines KD and draws from the stock
    hand.play(Action.discard("KH"))
    v0 = encode_list(hand.view(0))
    assert plane(v0, "opp_declined") == {"TS", "KD"}
    assert plane(v0, "opp_discarded") == {"KH"} and plane(v0, "my_discarded") == {"KD"}
    assert plane(v0, "dead") == {"KD"} and plane(v0, "top") == {"KH"}
    assert plane(v0, "unseen").isdisjoint(plane(v0, "hand") | plane(v0, "pile"))
    assert len(plane(v0, "unseen")) == 52 - 10 - 2  # all but own cards and the pile KD KH
    v1 = encode_list(hand.view(1))
    assert plane(v1, "opp_holds") == {"TS"}  # still known to be in seat 0's hand
    assert len(plane(v1, "unseen")) == 52 - 10 - 2 - 1


def test_encoding_needs_only_the_protocol_view() -> None:
    """R11: the encoding of a View equals that of its bot-protocol JSON (docs/protocol.md),
    which carries nothing hidden; the revealed hands after a knock are not used."""
    rng = random.Random(2)
    m = Match(seed=4)
    for _ in range(300):
        if m.is_over():
            break
        for s in (0, 1):
            view = m.view(s)
            copy = View.from_json(view.to_json(), view.legal)
            assert encode_list(copy) == encode_list(view)
        m.play(rng.choice(m.legal_actions()))


def _replay(deal: Deal, dealer: int, actions: list[tuple[int, Action]]) -> list[Hand]:
    """Hands after each prefix of ``actions`` on ``deal``."""
    out = []
    for k in range(len(actions) + 1):
        h = Hand(deal, dealer)
        for seat, a in actions[:k]:
            h.play(a, seat)
        out.append(h)
    return out


def test_seat_encoding_ignores_hidden_cards_r11() -> None:
    """R11: two deals that differ only in seat 1's hidden cards and the stock order, played
    with the same public history, give seat 0 identical observations and masks."""
    rng = random.Random(7)
    leaked_difference_seen = False
    for trial in range(12):
        cards = deck()
        rng.shuffle(cards)
        deal = Deal((tuple(cards[:10]), tuple(cards[10:20])), cards[20], tuple(cards[21:]))
        dealer = trial % 2
        hand = Hand(deal, dealer)
        actions: list[tuple[int, Action]] = []
        for _ in range(rng.randrange(4, 40)):
            if hand.is_over():
                break
            plain = [a for a in hand.legal_actions() if not a.knock]
            seat = hand.to_play
            assert seat is not None
            a = rng.choice(plain)
            hand.play(a, seat)
            actions.append((seat, a))
        # Cards seat 0 has seen: its own, the up-card, its stock draws, seat 1's discards.
        fixed = {*deal.hands[0], deal.upcard}
        for op in hand.history:
            if op.seat == 0 and op.action == DRAW_STOCK:
                assert op.card is not None
                fixed.add(op.card)
            if op.seat == 1 and op.action.act == "discard":
                assert op.action.card is not None
                fixed.add(op.action.card)
        slots = list(deal.hands[1]) + list(deal.stock)
        free = [i for i, c in enumerate(slots) if c not in fixed]
        moved = [slots[i] for i in free]
        rng.shuffle(moved)
        for i, c in zip(free, moved, strict=True):
            slots[i] = c
        other = Deal((deal.hands[0], tuple(slots[:10])), deal.upcard, tuple(slots[10:]))
        assert other != deal or len(free) < 2
        for ha, hb in zip(_replay(deal, dealer, actions), _replay(other, dealer, actions),
                          strict=True):
            va, vb = ha.view(0), hb.view(0)
            assert encode_list(va) == encode_list(vb)
            assert legal_mask(va, as_numpy=False) == legal_mask(vb, as_numpy=False)
            if encode_list(ha.view(1)) != encode_list(hb.view(1)):
                leaked_difference_seen = True
    assert leaked_difference_seen  # the hidden cards did differ, and seat 1 could tell


def test_numpy_output_matches_lists() -> None:
    np = pytest.importorskip("numpy")
    view = Match(seed=9).view(1)
    arr = encode(view)
    assert arr.dtype == np.float32 and arr.shape == (OBS_SIZE,)
    assert arr.tolist() == pytest.approx(encode_list(view))
    mask = legal_mask(view)
    assert mask.dtype == np.int8 and mask.tolist() == legal_mask(view, as_numpy=False)
    assert isinstance(encode(view, as_numpy=False), list)
    assert view.phase is Phase.OFFER
