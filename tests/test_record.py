"""The ``ginrummy/1`` record and ``replay`` (docs/records.md): round trips, prefixes,
defaults, and every kind of malformed or illegal record (R4-R10)."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ginrummy import Match, Options, RecordError, match_from_record, match_to_record, replay
from helpers import (
    LOOSE_25,
    SAMPLE_SUMMARY,
    deal,
    gin_deal,
    play_dead_hand,
    play_gin_for,
    play_script,
    random_play,
)

DATA = Path(__file__).parent / "data"

KNOCK9 = "5C 6C 7C JD JH JS 2S 3S 4S 9H"


def load(name: str) -> dict[str, Any]:
    """A sample record from tests/data."""
    obj: dict[str, Any] = json.loads((DATA / name).read_text())
    return obj


def sample() -> dict[str, Any]:
    """A fresh copy of the four-hand sample match (knock, dead, undercut, gin)."""
    return load("short_match.json")


def views(m: Match) -> list[Any]:
    """Both seats' views of the current hand, as JSON."""
    return [m.view(s).to_json() for s in (0, 1)]


def error_of(record: Any) -> RecordError:
    """The RecordError that replaying ``record`` raises (and check replay() agrees)."""
    with pytest.raises(RecordError) as info:
        match_from_record(record)
    out, err = replay(record)
    assert err is not None and out["error"] == err.to_json() == info.value.to_json()
    return info.value


# ----------------------------------------------------------------------------- round trips


def test_record_round_trip_of_a_whole_match() -> None:
    m = Match(Options(target=150), seed=31, players=("ann", "bob"))
    random_play(m, random.Random(2))
    text = json.dumps(m.to_record())
    again = Match.from_record(text)
    assert again.to_record() == m.to_record()
    assert again.results() == m.results() and again.scores == m.scores
    assert again.outcome() == m.outcome() and again.is_over()
    assert views(again) == views(m)


def test_record_round_trip_of_prefixes() -> None:
    m = Match(seed=44, first_dealer=1)
    rng = random.Random(5)
    for _ in range(6):
        random_play(m, rng, max_actions=rng.randrange(1, 80))
        rec = json.loads(json.dumps(m.to_record()))
        again = Match.from_record(rec)
        assert again.to_record() == rec
        assert views(again) == views(m) and again.scores == m.scores
        assert again.hand.legal_actions() == m.hand.legal_actions()


def test_record_of_fresh_match_has_one_hand_without_actions() -> None:
    rec = Match(seed=3, first_dealer=0, players=("a", "b")).to_record()
    assert rec["format"] == "ginrummy/1" and rec["players"] == ["a", "b"] and rec["seed"] == 3
    assert rec["options"] == {"target": 100, "gin_only": False, "oklahoma": False}
    assert len(rec["hands"]) == 1 and rec["hands"][0]["actions"] == []
    assert rec["hands"][0]["dealer"] == 0
    d = rec["hands"][0]["deal"]
    assert len(d["hands"][0]) == len(d["hands"][1]) == 10 and len(d["stock"]) == 31
    assert len({*d["hands"][0], *d["hands"][1], d["upcard"], *d["stock"]}) == 52


def test_record_actions_use_interface_field_names() -> None:
    m = Match(first_dealer=0, deals=[deal(LOOSE_25, KNOCK9, "QD", "KC")])
    play_script(m, "pass", "pass", "draw stock", "discard KC knock")
    assert match_to_record(m)["hands"][0]["actions"] == [
        {"seat": 1, "act": "pass"},
        {"seat": 0, "act": "pass"},
        {"seat": 1, "act": "draw", "from": "stock"},
        {"seat": 1, "act": "discard", "card": "KC", "knock": True},
    ]


def test_record_sample_match_replays_to_known_results() -> None:
    out, err = replay(sample())
    assert err is None
    assert out == SAMPLE_SUMMARY


