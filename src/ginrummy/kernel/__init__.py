"""One mask-level kernel of a hand, shared by everything that must run the rules fast.

A hand's steps and settlement on card masks (draw, discard, knock, showdown with lay-offs,
undercut, gin, dead hand: R3-R9), the play-out policy, the belief's sampler and the
evaluator's batch are written here once (:mod:`.solver`, :mod:`.playout`,
:mod:`.sampler`, :mod:`.batch`), in the subset of Python that numba compiles
(:mod:`.jit`), on the core's own tables and helpers. They come in two builds that give
identical results:

* ``python``: the functions run as written (:data:`.builds.PYTHON`), always available;
* ``numba``: the same functions compiled (:mod:`.compiled`, the ``fast`` extra): about
  forty times the speed (``ginrummy bench --only kernel``).

:func:`backend` returns the build in use, chosen on first use: the compiled one when numba
imports and compiles, else the Python one with one warning line on standard error. The
environment variable ``GINRUMMY_KERNEL=python`` forces the Python build (``numba``
insists on the compiled one, still falling back with the warning if it cannot load). The
core (:mod:`ginrummy.cards` .. :mod:`ginrummy.record`) never imports this package; the
tests hold the kernel to it.

**Cold start.** Loading the compiled build from numba's disk cache takes well under a
second, but the first process after an install must compile it (several seconds of CPU).
So the first use starts that work on a thread of its own, which first reads numba's cache
index: when the cache holds the kernel, the first use waits for it to load; when it must
be compiled, the Python build serves meanwhile (the same results, slower) and the compiled
one takes over at the first use after it is ready, without waiting.
``GINRUMMY_KERNEL=numba`` waits for the compile instead (as ``make run`` and the Docker
image do, to compile it at set-up). The compile goes on to the end even when the process
has nothing else to do (so its result reaches the disk cache), and a fork waits for it (a
child never inherits numba half way).

>>> name() in ("numba", "python")
True
>>> backend(REFERENCE).name
'python'
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from . import spec
from .builds import PYTHON, Build

if TYPE_CHECKING:
    from ..actions import Action

__all__ = ["COMPILED", "REFERENCE", "WAIT_SECONDS", "Build", "action_code", "backend", "name",
           "use"]

REFERENCE = "python"
"""The name of the Python build."""
COMPILED = "numba"
"""The name of the compiled build."""

WAIT_SECONDS = 30.0
"""How long the first use of the kernel waits for numba to import and say whether its disk
cache holds the kernel (a fraction of a second, unless the machine is very busy)."""

_lock = threading.Lock()
_chosen: tuple[Build, str] | None = None
_compiled: Build | None = None
_compiled_error: str | None = None
_compiling: threading.Thread | None = None
"""The thread compiling (or loading) the compiled build, once started."""
_interim = False
"""Whether the Python build serves only until the compiled one is ready."""
_told = threading.Event()
"""Set once the compile thread knows whether numba's disk cache holds the kernel (or
numba failed to load)."""
_from_cache = False
"""Whether numba's disk cache holds the kernel (the compile thread loads it, not compiles)."""
_INTERIM: tuple[Build, str] = (PYTHON, REFERENCE)
"""The choice while the compiled build is being made (by identity: a :func:`use` block
may choose another for its time)."""


def _warn(message: str) -> None:
    sys.stderr.write(f"ginrummy: {message}\n")
    sys.stderr.flush()


def _load_compiled() -> Build | None:
    """The compiled build, warmed up (compiled, or loaded from numba's disk cache), or
    None with the reason kept in ``_compiled_error``."""
    global _compiled, _compiled_error, _from_cache
    if _compiled is not None or _compiled_error is not None:
        return _compiled
    try:
        from . import compiled

        build = compiled.build()
        _from_cache = compiled.cached(build)
        _told.set()
        compiled.warm_up(build)
    except Exception as e:  # numba missing, too old, or unable to compile here
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        _compiled_error = reason[:200]
        return None
    finally:
        _told.set()
    _compiled = build
    return build


def _compile() -> None:
    with _compile_lock:
        _load_compiled()


_compile_lock = threading.Lock()
"""Held while the compiled build is being made (by the thread, or by a caller that waits)."""


