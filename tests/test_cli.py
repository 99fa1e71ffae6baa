"""The ``ginrummy`` command's own sub-commands: ``analyze`` (R1, R2) and ``replay``
(docs/records.md, R4-R10), in JSON and human-readable form."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ginrummy import deadwood
from ginrummy.cli import main
from helpers import SAMPLE_SUMMARY

DATA = Path(__file__).parent / "data"
SRC = Path(__file__).parent.parent / "src"
SEED_001 = "7C 8C 9C 9D 9H 9S KD QH 4S 2H"



def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object, str]:
    """Run the CLI; return its exit status, stdout parsed as one JSON value, and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert out.count("\n") == 1, out  # exactly one JSON line
    return code, json.loads(out), err


# ----------------------------------------------------------------------------- analyze


def test_analyze_json_seed_001_has_deadwood_26(capsys: pytest.CaptureFixture[str]) -> None:
    code, obj, err = run_json(capsys, "analyze", SEED_001, "--json")
    assert code == 0 and err == ""
    assert isinstance(obj, dict)
    assert set(obj) == {"cards", "deadwood", "melds", "deadwood_cards"}
    assert obj["cards"] == SEED_001.split()
    assert obj["deadwood"] == 26
    assert sorted(sorted(m) for m in obj["melds"]) == [["7C", "8C", "9C"], ["9D", "9H", "9S"]]
    assert sorted(obj["deadwood_cards"]) == ["2H", "4S", "KD", "QH"]


def test_analyze_json_eleven_cards_gives_discards_map(
        capsys: pytest.CaptureFixture[str]) -> None:
    cards = SEED_001 + " 3H"
    code, obj, _ = run_json(capsys, "analyze", cards, "--json")
    assert code == 0 and isinstance(obj, dict)
    assert set(obj) == {"cards", "deadwood", "melds", "deadwood_cards", "discards"}
    assert obj["deadwood"] == 29
    discards = obj["discards"]
    assert sorted(discards) == sorted(cards.split())
    for card, dw in discards.items():
        rest = [c for c in cards.split() if c != card]
        assert dw == deadwood(" ".join(rest)), card
    assert discards["KD"] == discards["QH"] == 19 and discards["9C"] == 44


def test_analyze_accepts_ten_as_10_and_lower_case(capsys: pytest.CaptureFixture[str]) -> None:
    code, obj, _ = run_json(capsys, "analyze", "10d jd qd 5c", "--json")
    assert code == 0 and isinstance(obj, dict)
    assert obj["cards"] == ["TD", "JD", "QD", "5C"] and obj["deadwood"] == 5
    assert obj["melds"] == [["TD", "JD", "QD"]]


def test_analyze_no_cards_is_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, obj, _ = run_json(capsys, "analyze", "", "--json")
    assert code == 0
    assert obj == {"cards": [], "deadwood": 0, "melds": [], "deadwood_cards": []}


@pytest.mark.parametrize(
    "cards, fragment",
    [("7C 7C", "Duplicate card: 7C."), ("7C ZZ", "Unknown card 'ZZ'"), ("1C", "Unknown card"),
     ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "Expected 0 to 11 cards, got 12.")],
)
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_analyze_bad_input_exit_2_message_on_stderr(
        capsys: pytest.CaptureFixture[str], cards: str, fragment: str, json_flag: list[str]
) -> None:
    """The message on stderr either way; with --json also one JSON object on stdout."""
    code = main(["analyze", cards, *json_flag])
    out, err = capsys.readouterr()
    assert code == 2
    assert fragment in err and err.startswith("ginrummy analyze: ")
    assert "Traceback" not in err
    if json_flag:
        assert out.count("\n") == 1
        assert json.loads(out) == {"error": {"message": err.removeprefix(
            "ginrummy analyze: ").rstrip("\n")}}
    else:
        assert out == ""


