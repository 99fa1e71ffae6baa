"""`ginrummy dataset` (docs/research.md): self-play labelled by the coach, byte-identical for
the same arguments whatever --jobs; a row for each decision with two or more legal
actions, the win chances aligned with the legal actions, the view the seat's own (no
card it could not see); the records those `ginrummy match` plays; the Parquet schema;
the checksums; the data card; one-line refusals."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("zstandard", reason="the research extra is not installed")
pytest.importorskip("pyarrow", reason="the research extra is not installed")

from ginrummy.arena import run_matches  # noqa: E402
from ginrummy.cli import main  # noqa: E402
from ginrummy.evaluator import Evaluator  # noqa: E402
from ginrummy.research.files import decisions_schema  # noqa: E402
from ginrummy.research.labels import label_seed  # noqa: E402
from ginrummy.review.grade import styles_at  # noqa: E402
from opendata import check_rows, check_sums, compact, cut, read_records, read_rows  # noqa: E402

FILES = ("games.jsonl.zst", "decisions.parquet", "README.md", "SHA256SUMS")
ARGS = ["--bots", "strong,simple", "--matches", "3", "--seed", "7", "--samples", "8"]


def dataset(out: Path, *extra: str, args: list[str] = ARGS) -> str:
    """Run ``ginrummy dataset``; its summary line."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["dataset", *args, "--out", str(out), *extra]) == 0
    return buf.getvalue()


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test dataset, made once with --jobs 1."""
    out = tmp_path_factory.mktemp("one") / "data"
    dataset(out)
    return out


def test_the_same_arguments_give_the_same_bytes_whatever_jobs(made: Path, tmp_path: Path
                                                              ) -> None:
    two = tmp_path / "data"
    line = dataset(two, "--jobs", "2")
    assert "3 matches" in line and "decisions" in line
    assert sorted(p.name for p in two.iterdir()) == sorted(FILES)
    for name in FILES:
        assert (two / name).read_bytes() == (made / name).read_bytes(), name


def test_every_decision_is_a_row_with_aligned_labels_and_no_hidden_card(made: Path) -> None:
    records = read_records(made / "games.jsonl.zst")
    assert [r["id"] for r in records] == ["000001", "000002", "000003"]
    rows = read_rows(made / "decisions.parquet")
    assert check_rows(records, rows) > 100
    assert {r["seat"] for r in rows} == {0, 1}


def test_the_records_are_the_matches_ginrummy_match_plays(made: Path, tmp_path: Path) -> None:
    run_matches("strong", "simple", 4, 7, records=str(tmp_path))
    records = read_records(made / "games.jsonl.zst")
    for i, record in enumerate(records):
        played = json.loads((tmp_path / f"match-{i + 1:05d}.json").read_text())
        assert {k: v for k, v in record.items() if k != "id"} == played
        assert record["end"] in ("target", "hand-cap")
    assert records[0]["players"] == ["strong", "simple"]  # A in seat 0, then seat 1
    assert records[1]["players"] == ["simple", "strong"]


def test_the_labels_are_the_coachs_from_the_view_with_the_reviews_styles(made: Path) -> None:
    records = {r["id"]: r for r in read_records(made / "games.jsonl.zst")}
    rows = read_rows(made / "decisions.parquet")
    for row in rows[:: max(1, len(rows) // 12)]:  # a dozen, across the matches
        m = cut(records[row["match"]], row["hand"], row["index"])
        quick, club = styles_at(m, row["seat"])
        ev = Evaluator(samples=8, seed=label_seed(7, row["match"], row["hand"], row["index"]),
                       quick=quick, club=club).evaluate(m.view(row["seat"]))
        assert [compact(v.action.to_json()) for v in ev.values] == row["legal"]
        assert row["win"] == pytest.approx([v.win for v in ev.values], abs=1e-6)


def test_the_parquet_loads_into_the_schema(made: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(made / "decisions.parquet")
    assert table.schema.equals(decisions_schema(), check_metadata=False)
    types = {f.name: f.type for f in table.schema}
    assert list(types) == ["match", "hand", "index", "seat", "view", "action", "legal", "win"]
    assert types["match"] == pa.string() and types["view"] == pa.string()
    assert types["hand"] == pa.int16() and types["index"] == pa.int16()
    assert types["seat"] == pa.int8()
    assert types["legal"].value_type == pa.string()
    assert types["win"].value_type == pa.float32()
    meta = pq.ParquetFile(made / "decisions.parquet").metadata
    assert meta.num_rows == table.num_rows and "timestamp" not in str(meta.metadata)


def test_the_parquet_loads_with_pandas(made: Path) -> None:
    pd = pytest.importorskip("pandas", reason="pandas is not installed (not a dependency)")
    frame = pd.read_parquet(made / "decisions.parquet")
    assert list(frame.columns) == ["match", "hand", "index", "seat", "view", "action",
                                   "legal", "win"]
    assert len(frame) == len(read_rows(made / "decisions.parquet"))
    assert str(frame["hand"].dtype) == "int16" and str(frame["seat"].dtype) == "int8"


def test_the_checksums_and_the_data_card(made: Path) -> None:
    check_sums(made, {"games.jsonl.zst", "decisions.parquet", "README.md"})
    card = (made / "README.md").read_text(encoding="utf-8")
    assert "ginrummy dataset --bots strong,simple --matches 3 --seed 7 --samples 8 --out DIR" \
        in card
    for words in ("## Licence", "CC0", "MIT", "## Biases", "`strong`", "`simple`",
                  "target 100", "8 sampled deals", "| `win` | list<float32> |"):
        assert words in card, words


def test_another_seed_or_samples_changes_the_files(made: Path, tmp_path: Path) -> None:
    dataset(tmp_path / "s", args=[*ARGS[:-2], "--samples", "4"])
    assert (tmp_path / "s" / "games.jsonl.zst").read_bytes() == \
        (made / "games.jsonl.zst").read_bytes()  # the same play, other labels
    assert (tmp_path / "s" / "decisions.parquet").read_bytes() != \
        (made / "decisions.parquet").read_bytes()
    dataset(tmp_path / "o", args=["--bots", "strong,simple", "--matches", "1", "--seed", "8",
                                  "--samples", "8"])
    assert read_records(tmp_path / "o" / "games.jsonl.zst")[0]["seed"] != \
        read_records(made / "games.jsonl.zst")[0]["seed"]


@pytest.mark.parametrize("argv, words", [
    (["--bots", "strong", "--matches", "1", "--seed", "1"], "two bot names"),
    (["--bots", "strong,nobody", "--matches", "1", "--seed", "1"], "Unknown bot 'nobody'"),
    (["--bots", "exec:x,strong", "--matches", "1", "--seed", "1"], "Unknown bot"),
    (["--bots", "strong,simple", "--matches", "0", "--seed", "1"], "--matches"),
    (["--bots", "strong,simple", "--matches", "1", "--seed", "-1"], "--seed"),
    (["--bots", "strong,simple", "--matches", "1", "--seed", "1", "--samples", "0"],
     "--samples"),
    (["--bots", "strong,simple", "--matches", "1", "--seed", "1", "--target", "120"],
     "The target must be"),
    (["--bots", "strong,simple", "--matches", "1", "--seed", "1", "--ray", " "], "--ray"),
    (["--bots", "strong,simple", "--matches", "1"], "--seed"),
])
def test_a_wrong_command_line_is_one_line_and_exit_2(
        argv: list[str], words: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data"
    assert status(["dataset", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err, err
    assert not out.exists()


def status(argv: list[str]) -> int:
    """``ginrummy ARGV``'s exit status, whether returned or raised by argparse."""
    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code or 0)


