"""The one error every part of the web table raises for a refused request."""

from __future__ import annotations

from typing import Any

from ..i18n import N_, t

__all__ = ["CHANGED_ELSEWHERE", "DB_DOWN", "DB_ERROR", "TableError"]

DB_DOWN = N_("The database is not available: moves are paused until it is back.")
"""The sentence of a change refused while the database is away (503): nothing changed,
and the table goes on by itself once the database is back."""
DB_ERROR = N_("The database could not do that: nothing was changed. Try again in a "
              "moment.")
"""The sentence of a request the database failed for any other reason (503): the error
itself is logged in one line, never shown (no driver's exception name reaches a player)."""
CHANGED_ELSEWHERE = N_("The table changed elsewhere: reload the page to see it.")
"""The sentence of a change that kept meeting changes made elsewhere first (409)."""


class TableError(Exception):
    """A refused request: the HTTP status and the sentence the player sees (in English in
    ``message``; :meth:`to_json` says it in the request's language: a constant marked
    with ``N_`` is looked up then, a sentence made with ``t`` is already translated);
    409 refusals may carry the seat's current STATE so the page can catch up."""

    def __init__(self, status: int, message: str, state: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.state = state
        self.extra: dict[str, Any] = {}
        """More members of the error body (e.g. ``claimed_at``)."""

    @property
    def said(self) -> str:
        """The sentence in the language of the moment (the request's)."""
        return t(self.message)

    def to_json(self) -> dict[str, Any]:
        """The HTTP error body."""
        d: dict[str, Any] = {"error": self.said, **self.extra}
        if self.state is not None:
            d["state"] = self.state
        return d
