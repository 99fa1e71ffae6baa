"""`ginrummy bench` runs every registered benchmark and reports sane figures."""

import json
import random

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


def _timed_inputs(name: str, n: int = 300) -> list[object]:
    """The inputs of the first timed pass of benchmark ``name`` (seed 0)."""
    from ginrummy.bench import bench_rng

    bench = next(b for b in BENCHMARKS if b.name == name)
    assert bench.inputs is not None
    return bench.inputs(bench_rng(bench, 0), n)


def test_solver_agrees_with_the_naive_baseline_on_the_timed_hands_r2() -> None:
    """The ratio against the naive solver compares two answers to one question."""
    from ginrummy.bench import _naive_deadwood
    from ginrummy.melds import deadwood_mask

    for b in BENCHMARKS:
        if b.baseline and b.baseline.startswith("naive"):
            hands = _timed_inputs(b.name)
            assert len(set(hands)) == len(hands) == 300  # distinct, as timed
            for m in hands:
                assert isinstance(m, int) and deadwood_mask(m) == _naive_deadwood(m)


def test_public_solver_agrees_with_openspiel_on_the_timed_hands_r2() -> None:
    """Where OpenSpiel is installed, the side-by-side benchmarks solve the same hands to
    the same answers (OpenSpiel's deadwood is R2's: ace 1, faces 10)."""
    from ginrummy.bench import OPENSPIEL_DBD, OPENSPIEL_DW, _openspiel_dbd, _openspiel_utils
    from ginrummy.cards import CardSet
    from ginrummy.melds import deadwood, deadwood_by_discard

    utils = _openspiel_utils()
    if utils is None:
        pytest.skip("open_spiel is not installed (pip install open_spiel)")
    checked = 0
    for b in BENCHMARKS:
        if b.baseline == OPENSPIEL_DW:
            for h in _timed_inputs(b.name):
                idx = [c.index for c in h]  # type: ignore[attr-defined]
                assert deadwood(h) == utils.min_deadwood(idx)  # type: ignore[arg-type]
                checked += 1
        elif b.baseline == OPENSPIEL_DBD:
            by = _openspiel_dbd(utils)
            for h in _timed_inputs(b.name):
                cards = list(CardSet(h))  # type: ignore[arg-type]
                ours = deadwood_by_discard(h)  # type: ignore[arg-type]
                assert [ours[c] for c in cards] == by([c.index for c in cards])
                checked += 1
    assert checked >= 4 * 300
    assert all(isinstance(h, list) for h in _timed_inputs(OPENSPIEL_DW, 5))


def test_match_command_benchmark_counts_the_hands_it_played() -> None:
    """The whole-command benchmark reports hands of a real ``ginrummy match`` run."""
    from ginrummy.bench import MATCH_COMMAND

    bench = next(b for b in BENCHMARKS if b.name == MATCH_COMMAND)
    played = bench.prepare(random.Random(1), 100)()
    assert 50 <= played <= 2 * 60  # two matches, each 1 to 60 hands (R10)
