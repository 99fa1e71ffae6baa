"""The research baselines (docs/research.md, "Baselines to beat"): each trainer runs for a
few seconds (MaskablePPO a few hundred steps; behaviour cloning a few batches on a tiny
dataset made here), its policy file loads, and the bot plays it through whole matches
over the bot protocol with legal moves only. The shipped policy files load and play as
the registered bots ``ppo`` and ``bc``.

Training needs the research extra (PyTorch, sb3-contrib, pyarrow); without it those tests
are skipped. The shipped bots need numpy only."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

np = pytest.importorskip("numpy", reason="the trained bots play with numpy")

from ginrummy.arena import play_match  # noqa: E402
from ginrummy.bots import make_bot  # noqa: E402
from ginrummy.bots.policy import (  # noqa: E402
    MLP,
    PolicyBot,
    load_mlp,
    save_mlp,
    shipped_policy,
)
from ginrummy.cli import main as cli  # noqa: E402
from ginrummy.hand import Action, View  # noqa: E402
from ginrummy.heuristics import takes_back  # noqa: E402
from ginrummy.match import Match  # noqa: E402
from ginrummy.rl.encoding import NUM_ACTIONS, OBS_SIZE  # noqa: E402

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
MAX_BYTES = 400_000
"""A policy file stays small: a few hundred KB at most."""


def script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as a module."""
    spec = importlib.util.spec_from_file_location(f"baseline_{name}", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plays_legal_matches(path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The policy file, as an ``exec:`` bot speaking the protocol (``ginrummy bot NAME
    --policy FILE``), plays two whole duplicate matches against ``simple``: the referee
    refuses any illegal action, so finishing them with no forfeit is the check."""
    command = f"exec:{sys.executable} -m ginrummy.cli bot {name} --policy {path}"
    capsys.readouterr()
    assert cli(["match", command, "simple", "--matches", "2", "--seed", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matches"] == 2 and report["forfeits"] == [0, 0]


# ----------------------------------------------------------------------------- the shipped bots


@pytest.mark.parametrize("name", ["ppo", "bc"])
def test_the_shipped_policies_are_small_and_play_whole_matches(name: str) -> None:
    path = shipped_policy(name)
    assert path.stat().st_size < MAX_BYTES
    mlp = load_mlp(path)
    assert (mlp.inputs, mlp.outputs) == (OBS_SIZE, NUM_ACTIONS)
    assert json.loads(mlp.meta)["algorithm"]
    # an illegal action would forfeit the match (the arena refuses it)
    stats, match = play_match(make_bot(name, 1), make_bot("simple", 2), seed=4, first_dealer=0)
    assert stats.forfeit is None and match.is_over()


def test_a_policy_file_round_trips_and_the_bot_plays_its_argmax(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(OBS_SIZE, 8)), rng.normal(size=(8, NUM_ACTIONS))]
    biases = [rng.normal(size=8), rng.normal(size=NUM_ACTIONS)]
    path = save_mlp(tmp_path / "p.npz", weights, biases, "relu", '{"algorithm": "test"}')
    mlp = load_mlp(path)
    x = rng.random(OBS_SIZE).astype(np.float32)
    expected = np.maximum(x @ weights[0] + biases[0], 0) @ weights[1] + biases[1]
    assert np.allclose(mlp.logits(x), expected, atol=1e-3)
    bot = PolicyBot(0, path, name="bc")
    view = Match(seed=5).view(Match(seed=5).to_play or 0)
    scores = bot.scores(view)
    assert bot.decide(view) == max(view.legal, key=lambda a: scores[a])


def test_a_wrong_file_is_refused_clearly(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="not a policy file"):
        load_mlp(bad)
    small = save_mlp(tmp_path / "small.npz", [np.zeros((3, NUM_ACTIONS))],
                     [np.zeros(NUM_ACTIONS)], "tanh")
    with pytest.raises(ValueError, match="not from the observation"):
        load_mlp(small)
    other = save_mlp(tmp_path / "v0.npz", [np.zeros((OBS_SIZE, NUM_ACTIONS))],
                     [np.zeros(NUM_ACTIONS)], "tanh", encoding_version=0)
    with pytest.raises(ValueError, match="encoding 0"):
        load_mlp(other)


def test_the_bot_never_takes_back_its_own_discard() -> None:
    """A network that loves the discard pile still draws from the stock when the top is
    the card it just threw (so no hand with it is endless, docs/bots.md)."""
    w = np.zeros((OBS_SIZE, NUM_ACTIONS), dtype=np.float32)
    b = np.zeros(NUM_ACTIONS, dtype=np.float32)
    b[2] = 100.0  # draw from the discard pile whenever legal
    bot = PolicyBot(0, name="ppo", policy=MLP([w], [b], "tanh"))
    checked = 0
    for seed in range(6):
        match = Match(seed=seed)
        for _ in range(60):
            if match.is_over() or match.hand.is_over():
                break
            seat = match.to_play
            assert seat is not None
            view: View = match.view(seat)
            action = bot.decide(view)
            if takes_back(view):
                assert action == Action.draw("stock")
                checked += 1
            match.play(action, seat)
    assert checked > 0


# ----------------------------------------------------------------------------- training


def test_maskable_ppo_trains_for_a_moment_and_its_bot_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch", reason="the research extra is not installed")
    pytest.importorskip("sb3_contrib", reason="the research extra is not installed")
    train = script("train_ppo")
    out = tmp_path / "ppo.npz"
    assert train.main(["--timesteps", "256", "--envs", "2", "--n-steps", "64",
                       "--batch", "64", "--epochs", "1", "--eval-every", "128",
                       "--eval-hands", "2", "--eval-opponents", "random",
                       "--opponents", "random,simple", "--quiet", "--seed", "1",
                       "--out", str(out)]) == 0
    summary = json.loads(out.with_suffix(".json").read_text())
    assert summary["steps"] >= 256
    assert [p["steps"] for p in summary["curve"]][-1] == summary["steps"]
    assert out.stat().st_size < MAX_BYTES
    load_mlp(out)
    plays_legal_matches(out, "ppo", capsys)


def test_behaviour_cloning_trains_a_few_batches_and_its_bot_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch", reason="the research extra is not installed")
    pytest.importorskip("pyarrow", reason="the research extra is not installed")
    pytest.importorskip("zstandard", reason="the research extra is not installed")
    from ginrummy.options import Options
    from ginrummy.research.dataset import DatasetJob, make_dataset

    data = tmp_path / "tiny"
    make_dataset(DatasetJob(("strong", "simple"), 1, Options(), 2), 1, data)
    train = script("train_bc")
    out = tmp_path / "bc.npz"
    assert train.main(["--data", str(data), "--max-batches", "4", "--batch", "32",
                       "--eval-hands", "2", "--eval-opponents", "random", "--quiet",
                       "--soft", "0.5", "--out", str(out)]) == 0
    summary = json.loads(out.with_suffix(".json").read_text())
    assert summary["batches"] == 4 and summary["train_decisions"] > 0
    assert summary["curve"][-1]["val_agree"] >= 0
    # the encoded rows were cached beside the data, and a second run reads them back
    assert (data / train.CACHE).exists()
    cached = train.load(data, 0.02)
    assert cached["obs"].shape[1] == OBS_SIZE and cached["mask"][
        np.arange(len(cached["target"])), cached["target"]].all()
    assert out.stat().st_size < MAX_BYTES
    load_mlp(out)
    plays_legal_matches(out, "bc", capsys)


def test_ginrummy_bot_takes_a_policy_file_only_for_the_trained_bots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["bot", "simple", "--policy", str(tmp_path / "x.npz")]) == 2
    assert "--policy is for the trained bots (ppo, bc), not 'simple'" in capsys.readouterr().err
    assert cli(["bot", "ppo", "--policy", str(tmp_path / "missing.npz")]) == 2
    assert "cannot load its policy" in capsys.readouterr().err


def test_without_numpy_the_trained_bots_say_so_before_any_match(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # as if it were not installed
    assert cli(["match", "ppo", "random", "--matches", "2"]) == 2
    err = capsys.readouterr().err
    assert "The ppo bot plays a trained network with numpy, which is not installed" in err
    assert "No match was played." in err
