"""Closed vocabularies as enums (equal to their strings, JSON unchanged), actions that
cannot be built wrong, and a syntax error told apart from an illegal action."""

from __future__ import annotations

import json

import pytest

from ginrummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    ActionKind,
    Card,
    DrawSource,
    HandEnd,
    IllegalActionError,
    InvalidActionError,
    Match,
    StraightBackError,
    Termination,
)
from ginrummy.hand import Hand
from helpers import GIN_SPADES, LOOSE_25, deal, play_script


def test_enums_compare_equal_to_their_strings_and_serialize_as_them() -> None:
    assert PASS.act is ActionKind.PASS and PASS.act == "pass"
    assert DRAW_STOCK.source is DrawSource.STOCK and DRAW_STOCK.source == "stock"
    assert json.dumps(DRAW_DISCARD.to_json()) == '{"act": "draw", "from": "discard"}'
    assert str(ActionKind.DISCARD) == "discard" and f"{DrawSource.STOCK}" == "stock"
    assert HandEnd("dead") is HandEnd.DEAD and Termination("target") is Termination.TARGET


def test_action_from_strings_is_the_same_action() -> None:
    assert Action("pass") == PASS and Action("draw", "discard") == DRAW_DISCARD  # type: ignore[arg-type]
    card = Card.parse("KH")
    assert Action("discard", None, card, True) == Action.discard(card, knock=True)  # type: ignore[arg-type]
    assert repr(Action("draw", "stock")) == "Action(act='draw', source='stock')"  # type: ignore[arg-type]


@pytest.mark.parametrize("args, fragment", [
    (("discard",), "needs a card"),
    (("fly",), "Unknown action"),
    (("draw",), "from 'stock' or 'discard'"),
    (("draw", "deck"), "from 'stock' or 'discard'"),
    (("pass", "stock"), "Only a draw has a source"),
    (("pass", None, Card.parse("AS")), "Only a discard names a card"),
    (("draw", "stock", None, True), "Only a discard can knock"),
    (("discard", None, "AS"), "needs a card"),
    (("discard", None, Card.parse("AS"), 1), "true or false"),
])
def test_impossible_actions_are_refused_when_built(args: tuple[object, ...], fragment: str) -> None:
    with pytest.raises(InvalidActionError, match=fragment):
        Action(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [
    {"act": "jump"}, {"act": "draw", "from": "deck"}, {"act": "discard"},
    {"act": "discard", "card": "ZZ"}, {"act": "discard", "card": "KH", "knock": "yes"}, [],
])
def test_malformed_action_json_is_a_syntax_error(bad: object) -> None:
    with pytest.raises(InvalidActionError):
        Action.from_json(bad)


def test_syntax_errors_and_illegal_actions_are_distinct_r5() -> None:
    hand = Hand(deal(GIN_SPADES, LOOSE_25, "KC"), dealer=0)
    play_script(hand, "draw discard")
    with pytest.raises(StraightBackError) as illegal:
        hand.play(Action.discard("KC"))
    assert not isinstance(illegal.value, InvalidActionError)
    with pytest.raises(InvalidActionError) as invalid:
        Action.parse("discard the king")
    # both are ValueErrors, and code catching IllegalActionError still catches both
    assert isinstance(invalid.value, IllegalActionError) and isinstance(invalid.value, ValueError)
    with pytest.raises(InvalidActionError):
        hand.verify_draw("deck")


def test_results_and_terminations_are_enums() -> None:
    import random

    m = Match(seed=4)
    rng = random.Random(4)
    while not m.is_over():
        m.play(rng.choice(m.legal_actions()))
    assert all(isinstance(r.result, HandEnd) for r in m.results() if r is not None)
    o = m.outcome()
    assert o is not None and isinstance(o.reason, Termination)
    assert json.loads(json.dumps({"r": o.reason})) == {"r": o.reason.value}


def test_actions_print_as_plain_text() -> None:
    for a in (PASS, DRAW_STOCK, DRAW_DISCARD, Action.discard("KH", knock=True)):
        assert type(str(a)) is str and Action.parse(str(a)) is a
    assert str(PASS) == "pass" and repr(PASS) == "Action(act='pass')"
