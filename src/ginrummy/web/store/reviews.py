"""The ``reviews`` and ``review_hints`` tables: stored game reviews, their single running
job per match (claimed with a heartbeat), and the decisions at which a hint was shown."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from sqlalchemy import Engine, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from .schema import hints_table, reviews_table

__all__ = ["ReviewStore"]


class ReviewStore:
    """The ``reviews`` and ``review_hints`` tables over an engine whose schema is at the
    migrations' head (synchronous; the web service calls it off the event loop, the review
    workers directly)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine  # the tables come from the migrations (revision 0002)

    def row(self, match_id: str) -> dict[str, Any] | None:
        """The match's review row (``parts`` parsed), or None."""
        with self.engine.connect() as conn:
            r = conn.execute(
                select(reviews_table).where(reviews_table.c.match_id == match_id)
            ).mappings().first()
        if r is None:
            return None
        out = dict(r)
        out["parts"] = json.loads(out["parts"] or "{}")
        return out

    def claim(self, match_id: str, total: int, now: float, stale_seconds: float) -> str | None:
        """Start a job for the match unless one is running (with a fresh heartbeat):
        the new job's id, or None if another job holds the match."""
        job = secrets.token_hex(8)
        with self.engine.begin() as conn:
            try:
                with conn.begin_nested():
                    conn.execute(insert(reviews_table).values(
                        match_id=match_id, status="running", job=job, started_at=now,
                        beat_at=now, done=0, total=total, parts="{}", error=None))
                return job
            except IntegrityError:
                pass
            n = conn.execute(
                update(reviews_table)
                .where(reviews_table.c.match_id == match_id)
                .where(or_(reviews_table.c.status != "running",
                           reviews_table.c.beat_at < now - stale_seconds))
                .values(status="running", job=job, started_at=now, beat_at=now, done=0,
                        total=total, error=None)
            ).rowcount
        return job if n == 1 else None

    def update_job(self, match_id: str, claim: str, **values: Any) -> bool:
        with self.engine.begin() as conn:
            n = conn.execute(
                update(reviews_table)
                .where(reviews_table.c.match_id == match_id)
                .where(reviews_table.c.job == claim)
                .values(**values)
            ).rowcount
        return bool(n == 1)

    def beat(self, match_id: str, job: str, done: int | None = None) -> bool:
        """Renew the job's heartbeat (and its progress); False if the job lost its claim."""
        values: dict[str, Any] = {"beat_at": time.time()}
        if done is not None:
            values["done"] = done
        return self.update_job(match_id, job, **values)

    def save_part(self, match_id: str, job: str, key: str, part: dict[str, Any],
                  done: int) -> bool:
        """Add one finished part (only the claim holder writes the row)."""
        with self.engine.begin() as conn:
            r = conn.execute(
                select(reviews_table.c.parts, reviews_table.c.job)
                .where(reviews_table.c.match_id == match_id)
            ).first()
            if r is None or r[1] != job:
                return False
            parts = json.loads(r[0] or "{}")
            parts[key] = part
            conn.execute(
                update(reviews_table)
                .where(reviews_table.c.match_id == match_id)
                .where(reviews_table.c.job == job)
                .values(parts=json.dumps(parts, separators=(",", ":")), done=done,
                        beat_at=time.time())
            )
        return True

    def finish(self, match_id: str, job: str, error: str | None = None) -> bool:
        """Release the claim: ``idle``, or ``failed`` with the reason."""
        return self.update_job(match_id, job, status="failed" if error else "idle",
                                job=None, error=error)

    def record_hint(self, match_id: str, hand: int, action: int, seat: int,
                    hint: dict[str, Any]) -> None:
        """Remember that ``seat`` was shown a hint at action ``action`` of hand ``hand``."""
        with self.engine.begin() as conn:
            try:
                with conn.begin_nested():
                    conn.execute(insert(hints_table).values(
                        match_id=match_id, hand=hand, action=action, seat=seat,
                        hint=json.dumps(hint), shown_at=time.time()))
            except IntegrityError:
                pass  # already recorded (the page asked twice)

    def hinted(self, match_id: str) -> dict[tuple[int, int], Any]:
        """Every hinted decision of the match, (hand, action), with the best move the hint
        gave (its action object as recorded; None where the row cannot be read)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(hints_table.c.hand, hints_table.c.action, hints_table.c.hint)
                .where(hints_table.c.match_id == match_id)
            ).all()
        out: dict[tuple[int, int], Any] = {}
        for h, a, hint in rows:
            try:
                best = json.loads(hint) if hint else None
            except ValueError:
                best = None
            out[(int(h), int(a))] = best
        return out
