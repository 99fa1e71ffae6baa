"""`ginrummy dataset --ray local` (docs/research.md): each match a Ray task, the files
byte-identical to those of --jobs. Skipped cleanly without Ray.

Ray's start-up (several seconds) is paid once, by the module fixture, through the same
function ``--ray local`` uses; the command then reuses that connection."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("zstandard", reason="the research extra is not installed")
pytest.importorskip("pyarrow", reason="the research extra is not installed")

from ginrummy import arena  # noqa: E402
from ginrummy.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--bots", "strong,simple", "--matches", "3", "--seed", "11", "--samples", "8"]
FILES = ("games.jsonl.zst", "decisions.parquet", "README.md", "SHA256SUMS")


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'ginrummy[cluster]')")
    old = os.environ.get("PYTHONPATH")  # workers are new processes: they must find the package
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


def test_ray_gives_the_bytes_of_jobs(ray_cluster: Any, tmp_path: Path) -> None:
    for name, extra in (("jobs", ["--jobs", "1"]), ("ray", ["--ray", "local"])):
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["dataset", *ARGS, "--out", str(tmp_path / name), *extra]) == 0
    for f in FILES:
        assert (tmp_path / "ray" / f).read_bytes() == (tmp_path / "jobs" / f).read_bytes(), f
    assert ray_cluster.is_initialized()  # the command left the caller's connection open
