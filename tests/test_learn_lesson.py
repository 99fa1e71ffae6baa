"""The web table's Learn to play lesson (static/learn/lesson.json) is built from the core
by scripts/learn_lesson.py and teaches a legal hand: its two endings, replayed as game
records by the rules engine, score what the lesson says (R6-R9)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import ginrummy
from ginrummy.hand import Deal
from ginrummy.record import replay

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "src" / "ginrummy" / "web" / "static" / "learn" / "lesson.json"


def _builder() -> Any:
    spec = importlib.util.spec_from_file_location("learn_lesson",
                                                  ROOT / "scripts" / "learn_lesson.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lesson() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(LESSON.read_text("utf-8"))
    return data


def test_the_lesson_file_is_built_from_the_core() -> None:
    assert LESSON.read_text("utf-8") == _builder().text(), "run: python scripts/learn_lesson.py"


# The hand the lesson plays: seat 0 is the learner, the computer (seat 1) deals.
OPENING = [
    {"seat": 0, "act": "pass"}, {"seat": 1, "act": "pass"},
    {"seat": 0, "act": "draw", "from": "stock"}, {"seat": 0, "act": "discard", "card": "KC"},
    {"seat": 1, "act": "draw", "from": "stock"}, {"seat": 1, "act": "discard", "card": "9S"},
    {"seat": 0, "act": "draw", "from": "discard"},
]
KNOCK = [{"seat": 0, "act": "discard", "card": "8D", "knock": True}]
GIN = [
    {"seat": 0, "act": "discard", "card": "8D"},
    {"seat": 1, "act": "draw", "from": "stock"}, {"seat": 1, "act": "discard", "card": "TC"},
    {"seat": 0, "act": "draw", "from": "stock"},
    {"seat": 0, "act": "discard", "card": "7C", "knock": True},
]


def _ending(lesson: dict[str, Any], actions: list[dict[str, Any]]) -> dict[str, Any]:
    deal = Deal.parse(lesson["deal"])
    record = {"format": "ginrummy/1", "options": {}, "hands": [
        {"dealer": lesson["dealer"], "deal": deal.to_json(), "actions": actions}]}
    out, error = replay(record)
    assert error is None, error
    hand: dict[str, Any] = out["hands"][0]
    return hand


def test_the_lesson_teaches_a_legal_hand_scored_as_it_says() -> None:
    lesson = _lesson()
    steps = lesson["steps"]
    text = " ".join(s["text"] for s in steps)
    # The moves the learner is asked for are the learner's moves of the hand above.
    asked = [s["await"] for s in steps if s["await"]]
    mine = [{k: v for k, v in a.items() if k != "seat"} for a in OPENING + KNOCK + GIN
            if a["seat"] == 0]
    assert [{"knock": False, **a} if a["act"] == "discard" else a for a in asked] == \
        [{"knock": False, **a} if a["act"] == "discard" else a for a in mine]
    # The first figures: the learner's deadwood as dealt (R2).
    dealt = Deal.parse(lesson["deal"]).hands[0]
    assert f"add up to {ginrummy.deadwood(list(dealt))}" in text
    # The knock is undercut after two lay-offs (R8, R9) ...
    undercut = _ending(lesson, OPENING + KNOCK)
    assert undercut["result"] == "undercut" and undercut["scorer"] == 1
    assert sorted(undercut["layoffs"]) == ["4H", "8H"]
    k, d = undercut["deadwood"]
    assert f"scores {k} − {d} + 25 = {undercut['points']}" in text
    # ... and the same hand played on is gin, no lay-offs (R6, R9).
    gin = _ending(lesson, OPENING + GIN)
    assert gin["result"] == "gin" and gin["scorer"] == 0 and gin["layoffs"] == []
    assert f"{gin['deadwood'][1]} deadwood plus 25: {gin['points']}" in text
    # Every state the page shows is the learner's own view (R11: no hidden card).
    for st in lesson["states"]:
        assert st["seat"] == 0 and st["view"]["seat"] == 0
        if st["hand_over"] is None:
            assert "revealed" not in st["view"]
            assert len(st["view"]["hand"]) in (10, 11)


def test_every_step_says_something_and_highlights_what_is_there() -> None:
    lesson = _lesson()
    for i, s in enumerate(lesson["steps"]):
        assert s["title"] and s["text"].endswith((".", "!")), i
        st = lesson["states"][s["state"]]
        shown = set(st["view"]["hand"]) | set(st["view"]["discards"])
        if st["hand_over"]:
            shown |= {c for h in st["hand_over"]["hands"] for c in h}
        assert set(s["highlight"]) <= shown, (i, s["highlight"])
        assert set(s["spots"]) <= {"hand", "stock", "pile", "badge", "pass"}, i
