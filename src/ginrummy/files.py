"""Reading a command's input file, where ``-`` means standard input (replay, verify,
review): one place, so every command reads records the same way."""

from __future__ import annotations

import sys

__all__ = ["read_input"]


def read_input(path: str) -> bytes:
    """The bytes of ``path``, or of standard input for ``-``; raises ``OSError``."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()