@pytest.mark.parametrize("cards", [
    "7\u2663 8\u2663 9\u2663 9\u2666 9\u2665 9\u2660 K\u2666 Q\u2665 4\u2660 2\u2665",
    "7\u2667 8\u2667 9\u2667 9\u2662 9\u2661 9\u2664 K\u2662 Q\u2661 4\u2664 2\u2661",
    "7\u2663\ufe0f 8\u2663\ufe0f 9C, 9D 9H 9S KD QH 4S 2\u2665\ufe0f",
])
def test_analyze_reads_the_cards_as_it_prints_them(
        capsys: pytest.CaptureFixture[str], cards: str) -> None:
    """R1 notation or the suit symbols analyze itself prints (black or white, with or
    without an emoji variation selector), mixed freely."""
    code, obj, _ = run_json(capsys, "analyze", cards, "--json")
    assert code == 0 and isinstance(obj, dict)
    assert obj["cards"] == SEED_001.split() and obj["deadwood"] == 26
    assert main(["analyze", SEED_001]) == 0
    printed = capsys.readouterr().out.splitlines()[0].removeprefix("Hand:").split("(")[0]
    assert main(["analyze", printed]) == 0  # what it prints can be pasted back
    assert capsys.readouterr().out.splitlines()[0].startswith("Hand:     7\u2663 8\u2663")


def test_analyze_a_mistyped_symbol_card_is_named_as_typed(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "7\u2663 1\u2663"]) == 2
    err = capsys.readouterr().err
    assert "Unknown card '1\u2663'" in err and "\u2663 \u2666 \u2665 \u2660" in err