def test_record_replay_of_unfinished_hand_has_null_result() -> None:
    rec = sample()
    rec["hands"] = rec["hands"][:1]
    rec["hands"][0]["actions"] = rec["hands"][0]["actions"][:3]
    out, err = replay(rec)
    assert err is None
    assert out == {"hands": [{"result": None, "knocker": None, "scorer": None, "points": 0,
                              "deadwood": None, "layoffs": []}],
                   "scores": [0, 0], "finished": False, "winner": None}


def test_record_with_no_hands_is_an_empty_match() -> None:
    out, err = replay({"format": "ginrummy/1", "hands": []})
    assert err is None
    assert out == {"hands": [], "scores": [0, 0], "finished": False, "winner": None}


def test_record_hand_without_actions_member_is_just_dealt() -> None:
    rec = sample()
    del rec["hands"][0]["actions"]
    rec["hands"] = rec["hands"][:1]
    m = Match.from_record(rec)
    assert m.hand.phase.value == "offer" and m.hand.history == []


# ----------------------------------------------------------------------------- options


def test_record_absent_options_take_defaults() -> None:
    rec = sample()
    del rec["options"], rec["players"], rec["seed"]
    m = Match.from_record(rec)
    assert m.options == Options() and m.players is None and m.seed is None
    assert m.scores == (29, 114)


def test_record_partial_options_take_defaults() -> None:
    rec = sample()
    rec["options"] = {"target": 150}
    m = Match.from_record(rec)
    assert m.options == Options(target=150)
    assert not m.is_over()  # 114 does not reach 150: the match goes on


def test_record_options_change_the_rules_applied() -> None:
    rec = sample()
    rec["options"] = {"gin_only": True}
    err = error_of(rec)
    assert (err.hand, err.action) == (0, 3)
    assert "gin only" in err.message


# ----------------------------------------------------------------------------- malformed


@pytest.mark.parametrize(
    "text, fragment",
    [("{", "not valid JSON"), ("[]", "must be a JSON object"), ("42", "must be a JSON object"),
     (b"\xff\xfe", "not valid JSON")],
)
def test_record_not_json_or_not_object(text: str | bytes, fragment: str) -> None:
    err = error_of(text)
    assert fragment in err.message and (err.hand, err.action) == (None, None)
    out, _ = replay(text)
    assert out["hands"] == [] and out["scores"] == [0, 0]


Mutation = Callable[[dict[str, Any]], None]


def _set(path: list[Any], value: Any) -> Mutation:
    """A mutation that sets ``rec[path...] = value``."""
    def mutate(rec: dict[str, Any]) -> None:
        obj: Any = rec
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value
    return mutate


def _delete(path: list[Any]) -> Mutation:
    """A mutation that deletes ``rec[path...]``."""
    def mutate(rec: dict[str, Any]) -> None:
        obj: Any = rec
        for key in path[:-1]:
            obj = obj[key]
        del obj[path[-1]]
    return mutate


def _swap_into_hand(rec: dict[str, Any]) -> None:
    rec["hands"][2]["deal"]["hands"][0][0] = rec["hands"][2]["deal"]["hands"][1][0]


