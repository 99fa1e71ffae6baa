"""The README is executable documentation: its API tour runs as a doctest, and its
command-line examples run as written in a shell."""

import doctest
import os
import re
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples_run() -> None:
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5
    assert result.failed == 0


ROOT = README.parent
VENV_BIN = ROOT / ".venv" / "bin"


def command_blocks() -> list[str]:
    """The ```sh blocks of the README's "The command line" section, in order."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## The command line", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```sh\n(.*?)^```", section, re.S | re.M)


def _need_venv() -> None:
    if not (VENV_BIN / "activate").exists() or not (VENV_BIN / "ginrummy").exists():
        pytest.skip("the project's .venv is not built (make test builds it)")


def test_the_readme_commands_run_as_written() -> None:
    """The first block, exactly as a reader pastes it into a shell in the project folder."""
    _need_venv()
    block = command_blocks()[0]
    assert block.startswith(". .venv/bin/activate")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"  # a fresh shell: ginrummy is not on PATH
    proc = subprocess.run(["bash", "-e"], input=block, capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "26 points" in proc.stdout  # the analyze example's deadwood
    assert "Verified: " in proc.stdout and "strong vs simple: 4 matches" in proc.stdout
    assert "example vs simple: 4 matches" in proc.stdout  # the exec bot, by its own name


def test_the_long_running_readme_commands_exist() -> None:
    """The second block's commands run until stopped, so each is checked with --help."""
    _need_venv()
    lines = [line.split("  #")[0].strip() for line in command_blocks()[1].splitlines()]
    assert len(lines) >= 5
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"  # as after activating
    procs = [(command, subprocess.Popen(f"{command} --help", shell=True, text=True, cwd=ROOT,
                                        env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE))
             for command in lines]
    for command, proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and out.startswith("usage: "), (command, err)


def test_the_setup_says_how_long_make_test_takes_and_how_to_run_a_part() -> None:
    """A newcomer learns the full suite's cost before running it, and quick subsets whose
    paths exist (so the advice does not rot when tests move)."""
    text = README.read_text(encoding="utf-8")
    setup = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"`make test` .* about \d+ minutes", " ".join(setup.split()))
    commands = [line for block in re.findall(r"^```sh\n(.*?)^```", setup, re.S | re.M)
                for line in block.splitlines() if line.startswith(".venv/bin/pytest")]
    assert len(commands) >= 3
    for command in commands:
        for path in re.findall(r"\btests/[\w/.]+", command.split("#")[0]):
            assert (ROOT / path.rstrip("/")).exists(), path