def test_analyze_lists_deadwood_cards_in_rank_order(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, obj, _ = run_json(capsys, "analyze", SEED_001 + " 3D", "--json")
    assert code == 0 and isinstance(obj, dict)
    assert obj["deadwood_cards"] == ["2H", "3D", "4S", "QH", "KD"]
    assert main(["analyze", SEED_001 + " 3D"]) == 0
    dead = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Deadwood:")]
    assert dead[0].split()[1:6] == ["2\u2665", "3\u2666", "4\u2660", "Q\u2665", "K\u2666"]


def test_analyze_human_output_with_suit_symbols(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", SEED_001]) == 0
    out = capsys.readouterr().out
    for piece in ("7\u2663 8\u2663 9\u2663", "9\u2666 9\u2665 9\u2660", "set", "run",
                  "26 points", "(10 cards)"):
        assert piece in out, piece
    assert "7C" not in out


def test_analyze_human_output_lists_discards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", SEED_001 + " 3H"]) == 0
    out = capsys.readouterr().out
    assert "Discards" in out and "<- best" in out and "(11 cards)" in out
    best = [line for line in out.splitlines() if "<- best" in line]
    assert len(best) == 2 and all("19" in line for line in best)


# ----------------------------------------------------------------------------- replay


def test_replay_json_of_a_whole_match(capsys: pytest.CaptureFixture[str]) -> None:
    code, obj, err = run_json(capsys, "replay", str(DATA / "short_match.json"), "--json")
    assert code == 0 and err == ""
    assert obj == SAMPLE_SUMMARY


def test_replay_json_from_stdin(capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    data = (DATA / "short_match.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, obj, _ = run_json(capsys, "replay", "-", "--json")
    assert code == 0 and obj == SAMPLE_SUMMARY


def test_replay_json_illegal_action_exit_1_with_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, obj, _ = run_json(capsys, "replay", str(DATA / "straight_back.json"), "--json")
    assert code == 1 and isinstance(obj, dict)
    assert obj["error"] == {"hand": 2, "action": 1,
                            "message": "You cannot put that straight back."}
    assert [h["result"] for h in obj["hands"]] == ["knock", "dead", None]
    assert obj["scores"] == [0, 32] and obj["finished"] is False and obj["winner"] is None


@pytest.mark.parametrize("text, fragment", [("{not json", "not valid JSON"),
                                            ('{"format": "x", "hands": []}', "Not a ginrummy/1")])
def test_replay_json_malformed_record_exit_1(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                             text: str, fragment: str) -> None:
    f = tmp_path / "bad.json"
    f.write_text(text)
    code, obj, _ = run_json(capsys, "replay", str(f), "--json")
    assert code == 1 and isinstance(obj, dict)
    assert obj["hands"] == [] and obj["scores"] == [0, 0]
    assert obj["error"]["hand"] is None and obj["error"]["action"] is None
    assert fragment in obj["error"]["message"]


def test_replay_missing_file_exit_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.json")
    code, obj, _ = run_json(capsys, "replay", missing, "--json")
    assert code == 1 and isinstance(obj, dict) and "Cannot read" in obj["error"]["message"]
    assert main(["replay", missing]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Cannot read" in err and "Traceback" not in err


def test_replay_human_history(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(DATA / "short_match.json")]) == 0
    out = capsys.readouterr().out
    for piece in (
        "ann vs bob", "Target 100",
        "Hand 1: ann (seat 0) deals. Up-card Q\u2666, knock limit 10.",
        "bob (seat 1) passes on the up-card",
        "bob (seat 1) draws K\u2663 from the stock",
        "bob (seat 1) discards K\u2663 and knocks",
        "[5\u2663 6\u2663 7\u2663]",  # a meld
        "lays off 8\u2663 on [5\u2663 6\u2663 7\u2663]",
        "Knock: bob (seat 1) scores 32 (41 - 9).",
        "Score: 0 - 32",
        "dead hand",
        "Undercut: ann (seat 0) scores 29 (25 + 9 - 5).",
        "Gin: bob (seat 1) scores 82 (25 + 57).",
        "Score: 29 - 114",
        "bob (seat 1) wins 29 - 114 after 4 hands.",
    ):
        assert piece in out, piece


def test_replay_human_invalid_record_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(DATA / "straight_back.json")]) == 1
    err = capsys.readouterr().err
    assert "(hand 3, action 2): You cannot put that straight back." in err
    assert "Traceback" not in err


def test_replay_human_invalid_record_shows_hands_before_the_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    main(["replay", str(DATA / "straight_back.json")])
    out = capsys.readouterr().out
    assert "Knock: bob (seat 1) scores 32 (41 - 9)." in out


def test_cli_runs_as_a_module_in_a_subprocess() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "ginrummy.cli", "replay", "-", "--json"],
        input=(DATA / "straight_back.json").read_bytes(), capture_output=True, env=env,
        timeout=60,
    )
    assert proc.returncode == 1
    obj = json.loads(proc.stdout)
    assert obj["error"]["message"] == "You cannot put that straight back."
    proc = subprocess.run(
        [sys.executable, "-m", "ginrummy.cli", "analyze", SEED_001, "--json"],
        capture_output=True, env=env, timeout=60,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["deadwood"] == 26
    bad = subprocess.run(
        [sys.executable, "-m", "ginrummy.cli", "analyze", "XX", "--json"],
        capture_output=True, env=env, timeout=60, text=True,
    )
    assert bad.returncode == 2 and "Unknown card" in bad.stderr
    assert "Unknown card 'XX'" in json.loads(bad.stdout)["error"]["message"]


def test_replay_into_a_closed_pipe_prints_no_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`ginrummy replay game.json | head -1`: the reader leaves early, no traceback."""
    import random

    from ginrummy import Match

    match, rng = Match(seed=4), random.Random(4)
    while not match.is_over():  # random play: a long match of mostly dead hands
        match.play(rng.choice(match.legal_actions()))
    path = tmp_path / "long.json"
    path.write_text(json.dumps(match.to_record()))
    assert main(["replay", str(path)]) == 0
    assert len(capsys.readouterr().out.encode()) > 150_000  # far more than a pipe buffers
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ginrummy.cli", "replay", str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"Target 100")
    proc.stdout.close()  # the reader goes away before the history is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err
