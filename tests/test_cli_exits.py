"""Exit statuses, one meaning for every command (ginrummy.exits, the README's table): 0
done, 1 the input refused, 2 a wrong command line, 130 Ctrl-C; each --help says them; and
Ctrl-C stops even `--jobs 2` quietly, with no worker traceback and no process left."""

from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ginrummy import exits
from ginrummy.cli import EXTERNAL, main
from ginrummy.match import Match

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
EXAMPLE = str(ROOT / "docs" / "example-record.json")


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), e.get("PYTHONPATH")]))
    return e


# ----------------------------------------------------------------------------- statuses


def status(argv: list[str], monkeypatch: pytest.MonkeyPatch, stdin: str = "") -> int:
    """``ginrummy ARGV``'s exit status, whether returned or raised by argparse."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code or 0)


@pytest.mark.parametrize("argv, expected", [
    (["analyze", "7C 8C 9C"], exits.OK),
    (["replay", EXAMPLE], exits.OK),
    (["verify", EXAMPLE], exits.OK),
    # 1: the input was read and refused, the same for the three record readers
    (["replay", "no-such-record.json"], exits.REFUSED),
    (["verify", "no-such-record.json"], exits.REFUSED),
    (["review", "no-such-record.json"], exits.REFUSED),
    (["replay", "-"], exits.REFUSED),  # empty standard input: not JSON
    (["verify", "-"], exits.REFUSED),
    # 2: a wrong command line, nothing done
    (["analyze", "7C ZZ"], exits.USAGE),
    (["replay"], exits.USAGE),
    (["verify", EXAMPLE, "--bogus"], exits.USAGE),
    (["review", EXAMPLE, "--bogus"], exits.USAGE),
    (["match", "random", "nobody"], exits.USAGE),
    (["match", "random", "random", "--matches", "3"], exits.USAGE),
    (["play", "--vs", "nobody"], exits.USAGE),
    (["bot", "nobody"], exits.USAGE),
    (["bench", "--number", "0"], exits.USAGE),
    (["nonsense"], exits.USAGE),
])
def test_one_meaning_per_exit_status(argv: list[str], expected: int,
                                     monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert status(argv, monkeypatch) == expected
    assert "Traceback" not in capsys.readouterr().err


def test_review_refuses_a_bad_option_value_as_a_record_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The review's published interface reports bad values of its options as replay reports
    a bad record (exit 1 and, with --json, an error member), not as a usage error."""
    assert status(["review", EXAMPLE, "--seat", "2", "--json"], monkeypatch) == exits.REFUSED
    assert "--seat" in json.loads(capsys.readouterr().out)["error"]["message"]


