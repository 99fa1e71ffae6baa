"""`ginrummy verify RECORD` (docs/fairness.md): exit 0 verified (the commitment, every deal
and the play), 1 not verified, whatever the reason (a proof that fails, an illegal action,
a record that cannot be read or checked); and `ginrummy play --record` producing a record
it verifies."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from ginrummy.cli import main
from ginrummy.fairness import DEAL_SCHEME, commitment, deals, new_salt, seal
from ginrummy.match import Match
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
    assert out[-2] == "Play: every action follows the rules."
    n = len(rec["hands"])
    assert out[-1] == (f"Verified: the seed was fixed before the first deal, and all {n} deals "
                       "came from it (ginrummy-deal/1).")
    assert main(["verify", path, "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["verified"] is True and j["commitment"] is True and j["hands"] == [True] * n
    assert j["play"] is True and j["play_error"] is None


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


def illegal_play(rec: dict[str, Any], hand: int, action: dict[str, Any]) -> dict[str, Any]:
    """``rec`` with the first action of ``hand`` replaced: the deals are still the seed's."""
    rec["hands"][hand]["actions"][0] = action
    return rec


@pytest.mark.parametrize("action, message", [
    ({"seat": 1, "act": "discard", "card": "ZZ"}, "Unknown card 'ZZ'"),
    ({"seat": 1, "act": "draw", "from": "stock"}, ""),  # R4: no draw during the offer
])
def test_fair_deals_under_illegal_play_are_not_verified_exit_1(
        action: dict[str, Any], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A proof of fair deals over an impossible game would mislead: the play is checked as
    replay checks it, and the verdict is NOT VERIFIED."""
    rec = fair_record()
    action = dict(action, seat=rec["hands"][1]["actions"][0]["seat"])
    path = write(tmp_path, illegal_play(rec, 1, action))
    assert main(["replay", path, "--json"]) == 1  # replay refuses it ...
    replay_error = json.loads(capsys.readouterr().out)["error"]
    assert main(["verify", path]) == 1  # ... and so does verify, saying where and why
    out = capsys.readouterr().out.splitlines()
    assert all(line.endswith("the deal is the one the seed gives.")
               for line in out if line.startswith("Hand "))
    assert out[-2].startswith("Play: NOT legal (hand 2, action 1): ") and message in out[-2]
    assert replay_error["message"] in out[-2]
    assert out[-1] == "NOT VERIFIED: see above."
    assert main(["verify", path, "--json"]) == 1
    j = json.loads(capsys.readouterr().out)
    assert j["verified"] is False and j["commitment"] is True and all(j["hands"])
    assert j["play"] is False and j["play_error"] == replay_error


def test_a_card_the_player_does_not_hold_is_not_verified(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """The issue's own case: a discard of a card the seat does not hold (R5)."""
    rec = fair_record()
    hand = rec["hands"][0]
    first = next(i for i, a in enumerate(hand["actions"]) if a["act"] == "discard")
    seat = hand["actions"][first]["seat"]
    held = set(hand["deal"]["hands"][seat])
    other = next(c for c in hand["deal"]["hands"][1 - seat] if c not in held)
    hand["actions"][first] = dict(hand["actions"][first], card=other, knock=False)
    assert main(["verify", write(tmp_path, rec)]) == 1
    out = capsys.readouterr().out
    assert f"You do not hold {other}" in out and out.endswith("NOT VERIFIED: see above.\n")


def test_an_unfinished_legal_record_verifies(tmp_path: Path) -> None:
    """A record may stop anywhere (a match left early): what it holds is checked."""
    rec = fair_record()
    rec["hands"] = rec["hands"][:2]
    rec["hands"][1]["actions"] = rec["hands"][1]["actions"][:3]
    assert main(["verify", write(tmp_path, rec)]) == 0


@pytest.mark.parametrize("content, message", [
    (None, "Cannot read"),
    ("{not json", "The record is not valid JSON"),
    ({"format": "ginrummy/1", "seed": 3, "hands": []}, "carries no fairness proof"),
])
def test_records_that_cannot_be_checked_are_not_verified_exit_1(
        content: Any, message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 1 as replay and review give for such a record; one line, or JSON with --json."""
    path = str(tmp_path / "missing.json") if content is None else write(tmp_path, content)
    assert main(["verify", path]) == 1
    cap = capsys.readouterr()
    assert cap.out == "" and message in cap.err and cap.err.startswith("ginrummy verify: ")
    assert len(cap.err.strip().splitlines()) == 1
    assert main(["verify", path, "--json"]) == 1
    cap = capsys.readouterr()
    j = json.loads(cap.out)
    assert j["verified"] is False and message in j["problem"] and j["play"] is None
    assert cap.err == ""


def test_play_commits_at_the_start_reveals_at_the_end_and_the_record_verifies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # a short path: a longer one than a line cannot wrap
    path = Path("game.json")
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


def test_one_deal_and_one_hand_are_counted_in_the_singular(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36: "all 1 deal came from it", "after 1 hands". A match resigned in its first
    hand verifies with "the one deal", and its replay ends "after 1 hand"."""
    m = Match(seed=5, deals=deals(5, DEAL_SCHEME))
    for _ in range(3):
        m.play(m.legal_actions()[0])
    m.resign(0)
    path = write(tmp_path, seal(m.to_record(), new_salt(), DEAL_SCHEME))
    assert main(["verify", path]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == ("Verified: the seed was fixed before the first deal, and "
                                    "the one deal came from it (ginrummy-deal/1).")
    assert main(["replay", path]) == 0
    out = capsys.readouterr().out
    assert "after 1 hand)." in out and "1 hands" not in out
