"""The one error every part of the web table raises for a refused request."""

from __future__ import annotations

from typing import Any

__all__ = ["DB_DOWN", "DB_ERROR", "TableError"]

DB_DOWN = "The database is not available: moves are paused until it is back."
"""The sentence of a change refused while the database is away (503): nothing changed,
and the table goes on by itself once the database is back."""
DB_ERROR = "The database could not do that: nothing was changed. Try again in a moment."
"""The sentence of a request the database failed for any other reason (503): the error
itself is logged in one line, never shown (no driver's exception name reaches a player)."""


class TableError(Exception):
    """A refused request: the HTTP status and the sentence the player sees; 409 refusals
    may carry the seat's current STATE so the page can catch up."""

    def __init__(self, status: int, message: str, state: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.state = state
        self.extra: dict[str, Any] = {}
        """More members of the error body (e.g. ``claimed_at``)."""

    def to_json(self) -> dict[str, Any]:
        """The HTTP error body."""
        d: dict[str, Any] = {"error": self.message, **self.extra}
        if self.state is not None:
            d["state"] = self.state
        return d
