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


def test_describe_narrates_every_result_the_same_from_the_hand_or_its_json_r9() -> None:
    seen = set()
    for seed in range(300):
        hand = _random_hand(seed)
        r = hand.result
        assert r is not None
        lines = r.describe(["Ann", "Bob"])
        back = HandResult.from_json(r.to_json()).describe(["Ann", "Bob"])
        assert lines[-1] == back[-1]  # the score line needs no showdown
        if r.result != "dead":
            scorer = ["Ann", "Bob"][r.scorer or 0]
            assert lines[-1].startswith(f"{r.result.value.capitalize()}: {scorer} scores "
                                        f"{r.points} (")
            assert lines[0].startswith(["Ann", "Bob"][r.knocker or 0] + " shows [")
            assert ("lays off" in " ".join(lines)) == bool(r.layoffs)
        seen.add(r.result)
    assert len(seen) >= 2


def test_meld_values_in_arrangements_r2() -> None:
    from ginrummy import arrange
    from ginrummy.melds import Meld

    a = arrange("7C 7D 7H 7S 8C 9C")
    assert all(isinstance(m, Meld) for m in a.melds)
    assert [m.kind for m in a.melds] == ["set", "run"]
    assert [str(m) for m in a.melds] == ["7D 7H 7S", "7C 8C 9C"]
    assert a.melds[1] == tuple(a.melds[1]) and a.melds[1][0].rank == "7"
    assert a.to_json()["melds"] == [["7D", "7H", "7S"], ["7C", "8C", "9C"]]
