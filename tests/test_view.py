"""A seat's view (R11): typed, redacted history shared between views, and the JSON form
that reads back, also after a knock."""

from __future__ import annotations

import random

import pytest

from ginrummy import Hand, HandResult, Match, Operation, View
from ginrummy.hand import History, ViewError
from helpers import GIN_SPADES, LOOSE_25, deal, play_script


def _random_hand(seed: int, until_over: bool = True) -> Hand:
    rng = random.Random(seed)
    m = Match(seed=seed)
    hand = m.hand
    while not hand.is_over() and (until_over or rng.random() < 0.97):
        hand.play(rng.choice(hand.legal_actions()))
    return hand


def test_r11_history_is_typed_and_hides_only_the_opponents_stock_draws() -> None:
    hand = _random_hand(1)
    for seat in (0, 1):
        seen = hand.view(seat).history
        assert len(seen) == len(hand.history)
        for op, full in zip(seen, hand.history, strict=True):
            assert isinstance(op, Operation)
            assert (op.seat, op.action) == (full.seat, full.action)
            hidden = full.seat != seat and full.action.source == "stock"
            assert op.card is (None if hidden else full.card)


def test_r11_view_json_history_is_the_wire_form() -> None:
    hand = _random_hand(2)
    for seat in (0, 1):
        js = hand.view(seat).to_json()["history"]
        for h, full in zip(js, hand.history, strict=True):
            expect = full.to_json()
            if full.action.act == "draw" and (full.seat == seat
                                              or full.action.source == "discard"):
                expect["card"] = str(full.card)
            assert h == expect


def test_views_share_the_history_and_an_old_view_never_changes() -> None:
    m = Match(seed=3)
    hand = m.hand
    rng = random.Random(3)
    for _ in range(6):
        hand.play(rng.choice(hand.legal_actions()))
    early = hand.view(0)
    frozen = tuple(early.history)
    for _ in range(10):
        hand.play(rng.choice(hand.legal_actions()))
    later = hand.view(0)
    assert tuple(early.history) == frozen and len(later.history) == len(frozen) + 10
    assert later.history[: len(frozen)] == frozen
    assert early.history._ops is later.history._ops  # one list, no copy per view


def test_history_reads_like_a_tuple() -> None:
    ops = tuple(_random_hand(4).history)
    h = History(list(ops), 3)
    assert len(h) == 3 and h[-1] is ops[2] and h[0] is ops[0] and h[1:] == ops[1:3]
    assert h == ops[:3] and h != ops[:2] and hash(h) == hash(ops[:3])
    with pytest.raises(IndexError):
        h[3]


def test_view_from_json_round_trips_after_a_knock_r8() -> None:
    hand = Hand(deal(GIN_SPADES, LOOSE_25, "KC"), dealer=1)
    play_script(hand, "pass", "pass", "draw stock", "discard AC knock")
    for seat in (0, 1):
        view = hand.view(seat)
        assert view.result is not None and view.revealed is not None
        back = View.from_json(view.to_json())
        assert back.to_json() == view.to_json()
        assert back.revealed == view.revealed and back.history == view.history
        assert back.result is not None and back.result.to_json() == view.result.to_json()


def test_view_from_json_round_trips_during_play() -> None:
    m = Match(seed=9)
    rng = random.Random(9)
    for _ in range(200):
        if m.is_over():
            break
        for s in (0, 1):
            v = m.view(s)
            back = View.from_json(v.to_json(), [a.to_json() for a in v.legal])
            assert back == v
        m.play(rng.choice(m.legal_actions()))


def test_hand_result_from_json_reads_every_result() -> None:
    for seed in range(40):
        hand = _random_hand(seed)
        assert hand.result is not None
        back = HandResult.from_json(hand.result.to_json())
        assert back.to_json() == hand.result.to_json()
    knock = {"result": "knock", "knocker": 1, "scorer": 1, "points": 9,
             "deadwood": [12, 3], "layoffs": ["8D"]}
    assert HandResult.from_json(knock).to_json() == knock


@pytest.mark.parametrize("bad", [
    None, [], {"result": "win"}, {"result": "knock"},
    {"result": "dead", "knocker": 0}, {"result": "knock", "knocker": 2},
    {"result": "knock", "knocker": 0, "points": -1},
    {"result": "knock", "knocker": 0, "deadwood": [1]},
    {"result": "knock", "knocker": 0, "layoffs": ["ZZ"]},
])
def test_hand_result_from_json_refuses_malformed_input(bad: object) -> None:
    with pytest.raises(ViewError):
        HandResult.from_json(bad)


def test_view_from_json_names_what_is_wrong() -> None:
    js = Match(seed=1).view(0).to_json()
    for key in ("seat", "hand", "phase", "upcard", "scores", "discards"):
        broken = {k: v for k, v in js.items() if k != key}
        with pytest.raises(ViewError, match=key if key != "phase" else "phase"):
            View.from_json(broken)
    with pytest.raises(ViewError, match="history"):
        View.from_json({**js, "history": [{"seat": 0, "act": "fly"}]})
