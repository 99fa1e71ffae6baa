"""scripts/results.py as a user meets it: help for every option, --out as a folder or a
.md file, and bad options refused in one line before any match is played."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("results_script",
                                                  ROOT / "scripts" / "results.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_option_has_help(script: ModuleType) -> None:
    for action in script.build_parser()._actions:
        assert action.help, action.option_strings


def test_out_as_a_markdown_file_writes_the_table_picture_and_cache_beside_it(
        script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib", reason="the picture needs matplotlib")
    md = tmp_path / "new folder" / "try.md"  # a folder that does not exist yet
    argv = ["--matches", "2", "--bots", "simple,random", "--jobs", "1", "--out", str(md)]
    assert script.main(argv) == 0
    assert "Traceback" not in capsys.readouterr().err
    table = md.read_text()
    assert "| simple | random | 2 |" in table and "](try.svg)" in table
    assert (md.parent / "try.svg").read_text().lstrip().startswith("<?xml")
    rows = json.loads((md.parent / "try.json").read_text())
    assert [r["players"] for r in rows] == [["simple", "random"]]


@pytest.mark.parametrize("argv, message", [
    (["--out", "FILE"], "not a folder; give a folder or a file ending in .md"),
    (["--bots", "simple,nobody"], "unknown: nobody"),
    (["--bots", "simple"], "--bots needs two or more"),
    (["--only", "strong", "--bots", "simple,random"], "--only strong: not one of --bots"),
    (["--matches", "3"], "--matches must be a positive even number"),
    (["--jobs", "0"], "--jobs must be at least 1"),
])
def test_bad_options_are_one_line_and_nothing_is_played(
        script: ModuleType, argv: list[str], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[object] = []

    def run(*args: object, **kwargs: object) -> list[object]:
        played.append(args)
        return []

    monkeypatch.setattr(script, "run", run)
    a_file = tmp_path / "a-file.txt"
    a_file.write_text("")
    argv = [str(a_file) if x == "FILE" else x for x in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path)]
    assert script.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("results.py: ") and message in err and err.count("\n") == 1
    assert played == []
