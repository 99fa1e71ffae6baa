"""``ginrummy review FILE --practise``: the review's marked decisions offered as puzzles in
the terminal, answers read from standard input (docs/review.md)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from ginrummy.cli import main
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action
from ginrummy.training.practise import parse_answer

RECORD = str(Path(__file__).parent.parent.parent / "docs" / "example-record.json")
ARGS = ["review", RECORD, "--marks-only", "--practise", "--practise-samples", "256",
        "--samples", "16", "--hands", "0,3"]


def test_marked_decisions_are_offered_one_by_one_and_answers_checked(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("99\nzz\n1\nskip\n"))
    assert main(ARGS) == 0
    out = capsys.readouterr().out
    assert "Practise: " in out and "Puzzle 1 of " in out
    assert re.search(r"Choose a number from 1 to \d+\.", out)  # 99 is not a move's number
    assert "Unknown card 'zz'" in out
    assert ("Right!" in out) or ("Not quite: the best is to " in out)
    assert "Every move, win chance for the match" in out
    assert "Your hand:" in out and "Opponent took" in out


def test_the_end_of_input_stops_quietly(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(ARGS) == 0
    assert "Your move: " in capsys.readouterr().out


def test_practise_is_not_for_json(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["review", RECORD, "--json", "--practise"])
    assert e.value.code == 2
    assert "--practise is interactive" in capsys.readouterr().err


def test_answers_read_as_numbers_words_or_a_card() -> None:
    legal = [Action.discard("KH"), Action.discard("9C"), Action.discard("9C", True)]
    assert parse_answer("1", legal) is legal[0]
    assert parse_answer("kh", legal) is legal[0]
    assert parse_answer("knock 9c", legal) is legal[2]
    assert parse_answer("discard 9C", legal) is legal[1]
    assert parse_answer("take", [DRAW_STOCK, DRAW_DISCARD]) is DRAW_DISCARD
    assert parse_answer("pass", [PASS, DRAW_DISCARD]) is PASS
    assert parse_answer("knock KH", legal) == ("That move is not legal here: choose one of "
                                               "the moves listed.")
