"""Counts in words, one place for every sentence that has a number in it: ``1 hand``,
``2 hands``; ``the one deal``, ``all 3 deals`` (never "1 hands" or "all 1 deal")."""

from __future__ import annotations

__all__ = ["every", "plural"]


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one (``many`` defaults to ``one + "s"``).

    >>> plural(1, "hand"), plural(3, "hand"), plural(0, "match", "matches")
    ('1 hand', '3 hands', '0 matches')
    """
    return f"{n} {one if n == 1 else (many or one + 's')}"


def every(n: int, one: str, many: str | None = None) -> str:
    """``all 3 deals``, or for exactly one ``the one deal``.

    >>> every(3, "deal"), every(1, "deal")
    ('all 3 deals', 'the one deal')
    """
    return f"the one {one}" if n == 1 else f"all {plural(n, one, many)}"