def _start_compiling() -> threading.Thread:
    """Start making the compiled build on a thread of its own (not a daemon: the compile
    reaches the disk cache even if the process is done first)."""
    global _compiling
    _compiling = threading.Thread(target=_compile, name="ginrummy-kernel-compile")
    _compiling.start()
    return _compiling


def _finish_compiling() -> None:
    """Wait for the compile under way, if any (before a fork: numba's locks must not be
    copied held into the child)."""
    thread = _compiling
    if thread is not None and thread.is_alive() and thread is not threading.current_thread():
        thread.join()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_finish_compiling)


def _settled() -> tuple[Build, str]:
    """The compiled build once made (or the Python one, with the warning, if it failed)."""
    global _interim
    _interim = False
    if _compiled is None:
        _warn(f"the compiled kernel is unavailable ({_compiled_error}); using the "
              "pure-Python kernel, which is slower (pip install 'ginrummy[fast]').")
        return PYTHON, REFERENCE
    return _compiled, COMPILED


def _choose() -> tuple[Build, str]:
    global _interim
    want = os.environ.get("GINRUMMY_KERNEL", "").strip().lower()
    if want == REFERENCE:
        return PYTHON, REFERENCE
    if want not in ("", "auto", COMPILED):
        _warn(f"GINRUMMY_KERNEL={want!r} is not 'numba' or 'python'; choosing as usual.")
    if want == COMPILED:
        with _compile_lock:
            _load_compiled()
        return _settled()
    thread = _compiling if _compiling is not None else _start_compiling()
    _told.wait(WAIT_SECONDS)
    if _from_cache:
        thread.join()  # loading it from the disk cache: well under a second
    if thread.is_alive():
        _interim = True  # compiling: the Python build serves meanwhile
        return _INTERIM
    return _settled()


def _catch_up() -> None:
    """The Python build served while the compiled one was made: take it once it is ready
    (under ``_lock``)."""
    global _chosen
    thread = _compiling
    if thread is None or thread.is_alive() or _chosen is not _INTERIM:
        return  # (a use() block chose another build for its time: after it)
    if _compiled is None and _compiled_error is None:
        _start_compiling()  # a forked child: its copy of the thread never ran here
        return
    _chosen = _settled()


def backend(which: str | None = None) -> Build:
    """The kernel build in use (chosen once per process), or the one named ``which``
    (``"python"`` or ``"numba"``; ValueError if that one cannot load)."""
    global _chosen
    if which == REFERENCE:
        return PYTHON
    if which == COMPILED:
        with _compile_lock:
            mod = _load_compiled()
        if mod is None:
            raise ValueError(f"The compiled kernel is unavailable: {_compiled_error}.")
        return mod
    if which is not None:
        raise ValueError(f"A kernel is 'numba' or 'python', not {which!r}.")
    if _chosen is None or _interim:
        with _lock:
            if _chosen is None:
                _chosen = _choose()
            elif _interim:
                _catch_up()
    return _chosen[0]


@contextmanager
def use(which: str) -> Iterator[Build]:
    """Run the block with the build named ``which`` as this process's kernel (benchmarks
    time both builds in one run this way); the choice before it comes back after."""
    global _chosen
    mod = backend(which)
    backend()
    before = _chosen
    _chosen = (mod, which)
    try:
        yield mod
    finally:
        _chosen = before


def name() -> str:
    """The name of the build in use: ``"numba"`` or ``"python"``."""
    backend()
    assert _chosen is not None
    return _chosen[1]


def action_code(a: Action) -> int:
    """The kernel's code of a game action (:mod:`.spec`: pass, the two draws, a discard
    with or without a knock).

    >>> from ginrummy.hand import DRAW_DISCARD, Action
    >>> from ginrummy.cards import Card
    >>> action_code(DRAW_DISCARD), action_code(Action.discard(Card.parse("KS"), True))
    (2, 179)
    """
    if a.act == "pass":
        return spec.PASS
    if a.act == "draw":
        return spec.DRAW_PILE if a.source == "discard" else spec.DRAW_STOCK
    assert a.card is not None
    return (spec.KNOCK_BASE if a.knock else spec.DISCARD_BASE) + a.card.index