def test_an_output_that_is_a_file_or_a_missing_extra_is_exit_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "file"
    afile.write_text("x")
    assert main(["dataset", *ARGS, "--out", str(afile)]) == 2
    assert "is a file" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if not installed
    assert main(["dataset", *ARGS, "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert err == ("ginrummy dataset: the research extra is not installed (no module "
                   "'zstandard'): pip install 'ginrummy[research]'\n")
    assert not (tmp_path / "d").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_quietly_exit_130_and_leaves_no_file(jobs: str, tmp_path: Path) -> None:
    out = tmp_path / "data"
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    err_path = tmp_path / "stderr.txt"
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ginrummy.cli", "dataset", "--bots", "expert,expert",
             "--matches", "1000", "--seed", "1", "--jobs", jobs, "--out", str(out)],
            env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 60
            while not (out / ".games.jsonl.zst.part").exists():  # the work has begun
                assert proc.poll() is None, err_path.read_text()
                assert time.monotonic() < deadline
                time.sleep(0.05)
            time.sleep(1.0)  # the workers are playing
            os.killpg(proc.pid, signal.SIGINT)
            code = proc.wait(60)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
    text = err_path.read_text(errors="replace")
    assert code == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert not out.exists()  # no half-written file, and the folder it made is gone
    if sys.platform.startswith("linux"):  # no worker outlives the command
        deadline = time.monotonic() + 10
        while _live_in_group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _live_in_group(proc.pid) == []


def _live_in_group(pgid: int) -> list[int]:
    """Processes of group ``pgid`` still running (zombies do not count); Linux /proc."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = stat.read_text()
            fields = text[text.rindex(")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                out.append(int(stat.parent.name))
    return out


def test_the_speed_script_labels_the_records_again(made: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """scripts/label_speed.py (docs/research.md, "Speed and sizes") labels what the dataset
    labelled: as many decisions."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "label_speed.py"
    spec = importlib.util.spec_from_file_location("label_speed", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main([str(made / "games.jsonl.zst"), "--samples", "4", "--matches", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = read_rows(made / "decisions.parquet")
    assert out["matches"] == 1 and out["decisions"] == sum(r["match"] == "000001" for r in rows)
