"""Which kernel runs: the compiled one when numba loads, the Python build when asked
(``GINRUMMY_KERNEL=python``) or when numba is missing (one warning line, same results)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = """
import json, sys
{block}
from ginrummy.match import Match
import ginrummy.evaluator as e
m = Match(seed=4)
ev = e.Evaluator(samples=6, seed=2).evaluate(m.view(m.to_play))
print(json.dumps({{"kernel": e.KERNEL, "values": [[v.win, v.points] for v in ev.values]}}))
"""


def _probe(env: dict[str, str], block: str = "") -> tuple[dict[str, object], str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(block=block)],
                         env={**os.environ, **env}, capture_output=True, text=True,
                         timeout=300, check=True)
    return json.loads(out.stdout), out.stderr


def test_ginrummy_kernel_python_forces_the_python_build_without_a_warning() -> None:
    got, err = _probe({"GINRUMMY_KERNEL": "python"})
    assert got["kernel"] == "python"
    assert err == ""


def test_without_numba_the_python_build_runs_with_one_warning_line() -> None:
    """numba missing: the pure-Python kernel is used, says so in one line, and gives the
    same evaluation the compiled kernel gives."""
    got, err = _probe({"GINRUMMY_KERNEL": ""}, "sys.modules['numba'] = None")
    assert got["kernel"] == "python"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "pure-Python kernel" in lines[0], err
    pytest.importorskip("numba")
    fast, err = _probe({"GINRUMMY_KERNEL": "numba"})
    assert fast["kernel"] == "numba" and err == ""
    assert fast["values"] == got["values"]


def test_while_the_compiled_build_is_made_the_python_build_serves_then_it_takes_over() -> None:
    """A compiled build that must be compiled (here: the first use is told so at once,
    without waiting for numba's cache index) is made on a thread: the Python build
    evaluates meanwhile, the compiled one at the first use after it is ready; both the
    same. A fork waits for the compile (never copies numba half way)."""
    pytest.importorskip("numba")
    block = "import ginrummy.kernel as k; k._from_cache = False; k._told.set()"
    after = """
first = e.KERNEL
k._compiling.join()
again = e.Evaluator(samples=6, seed=2).evaluate(m.view(m.to_play))
same = [(v.win, v.points) for v in again.values] == [(v.win, v.points) for v in ev.values]
from ginrummy.kernel import compiled
print(json.dumps({"first": first, "kernel": e.KERNEL, "same": same,
                  "cached": compiled.cached(k._compiled)}))
"""
    code = PROBE.format(block=block).replace("print(json.dumps", "_ = (json.dumps") + after
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "GINRUMMY_KERNEL": ""},
                         capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(out.stdout)
    assert got == {"first": "python", "kernel": "numba", "same": True, "cached": True}, \
        out.stderr
    assert out.stderr == ""
    fork = """
import os, ginrummy.kernel as k
k._from_cache = False
k._told.set()
k.backend()
pid = os.fork()
if pid == 0:
    os._exit(0 if k._compiled is not None and not k._compiling.is_alive() else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), k._compiling.is_alive())
"""
    out = subprocess.run([sys.executable, "-c", fork], env={**os.environ, "GINRUMMY_KERNEL": ""},
                         capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.split() == ["0", "False"], out.stderr


def test_an_unknown_kernel_name_is_refused_clearly() -> None:
    from ginrummy import kernel

    with pytest.raises(ValueError, match="'numba' or 'python'"):
        kernel.backend("fortran")
