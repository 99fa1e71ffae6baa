"""The first five minutes at the command line: every stumble a new user met, one test each
(missing extras, a busy port, --version, help that cites only the project's own docs,
where records come from)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ginrummy.cli import EXTERNAL, main

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), e.get("PYTHONPATH")]))
    return e


def test_serve_without_the_web_extra_is_one_line_and_exit_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in [m for m in sys.modules if m.startswith("ginrummy.web")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "sqlalchemy", None)  # as if the extra were not installed
    assert main(["serve"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err == ("ginrummy serve: the web extra is not installed (no module "
                       "'sqlalchemy'): pip install 'ginrummy[web]'\n")


def _serve(*args: str) -> subprocess.Popen[str]:
    """``ginrummy serve`` in a process group of its own, for :func:`_end` to end whole."""
    return subprocess.Popen(
        [sys.executable, "-m", "ginrummy.cli", "serve", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(),
        start_new_session=True,
    )


def _end(proc: subprocess.Popen[str]) -> None:
    """Stop a server (SIGTERM, its clean stop), then kill whatever of its group is left: a
    server stopped while starting up may leave a pool worker behind."""
    if proc.poll() is None:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=30)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()


def test_serve_on_a_busy_port_is_one_line_and_prints_no_address(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn", reason="the web extra is not installed")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = _serve("--port", str(port), "--db", str(tmp_path / "t.sqlite3"))
        try:
            out, err = proc.communicate(timeout=60)
        finally:  # a server that did not give up is not left running
            _end(proc)
    assert proc.returncode == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith(f"ginrummy serve: cannot listen on 127.0.0.1 port {port}: ")


def test_serve_prints_its_address_once_it_listens(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn", reason="the web extra is not installed")
    proc = _serve("--port", "0", "--db", str(tmp_path / "t.sqlite3"))
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.fullmatch(r"Gin Rummy table: http://127\.0\.0\.1:(\d+)/  \(Ctrl-C to stop\)\n",
                         line)
        assert m, line
        with socket.create_connection(("127.0.0.1", int(m.group(1))), timeout=5):
            pass  # already accepting connections when the address is printed
    finally:
        _end(proc)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert re.fullmatch(r"ginrummy \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)


CITES_UNKNOWN = re.compile(r"INTERFACES|RULES\.md|\bR\d+\b|R1 notation|the issue|main job")


@pytest.mark.parametrize("argv", [[]] + [[c] for c in ["analyze", "replay", "verify",
                                                        *EXTERNAL]])
def test_help_cites_only_documents_the_user_has(
        argv: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # no line breaks inside a path
    with pytest.raises(SystemExit) as e:
        main([*argv, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ginrummy") and not CITES_UNKNOWN.search(out), out
    for doc in re.findall(r"docs/[\w.-]+", out):
        assert (ROOT / doc).exists(), doc


def test_replay_of_a_missing_file_says_where_records_come_from(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "game.json"]) == 1
    err = capsys.readouterr().err
    assert "match --records" in err and "docs/example-record.json" in err


def test_the_example_record_replays_and_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    example = str(ROOT / "docs" / "example-record.json")
    assert main(["replay", example]) == 0
    out = capsys.readouterr().out
    assert "Gin: " in out and "Knock: " in out and out.rstrip().endswith("after 5 hands.")
    assert main(["verify", example]) == 0
