"""The clock beat: the turn clocks stand still while the database is away.

Deadlines live in the matches' rows (``matches.deadline``), so wall time passing while no
process can reach the database would run them out with nobody able to move. Every process
that finds the database working writes the beat (``clock_beats``, one row: when) about
twice a second, from the clocks' scan. :meth:`ClockStore.beat` reads the beat before
writing it: when it is older than the pause it stands for (the database was away, or no
process ran at all), every running deadline is moved on by the gap, and each moved match's
version bumped (so every copy in memory re-reads its deadline), in the same transaction
that writes the new beat. On PostgreSQL the beat's row is locked first: however many
processes come back at once, the first moves the deadlines and the others find a fresh
beat and move nothing.
"""

from __future__ import annotations

from sqlalchemy import Engine, select, update
from sqlalchemy.dialects import postgresql, sqlite

from .schema import clock_beats_table, matches_table

__all__ = ["ClockStore"]

BEAT_ID = 1
"""The beat's one row."""


class ClockStore:
    """The clock beat (synchronous; the web layer runs it off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"

    def beat(self, now: float, pause_after: float) -> list[tuple[str, int]]:
        """Write the beat (``now``); if the last one is older than ``pause_after``
        seconds, first move every running deadline on by the gap. Returns the moved
        matches with their new versions."""
        b, m = clock_beats_table, matches_table
        with self.engine.begin() as conn:
            q = select(b.c.at).where(b.c.id == BEAT_ID)
            if not self.is_sqlite:
                q = q.with_for_update()
            last = conn.execute(q).scalar()
            if last is None:  # the first beat of this database (two may race: one wins)
                dialect = sqlite if self.is_sqlite else postgresql
                conn.execute(dialect.insert(b).values(id=BEAT_ID, at=now)
                             .on_conflict_do_nothing())
                return []
            gap = now - float(last)
            moved: list[tuple[str, int]] = []
            if gap > pause_after:
                running = (m.c.deadline.is_not(None), m.c.status == "playing")
                ids = [str(r[0]) for r in conn.execute(select(m.c.id).where(*running)).all()]
                if ids:
                    conn.execute(update(m).where(m.c.id.in_(ids)).where(*running).values(
                        deadline=m.c.deadline + gap, version=m.c.version + 1))
                    moved = [(str(r[0]), int(r[1])) for r in conn.execute(
                        select(m.c.id, m.c.version).where(m.c.id.in_(ids))).all()]
            if gap > 0:
                conn.execute(update(b).where(b.c.id == BEAT_ID).values(at=now))
        return moved
