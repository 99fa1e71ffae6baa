"""Who an account is beyond its password: its API tokens, whether it is a BOT, whether it
is closed, the site's computer levels as BOT accounts, and the matches it is playing (the
statements of :mod:`ginrummy.web.accounts.tokens` and :mod:`ginrummy.web.online.ladder`).

A token is stored as its SHA-256 only; revoking it keeps the row (``revoked_at``), so its
holder can be told it was revoked rather than that it never existed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ...ratings import Rating
from .accounts import Account, _account
from .schema import (
    account_matches_table,
    accounts_table,
    api_tokens_table,
    challenges_table,
    matches_table,
    sessions_table,
)

__all__ = ["TokenRow", "TokenStore"]


@dataclass(frozen=True, slots=True)
class TokenRow:
    """One API token as listed (never the token itself)."""

    id: str
    account_id: str
    name: str
    created_at: float
    last_used: float | None
    revoked_at: float | None


def _token(r: Any) -> TokenRow:
    m = r._mapping
    return TokenRow(str(m["id"]), str(m["account_id"]), str(m["name"]), float(m["created_at"]),
                    m["last_used"], m["revoked_at"])


class TokenStore:
    """API tokens, BOT flags, closing, the levels' accounts (synchronous; the web layer
    runs these off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ tokens

    def add(self, token_id: str, account_id: str, token_hash: str, name: str,
            most: int) -> bool:
        """Store a new token of ``account_id`` unless it already has ``most`` live ones
        (False: nothing stored)."""
        t = api_tokens_table
        with self.engine.begin() as conn:
            live = conn.execute(select(func.count()).select_from(t)
                                .where(t.c.account_id == account_id)
                                .where(t.c.revoked_at.is_(None))).scalar() or 0
            if live >= most:
                return False
            conn.execute(insert(t).values(id=token_id, account_id=account_id,
                                          token_hash=token_hash, name=name,
                                          created_at=time.time()))
        return True

    def by_hash(self, token_hash: str) -> tuple[TokenRow, Account] | None:
        """The token with this hash and its account (revoked or not), else None."""
        t, a = api_tokens_table, accounts_table
        q = (select(a, t.c.id.label("t_id"), t.c.name.label("t_name"),
                    t.c.created_at.label("t_created"), t.c.last_used.label("t_used"),
                    t.c.revoked_at.label("t_revoked"))
             .join(a, a.c.id == t.c.account_id).where(t.c.token_hash == token_hash))
        with self.engine.connect() as conn:
            r = conn.execute(q).first()
        if r is None:
            return None
        m = r._mapping
        row = TokenRow(str(m["t_id"]), str(m["id"]), str(m["t_name"]), float(m["t_created"]),
                       m["t_used"], m["t_revoked"])
        return row, _account(r)

    def used(self, token_id: str, at: float) -> None:
        """Note when a token was last used."""
        t = api_tokens_table
        with self.engine.begin() as conn:
            conn.execute(update(t).where(t.c.id == token_id).values(last_used=at))

    def live(self, account_id: str) -> list[TokenRow]:
        """The account's live tokens, newest first."""
        t = api_tokens_table
        q = (select(t).where(t.c.account_id == account_id).where(t.c.revoked_at.is_(None))
             .order_by(t.c.created_at.desc()))
        with self.engine.connect() as conn:
            return [_token(r) for r in conn.execute(q).all()]

    def revoke(self, account_id: str, token_id: str) -> bool:
        """Revoke one live token of the account; False when it has no such token."""
        t = api_tokens_table
        with self.engine.begin() as conn:
            n = conn.execute(update(t).where(t.c.id == token_id)
                             .where(t.c.account_id == account_id)
                             .where(t.c.revoked_at.is_(None))
                             .values(revoked_at=time.time())).rowcount
        return n == 1

    def revoked_among(self, token_ids: list[str]) -> list[str]:
        """Those of these tokens that are revoked (or whose account is closed)."""
        if not token_ids:
            return []
        t, a = api_tokens_table, accounts_table
        q = (select(t.c.id).join(a, a.c.id == t.c.account_id)
             .where(t.c.id.in_(sorted(set(token_ids))))
             .where(or_(t.c.revoked_at.is_not(None), a.c.closed_at.is_not(None))))
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    # ------------------------------------------------------------------ accounts

    def set_program(self, account_id: str) -> None:
        """Mark an account a program player (it has played through an API token): from
        now on it is paired like a BOT."""
        a = accounts_table
        with self.engine.begin() as conn:
            conn.execute(update(a).where(a.c.id == account_id)
                         .where(or_(a.c.program.is_(None), a.c.program.is_(False)))
                         .values(program=True))

    def set_bot(self, account_id: str) -> None:
        """Make an account a BOT account."""
        a = accounts_table
        with self.engine.begin() as conn:
            conn.execute(update(a).where(a.c.id == account_id).values(bot=True))

    def delete_account(self, account_id: str) -> None:
        """Remove an account made a moment ago that could not be completed (no match,
        no rating yet): its sessions first, then the row."""
        with self.engine.begin() as conn:
            conn.execute(delete(sessions_table)
                         .where(sessions_table.c.account_id == account_id))
            conn.execute(delete(accounts_table).where(accounts_table.c.id == account_id))

    def close_account(self, key: str) -> str | None:
        """Close the account with this folded username: it can no longer log in or act
        (its sessions end, its tokens are revoked, its open challenges cancelled). Its id,
        or None when there is no open account of that name."""
        a, t, c = accounts_table, api_tokens_table, challenges_table
        now = time.time()
        with self.engine.begin() as conn:
            row = conn.execute(select(a.c.id).where(a.c.username_key == key)
                               .where(a.c.closed_at.is_(None))).first()
            if row is None:
                return None
            account_id = str(row[0])
            conn.execute(update(a).where(a.c.id == account_id).values(closed_at=now))
            conn.execute(delete(sessions_table)
                         .where(sessions_table.c.account_id == account_id))
            conn.execute(update(t).where(t.c.account_id == account_id)
                         .where(t.c.revoked_at.is_(None)).values(revoked_at=now))
            conn.execute(update(c).where(c.c.status == "open")
                         .where(or_(c.c.from_account == account_id,
                                    c.c.to_account == account_id))
                         .values(status="cancelled", answered_at=now))
        return account_id

    def ensure_level(self, account_id: str, username: str, rating: Rating) -> Account | None:
        """The BOT account of a computer level, created with ``rating`` if missing
        (idempotent: any number of processes may call it at once). None when a person's
        account already holds the name."""
        a = accounts_table
        try:
            with self.engine.begin() as conn:
                if conn.execute(select(a.c.id).where(a.c.id == account_id)).first() is None:
                    conn.execute(insert(a).values(
                        id=account_id, username=username, username_key=username.casefold(),
                        password_hash="!", created_at=time.time(), rating=rating.rating,
                        deviation=rating.deviation, volatility=rating.volatility,
                        rated_matches=0, rated_at=None, bot=True))
        except IntegrityError:
            pass  # another process made it first, or a person holds the name
        with self.engine.connect() as conn:
            row = conn.execute(select(a).where(a.c.id == account_id)).first()
        return _account(row) if row is not None else None

    def by_name(self, key: str) -> Account | None:
        """The account with this folded username (closed ones too: say so), else None."""
        a = accounts_table
        with self.engine.connect() as conn:
            row = conn.execute(select(a).where(a.c.username_key == key)).first()
        return _account(row) if row is not None else None

    def playing(self, account_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The account's matches being played: ``{"id", "seat"}``, newest first."""
        t, m = account_matches_table, matches_table
        q = (select(t.c.match_id, t.c.account0).join(m, m.c.id == t.c.match_id)
             .where(or_(t.c.account0 == account_id, t.c.account1 == account_id))
             .where(m.c.status == "playing")
             .order_by(m.c.created_at.desc()).limit(limit))
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [{"id": str(r.match_id), "seat": 0 if r.account0 == account_id else 1}
                for r in rows]