COMMANDS = ["analyze", "replay", "verify", *EXTERNAL]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_states_the_exit_statuses(command: str,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    if command in ("serve", "db"):
        pytest.importorskip("sqlalchemy", reason="the web extra is not installed")
    monkeypatch.setenv("COLUMNS", "300")  # one line per paragraph
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    line = " ".join(next(par for par in out.split("\n\n")
                         if par.startswith("Exit status: ")).split())
    assert re.match(r"Exit status: 0 [^;]+;( 1 [^;]+;)? 2 ", line), line
    if command == "serve":  # Ctrl-C is how a server is stopped: a normal end
        assert "0 stopped with Ctrl-C" in line and "130" not in line
    else:
        assert "; 130 stopped with Ctrl-C" in line, line


def test_the_top_level_help_names_every_command_and_the_statuses(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    description = out.split("\n\n")[1]
    for word in ("play", "serve", "match", "review", "analyze", "replay", "verify"):
        assert word in description, word
    assert "0 done; 1 the input refused" in out and "130 stopped with Ctrl-C" in out


@pytest.mark.parametrize("argv, defaults", [
    (["play"], ["(default medium)", "(default 100)",
                "(default none: the review depends on the match alone",
                "(default: a fresh secret one"]),
    (["match"], ["(default 2)", "(default 100)", "(default 1)", "(default 10)",
                 "(default: a random one"]),
])
def test_play_and_match_help_give_their_defaults(argv: list[str], defaults: list[str],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    out = capsys.readouterr().out
    for d in defaults:
        assert d in out, d


def test_the_readme_table_matches_the_commands() -> None:
    """The README's "Exit statuses" table lists every command."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("### Exit statuses", 1)[1].split("\n## ", 1)[0]
    for command in COMMANDS:
        assert f"| `{command}` |" in table, command


# ----------------------------------------------------------------------------- Ctrl-C


def live_in_group(pgid: int) -> list[int]:
    """Processes of group ``pgid`` still running (zombies do not count); Linux /proc."""
    out = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = Path(stat).read_text()
            fields = text[text.rindex(")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                out.append(int(stat.split("/")[2]))
    return out


@contextlib.contextmanager
def command(argv: list[str], tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``ginrummy ARGV`` in a process group of its own, as a terminal runs a foreground job
    (Ctrl-C reaches every process of it); the whole group is killed at the end."""
    out = (tmp_path / "stdout.txt").open("wb")
    err = (tmp_path / "stderr.txt").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ginrummy.cli", *argv], env=env(), stdin=subprocess.PIPE,
        stdout=out, stderr=err, start_new_session=True,
        # a test run started in the background may ignore SIGINT: a terminal's job does not
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
        out.close()
        err.close()


def ctrl_c(proc: subprocess.Popen[bytes], tmp_path: Path,
           ready: Callable[[], bool]) -> tuple[int, str]:
    """Wait until ``ready()``, press Ctrl-C (SIGINT to the whole group), and return the exit
    status and what was written on stderr."""
    deadline = time.monotonic() + 120
    while not ready():
        assert proc.poll() is None, (tmp_path / "stderr.txt").read_text()
        assert time.monotonic() < deadline, "the command never got going"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    code = proc.wait(60)
    return code, (tmp_path / "stderr.txt").read_text(errors="replace")


def long_record(tmp_path: Path) -> str:
    """A whole match of random play: thousands of decisions, far more than a test waits for."""
    m = Match(seed=3)
    rng = random.Random(3)
    while not m.is_over():
        m.play(rng.choice(m.legal_actions()))
    path = tmp_path / "long.json"
    path.write_text(json.dumps(m.to_record()))
    return str(path)


def assert_quiet_stop(proc: subprocess.Popen[bytes], code: int, err: str) -> None:
    assert code == exits.INTERRUPTED, err
    assert "Traceback" not in err and "ForkPoolWorker" not in err, err
    assert "KeyboardInterrupt" not in err, err
    if sys.platform.startswith("linux"):
        deadline = time.monotonic() + 10
        while live_in_group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live_in_group(proc.pid) == []  # no worker outlives the command


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_match_quietly_exit_130(jobs: str, tmp_path: Path) -> None:
    records = tmp_path / "records"
    argv = ["match", "random", "random", "--matches", "100000", "--seed", "1", "--jobs", jobs,
            "--records", str(records)]
    with command(argv, tmp_path) as proc:
        # the workers are playing once records appear
        code, err = ctrl_c(proc, tmp_path, lambda: len(list(records.glob("*.json"))) > 4)
        assert_quiet_stop(proc, code, err)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_stops_review_with_workers_quietly_exit_130(tmp_path: Path) -> None:
    argv = ["review", long_record(tmp_path), "--jobs", "2", "--progress"]
    progress = re.compile(r"\] [1-9]\d*/\d+ decisions")
    with command(argv, tmp_path) as proc:
        # the pool is working once a decision is done
        code, err = ctrl_c(proc, tmp_path, lambda: bool(progress.search(
            (tmp_path / "stderr.txt").read_text(errors="replace"))))
        assert_quiet_stop(proc, code, err)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_stops_a_protocol_bot_exit_130(tmp_path: Path) -> None:
    with command(["bot", "random"], tmp_path) as proc:
        assert proc.stdin is not None
        proc.stdin.write(b'{"type": "hello", "protocol": "ginrummy-bot/1"}\n')
        proc.stdin.flush()
        code, err = ctrl_c(proc, tmp_path,  # waiting for the next message once it said hello
                           lambda: '"hello"' in (tmp_path / "stdout.txt").read_text())
        assert_quiet_stop(proc, code, err)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_is_the_normal_stop_of_serve_exit_0(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn", reason="the web extra is not installed")
    out = tmp_path / "stdout.txt"
    argv = [sys.executable, "-m", "ginrummy.cli", "serve", "--port", "0", "--db",
            str(tmp_path / "t.sqlite3")]
    with out.open("wb") as o, (tmp_path / "stderr.txt").open("wb") as e:
        proc = subprocess.Popen(argv, env=env(), stdout=o, stderr=e, cwd=tmp_path,
                                start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def serving() -> bool:  # answering requests: uvicorn has taken over Ctrl-C
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", out.read_text())
        if not m:
            return False
        try:
            with urllib.request.urlopen(f"{m.group(0)}api/bots", timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    try:
        code, err = ctrl_c(proc, tmp_path, serving)
        assert code == exits.OK and "Traceback" not in err, err
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)


def test_interrupts_to_parent_restores_the_handler() -> None:
    before = signal.getsignal(signal.SIGINT)
    with exits.interrupts_to_parent():
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before
