"""`ginrummy bench` runs every registered benchmark and reports sane figures."""

import json

import pytest

from ginrummy.bench import BENCHMARKS, main


def test_bench_json_reports_every_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--number", "20", "--repeat", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["results"] if isinstance(out, dict) and "results" in out else out
    names = {r["name"] for r in rows}
    assert names == {b.name for b in BENCHMARKS}
    assert any(r["unit"] == "hand" for r in rows)  # random play through the Hand API
    assert all(r["median_us"] > 0 for r in rows)
