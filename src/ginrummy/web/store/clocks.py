"""The clock beat: the turn clocks stand still while the database is away.

Deadlines live in the matches' rows (``matches.deadline``), so wall time passing while no
process can reach the database would run them out with nobody able to move. While any
clock runs, every process that finds the database working writes the beat (``clock_beats``,
one row: when) about twice a second, from the clocks' scan; while none runs, nothing is
written (an idle table on a laptop does not write to its disk twice a second).
:meth:`ClockStore.beat` reads the beat before writing it: when it is older than the pause
it stands for (the database was away, or no process ran at all), every running deadline is
moved on by the time it stood still, and each moved match's version bumped (so every copy
in memory re-reads its deadline), in the same transaction that writes the new beat. A
match's clock stood still since the last beat or since the match last changed, whichever
is later (a change is a write, so the database was there then): a clock started after a
long idle spell is not moved on by the idle time. On PostgreSQL the beat's row is locked
first: however many processes come back at once, the first moves the deadlines and the
others find a fresh beat and move nothing.
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
        """Write the beat (``now``) if any clock runs; first, if the beat is older than
        ``pause_after`` seconds, move each running deadline on by the time its clock stood
        still (from the later of the last beat and the match's last change) where that is
        longer than ``pause_after``. Returns the moved matches with their new versions."""
        b, m = clock_beats_table, matches_table
        running = (m.c.deadline.is_not(None), m.c.status == "playing")
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
            since = float(last)
            moved: list[tuple[str, int]] = []
            if now - since > pause_after:
                rows = conn.execute(select(m.c.id, m.c.updated_at).where(*running)).all()
                if not rows:
                    return []  # no clock runs: nothing to move, nothing to write
                stood = [str(mid) for mid, changed in rows if float(changed) <= since]
                if stood:  # (most) stood still since the last beat: one update
                    conn.execute(update(m).where(m.c.id.in_(stood)).where(*running).values(
                        deadline=m.c.deadline + (now - since), version=m.c.version + 1))
                for mid, changed in rows:  # changed after it: each from its change
                    gap = now - float(changed)
                    if float(changed) > since and gap > pause_after:
                        conn.execute(update(m).where(m.c.id == mid).where(*running).values(
                            deadline=m.c.deadline + gap, version=m.c.version + 1))
                        stood.append(str(mid))
                if stood:
                    moved = [(str(r[0]), int(r[1])) for r in conn.execute(
                        select(m.c.id, m.c.version).where(m.c.id.in_(stood))).all()]
            elif conn.execute(select(m.c.id).where(*running).limit(1)).first() is None:
                return []  # no clock runs: the beat is not written
            if now > since:
                conn.execute(update(b).where(b.c.id == BEAT_ID).values(at=now))
        return moved
