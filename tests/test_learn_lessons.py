"""The lessons after the guided first hand (issue 38; static/learn/NAME.json) are built
from the core by scripts/learn_lessons.py on fixed deals: the shipped files are what the
script makes, every move a step waits for is legal where it is asked, the states show
only the learner's view (R11), the cards a step lights are on the table, the scores it
quotes are the engine's, and each lesson ends with the puzzles of real themes."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ginrummy.training.themes import THEMES

ROOT = Path(__file__).resolve().parents[1]
LEARN = ROOT / "src" / "ginrummy" / "web" / "static" / "learn"
NAMES = ["knock", "safe-discards", "pile-takes"]


def _builder() -> Any:
    spec = importlib.util.spec_from_file_location("learn_lessons",
                                                  ROOT / "scripts" / "learn_lessons.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lesson(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LEARN / f"{name}.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("name", NAMES)
def test_the_lesson_file_is_built_from_the_core(name: str) -> None:
    assert (LEARN / f"{name}.json").read_text("utf-8") == _builder().text(name), \
        "run: python scripts/learn_lessons.py"


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same move (a draw's card, known once drawn, aside)."""
    if a["act"] != b["act"] or a.get("from") != b.get("from"):
        return False
    return a["act"] != "discard" or (a["card"], bool(a.get("knock"))) == (
        b["card"], bool(b.get("knock")))


@pytest.mark.parametrize("name", NAMES)
def test_every_step_is_legal_lit_and_the_learners_own_view(name: str) -> None:
    lesson = _lesson(name)
    assert lesson["format"] == "ginrummy-lesson/1" and lesson["name"] == name
    assert lesson["finish"]["themes"] and set(lesson["finish"]["themes"]) <= set(THEMES)
    assert lesson["finish"]["href"] == f"/puzzles?theme={lesson['finish']['themes'][0]}"
    states = lesson["states"]
    for st in states:
        assert st["seat"] == 0 and st["view"]["seat"] == 0
        if st["hand_over"] is None:
            assert "revealed" not in st["view"] and len(st["view"]["hand"]) in (10, 11)
    steps = lesson["steps"]
    assert 5 <= len(steps) <= 12
    for i, s in enumerate(steps):
        assert s["title"] and s["text"].endswith((".", "!")), i
        st = states[s["state"]]
        shown = set(st["view"]["hand"]) | set(st["view"]["discards"]) | set(
            st["opponent_known"])
        if st["hand_over"]:
            shown |= {c for h in st["hand_over"]["hands"] for c in h}
        assert set(s["highlight"]) <= shown, (i, s["highlight"])
        w = s["await"]
        if w is not None:
            # asked where it is legal, and the next step's position follows from it
            assert st["my_turn"] and any(_same(a, w) for a in st["legal"]), (i, w)
            after = states[(steps[i + 1]["via"] or [steps[i + 1]["state"]])[0]]
            mine = [h for h in after["view"]["history"] if h["seat"] == 0]
            assert _same(mine[-1], w), (i, mine[-1], w)
    assert steps[-1]["await"] is None and states[steps[-1]["state"]]["hand_over"]


def test_the_scores_quoted_are_the_engines() -> None:
    for name in NAMES:
        lesson = _lesson(name)
        for s in lesson["steps"]:
            st = lesson["states"][s["state"]]
            m = re.search(r"scores (\d+)", s["text"])
            if m and st["hand_over"]:
                assert int(m.group(1)) == st["hand_over"]["result"]["points"], s["text"]
    knock = _lesson("knock")
    text = " ".join(s["text"] for s in knock["steps"])
    m = re.search(r"You score (\d+) − (\d+) = (\d+)", text)
    assert m and int(m.group(1)) - int(m.group(2)) == int(m.group(3))
    won = next(knock["states"][s["state"]] for s in knock["steps"]
               if s["title"] == "The knock scores")["hand_over"]["result"]
    assert won["scorer"] == 0 and won["points"] == int(m.group(3))
