"""`ginrummy match` (docs/bots.md, docs/cluster.md): the JSON object, duplicate pairs,
determinism for any --jobs, forfeits of misbehaving bots, and records."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

import pytest

from ginrummy.arena import (
    MatchStats,
    derive_seed,
    main,
    pair_ci95,
    play_match,
    run_matches,
    summarize,
    wilson_ci95,
)
from ginrummy.bots import make_bot
from ginrummy.hand import View
from ginrummy.match import Match

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "misbehaving_bot.py"
EXAMPLE = ROOT / "docs" / "example_bot.py"
REQUIRED = {"players", "matches", "wins", "ties", "win_rate", "ci95", "hands",
            "points_per_hand", "seconds"}


@pytest.fixture(autouse=True)
def _pythonpath(monkeypatch: pytest.MonkeyPatch) -> None:
    src = str(ROOT / "src")
    old = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", src + (os.pathsep + old if old else ""))


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:  # type: ignore[type-arg]
    assert main(argv + ["--json"]) == 0
    cap = capsys.readouterr()
    return json.loads(cap.out), cap.err


def test_match_json_has_exactly_the_section_6_fields(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = run_json(["random", "random", "--matches", "2", "--seed", "5"], capsys)
    assert err == ""  # no progress bar with --json
    assert set(out) >= REQUIRED
    assert out["players"] == ["random", "random"]
    assert out["matches"] == 2
    assert sum(out["wins"]) + out["ties"] == 2
    assert out["win_rate"] == pytest.approx((out["wins"][0] + out["ties"] / 2) / 2)
    lo, hi = out["ci95"]
    assert 0 <= lo <= out["win_rate"] <= hi <= 1
    assert isinstance(out["hands"], int) and out["hands"] > 0
    assert len(out["points_per_hand"]) == 2 and all(p >= 0 for p in out["points_per_hand"])
    assert isinstance(out["seconds"], float)
    assert out["seed"] == 5 and out["options"] == {"target": 100, "gin_only": False,
                                                   "oklahoma": False}


def test_points_per_hand_and_extras_agree_with_the_records(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--records writes replayable ginrummy/1 records whose totals match the summary (R9)."""
    out, _ = run_json([f"exec:{sys.executable} {EXAMPLE}", "random", "--matches", "4",
                       "--seed", "9", "--records", str(tmp_path)], capsys)
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == [f"match-{i:05d}.json" for i in range(1, 5)]
    points = [0, 0]
    hands = 0
    wins = [0, 0]
    for i, f in enumerate(files):
        rec = json.loads(f.read_text())
        m = Match.from_record(rec)
        a_seat = i % 2  # A sits in seat 0, then 1, in each pair
        assert rec["players"][a_seat] == out["names"][0] == "example"  # its hello name
        outcome = m.outcome()
        assert outcome is not None
        if outcome.winner is not None:
            wins[0 if outcome.winner == a_seat else 1] += 1
        hands += len(m.hands)
        points[0] += m.scores[a_seat]
        points[1] += m.scores[1 - a_seat]
    assert out["wins"] == wins and out["hands"] == hands
    assert out["points_per_hand"] == [round(p / hands, 4) for p in points]
    assert out["forfeits"] == [0, 0]


def test_pairs_share_deals_with_seats_swapped_and_dealer_alternating(tmp_path: Path) -> None:
    run_matches("random", "random", 4, seed=3, records=str(tmp_path))
    recs = [json.loads((tmp_path / f"match-{i:05d}.json").read_text()) for i in range(1, 5)]
    for k in (0, 1):
        a, b = recs[2 * k], recs[2 * k + 1]
        assert a["hands"][0]["deal"] == b["hands"][0]["deal"]
        assert a["hands"][0]["dealer"] == b["hands"][0]["dealer"] == k % 2
        n = min(len(a["hands"]), len(b["hands"]))
        assert [h["deal"] for h in a["hands"][:n]] == [h["deal"] for h in b["hands"][:n]]
    assert recs[0]["hands"][0]["deal"] != recs[2]["hands"][0]["deal"]


def _comparable(out: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in out.items() if k not in ("seconds", "decision_ms")}


