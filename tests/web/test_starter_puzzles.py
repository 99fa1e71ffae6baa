"""The starter puzzles a new site is given (docs/training.md, "Puzzles"): each clears the
margin rule on 4,096 deals and holds only its seat's view (R11); every lesson ends on a
theme that has some; a site with no public puzzles gets them once and a site with its own
gets none; ``ginrummy serve`` gives them, unless told ``--no-starter-puzzles``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from ginrummy.actions import Action
from ginrummy.training.puzzles import PUZZLE_SAMPLES, Answer
from ginrummy.training.themes import THEMES
from ginrummy.view import View
from ginrummy.web.store import Store
from ginrummy.web.training.puzzles import (
    STARTER_FILE,
    add_starter_puzzles,
    puzzle_id,
    starter_puzzles,
)

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "src" / "ginrummy" / "web" / "static" / "learn"


def _script() -> Any:
    """scripts/starter_puzzles.py, which writes the file."""
    spec = importlib.util.spec_from_file_location(
        "starter_puzzles", ROOT / "scripts" / "starter_puzzles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_starter_puzzle_clears_the_margin_rule_and_holds_only_its_view() -> None:
    rows = starter_puzzles()
    assert len(rows) >= 40
    assert len({r.id for r in rows}) == len(rows)
    for r in rows:
        body = r.body
        assert r.id == puzzle_id(r.key) and r.owner is None and r.match_id is None
        assert set(r.themes) <= set(THEMES) and r.themes
        answer = Answer.from_json(body)
        assert answer.samples >= PUZZLE_SAMPLES and answer.clear(), r.key  # the rule
        view = View.from_json(body["view"], body["legal"])
        assert [Action.from_json(a) for a in body["legal"]] == list(view.legal)
        assert len(view.hand) in (10, 11) and view.seat == r.seat
        for h in body["view"]["history"]:  # R11: the opponent's stock draws unnamed
            if h["seat"] != r.seat and h["act"] == "draw" and h["from"] == "stock":
                assert "card" not in h, r.key
        assert not {"hands", "stock", "deck"} & set(body["view"]), r.key


@pytest.mark.parametrize("lesson", ["knock", "safe-discards", "pile-takes"])
def test_every_lesson_ends_on_a_theme_with_starter_puzzles(lesson: str) -> None:
    finish = json.loads((LESSONS / f"{lesson}.json").read_text("utf-8"))["finish"]
    theme = finish["href"].split("theme=", 1)[1]
    assert sum(theme in r.themes for r in starter_puzzles()) >= 5, theme


def test_the_file_is_what_the_script_writes_of_its_puzzles() -> None:
    """The script's own form (one puzzle a line, keys sorted) and its choice: at most
    14 a theme, so choosing again keeps every one (remaking them from self-play takes
    minutes: `python scripts/starter_puzzles.py --check`)."""
    script = _script()
    text = (ROOT / "src" / "ginrummy" / STARTER_FILE).read_text("utf-8")
    puzzles = json.loads(text)
    assert script.text_of(puzzles) == text
    assert script.choose(puzzles, 14) == puzzles
    assert [p["key"] for p in puzzles] == [r.key for r in starter_puzzles()]


def test_a_site_gets_the_starter_set_once_and_only_with_no_puzzles(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    try:
        n = len(starter_puzzles())
        assert add_starter_puzzles(store.puzzles) == n and store.puzzles.count() == n
        assert add_starter_puzzles(store.puzzles) == 0 and store.puzzles.count() == n
        store.puzzles.remove([r.id for r in starter_puzzles()[1:]])  # thinned: kept so
        assert add_starter_puzzles(store.puzzles) == 0 and store.puzzles.count() == 1
    finally:
        store.close()


def _next_puzzle(tmp_path: Path, *flags: str) -> httpx.Response:
    """``GET /api/puzzles/next`` from a new ``ginrummy serve`` on a new database."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ginrummy.cli", "serve", "--port", "0", "--db",
         str(tmp_path / f"s{len(flags)}.sqlite3"), *flags],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Gin Rummy table: http://"), (line, proc.stderr)
        base = line.split()[3]
        return httpx.get(base + "api/puzzles/next", timeout=30)
    finally:
        proc.terminate()
        proc.wait(30)


def test_serve_gives_a_new_site_the_starter_puzzles(tmp_path: Path) -> None:
    r = _next_puzzle(tmp_path)
    assert r.status_code == 200, r.text
    assert r.json()["id"] in {p.id for p in starter_puzzles()}
    r = _next_puzzle(tmp_path, "--no-starter-puzzles")
    assert r.status_code == 404 and r.json()["error"] == "There is no puzzle yet.", r.text
