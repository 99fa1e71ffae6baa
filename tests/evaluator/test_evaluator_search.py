"""A search adds deals in batches for fewer and fewer actions (expert's racing) without
changing any deal: deal j is the same for every action played out on it (common random
numbers), whatever the batches, and the same as a one-shot evaluation's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ginrummy.evaluator import Evaluator
from ginrummy.hand import View
from ginrummy.match import Match


def _discard_view() -> View:
    m = Match(seed=21)
    while True:
        assert m.to_play is not None
        v = m.view(m.to_play)
        if v.phase.value == "discard" and len(v.legal) >= 8:
            return v
        m.play(v.legal[-1] if v.phase.value == "discard" else v.legal[0])


def test_batches_and_dropped_actions_see_the_same_deals() -> None:
    view = _discard_view()
    ev = Evaluator(samples=64, seed=3)
    whole = ev.evaluate_actions(view, view.legal, variate=False)
    s = ev.search(view, view.legal)
    s.extend(16)
    s.extend(16, [0, 1, 2, 3])
    s.extend(32, [0, 2])
    assert s.n == 64 and s.done[:4] == [64, 32, 64, 32] and s.done[4] == 16
    for i in range(len(s.actions)):
        assert s.evaluation([i]).win_samples[0] == whole.win_samples[i][: s.done[i]]
    pair = s.evaluation([0, 2])
    assert pair.samples == 64
    assert pair.values[0].win == whole.values[0].win


def test_an_action_that_left_the_race_cannot_rejoin_it() -> None:
    view = _discard_view()
    s = Evaluator(samples=8, seed=1).search(view, view.legal)
    s.extend(4, [0])
    with pytest.raises(ValueError, match="cannot rejoin"):
        s.extend(4, [1])


def test_either_kernel_can_be_named_and_gives_the_same_values() -> None:
    pytest.importorskip("numba")
    view = _discard_view()
    a = Evaluator(samples=16, seed=5, kernel="python").evaluate(view)
    b = Evaluator(samples=16, seed=5, kernel="numba").evaluate(view)
    assert a.values == b.values and a.win_samples == b.win_samples


_BUSY_CHILD = """
import sys
from ginrummy.match import Match
from ginrummy.evaluator import Evaluator
m = Match(seed=5)
view = m.view(m.to_play)
ev = Evaluator(samples=4, seed=1).evaluate(view)  # warm: imports and first calls done
print("go", flush=True)
ev = Evaluator(samples=256, budget_ms=1500, seed=1).evaluate(view)
print(ev.samples, ev.capped, flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs POSIX job control")
def test_a_time_budget_is_cpu_time_so_a_busy_machine_never_cuts_a_search_short() -> None:
    """A search whose budget is far above the CPU its samples need gets all of them even
    when its process gets no CPU for longer than the budget (stopped here, as a loaded
    machine would starve it): the budget is CPU time, never the clock on the wall, so the
    Hard computer does not play weaker on a busy server (issue 36)."""
    env = dict(os.environ, GINRUMMY_KERNEL="python",  # no compile: the child starts fast
               PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    child = subprocess.Popen([sys.executable, "-c", _BUSY_CHILD], env=env,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "go"
        time.sleep(0.05)
        os.kill(child.pid, signal.SIGSTOP)  # past the whole budget on the wall
        time.sleep(2.0)
        os.kill(child.pid, signal.SIGCONT)
        samples, capped = child.stdout.readline().split()
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
    assert (int(samples), capped) == (256, "False")