MALFORMED: list[tuple[str, Mutation, int | None, int | None, str]] = [
    ("wrong format", _set(["format"], "ginrummy/2"), None, None, "Not a ginrummy/1 record"),
    ("no format", _delete(["format"]), None, None, "Not a ginrummy/1 record"),
    ("bad target", _set(["options", "target"], 120), None, None, "100, 150, 200 or 250"),
    ("bad options", _set(["options"], [1]), None, None, "options must be an object"),
    ("bad players", _set(["players"], ["only one"]), None, None, "'players'"),
    ("bad seed", _set(["seed"], "seven"), None, None, "'seed' must be an integer"),
    ("no hands", _delete(["hands"]), None, None, "list of 'hands'"),
    ("hand not object", _set(["hands", 1], []), 1, None, "Each hand must be an object"),
    ("no dealer", _delete(["hands", 2, "dealer"]), 2, None, "'dealer' of 0 or 1"),
    ("bad first dealer", _set(["hands", 0, "dealer"], 3), 0, None, "'dealer' of 0 or 1"),
    ("no deal", _delete(["hands", 1, "deal"]), 1, None, "'hands', 'upcard' and 'stock'"),
    ("no upcard", _delete(["hands", 2, "deal", "upcard"]), 2, None, "'upcard'"),
    ("no stock", _delete(["hands", 2, "deal", "stock"]), 2, None, "'stock'"),
    ("one hand", _set(["hands", 2, "deal", "hands"], [["AS"]]), 2, None, "two lists"),
    ("nine cards", _delete(["hands", 1, "deal", "hands", 1, 0]), 1, None,
     "Seat 1 must be dealt 10 cards, not 9."),
    ("short stock", _delete(["hands", 3, "deal", "stock", 0]), 3, None,
     "The stock must hold 31 cards, not 30."),
    ("duplicate card", _swap_into_hand, 2, None, "dealt twice"),
    ("unknown card", _set(["hands", 1, "deal", "upcard"], "1X"), 1, None, "Unknown card '1X'"),
    ("card not string", _set(["hands", 1, "deal", "stock", 0], 7), 1, None, "Not a card: 7."),
    ("wrong dealer after scored hand", _set(["hands", 1, "dealer"], 0), 1, None,
     "Seat 1 deals hand 1 (R7, R10), not seat 0."),
    ("wrong dealer after dead hand", _set(["hands", 2, "dealer"], 0), 2, None,
     "Seat 1 deals hand 2 (R7, R10), not seat 0."),
    ("actions not list", _set(["hands", 0, "actions"], {}), 0, None, "'actions' must be a list"),
    ("action not object", _set(["hands", 0, "actions", 1], "pass"), 0, 1,
     "Each action must be an object"),
    ("bad seat", _set(["hands", 0, "actions", 0, "seat"], 2), 0, 0, "'seat' of 0 or 1"),
    ("seat as text", _set(["hands", 0, "actions", 0, "seat"], "1"), 0, 0, "'seat' of 0 or 1"),
    ("seat as bool", _set(["hands", 0, "actions", 0, "seat"], True), 0, 0, "'seat' of 0 or 1"),
    ("no seat", _delete(["hands", 3, "actions", 2, "seat"]), 3, 2, "'seat' of 0 or 1"),
    ("wrong seat", _set(["hands", 0, "actions", 0, "seat"], 0), 0, 0,
     "It is not your turn: seat 1 is to play."),
    ("unknown action", _set(["hands", 0, "actions", 1, "act"], "fold"), 0, 1,
     "Unknown action 'fold'"),
    ("knock on a draw", _set(["hands", 0, "actions", 2, "knock"], True), 0, 2,
     "Only a discard can carry a knock."),
    ("bad draw source", _set(["hands", 0, "actions", 2, "from"], "deck"), 0, 2,
     "'stock' or 'discard'"),
    ("stock draw in offer", _set(["hands", 0, "actions", 1],
                                 {"seat": 0, "act": "draw", "from": "stock"}), 0, 1,
     "While the up-card is offered you may only take it or pass."),
    ("pass after offer", _set(["hands", 0, "actions", 2], {"seat": 1, "act": "pass"}), 0, 2,
     "You can only pass while the up-card is offered."),
    ("card not held", _set(["hands", 0, "actions", 3, "card"], "QH"), 0, 3,
     "You do not hold QH."),
    ("bad discard card", _set(["hands", 0, "actions", 3, "card"], "ZZ"), 0, 3, "Unknown card"),
    ("knock not bool", _set(["hands", 0, "actions", 3, "knock"], "yes"), 0, 3,
     "'knock' must be true or false."),
    ("knock not allowed", _set(["hands", 0, "actions", 3, "card"], "2S"), 0, 3,
     "You cannot knock: discarding 2S leaves 26 deadwood, more than the knock limit of 10."),
    ("action after hand ended",
     lambda r: r["hands"][0]["actions"].append({"seat": 0, "act": "draw", "from": "stock"}),
     0, 4, "The hand goes on after it has ended."),
    ("hand after match ended", lambda r: r["hands"].append(copy.deepcopy(r["hands"][3])), 4,
     None, "The record goes on after the match has ended."),
    ("hand after unfinished hand", _delete(["hands", 1, "actions", -1]), 2, None,
     "A later hand follows a hand that did not end."),
]


