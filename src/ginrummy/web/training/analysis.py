"""``POST /api/analysis`` (docs/web-api.md, "Training"): every legal action of a position
set up on the analysis board, evaluated in the coach's workers by the same function as
``ginrummy analyze --position FILE --json``, so both give the same answer for the same
position, seed and samples. An impossible position is refused with one sentence (400).

A guest (no account) may ask for at most :data:`GUEST_SAMPLES` sampled deals (an
account, up to :data:`~ginrummy.training.analysis.MAX_SAMPLES`), and is answered in the
coach's guests' lane (:mod:`.coach`)."""

from __future__ import annotations

from typing import Any

from ...i18n import DEFAULT, N_, language, t, using
from ...review.said import whole
from ...training.analysis import MAX_SAMPLES, analyze_position
from ...training.position import PositionError
from ..errors import TableError
from .coach import Coach

__all__ = ["GUEST_SAMPLES", "Analysis", "analyze_or_error"]

GUEST_SAMPLES = 4096
"""The most sampled deals a guest's request may ask for (a puzzle's count; the board's
last refinement, 16,384, is for accounts)."""


def analyze_or_error(body: Any, lang: str = DEFAULT) -> dict[str, Any] | str:
    """The analysis of a position (in a worker), or the sentence refusing it, in ``lang``
    (the asker's: a worker process has no request of its own)."""
    with using(lang):
        try:
            return analyze_position(body)
        except PositionError as e:
            return str(e)


class Analysis:
    """The analysis board's evaluations (module docstring)."""

    def __init__(self, coach: Coach) -> None:
        self.coach = coach

    def admit(self, body: Any, guest: bool) -> None:
        """The cheap refusals, before anything is read or counted: 400 for a body that is
        no object, 403 for a guest asking for more than :data:`GUEST_SAMPLES` deals, 503
        while the guests' lane is full (a guests' flood costs next to nothing)."""
        if not isinstance(body, dict):
            raise TableError(400, N_("The request body must be a JSON object: a position."))
        samples = body.get("samples")
        if guest and type(samples) is int and GUEST_SAMPLES < samples <= MAX_SAMPLES:
            raise TableError(403, t("A guest's analysis is on at most {samples} deals: log in "
                                    "to ask for up to {most}.", samples=whole(GUEST_SAMPLES),
                                    most=whole(MAX_SAMPLES)))
        if guest:
            self.coach.admit(guest=True)

    async def analyze(self, body: Any, guest: bool = False) -> dict[str, Any]:
        """The answer to one request (``guest``: a request with no account); TableError
        400 with the sentence for a position that cannot be read or reached, 403 for a
        guest asking for more than :data:`GUEST_SAMPLES` deals, 503 when the coach is
        busy."""
        self.admit(body, guest)
        got = await self.coach.run(analyze_or_error, body, language(), guest=guest)
        if isinstance(got, str):
            raise TableError(400, got)
        return got