def test_results_are_identical_for_jobs_1_and_2(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["random", "random", "--matches", "4", "--seed", "12"]
    one, _ = run_json(argv + ["--jobs", "1"], capsys)
    two, _ = run_json(argv + ["--jobs", "2"], capsys)
    assert _comparable(one) == _comparable(two)
    other, _ = run_json(["random", "random", "--matches", "2", "--seed", "13"], capsys)
    assert other["hands"] != one["hands"] or other["wins"] != one["wins"]


@pytest.mark.parametrize("argv, message", [
    (["random", "random", "--matches", "3"], "--matches must be a positive even number"),
    (["random", "random", "--matches", "0"], "--matches must be a positive even number"),
    (["random", "nosuch"], "Unknown bot 'nosuch'"),
    (["exec:", "random"], "names no command"),
    (["random", "random", "--target", "120"], "The target must be 100, 150, 200 or 250"),
    (["random", "random", "--jobs", "0"], "--jobs must be at least 1"),
])
def test_bad_usage_exits_2_with_a_clear_message(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert message in cap.err and "Traceback" not in cap.err and cap.out == ""


@pytest.mark.parametrize("mode", ["crash", "hang", "malformed", "illegal", "notlegal",
                                  "wrongtype"])
def test_a_misbehaving_bot_forfeits_and_the_runner_carries_on(
        mode: str, capsys: pytest.CaptureFixture[str]) -> None:
    bad = f"exec:{sys.executable} {FIXTURE} {mode} 3"
    out, err = run_json([bad, f"exec:{sys.executable} {EXAMPLE}", "--matches", "2",
                         "--seed", "1", "--time-limit", "0.5"], capsys)
    assert out["forfeits"] == [2, 0] and out["wins"] == [0, 2] and out["win_rate"] == 0
    lines = err.strip().splitlines()
    assert len(lines) == 2
    for i, line in enumerate(lines, 1):  # named by its hello
        assert line.startswith(
            f"ginrummy match: match {i}: misbehaving forfeits. Bot 'misbehaving' failed:")
    assert out["players"][0] == bad and out["names"] == ["misbehaving", "example"]


@pytest.mark.parametrize("command, problem", [
    ("/nonexistent/bot", "cannot start '/nonexistent/bot'"),
    (f"{sys.executable} -c pass", "ended without answering hello"),
])
def test_an_exec_bot_that_cannot_start_stops_the_run_before_the_first_match(
        command: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main([f"exec:{command}", "random", "--matches", "4", "--records", str(tmp_path)])
    cap = capsys.readouterr()
    assert rc == 2 and cap.out == ""
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and problem in lines[0] and lines[0].endswith("No match was played.")
    assert list(tmp_path.iterdir()) == []


def test_text_mode_prints_the_seed_and_the_bots_own_names(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"exec:{sys.executable} {EXAMPLE}", "random", "--matches", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("example vs random: 2 matches") and ", seed " in first
    seed = int(first.rsplit("seed ", 1)[1])
    assert main(["random", "random", "--matches", "2", "--seed", str(seed), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == seed


def test_a_project_bot_that_raises_forfeits_too() -> None:
    class Broken(type(make_bot("random"))):  # type: ignore[misc]
        def decide(self, view: View) -> object:
            raise KeyError("oops")

    stats, match = play_match(Broken(1), make_bot("random", 2), seed=4, first_dealer=0)
    assert stats.forfeit == 0 and stats.winner == 1
    assert stats.message is not None and "raised KeyError" in stats.message
    assert not match.is_over()


def test_bots_only_receive_their_own_view() -> None:
    """R11: play_match hands each bot a View of its own seat, nothing else."""
    seen: list[tuple[int, object]] = []
    base = type(make_bot("random"))

    class Spy(base):  # type: ignore[misc, valid-type]
        def new_match(self, seat: int) -> None:
            self.my_seat = seat

        def decide(self, view: View) -> object:
            seen.append((self.my_seat, view))
            return super().decide(view)

    stats, _ = play_match(Spy(1), Spy(2), seed=5, first_dealer=1, a_seat=1)
    assert stats.forfeit is None and len(seen) > 20
    for seat, view in seen:
        assert isinstance(view, View) and view.seat == seat and view.to_play == seat


def test_confidence_intervals() -> None:
    lo, hi = wilson_ci95(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson_ci95(0, 0) == (0.0, 1.0)

    def st(i: int, winner: int | None) -> MatchStats:
        return MatchStats(i, i % 2, winner, [0, 0], 1)

    same = [st(i, 0) for i in range(6)]  # degenerate: every pair alike -> Wilson
    assert pair_ci95(same) == wilson_ci95(6, 6)
    mixed = [st(0, 0), st(1, 0), st(2, 1), st(3, 1), st(4, 0), st(5, None)]
    lo, hi = pair_ci95(mixed)
    summary = summarize(("a", "b"), mixed, 1.0)
    assert summary["win_rate"] == pytest.approx(3.5 / 6)
    assert lo < summary["win_rate"] < hi and summary["ci95"] == [round(lo, 6), round(hi, 6)]


def test_derived_seeds_are_stable() -> None:
    assert derive_seed(1, 2) == derive_seed(1, 2) != derive_seed(2, 1)
    assert 0 <= derive_seed("x") < 2**63


def test_plot_writes_the_running_win_rate_figure(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs the plot extra (matplotlib)")
    out = tmp_path / "rate.png"
    assert main(["simple", "random", "--matches", "4", "--seed", "1", "--json",
                 "--plot", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["matches"] == 4
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("address, message", [
    ("nonsense", "expected local, auto, HOST:PORT or ray://HOST:PORT"),
    ("closed", "cannot reach the Ray cluster at 127.0.0.1:"),
])
def test_a_bad_cluster_address_is_one_line_at_once(
        address: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray", reason="Ray is not installed")
    import ray

    if ray.is_initialized():
        pytest.skip("a Ray connection is open in this process: the address would be ignored")
    if address == "closed":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            address = f"127.0.0.1:{s.getsockname()[1]}"  # nothing listens there any more
    assert main(["random", "random", "--ray", address]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1 and message in cap.err
