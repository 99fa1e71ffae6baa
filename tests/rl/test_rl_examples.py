"""The examples: a tiny-budget run of the training script (weights, curve, numbers), the
policy's gradients against finite differences, and the trained policy playing whole
matches through the bot protocol (``ginrummy match exec:...``)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

np = pytest.importorskip("numpy", reason="the examples need numpy")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def examples() -> tuple[ModuleType, ModuleType]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        return importlib.import_module("masked_policy"), importlib.import_module("train_policy")
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory,
            examples: tuple[ModuleType, ModuleType]) -> Path:
    """Weights from a tiny-budget training run (a few updates, seconds)."""
    pytest.importorskip("matplotlib", reason="the curve needs matplotlib")
    out = tmp_path_factory.mktemp("train")
    _, train = examples
    argv = ["--updates", "4", "--envs", "16", "--batch", "256", "--eval-hands", "16",
            "--log-every", "2", "--eval-every", "2", "--curve-eval-hands", "8", "--quiet",
            "--seed", "3",
            "--out", str(out / "model.npz"), "--plot", str(out / "curve.png")]
    assert train.main(argv) == 0
    return out


def test_tiny_training_run_writes_weights_curve_and_numbers(
    trained: Path, examples: tuple[ModuleType, ModuleType]
) -> None:
    masked_policy, _ = examples
    policy = masked_policy.MaskedPolicy.load(trained / "model.npz")
    assert any(np.abs(v).sum() > 0 for v in policy.params.values())  # it moved
    result = json.loads((trained / "model.json").read_text())
    assert result["updates"] == 4 and result["hands"] > 0 and result["steps"] > 0
    assert [p["update"] for p in result["curve"]] == [2, 4]
    assert all("greedy_scored" in p for p in result["curve"])
    for key in ("evaluation", "untrained_policy_evaluation"):
        ev = result[key]
        assert ev["hands"] == 16 and 0 <= ev["scored"] <= 1 and 0 <= ev["conceded"] <= 1
    assert (trained / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_training_refuses_bad_arguments(examples: tuple[ModuleType, ModuleType],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    _, train = examples
    for argv in (["--updates", "0", "--minutes", "0"], ["--updates", "1", "--envs", "0"],
                 ["--updates", "1", "--opponent", "nobody"]):
        with pytest.raises(SystemExit) as e:
            train.main(argv)
        assert e.value.code == 2
    assert "Unknown bot" in capsys.readouterr().err


def test_gradients_match_finite_differences(examples: tuple[ModuleType, ModuleType]) -> None:
    masked_policy, _ = examples
    from ginrummy.rl import GinRummyVectorEnv

    rng = np.random.default_rng(0)
    policy = masked_policy.MaskedPolicy()
    for v in policy.params.values():
        v += rng.normal(0, 0.3, v.shape)
    venv = GinRummyVectorEnv(6, opponent="random")
    obs, info = venv.reset(seed=1)
    obs = obs.astype(np.float64)
    mask = info["action_mask"]
    actions = policy.act(obs, mask, rng)
    assert mask[np.arange(6), actions].all()  # sampled actions are legal
    adv, ret = rng.normal(size=6), rng.normal(size=6)

    def objective() -> float:
        p = policy.probabilities(obs, mask)[np.arange(6), actions]
        err = ret - policy.value(obs)
        return float((adv * np.log(p)).mean() - 0.5 * (err ** 2).mean())

    grads = policy.gradients(obs, mask, actions, adv, ret)
    for name in ("head", "discard", "knock", "value"):
        flat = policy.params[name].reshape(-1)
        for j in rng.choice(flat.size, size=5, replace=False):
            old = flat[j]
            flat[j] = old + 1e-6
            up = objective()
            flat[j] = old - 1e-6
            down = objective()
            flat[j] = old
            numeric = (up - down) / 2e-6
            assert grads[name].reshape(-1)[j] == pytest.approx(numeric, rel=1e-4, abs=1e-7)


def test_trained_policy_plays_matches_through_the_protocol(
    trained: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ginrummy.arena import main

    monkeypatch.setenv("PYTHONPATH", str(ROOT / "src"))  # for the bot's own process
    bot = f"exec:{sys.executable} {EXAMPLES / 'policy_bot.py'} {trained / 'model.npz'}"
    assert main([bot, "random", "--matches", "2", "--seed", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches"] == 2 and out["forfeits"] == [0, 0] and out["hands"] > 0


def test_policy_bot_refuses_a_bad_model_and_skips_bad_lines(tmp_path: Path) -> None:
    script = str(EXAMPLES / "policy_bot.py")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    run = subprocess.run([sys.executable, script, str(bad)], input="", capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 2 and "Cannot read the policy" in run.stderr
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    run = subprocess.run([sys.executable, script, str(tmp_path / "other.npz")], input="",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "is not a ginrummy-masked-policy/" in run.stderr