@pytest.mark.parametrize("name, mutate, hand, action, fragment", MALFORMED,
                         ids=[m[0] for m in MALFORMED])
def test_record_malformed_gives_record_error_with_place(
    name: str, mutate: Mutation, hand: int | None, action: int | None, fragment: str
) -> None:
    rec = sample()
    mutate(rec)
    err = error_of(rec)
    assert (err.hand, err.action) == (hand, action), err.to_json()
    assert fragment in err.message
    assert err.message.endswith("."), err.message
    assert err.to_json() == {"hand": hand, "action": action, "message": err.message}
    assert str(err) == err.message


def test_record_unknown_members_are_ignored_for_forward_compatibility() -> None:
    """docs/records.md: the format may gain optional members; a reader must not reject them."""
    rec = sample()
    rec["event"] = "club night"
    rec["hands"][0]["note"] = "first"
    rec["hands"][0]["actions"][1]["ms"] = 120
    rec["hands"][0]["actions"][2]["knock"] = False
    assert Match.from_record(rec).to_record()["hands"] == Match.from_record(sample()).to_record()[
        "hands"]


def test_r5_record_straight_back_gives_exact_sentence() -> None:
    err = error_of(load("straight_back.json"))
    assert err.to_json() == {"hand": 2, "action": 1,
                             "message": "You cannot put that straight back."}


def test_record_replay_covers_hands_up_to_the_error() -> None:
    out, err = replay(load("straight_back.json"))
    assert err is not None
    assert [h["result"] for h in out["hands"]] == ["knock", "dead", None]
    assert out["scores"] == [0, 32] and out["finished"] is False and out["winner"] is None
    assert out["error"] == {"hand": 2, "action": 1,
                            "message": "You cannot put that straight back."}


def test_record_error_in_deal_covers_earlier_hands() -> None:
    rec = sample()
    rec["hands"][3]["deal"]["upcard"] = "??"
    out, err = replay(rec)
    assert err is not None and (err.hand, err.action) == (3, None)
    assert [h["result"] for h in out["hands"]] == ["knock", "dead", "undercut"]
    assert out["scores"] == [29, 32]


def test_record_error_on_first_action_of_a_later_hand() -> None:
    m = Match(first_dealer=0, deals=[gin_deal(0), gin_deal(0)])
    play_gin_for(m, 0)
    rec = m.to_record()
    rec["hands"][1]["actions"] = [{"seat": 1, "act": "pass"}]  # seat 1 deals: seat 0 opens
    err = error_of(rec)
    assert (err.hand, err.action) == (1, 0) and "not your turn" in err.message


def test_record_reading_does_not_change_its_input() -> None:
    rec = sample()
    before = copy.deepcopy(rec)
    replay(rec)
    Match.from_record(rec)
    assert rec == before


def test_record_dead_hand_keeps_dealer_and_replays() -> None:
    m = Match(seed=9, first_dealer=1)
    play_dead_hand(m)
    play_dead_hand(m)
    rec = m.to_record()
    assert [h["dealer"] for h in rec["hands"]] == [1, 1, 1]
    out, err = replay(json.dumps(rec))
    assert err is None and [h["result"] for h in out["hands"]] == ["dead", "dead", None]


def test_record_deeply_nested_json_gives_record_error() -> None:
    err = error_of("[" * 100_000)
    assert (err.hand, err.action) == (None, None)


def test_record_first_hand_not_an_object_says_so() -> None:
    err = error_of({"format": "ginrummy/1", "hands": [5]})
    assert (err.hand, err.action) == (0, None)
    assert err.message == "Each hand must be an object."
