"""`ginrummy verify RECORD` (docs/fairness.md): exit 0 verified, 1 the proof fails, 2 the
record cannot be checked; and `ginrummy play --record` producing a record it verifies."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from ginrummy.cli import main
from ginrummy.fairness import commitment
from ginrummy.tui import main as play_main
from test_fairness import fair_record


def write(tmp_path: Path, rec: Any, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(rec) if not isinstance(rec, str) else rec)
    return str(path)


def test_a_fair_record_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = fair_record()
    path = write(tmp_path, rec)
    assert main(["verify", path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"Commitment {rec['commitment']}: matches SHA-256 of seed {rec['seed']} "
                      f"and salt {rec['salt']}.")
    assert out[1] == "Hand 1: the deal is the one the seed gives."
    n = len(rec["hands"])
    assert out[-1] == (f"Verified: the seed was fixed before the first deal, and all {n} deals "
                       "came from it (ginrummy-deal/1).")
    assert main(["verify", path, "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["verified"] is True and j["commitment"] is True and j["hands"] == [True] * n


def test_a_changed_deal_or_seed_fails_with_exit_1(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rec = fair_record()
    rec["hands"][1]["deal"]["upcard"], rec["hands"][1]["deal"]["stock"][0] = \
        rec["hands"][1]["deal"]["stock"][0], rec["hands"][1]["deal"]["upcard"]
    assert main(["verify", write(tmp_path, rec)]) == 1
    out = capsys.readouterr().out
    assert "Hand 2: NOT the deal the seed gives." in out
    assert out.endswith("NOT VERIFIED: see above.\n")
    assert "the up-card (" in out
    rec = fair_record()
    rec["commitment"] = commitment(rec["seed"] + 1, rec["salt"])
    assert main(["verify", write(tmp_path, rec), "--json"]) == 1
    j = json.loads(capsys.readouterr().out)
    assert j["verified"] is False and j["commitment"] is False and all(j["hands"])


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    ("{not json", "The record is not valid JSON"),
    ({"format": "ginrummy/1", "seed": 3, "hands": []}, "carries no fairness proof"),
])
def test_records_that_cannot_be_checked_exit_2(content: Any, message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "missing.json") if content is None else write(tmp_path, content)
    assert main(["verify", path]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and message in cap.err and cap.err.startswith("ginrummy verify: ")
    assert len(cap.err.strip().splitlines()) == 1


def test_play_commits_at_the_start_reveals_at_the_end_and_the_record_verifies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("pass\nstock\nquit\n"))
    assert play_main(["--vs", "random", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    rec = json.loads(path.read_text())
    start = flat.index(f"committed as SHA-256 {rec['commitment']}")
    reveal = flat.index(f"Fair deals: seed {rec['seed']}, salt {rec['salt']}.")
    assert start < flat.index("Hand 1") < reveal  # the commitment precedes the first deal
    assert f"check it with ginrummy verify {path}" in flat
    # (piped input does not echo a newline after a prompt, so split there)
    assert max(len(line) for line in out.replace("? > ", "? >\n").splitlines()) <= 80
    assert main(["verify", str(path)]) == 0
