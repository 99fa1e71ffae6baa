"""The ``challenges`` table: challenges to a player and open links, accepted once.

A challenge is ``open`` until it is answered. Accepting takes it first (``taking``, by a
conditional update, so on PostgreSQL as on SQLite exactly one acceptor wins however many
try at once, its name kept in ``taken_by``), then marks it ``accepted`` with its match once
that exists, only if the take is still its own; a taker that died or stalled before that
leaves it open again after :data:`TAKE_SECONDS`, and a stalled one that wakes up finds it
taken by another and gives its match up. Declining and
cancelling are conditional updates of an open challenge too. An open challenge past its
``expires_at`` has expired (it is never accepted); :meth:`ChallengeStore.sweep` deletes
what is long over.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, func, insert, or_, select, update

from .schema import accounts_table, challenges_table

__all__ = ["TAKE_SECONDS", "ChallengeRow", "ChallengeStore"]

TAKE_SECONDS = 15.0
"""How long a challenge being accepted waits for its taker before it is open again."""


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    """One stored challenge."""

    id: str
    from_account: str | None
    from_name: str
    to_account: str | None
    options: dict[str, Any]
    rated: bool
    status: str
    created_at: float
    expires_at: float
    seat_token_hash: str
    seat_token_enc: str
    reason: str | None = None
    answered_at: float | None = None
    accepted_by: str | None = None
    match_id: str | None = None
    address_hash: str | None = None
    """The challenger's address, hashed (None: before revision 0010): an acceptor from
    the same address makes a rated result move little."""

    def state(self, now: float) -> str:
        """``open``, ``accepted``, ``declined``, ``cancelled`` or ``expired`` (a taking
        challenge reads as open: its taker either makes the match or lets it go)."""
        if self.status in ("open", "taking"):
            return "expired" if self.expires_at <= now else "open"
        return self.status


def _row(r: Any) -> ChallengeRow:
    m = r._mapping
    return ChallengeRow(str(m["id"]), m["from_account"], str(m["from_name"]), m["to_account"],
                        json.loads(m["options"]), bool(m["rated"]), str(m["status"]),
                        float(m["created_at"]), float(m["expires_at"]),
                        str(m["seat_token_hash"]), str(m["seat_token_enc"]), m["reason"],
                        m["answered_at"], m["accepted_by"], m["match_id"],
                        m.get("address_hash"))


def _open(now: float) -> Any:
    """A challenge that can still be accepted: open and unexpired, or taken by a process
    that never finished accepting it."""
    c = challenges_table
    return and_(c.c.expires_at > now, or_(
        c.c.status == "open",
        and_(c.c.status == "taking", c.c.taken_at < now - TAKE_SECONDS)))


class ChallengeStore:
    """Challenges (synchronous; the web layer runs these off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"

    def add(self, row: ChallengeRow, most: int, most_in: int | None = None,
            pair_per_minute: int | None = None) -> str | None:
        """Store a new open challenge; None, or why it was not stored: ``"limit"`` (its
        account already has ``most`` open challenges), ``"again"`` (it already has an
        open challenge to the same player), ``"crowded"`` (the challenged player already
        has ``most_in`` open challenges, from everyone together) or ``"often"`` (this
        challenger made ``pair_per_minute`` challenges to this player in the last minute,
        cancelled ones too). Guests' open links are not counted here."""
        c = challenges_table
        now = time.time()
        with self.engine.begin() as conn:
            if row.from_account is not None:
                if not self.is_sqlite:  # one maker's (and one target's) counted at a time
                    ids = sorted({row.from_account, row.to_account or row.from_account})
                    conn.execute(select(accounts_table.c.id)  # in one order: no deadlock
                                 .where(accounts_table.c.id.in_(ids))
                                 .order_by(accounts_table.c.id).with_for_update())
                mine = and_(c.c.from_account == row.from_account, _open(now))
                n = conn.execute(select(func.count()).select_from(c).where(mine)).scalar()
                if int(n or 0) >= most:
                    return "limit"
                if row.to_account is not None and conn.execute(
                        select(c.c.id).where(mine).where(c.c.to_account == row.to_account)
                ).first() is not None:
                    return "again"
                if row.to_account is not None and (
                        why := self._crowded(conn, row, now, most_in, pair_per_minute)):
                    return why
            self._insert(conn, row)
        return None

    @staticmethod
    def _crowded(conn: Connection, row: ChallengeRow, now: float, most_in: int | None,
                 pair_per_minute: int | None) -> str | None:
        """``"crowded"``, ``"often"`` or None for a challenge to a player (see :meth:`add`):
        no crowd of challengers, nor one challenger's create-and-cancel loop, floods a
        player's notices."""
        c = challenges_table
        if most_in is not None:
            n = conn.execute(select(func.count()).select_from(c).where(
                c.c.to_account == row.to_account).where(_open(now))).scalar()
            if int(n or 0) >= most_in:
                return "crowded"
        if pair_per_minute is not None:
            n = conn.execute(select(func.count()).select_from(c).where(
                c.c.to_account == row.to_account).where(
                c.c.from_account == row.from_account).where(
                c.c.created_at > now - 60.0)).scalar()
            if int(n or 0) >= pair_per_minute:
                return "often"
        return None

    def record(self, row: ChallengeRow) -> None:
        """Store a challenge already answered (one a computer level accepted at once)."""
        with self.engine.begin() as conn:
            self._insert(conn, row)

    @staticmethod
    def _insert(conn: Connection, row: ChallengeRow) -> None:
        c = challenges_table
        conn.execute(insert(c).values(
            id=row.id, from_account=row.from_account, from_name=row.from_name,
            to_account=row.to_account, options=json.dumps(row.options, sort_keys=True),
            rated=row.rated, status=row.status, reason=row.reason,
            created_at=row.created_at, expires_at=row.expires_at,
            answered_at=row.answered_at, accepted_by=row.accepted_by,
            match_id=row.match_id, seat_token_hash=row.seat_token_hash,
            seat_token_enc=row.seat_token_enc, address_hash=row.address_hash))

    def get(self, challenge_id: str) -> ChallengeRow | None:
        """The challenge, whatever its state (None: no such challenge, or swept)."""
        c = challenges_table
        with self.engine.connect() as conn:
            r = conn.execute(select(c).where(c.c.id == challenge_id)).first()
        return _row(r) if r is not None else None

    def lists(self, account_id: str, keep: float, limit: int = 50
              ) -> tuple[list[ChallengeRow], list[ChallengeRow]]:
        """(challenges to the account still open, the account's own challenges: open ones
        and those answered or expired within the last ``keep`` seconds), newest first."""
        c = challenges_table
        now = time.time()
        q_in = (select(c).where(c.c.to_account == account_id).where(_open(now))
                .order_by(c.c.created_at.desc()).limit(limit))
        recent = or_(and_(c.c.status.in_(("open", "taking")), c.c.expires_at > now - keep),
                     c.c.answered_at > now - keep)
        q_out = (select(c).where(c.c.from_account == account_id).where(recent)
                 .order_by(c.c.created_at.desc()).limit(limit))
        with self.engine.connect() as conn:
            return ([_row(r) for r in conn.execute(q_in).all()],
                    [_row(r) for r in conn.execute(q_out).all()])

    def take(self, challenge_id: str, taken_by: str = "") -> bool:
        """Take an open challenge to accept it (``taken_by``: this acceptance's name,
        which :meth:`accepted` checks); False when it is not open (any more)."""
        c = challenges_table
        now = time.time()
        with self.engine.begin() as conn:
            n = conn.execute(update(c).where(c.c.id == challenge_id).where(_open(now))
                             .values(status="taking", taken_at=now,
                                     taken_by=taken_by or None)).rowcount
        return n == 1

    @staticmethod
    def _mine(taken_by: str) -> Any:
        """The challenge is being taken by this acceptance."""
        c = challenges_table
        return and_(c.c.status == "taking",
                    c.c.taken_by == taken_by if taken_by else c.c.taken_by.is_(None))

    def release(self, challenge_id: str, taken_by: str = "") -> None:
        """Put a challenge this acceptance took back to open (making its match failed)."""
        c = challenges_table
        with self.engine.begin() as conn:
            conn.execute(update(c).where(c.c.id == challenge_id).where(self._mine(taken_by))
                         .values(status="open", taken_at=None, taken_by=None))

    def accepted(self, challenge_id: str, match_id: str, by: str | None,
                 taken_by: str = "") -> bool:
        """Mark a taken challenge accepted, with its match and acceptor (None: a guest),
        only while the take is still this acceptance's (``taken_by``): False when another
        took it since (this one stalled past :data:`TAKE_SECONDS`), and the match made
        for it must be given up."""
        c = challenges_table
        with self.engine.begin() as conn:
            n = conn.execute(update(c).where(c.c.id == challenge_id)
                             .where(self._mine(taken_by)).values(
                status="accepted", match_id=match_id, accepted_by=by,
                answered_at=time.time())).rowcount
        return n == 1

    def answer(self, challenge_id: str, status: str, reason: str | None) -> bool:
        """Decline or cancel (``status``) an open, unexpired challenge; False when it is
        not open any more."""
        c = challenges_table
        now = time.time()
        with self.engine.begin() as conn:
            n = conn.execute(update(c).where(c.c.id == challenge_id)
                             .where(c.c.status == "open").where(c.c.expires_at > now)
                             .values(status=status, reason=reason, answered_at=now)).rowcount
        return n == 1

    def sweep(self, keep: float) -> int:
        """Delete challenges over (answered or expired) for more than ``keep`` seconds;
        how many."""
        c = challenges_table
        before = time.time() - keep
        with self.engine.begin() as conn:
            return int(conn.execute(delete(c).where(or_(
                c.c.answered_at < before,
                and_(c.c.status.in_(("open", "taking")), c.c.expires_at < before)))).rowcount)
