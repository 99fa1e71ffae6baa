"""Finished public matches a page at a time: a player's, newest first (the statements of
``GET /api/games/user/{username}``: :mod:`ginrummy.web.records.games`), and a month's,
oldest first (``ginrummy export``: :mod:`ginrummy.web.commands.export`)."""

from __future__ import annotations

from sqlalchemy import Engine, and_, or_, select

from .schema import account_matches_table, matches_table

__all__ = ["GameStore"]


class GameStore:
    """Reads of finished public matches, by player or by time (synchronous; run off the
    event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def finished_public(self, account_id: str, before: tuple[float, str] | None,
                        since: float | None, until: float | None, rated: bool | None,
                        limit: int) -> list[tuple[str, float]]:
        """(match id, end time) of the account's finished public matches (an aborted match
        is no game: left out), newest first,
        strictly older than ``before`` (end time, id: the last of the page before) and
        ended at ``since`` or later and before ``until`` (Unix seconds); only rated (or
        only casual) ones when ``rated`` says so. A page of at most ``limit``: the caller
        reads page after page, so nothing holds them all at once."""
        t, m = account_matches_table, matches_table
        q = (select(t.c.match_id, m.c.updated_at).join(m, m.c.id == t.c.match_id)
             .where(or_(t.c.account0 == account_id, t.c.account1 == account_id))
             .where(t.c.public.is_(True)).where(m.c.status == "finished")
             .where(or_(m.c.end_reason.is_(None), m.c.end_reason != "aborted")))
        if rated is not None:
            q = q.where(t.c.rated.is_(rated))
        if since is not None:
            q = q.where(m.c.updated_at >= since)
        if until is not None:
            q = q.where(m.c.updated_at < until)
        if before is not None:
            at, mid = before
            q = q.where(or_(m.c.updated_at < at,
                            and_(m.c.updated_at == at, t.c.match_id < mid)))
        q = q.order_by(m.c.updated_at.desc(), t.c.match_id.desc()).limit(limit)
        with self.engine.connect() as conn:
            return [(str(r[0]), float(r[1])) for r in conn.execute(q).all()]

    def finished_public_between(self, start: float, end: float,
                                after: tuple[float, str] | None, limit: int
                                ) -> list[tuple[str, float]]:
        """(match id, end time) of every finished public match (any players; an aborted
        match is no game: left out) that ended at ``start`` or later and before ``end``
        (Unix seconds), oldest first, strictly after ``after`` (end time, id: the last of
        the page before); a page of at most ``limit``: how ``ginrummy export`` reads a
        month, page after page, never all of it at once."""
        t, m = account_matches_table, matches_table
        q = (select(t.c.match_id, m.c.updated_at).join(m, m.c.id == t.c.match_id)
             .where(t.c.public.is_(True)).where(m.c.status == "finished")
             .where(or_(m.c.end_reason.is_(None), m.c.end_reason != "aborted"))
             .where(m.c.updated_at >= start).where(m.c.updated_at < end))
        if after is not None:
            at, mid = after
            q = q.where(or_(m.c.updated_at > at,
                            and_(m.c.updated_at == at, t.c.match_id > mid)))
        q = q.order_by(m.c.updated_at, t.c.match_id).limit(limit)
        with self.engine.connect() as conn:
            return [(str(r[0]), float(r[1])) for r in conn.execute(q).all()]
