"""Argument types the commands share (``argparse``'s ``type=``): a wrong value is one
line naming the option, as argparse reports it, never a traceback.

>>> positive_int("12"), whole_int("0")
(12, 0)
>>> positive_int("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be a positive whole number, not '0'
"""

from __future__ import annotations

import argparse

__all__ = ["positive_int", "whole_int"]


def positive_int(text: str) -> int:
    """A whole number from 1 (counts: matches, samples, jobs, limits)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {text!r}")
    return value


def whole_int(text: str) -> int:
    """A whole number from 0 (seeds, counts that may be none)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0, not {text!r}")
    return value


def add_table_options(p: argparse.ArgumentParser) -> None:
    """The table options every command that plays takes: ``--target``, ``--gin-only`` and
    ``--oklahoma`` (docs/rules.md; ``Options`` checks their values)."""
    p.add_argument("--target", type=int, default=100,
                   help="target score: 100/150/200/250 (default 100)")
    p.add_argument("--gin-only", action="store_true",
                   help="gin only: no knocking, a hand ends only with gin")
    p.add_argument("--oklahoma", action="store_true",
                   help="Oklahoma: the up-card sets the knock limit (an ace: gin only)")
