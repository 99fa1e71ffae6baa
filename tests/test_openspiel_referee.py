"""scripts/openspiel_referee.py: our bots over the bot protocol inside OpenSpiel's gin_rummy
against its SimpleGinRummyBot. Skipped where open_spiel is not installed (an optional
dependency of the script only)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install open_spiel)")

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "openspiel_referee", ROOT / "scripts" / "openspiel_referee.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["openspiel_referee"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_one_paired_deal_over_the_protocol() -> None:
    """One deal, both seats, `ginrummy bot strong` as a separate program: the referee keeps
    our mirrored hand equal to OpenSpiel's at every decision (it raises otherwise), and
    the points are OpenSpiel's returns for a finished hand."""
    ref = _script()
    results = ref.play_deals(ref.default_command("strong", 1), 1, [0], 10.0)
    assert [i for i, _, _ in results] == [0]
    _, first, second = results[0]
    for h in (first, second):
        assert not h.left_out
        assert -150 <= h.points <= 150
        assert h.ending in {"knock", "gin", "undercut", "tie", "dead", "wall-knock"}
        if h.ending == "dead":
            assert h.points == 0 and h.knocker is None
        else:
            assert h.knocker in {"bot", "simple"}
        if h.ending == "gin":
            assert (h.points >= 25) == (h.knocker == "bot")
    summary = ref.summarise(results)
    assert summary["deals"] == 1 and summary["hands"] == 2
    assert summary["points_per_hand"] == pytest.approx((first.points + second.points) / 2,
                                                       abs=1e-3)


def test_in_process_hands_are_reproducible_and_scored_like_openspiel() -> None:
    """The same deal and seat give the same hand again, and OpenSpiel's score of our bot's
    knocks is never below ours: SimpleGinRummyBot never lays off, and a tie scores 0 there
    instead of an undercut (R8, R9)."""
    from ginrummy.bots import make_bot

    ref = _script()
    referee = ref.Referee(make_bot("strong", 3))
    outcomes = [referee.play(ref.deal_order(5, i), seat) for i in range(6) for seat in (0, 1)]
    again = ref.Referee(make_bot("strong", 3))
    assert outcomes == [again.play(ref.deal_order(5, i), seat)
                        for i in range(6) for seat in (0, 1)]
    assert any(o.ours == o.points for o in outcomes)
    for o in outcomes:
        if o.knocker == "bot" and o.ending != "wall-knock":
            assert o.ours is not None and o.points >= o.ours
