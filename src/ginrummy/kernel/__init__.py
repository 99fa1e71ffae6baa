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

__all__ = ["COMPILED", "REFERENCE", "Build", "action_code", "backend", "name", "use"]

REFERENCE = "python"
"""The name of the Python build."""
COMPILED = "numba"
"""The name of the compiled build."""

_lock = threading.Lock()
_chosen: tuple[Build, str] | None = None
_compiled: Build | None = None
_compiled_error: str | None = None


def _warn(message: str) -> None:
    sys.stderr.write(f"ginrummy: {message}\n")
    sys.stderr.flush()


def _load_compiled() -> Build | None:
    """The compiled build, warmed up (compiled, or loaded from numba's disk cache), or
    None with the reason kept in ``_compiled_error``."""
    global _compiled, _compiled_error
    if _compiled is not None or _compiled_error is not None:
        return _compiled
    try:
        from . import compiled

        build = compiled.build()
        compiled.warm_up(build)
    except Exception as e:  # numba missing, too old, or unable to compile here
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        _compiled_error = reason[:200]
        return None
    _compiled = build
    return build


def _choose() -> tuple[Build, str]:
    want = os.environ.get("GINRUMMY_KERNEL", "").strip().lower()
    if want == REFERENCE:
        return PYTHON, REFERENCE
    if want not in ("", "auto", COMPILED):
        _warn(f"GINRUMMY_KERNEL={want!r} is not 'numba' or 'python'; choosing as usual.")
    mod = _load_compiled()
    if mod is None:
        _warn(f"the compiled kernel is unavailable ({_compiled_error}); using the "
              "pure-Python kernel, which is slower (pip install 'ginrummy[fast]').")
        return PYTHON, REFERENCE
    return mod, COMPILED


def backend(which: str | None = None) -> Build:
    """The kernel build in use (chosen once per process), or the one named ``which``
    (``"python"`` or ``"numba"``; ValueError if that one cannot load)."""
    global _chosen
    if which == REFERENCE:
        return PYTHON
    if which == COMPILED:
        with _lock:
            mod = _load_compiled()
        if mod is None:
            raise ValueError(f"The compiled kernel is unavailable: {_compiled_error}.")
        return mod
    if which is not None:
        raise ValueError(f"A kernel is 'numba' or 'python', not {which!r}.")
    if _chosen is None:
        with _lock:
            if _chosen is None:
                _chosen = _choose()
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
