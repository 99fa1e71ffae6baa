"""The daily deal's tables: each UTC day's seed (made once, kept secret until the day is
over) and each account's one play a day.

A day's seed row is inserted by the first process that needs it; a second insert of the
same day fails on the key and reads the first one's, so every process deals the same
day's deals. The seed and salt are kept encrypted with the seed key (bound to the day),
like a match's. An account's play is claimed before its match is made (an insert keyed
by day and account: one play however many requests race); a claim whose process died
before naming its match may be claimed again after :data:`CLAIM_SECONDS`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from sqlalchemy import Engine, and_, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from .engine import StoreError
from .schema import accounts_table, daily_plays_table, daily_seeds_table, matches_table
from .seeds import SeedCipher

__all__ = ["CLAIM_SECONDS", "DailyResult", "DailySeed", "DailyStore"]

CLAIM_SECONDS = 60.0
"""How long a claimed play waits for its match before it may be claimed again."""


@dataclass(frozen=True, slots=True)
class DailySeed:
    """A day's secret seed and salt, its public commitment and its first dealer."""

    day: str
    seed: int
    salt: str
    commitment: str
    first_dealer: int


@dataclass(frozen=True, slots=True)
class DailyResult:
    """An account's daily match and how it stands."""

    username: str
    bot: bool
    match_id: str
    status: str
    scores: tuple[int, int]
    end: str | None
    updated_at: float


class DailyStore:
    """The daily deal (synchronous; the web layer runs these off the event loop)."""

    def __init__(self, engine: Engine, cipher: SeedCipher | None) -> None:
        self.engine = engine
        self.cipher = cipher

    def _seal(self, day: str, seed: int, salt: str) -> str:
        plain = json.dumps({"seed": seed, "salt": salt})
        if self.cipher is None:
            return "plain:" + plain
        return self.cipher.encrypt_text(plain, f"daily:{day}")

    def _open(self, day: str, secret: str) -> tuple[int, str]:
        if secret.startswith("plain:"):
            plain = secret.removeprefix("plain:")
        elif self.cipher is None:
            raise StoreError("This database's daily seeds are encrypted: the seed key is "
                             "needed.")
        else:
            try:
                plain = self.cipher.decrypt_text(secret, f"daily:{day}")
            except ValueError as e:
                raise StoreError(f"Cannot read the daily seed of {day}: {e}.") from None
        obj = json.loads(plain)
        return int(obj["seed"]), str(obj["salt"])

    def seed(self, day: str) -> DailySeed | None:
        """The day's seed (None: none was made for that day)."""
        s = daily_seeds_table
        with self.engine.connect() as conn:
            r = conn.execute(select(s).where(s.c.day == day)).first()
        if r is None:
            return None
        seed, salt = self._open(day, str(r.secret))
        return DailySeed(day, seed, salt, str(r.commitment), int(r.first_dealer))

    def make_seed(self, made: DailySeed) -> DailySeed:
        """Store ``made`` as its day's seed unless that day has one already; the day's
        seed as stored (``made``, or the one another process stored first)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(daily_seeds_table).values(
                    day=made.day, secret=self._seal(made.day, made.seed, made.salt),
                    commitment=made.commitment, first_dealer=made.first_dealer,
                    created_at=time.time()))
        except IntegrityError:
            pass  # another process made the day's seed first: it is the one
        stored = self.seed(made.day)
        if stored is None:
            raise StoreError(f"The daily seed of {made.day} could not be stored.")
        return stored

    def claim(self, day: str, account_id: str, now: float) -> bool:
        """Claim the account's play of the day: True once (a claim left without its
        match for :data:`CLAIM_SECONDS` may be claimed again)."""
        p = daily_plays_table
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(p).values(day=day, account_id=account_id,
                                              started_at=now))
            return True
        except IntegrityError:
            pass
        with self.engine.begin() as conn:
            return conn.execute(
                update(p).where(p.c.day == day).where(p.c.account_id == account_id)
                .where(p.c.match_id.is_(None)).where(p.c.started_at < now - CLAIM_SECONDS)
                .values(started_at=now)).rowcount == 1

    def unclaim(self, day: str, account_id: str) -> None:
        """Give up a claim whose match could not be made (the account may play later)."""
        p = daily_plays_table
        with self.engine.begin() as conn:
            conn.execute(delete(p).where(p.c.day == day).where(p.c.account_id == account_id)
                         .where(p.c.match_id.is_(None)))

    def started(self, day: str, account_id: str, match_id: str) -> None:
        """Name the claimed play's match."""
        p = daily_plays_table
        with self.engine.begin() as conn:
            conn.execute(update(p).where(p.c.day == day).where(p.c.account_id == account_id)
                         .values(match_id=match_id))

    def play_of(self, day: str, account_id: str) -> str | None:
        """The account's daily match of that day (None: not played, or being made)."""
        p = daily_plays_table
        with self.engine.connect() as conn:
            r = conn.execute(select(p.c.match_id).where(p.c.day == day)
                             .where(p.c.account_id == account_id)).first()
        return str(r[0]) if r is not None and r[0] is not None else None

    def day_of(self, match_id: str) -> str | None:
        """The day of a daily match (None: not a daily match)."""
        p = daily_plays_table
        with self.engine.connect() as conn:
            r = conn.execute(select(p.c.day).where(p.c.match_id == match_id)).first()
        return str(r[0]) if r is not None else None

    def results(self, day: str) -> list[DailyResult]:
        """Every daily match of the day that has finished, with its player's name."""
        p, a, m = daily_plays_table, accounts_table, matches_table
        q = (select(a.c.username, a.c.bot, p.c.match_id, m.c.status, m.c.score0, m.c.score1,
                    m.c.end_reason, m.c.updated_at)
             .join(a, a.c.id == p.c.account_id).join(m, m.c.id == p.c.match_id)
             .where(and_(p.c.day == day, m.c.status == "finished")))
        with self.engine.connect() as conn:
            return [DailyResult(str(r.username), bool(r.bot), str(r.match_id), str(r.status),
                                (int(r.score0), int(r.score1)), r.end_reason,
                                float(r.updated_at))
                    for r in conn.execute(q).all()]

    def counts(self, day: str) -> int:
        """How many accounts have started the day's deal."""
        p = daily_plays_table
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(p)
                                    .where(p.c.day == day)).scalar() or 0)
