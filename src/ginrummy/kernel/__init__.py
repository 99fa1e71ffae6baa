"""One mask-level kernel of a hand, shared by everything that must run the rules fast.

A hand's steps and settlement on card masks (draw, discard, knock, showdown with lay-offs,
undercut, gin, dead hand: R3-R9), the play-out policy, the belief's sampler and the
evaluator's batch live here once, in two builds that give identical results:

* :mod:`.reference`, plain Python on the core's meld solver: the definition, always
  available;
* :mod:`.compiled`, the same steps compiled with numba (the ``fast`` extra): about
  thirty times the speed and more (``ginrummy bench --only kernel``).

:func:`backend` returns the build in use, chosen on first use: the compiled one when numba
imports and compiles, else the reference with one warning line on standard error. The
environment variable ``GINRUMMY_KERNEL=python`` forces the reference (``numba`` insists
on the compiled one, still falling back with the warning if it cannot load). The core
(:mod:`ginrummy.cards` .. :mod:`ginrummy.record`) never imports this package.

>>> name() in ("numba", "python")
True
>>> backend(REFERENCE).__name__
'ginrummy.kernel.reference'
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING

from . import reference, spec

if TYPE_CHECKING:
    from ..actions import Action

__all__ = ["COMPILED", "REFERENCE", "action_code", "backend", "name", "use"]

REFERENCE = "python"
"""The name of the plain-Python build."""
COMPILED = "numba"
"""The name of the compiled build."""

_lock = threading.Lock()
_chosen: tuple[ModuleType, str] | None = None
_compiled: ModuleType | None = None
_compiled_error: str | None = None


def _warn(message: str) -> None:
    sys.stderr.write(f"ginrummy: {message}\n")
    sys.stderr.flush()


def _load_compiled() -> ModuleType | None:
    """The compiled build, warmed up (compiled, or loaded from numba's disk cache), or
    None with the reason kept in ``_compiled_error``."""
    global _compiled, _compiled_error
    if _compiled is not None or _compiled_error is not None:
        return _compiled
    try:
        from . import compiled

        compiled.warm_up()
    except Exception as e:  # numba missing, too old, or unable to compile here
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        _compiled_error = reason[:200]
        return None
    _compiled = compiled
    return compiled


def _choose() -> tuple[ModuleType, str]:
    want = os.environ.get("GINRUMMY_KERNEL", "").strip().lower()
    if want == REFERENCE:
        return reference, REFERENCE
    if want not in ("", "auto", COMPILED):
        _warn(f"GINRUMMY_KERNEL={want!r} is not 'numba' or 'python'; choosing as usual.")
    mod = _load_compiled()
    if mod is None:
        _warn(f"the compiled kernel is unavailable ({_compiled_error}); using the "
              "pure-Python kernel, which is slower (pip install 'ginrummy[fast]').")
        return reference, REFERENCE
    return mod, COMPILED


def backend(which: str | None = None) -> ModuleType:
    """The kernel build in use (chosen once per process), or the one named ``which``
    (``"python"`` or ``"numba"``; ValueError if that one cannot load)."""
    global _chosen
    if which == REFERENCE:
        return reference
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
def use(which: str) -> Iterator[ModuleType]:
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
