"""`ginrummy match --ray` (docs/cluster.md) on a real local Ray cluster: the same results as
``--jobs``, the progress bar, records; and the one-line answer when Ray is missing.

Ray's start-up (several seconds) is paid once, by the module fixture, through the same
function ``--ray local`` uses; every test then reuses that connection."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ginrummy import arena
from ginrummy.arena import main, run_matches

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'ginrummy[cluster]')")
    # workers are new processes: they must find the package under test
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + old if old else "")
    ray, started = arena.connect_ray("local", 2)
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(argv + ["--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_ray_gives_the_same_json_as_jobs_except_timings(
        ray_cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["random", "simple", "--matches", "6", "--seed", "21"]
    local = _json(argv + ["--jobs", "2"], capsys)
    on_ray = _json(argv + ["--ray", "local"], capsys)
    assert on_ray.keys() == local.keys()
    timing = ("seconds", "decision_ms")  # measured, so they differ from run to run
    assert {k: v for k, v in on_ray.items() if k not in timing} == \
        {k: v for k, v in local.items() if k not in timing}
    other = _json(["random", "simple", "--matches", "6", "--seed", "22", "--ray", "local"],
                  capsys)
    assert other["hands"] != on_ray["hands"] or other["points_per_hand"] != \
        on_ray["points_per_hand"]


def test_ray_results_arrive_in_match_order_and_records_are_written(
        ray_cluster: Any, tmp_path: Path) -> None:
    seen: list[int] = []
    results = run_matches("random", "random", 4, 5, records=str(tmp_path),
                          on_result=lambda st: seen.append(st.index), ray_address="local")
    assert seen == [0, 1, 2, 3] == [r.index for r in results]
    recs = sorted(tmp_path.glob("match-*.json"))
    assert len(recs) == 4
    plain = run_matches("random", "random", 4, 5)
    for path, r in zip(recs, plain, strict=True):
        rec = json.loads(path.read_text())
        assert len(rec["hands"]) == r.hands


def test_ray_progress_bar(ray_cluster: Any, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["random", "random", "--matches", "4", "--seed", "3", "--ray", "local"]) == 0
    bar = err.getvalue()
    assert "] 2/4" in bar and f"[{'#' * 30}] 4/4" in bar
    assert "random vs random: 4 matches" in capsys.readouterr().out


def test_without_ray_the_flag_says_how_to_install_it_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail, as if absent
    assert main(["random", "random", "--ray", "local"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err == "ginrummy match: --ray needs Ray: pip install 'ginrummy[cluster]'\n"


def test_the_results_script_runs_its_tournament_on_ray(
        ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("results_script", ROOT / "scripts" / "results.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--ray", "local", "--matches", "2", "--bots", "simple,random",
                        "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "results.json").read_text())
    assert [r["players"] for r in rows] == [["simple", "random"]]
    plain = run_matches("simple", "random", 2, 2026)
    assert rows[0]["hands"] == sum(r.hands for r in plain)
    assert "| simple | random | 2 |" in (tmp_path / "results.md").read_text()
    assert ray_cluster.is_initialized()  # the script left the caller's connection open

