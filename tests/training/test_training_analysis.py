"""The analysis board's answer (INTERFACES section 12) and ``ginrummy analyze --position
FILE --json``: every legal action best first, the same for the same position, seed and
samples; impossible positions refused with one sentence (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ginrummy.cli import main
from ginrummy.training.analysis import MAX_SAMPLES, analyze_position
from ginrummy.training.position import PositionError

POSITION: dict[str, Any] = {
    "hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H 3H", "pile": "TD 5S", "opponent_took": [],
    "opponent_discarded": ["5S"], "opponent_passed": ["TD"], "stock": 29,
    "to_play": "discard", "scores": [10, 35], "samples": 64, "seed": 3,
}


def test_every_legal_action_best_first_with_win_points_and_se() -> None:
    out = analyze_position(POSITION)
    acts = out["actions"]
    assert len(acts) == 11 and out["samples"] == 64 and out["phase"] == "discard"
    assert {a["action"]["card"] for a in acts} == set(POSITION["hand"].split())
    wins = [a["win"] for a in acts]
    assert wins == sorted(wins, reverse=True)
    for a in acts:
        assert 0 <= a["win"] <= 1 and a["se"] > 0 and set(a) >= {"action", "win", "points",
                                                                  "se"}


def test_the_same_position_seed_and_samples_give_the_same_answer() -> None:
    assert analyze_position(POSITION) == analyze_position(dict(POSITION))
    other = analyze_position(POSITION | {"seed": 4})
    assert other["actions"] != analyze_position(POSITION)["actions"]


@pytest.mark.parametrize("change, words", [
    ({"samples": 0}, f"'samples' must be a whole number from 1 to {MAX_SAMPLES}, not 0."),
    ({"samples": MAX_SAMPLES + 1}, f"from 1 to {MAX_SAMPLES}"),
    ({"seed": "x"}, "'seed' must be a whole number from 0, not 'x'."),
    ({"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H TD"}, "The card TD is both in your hand and "
                                                  "on the pile."),
])
def test_bad_settings_and_positions_are_one_sentence(change: dict[str, Any],
                                                     words: str) -> None:
    with pytest.raises(PositionError) as e:
        analyze_position(POSITION | change)
    assert words in str(e.value)


def test_the_command_line_gives_the_same_answer(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "position.json"
    f.write_text(json.dumps(POSITION))
    assert main(["analyze", "--position", str(f), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out) == analyze_position(POSITION)
    assert main(["analyze", "--position", str(f)]) == 0
    text = capsys.readouterr().out
    assert "11 legal actions (discard), best first" in text and "64 sampled deals" in text


@pytest.mark.parametrize("content, words", [
    ("{", "is not a JSON position."),
    (json.dumps(POSITION | {"stock": 28}), "accounts for 51 cards"),
])
def test_the_command_line_refuses_a_bad_position_with_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, words: str) -> None:
    f = tmp_path / "position.json"
    f.write_text(content)
    assert main(["analyze", "--position", str(f), "--json"]) == 1
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and words in err and err.startswith("ginrummy analyze: ")
    assert words in json.loads(out)["error"]["message"]
    assert main(["analyze", "--position", str(tmp_path / "missing.json")]) == 1
    assert "Cannot read" in capsys.readouterr().err


def test_cards_and_position_together_or_neither_are_a_wrong_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["analyze"], ["analyze", "7C", "--position", str(tmp_path / "x.json")]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        assert "analyze takes CARDS or --position FILE" in capsys.readouterr().err
