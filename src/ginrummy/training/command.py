"""``ginrummy review``: the review's command (:mod:`ginrummy.review.command`) with
``--practise``, which offers the marked decisions back as puzzles (:mod:`.practise`). It
lives here, above both, so that the review imports nothing of the training built on it."""

from __future__ import annotations


def main(argv: list[str]) -> int:
    """``ginrummy review FILE [--json] [--practise] ...``: the review, then its marks as
    puzzles when asked."""
    from ..review.command import run
    from .practise import practise

    return run(argv, practise=practise)
