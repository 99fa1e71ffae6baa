"""The exit statuses every ``ginrummy`` command shares, the line that ends each ``--help``,
and a quiet Ctrl-C for commands with worker processes.

One meaning per status, so scripts can tell the cases apart whatever the command:

- ``0`` (:data:`OK`): done as asked.
- ``1`` (:data:`REFUSED`): the input was read and refused: a record that cannot be read,
  is not JSON, is malformed or breaks the rules, a fair-deal proof that fails.
- ``2`` (:data:`USAGE`): the command line is wrong: an unknown option, a bad value, an
  unknown bot, a missing extra; nothing was done.
- ``130`` (:data:`INTERRUPTED`): stopped with Ctrl-C (128 + SIGINT, as shells report it).

The README's "Exit statuses" table says the same for each command.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = [
    "INTERRUPTED",
    "OK",
    "REFUSED",
    "USAGE",
    "epilog",
    "ignore_interrupts",
    "interrupts_to_parent",
]

OK = 0
REFUSED = 1
USAGE = 2
INTERRUPTED = 130


def epilog(ok: str, refused: str | None = None, usage: str = "a wrong command line "
           "(unknown option, bad value)", interrupted: str | None = "stopped with Ctrl-C"
           ) -> str:
    """The ``--help`` epilog listing a command's exit statuses, e.g.
    ``Exit status: 0 verified; 1 ...; 2 ...; 130 stopped with Ctrl-C.``"""
    parts = [f"0 {ok}"]
    if refused is not None:
        parts.append(f"1 {refused}")
    parts.append(f"2 {usage}")
    if interrupted is not None:
        parts.append(f"{INTERRUPTED} {interrupted}")
    return "Exit status: " + "; ".join(parts) + "."


def _ignore(_signum: int, _frame: FrameType | None) -> None:
    """A SIGINT handler that does nothing (unlike SIG_IGN, programs a worker starts still
    get the default: an ``exec:`` bot stops on Ctrl-C)."""


def ignore_interrupts() -> None:
    """For a worker process (a pool initializer): leave Ctrl-C to the parent, which ends
    the workers itself, so no worker prints a traceback."""
    signal.signal(signal.SIGINT, _ignore)


@contextmanager
def interrupts_to_parent() -> Iterator[None]:
    """While the block runs, Ctrl-C raises KeyboardInterrupt in this process only: worker
    processes forked meanwhile ignore it (their pool ends them when the parent unwinds), so
    ``--jobs 2`` stops as quietly as ``--jobs 1``. A no-op off the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    parent = os.getpid()

    def on_interrupt(_signum: int, _frame: FrameType | None) -> None:
        if os.getpid() == parent:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
