"""``POST /api/analysis`` (docs/web-api.md, "Training"): every legal action of a position
set up on the analysis board, evaluated in the coach's workers by the same function as
``ginrummy analyze --position FILE --json``, so both give the same answer for the same
position, seed and samples. An impossible position is refused with one sentence (400)."""

from __future__ import annotations

from typing import Any

from ...training.analysis import analyze_position
from ...training.position import PositionError
from ..errors import TableError
from .coach import Coach

__all__ = ["Analysis", "analyze_or_error"]


def analyze_or_error(body: Any) -> dict[str, Any] | str:
    """The analysis of a position (in a worker), or the sentence refusing it."""
    try:
        return analyze_position(body)
    except PositionError as e:
        return str(e)


class Analysis:
    """The analysis board's evaluations (module docstring)."""

    def __init__(self, coach: Coach) -> None:
        self.coach = coach

    async def analyze(self, body: Any) -> dict[str, Any]:
        """The answer to one request; TableError 400 with the sentence for a position
        that cannot be read or reached, 503 when the coach is busy."""
        if not isinstance(body, dict):
            raise TableError(400, "The request body must be a JSON object: a position.")
        got = await self.coach.run(analyze_or_error, body)
        if isinstance(got, str):
            raise TableError(400, got)
        return got
