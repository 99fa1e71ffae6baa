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


def test_naive_baseline_solver_agrees_with_the_solver_r2() -> None:
    """The same-process baseline must solve the same problem, or its ratio means nothing."""
    import random

    from ginrummy.bench import _naive_deadwood
    from ginrummy.melds import deadwood_mask

    rng = random.Random(5)
    for _ in range(500):
        lo = rng.randint(0, 8)
        pool = [s * 13 + r for s in range(4) for r in range(lo, lo + 5)]
        mask = sum(1 << i for i in rng.sample(pool, rng.randint(0, 11)))
        assert _naive_deadwood(mask) == deadwood_mask(mask)
