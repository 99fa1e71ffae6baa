"""Table options (R12): target, gin only, Oklahoma, and the knock limits they set (R6)."""

from __future__ import annotations

from typing import Any

import pytest

from ginrummy import (
    Action,
    Card,
    Hand,
    KnockNotAllowedError,
    Options,
    OptionsError,
    deck,
)
from helpers import GIN_SPADES, deal, knock_hand, play_script

KNOCK5 = "5C 6C 7C JD JH JS 2S 3S 4S 5H"
"""Deadwood 5 (5H loose)."""

KNOCK6 = "5C 6C 7C JD JH JS 2S 3S 4S 6H"
"""Deadwood 6 (6H loose)."""

DEFENDER = "8D 9D KH KD QC TH AH 2H 9C 3D"


def test_r12_defaults() -> None:
    o = Options()
    assert (o.target, o.gin_only, o.oklahoma) == (100, False, False)
    assert o.to_json() == {"target": 100, "gin_only": False, "oklahoma": False}


@pytest.mark.parametrize("target", [100, 150, 200, 250])
def test_r12_allowed_targets(target: int) -> None:
    assert Options(target=target).target == target


@pytest.mark.parametrize("target", [0, 99, 120, 300, True, "100"])
def test_r12_other_targets_refused(target: Any) -> None:
    with pytest.raises(OptionsError, match="The target must be 100, 150, 200 or 250"):
        Options(target=target)


@pytest.mark.parametrize("name", ["gin_only", "oklahoma"])
def test_r12_switches_must_be_booleans(name: str) -> None:
    with pytest.raises(OptionsError, match=name):
        Options(**{name: 1})  # type: ignore[arg-type]


def test_r12_from_json_partial_or_absent_takes_defaults() -> None:
    assert Options.from_json(None) == Options()
    assert Options.from_json({}) == Options()
    assert Options.from_json({"target": 200}) == Options(target=200)
    assert Options.from_json({"oklahoma": True}) == Options(oklahoma=True)
    full = Options(target=250, gin_only=True, oklahoma=True)
    assert Options.from_json(full.to_json()) == full


@pytest.mark.parametrize(
    "obj, fragment",
    [([], "must be an object"), ({"targte": 100}, "Unknown option: 'targte'"),
     ({"target": 7}, "target"), ({"gin_only": "yes"}, "gin_only")],
)
def test_r12_from_json_refuses_bad_options(obj: Any, fragment: str) -> None:
    with pytest.raises(OptionsError, match=fragment):
        Options.from_json(obj)


def test_r12_standard_knock_limit_is_ten_whatever_the_upcard() -> None:
    assert {Options().knock_limit(c) for c in deck()} == {10}


def test_r12_gin_only_knock_limit_is_zero() -> None:
    assert {Options(gin_only=True).knock_limit(c) for c in deck()} == {0}


@pytest.mark.parametrize("rank, limit", [("A", 0), ("2", 2), ("5", 5), ("9", 9), ("T", 10),
                                         ("J", 10), ("Q", 10), ("K", 10)])
def test_r12_oklahoma_upcard_sets_knock_limit(rank: str, limit: int) -> None:
    for suit in "CDHS":
        assert Options(oklahoma=True).knock_limit(Card.parse(rank + suit)) == limit


def test_r12_gin_only_overrides_oklahoma() -> None:
    o = Options(gin_only=True, oklahoma=True)
    assert {o.knock_limit(c) for c in deck()} == {0}


def test_r12_oklahoma_knock_limits_in_play() -> None:
    ok = Options(oklahoma=True)
    allowed = knock_hand(KNOCK5, DEFENDER, upcard="5D", options=ok)
    assert allowed.knock_limit == 5
    assert allowed.result is not None and allowed.result.result == "knock"
    hand = Hand(deal(DEFENDER, KNOCK6, "5D", "KC"), 0, ok)
    play_script(hand, "pass", "pass", "draw stock")
    with pytest.raises(KnockNotAllowedError, match="knock limit of 5"):
        hand.play(Action.discard("KC", knock=True), 1)
    assert hand.phase.value == "discard" and hand.result is None


def test_r12_oklahoma_ace_upcard_means_gin_only() -> None:
    ok = Options(oklahoma=True)
    hand = Hand(deal(DEFENDER, "5C 6C 7C JD JH JS 2S 3S 4S AD", "AS", "KC"), 0, ok)
    assert hand.knock_limit == 0
    play_script(hand, "pass", "pass", "draw stock")
    with pytest.raises(KnockNotAllowedError, match="gin only"):
        hand.play(Action.discard("KC", knock=True), 1)
    gin = knock_hand(GIN_SPADES, DEFENDER, upcard="AC", options=ok)
    assert gin.knock_limit == 0
    assert gin.result is not None and gin.result.result == "gin"


def test_r12_options_visible_in_the_view() -> None:
    o = Options(target=200, oklahoma=True)
    hand = Hand(deal(DEFENDER, KNOCK5, "7D"), 0, o)
    v = hand.view(0).to_json()
    assert v["options"] == {"target": 200, "gin_only": False, "oklahoma": True}
    assert v["knock_limit"] == 7


def test_hands_lowers_the_r10_hand_limit_and_is_written_only_when_set() -> None:
    assert Options().hand_limit == 60 and "hands" not in Options().to_json()
    capped = Options.from_json({"target": 250, "hands": 3})
    assert capped.hand_limit == 3
    assert capped.to_json() == {"target": 250, "gin_only": False, "oklahoma": False,
                                "hands": 3}
    for bad in (0, 61, 2.5, True, "3"):
        with pytest.raises(OptionsError) as e:
            Options.from_json({"hands": bad})
        assert str(e.value) == f"'hands' must be a whole number from 1 to 60, not {bad!r}."
