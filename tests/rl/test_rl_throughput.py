"""The throughput benchmark runs (tiny sizes here: speed belongs to the benchmark, not to
tests) and names RLCard's side or how to install it."""

from __future__ import annotations

import importlib.util
import json

import pytest

from ginrummy.rl import throughput

pytest.importorskip("numpy", reason="the benchmark needs numpy")


def test_benchmark_prints_every_measurement(capsys: pytest.CaptureFixture[str]) -> None:
    assert throughput.main(["--steps", "150", "--rounds", "1", "--num-envs", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    cmp = out["aec_vs_rlcard"]
    assert cmp["ginrummy_aec_raw_env"]["median"] > 0
    assert cmp["ginrummy_aec_env_wrapped"]["median"] > 0
    if importlib.util.find_spec("rlcard") is None:
        assert cmp["rlcard_gin_rummy"] == throughput.RLCARD_HINT
        assert "pip install rlcard" in throughput.RLCARD_HINT
    else:
        assert cmp["rlcard_gin_rummy"]["median"] > 0 and cmp["ratio_raw_env_to_rlcard"] > 0
    for key in ("GinRummyEnv(hand)", "GinRummyEnv(match)", "GinRummyVectorEnv(4)"):
        assert out[key]["steps"] >= 150 and out[key]["steps_per_second"] > 0


@pytest.mark.parametrize("argv", [["--steps", "0"], ["--rounds", "-1"],
                                  ["--opponent", "nobody"]])
def test_benchmark_refuses_bad_arguments(argv: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        throughput.main(argv)
    assert e.value.code == 2
    assert "error:" in capsys.readouterr().err
