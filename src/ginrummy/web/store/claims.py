"""The ``turn_claims`` table: who drives a computer turn while the broker is away.

With a broker, computer-turn leases are Redis keys with an expiry. When the broker cannot
be reached, processes fall back to these rows: a claim is taken when the match has none or
its holder let it expire, renewed by its holder, and given back when the turn is played.
The version check of every commit still decides if two processes ever race.
"""

from __future__ import annotations

import time

from sqlalchemy import Engine, delete, insert, update
from sqlalchemy.exc import IntegrityError

from .schema import claims_table

__all__ = ["ClaimStore"]


class ClaimStore:
    """Expiring claims on matches' computer turns (synchronous)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def acquire(self, match_id: str, holder: str, ttl: float) -> bool:
        """Take (or keep) the claim on ``match_id`` for ``ttl`` seconds: True when it is
        now ``holder``'s (it was free, expired, or already its own)."""
        now = time.time()
        t = claims_table
        with self.engine.begin() as conn:
            try:
                with conn.begin_nested():
                    conn.execute(insert(t).values(match_id=match_id, holder=holder,
                                                  expires_at=now + ttl))
                return True
            except IntegrityError:
                pass
            n = conn.execute(
                update(t)
                .where(t.c.match_id == match_id)
                .where((t.c.expires_at < now) | (t.c.holder == holder))
                .values(holder=holder, expires_at=now + ttl)
            ).rowcount
        return bool(n == 1)

    def release(self, match_id: str, holder: str) -> None:
        """Give the claim back (only if ``holder`` still has it)."""
        t = claims_table
        with self.engine.begin() as conn:
            conn.execute(delete(t).where(t.c.match_id == match_id).where(t.c.holder == holder))
