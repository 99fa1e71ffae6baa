"""The ``rematches`` table: a finished match's "Play again" and whether it was accepted."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from .schema import rematches_table

__all__ = ["RematchLink", "RematchStore"]


@dataclass(frozen=True, slots=True)
class RematchLink:
    """A finished match's rematch: the new match, the old seat that asked, and whether
    the other player has still to accept (between friends; a computer's starts at once)."""

    new_id: str
    offered_by: int
    pending: bool


class RematchStore:
    """Rematch links, one per finished match (synchronous, like :class:`~.matches.Store`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, old_id: str) -> RematchLink | None:
        """The rematch of ``old_id``, if one was asked for."""
        t = rematches_table
        with self.engine.connect() as conn:
            row = conn.execute(select(t).where(t.c.old_id == old_id)).first()
        if row is None:
            return None
        # rows written by older versions: pending while their (plain) invite was unused
        pending = bool(row.pending) if row.pending is not None else row.invite is not None
        return RematchLink(str(row.new_id), int(row.offered_by), pending)

    def offer(self, old_id: str, link: RematchLink) -> bool:
        """Record the rematch of ``old_id``; False (nothing stored) when the other player
        asked first."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(rematches_table).values(
                    old_id=old_id, new_id=link.new_id, offered_by=str(link.offered_by),
                    invite=None, pending=link.pending))
        except IntegrityError:
            return False
        return True

    def accept(self, old_id: str) -> None:
        """Mark the rematch of ``old_id`` accepted."""
        t = rematches_table
        with self.engine.begin() as conn:
            conn.execute(update(t).where(t.c.old_id == old_id).values(pending=False,
                                                                      invite=None))
