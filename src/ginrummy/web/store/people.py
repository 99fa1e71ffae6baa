"""People's statements: chat messages, follows, blocks and each account's choices about
them (:mod:`ginrummy.web.online.chat`, :mod:`ginrummy.web.online.people`).

A chat message is one insert, committed before the request is answered, so an
acknowledged message survives any process's death. A block is one transaction that also
ends the follows between the two accounts, either way.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from .schema import account_matches_table, accounts_table, matches_table
from .schema_people import blocks_table, chat_table, follows_table, people_settings_table

__all__ = ["ChatRow", "PeopleStore", "SETTINGS_DEFAULTS"]

SETTINGS_DEFAULTS: dict[str, Any] = {"chat": "on", "hide_online": False,
                                     "challenges": "everyone"}
"""An account's choices until it makes its own."""


@dataclass(frozen=True, slots=True)
class ChatRow:
    """One stored chat message."""

    id: int
    match_id: str
    room: str
    account_id: str | None
    seat: int | None
    name: str
    text: str
    phrase: str | None
    censored: bool
    at: float


def _chat(r: Any) -> ChatRow:
    return ChatRow(int(r.id), str(r.match_id), str(r.room), r.account_id, r.seat,
                   str(r.name), str(r.text), r.phrase, bool(r.censored), float(r.at))


class PeopleStore:
    """Chat, follows, blocks and settings (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ chat

    def add_message(self, match_id: str, room: str, account_id: str | None,
                    seat: int | None, name: str, text: str, phrase: str | None,
                    censored: bool, at: float) -> ChatRow:
        """Store a message (committed on return); the stored row, with its id."""
        c = chat_table
        values = {"match_id": match_id, "room": room, "account_id": account_id,
                  "seat": seat, "name": name, "text": text, "phrase": phrase,
                  "censored": censored, "at": at}
        with self.engine.begin() as conn:
            new_id = conn.execute(insert(c).values(**values).returning(c.c.id)).scalar_one()
        return ChatRow(int(new_id), match_id, room, account_id, seat, name, text, phrase,
                       censored, at)

    def messages(self, match_id: str, room: str, after: int = 0,
                 limit: int = 200) -> list[ChatRow]:
        """A room's messages after id ``after``, oldest first: the last ``limit`` of
        them."""
        c = chat_table
        q = (select(c).where(c.c.match_id == match_id).where(c.c.room == room)
             .where(c.c.id > after).order_by(c.c.id.desc()).limit(limit))
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [_chat(r) for r in reversed(rows)]

    def message(self, message_id: int) -> ChatRow | None:
        """One message by id."""
        with self.engine.connect() as conn:
            r = conn.execute(select(chat_table).where(chat_table.c.id == message_id)).first()
        return _chat(r) if r is not None else None

    def latest(self, match_ids: list[str], room: str) -> dict[str, int]:
        """The newest message id of each of these matches' ``room`` (those with any)."""
        if not match_ids:
            return {}
        c = chat_table
        q = (select(c.c.match_id, func.max(c.c.id)).where(c.c.match_id.in_(match_ids))
             .where(c.c.room == room).group_by(c.c.match_id))
        with self.engine.connect() as conn:
            return {str(m): int(n) for m, n in conn.execute(q).all()}

    def conversation(self, message: ChatRow, before: int = 30,
                     after: int = 5) -> list[ChatRow]:
        """The lines of ``message``'s room around it, as a moderator reads them."""
        c = chat_table
        base = select(c).where(c.c.match_id == message.match_id).where(
            c.c.room == message.room)
        with self.engine.connect() as conn:
            older = conn.execute(base.where(c.c.id <= message.id)
                                 .order_by(c.c.id.desc()).limit(before)).all()
            newer = conn.execute(base.where(c.c.id > message.id)
                                 .order_by(c.c.id).limit(after)).all()
        return [_chat(r) for r in reversed(older)] + [_chat(r) for r in newer]

    # ------------------------------------------------------------------ follows, blocks

    def follow(self, account_id: str, followed_id: str, most: int) -> bool | None:
        """``account_id`` follows ``followed_id`` (True; already did: True as well);
        None when it follows ``most`` accounts already."""
        f = follows_table
        with self.engine.begin() as conn:
            if conn.execute(select(f.c.at).where(f.c.account_id == account_id)
                            .where(f.c.followed_id == followed_id)).first() is not None:
                return True
            n = conn.execute(select(func.count()).select_from(f)
                             .where(f.c.account_id == account_id)).scalar_one()
            if n >= most:
                return None
            with contextlib.suppress(IntegrityError):  # a second request at once: done
                conn.execute(insert(f).values(account_id=account_id,
                                              followed_id=followed_id, at=time.time()))
        return True

    def unfollow(self, account_id: str, followed_id: str) -> None:
        """Stop following (nothing if it did not)."""
        f = follows_table
        with self.engine.begin() as conn:
            conn.execute(delete(f).where(f.c.account_id == account_id)
                         .where(f.c.followed_id == followed_id))

    def following(self, account_id: str) -> list[str]:
        """The accounts ``account_id`` follows, in the order it followed them."""
        f = follows_table
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(
                select(f.c.followed_id).where(f.c.account_id == account_id)
                .order_by(f.c.at)).all()]

    def followers(self, account_id: str) -> list[str]:
        """The accounts that follow ``account_id``."""
        f = follows_table
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(
                select(f.c.account_id).where(f.c.followed_id == account_id)).all()]

    def follows(self, account_id: str, other_id: str) -> bool:
        """Whether ``account_id`` follows ``other_id``."""
        f = follows_table
        with self.engine.connect() as conn:
            return conn.execute(select(f.c.at).where(f.c.account_id == account_id)
                                .where(f.c.followed_id == other_id)).first() is not None

    def block(self, account_id: str, blocked_id: str, most: int) -> bool:
        """``account_id`` blocks ``blocked_id`` and the follows between them end (one
        transaction); False when it has blocked ``most`` accounts already."""
        b, f = blocks_table, follows_table
        with self.engine.begin() as conn:
            if conn.execute(select(b.c.at).where(b.c.account_id == account_id)
                            .where(b.c.blocked_id == blocked_id)).first() is None:
                n = conn.execute(select(func.count()).select_from(b)
                                 .where(b.c.account_id == account_id)).scalar_one()
                if n >= most:
                    return False
                conn.execute(insert(b).values(account_id=account_id, blocked_id=blocked_id,
                                              at=time.time()))
            conn.execute(delete(f).where(or_(
                and_(f.c.account_id == account_id, f.c.followed_id == blocked_id),
                and_(f.c.account_id == blocked_id, f.c.followed_id == account_id))))
        return True

    def unblock(self, account_id: str, blocked_id: str) -> None:
        """Lift a block (nothing if there was none)."""
        b = blocks_table
        with self.engine.begin() as conn:
            conn.execute(delete(b).where(b.c.account_id == account_id)
                         .where(b.c.blocked_id == blocked_id))

    def blocked(self, account_id: str) -> list[str]:
        """The accounts ``account_id`` blocked, oldest first."""
        b = blocks_table
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(
                select(b.c.blocked_id).where(b.c.account_id == account_id)
                .order_by(b.c.at)).all()]

    def has_blocked(self, account_id: str, other_id: str) -> bool:
        """Whether ``account_id`` blocked ``other_id``."""
        b = blocks_table
        with self.engine.connect() as conn:
            return conn.execute(select(b.c.at).where(b.c.account_id == account_id)
                                .where(b.c.blocked_id == other_id)).first() is not None

    def blocked_between(self, one: str, other: str) -> bool:
        """Whether either account blocked the other."""
        b = blocks_table
        with self.engine.connect() as conn:
            return conn.execute(select(b.c.at).where(or_(
                and_(b.c.account_id == one, b.c.blocked_id == other),
                and_(b.c.account_id == other, b.c.blocked_id == one)))).first() is not None

    def blocks_among(self, account_ids: list[str]) -> frozenset[frozenset[str]]:
        """The pairs of these accounts with a block between them (either way)."""
        if len(account_ids) < 2:
            return frozenset()
        b = blocks_table
        with self.engine.connect() as conn:
            rows = conn.execute(select(b.c.account_id, b.c.blocked_id)
                                .where(b.c.account_id.in_(account_ids))
                                .where(b.c.blocked_id.in_(account_ids))).all()
        return frozenset(frozenset((str(a), str(c))) for a, c in rows)

    # ------------------------------------------------------------------ settings

    def settings(self, account_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Each account's choices, the defaults filled in (``muted_until``,
        ``mute_reason``: null when never muted)."""
        s = people_settings_table
        out = {a: {**SETTINGS_DEFAULTS, "muted_until": None, "mute_reason": None}
               for a in account_ids}
        if not account_ids:
            return out
        with self.engine.connect() as conn:
            rows = conn.execute(select(s).where(s.c.account_id.in_(sorted(set(account_ids)))
                                                )).all()
        for r in rows:
            d = out[str(r.account_id)]
            for key in ("chat", "hide_online", "challenges", "muted_until", "mute_reason"):
                value = getattr(r, key)
                if value is not None:
                    d[key] = bool(value) if key == "hide_online" else value
        return out

    def set_settings(self, account_id: str, values: dict[str, Any]) -> None:
        """Keep some of an account's choices (the columns named in ``values``)."""
        s = people_settings_table
        with self.engine.begin() as conn:
            done = conn.execute(update(s).where(s.c.account_id == account_id)
                                .values(**values)).rowcount
            if not done:
                try:
                    conn.execute(insert(s).values(account_id=account_id, **values))
                except IntegrityError:  # made meanwhile: set it
                    conn.execute(update(s).where(s.c.account_id == account_id)
                                 .values(**values))

    # ------------------------------------------------------------------ finding people

    def search(self, prefix: str, limit: int = 20) -> list[tuple[str, str, float]]:
        """Open accounts whose folded username starts with ``prefix`` (folded):
        ``(id, username, rating)``, alphabetically."""
        a = accounts_table
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        q = (select(a.c.id, a.c.username, a.c.rating)
             .where(a.c.username_key.like(escaped + "%", escape="\\"))
             .where(a.c.closed_at.is_(None)).order_by(a.c.username_key).limit(limit))
        with self.engine.connect() as conn:
            return [(str(r.id), str(r.username), float(r.rating))
                    for r in conn.execute(q).all()]

    def public_playing(self, account_ids: list[str]) -> dict[str, str]:
        """For each of these accounts playing a public match now, that match (the
        newest)."""
        if not account_ids:
            return {}
        t, m = account_matches_table, matches_table
        q = (select(t.c.match_id, t.c.account0, t.c.account1)
             .join(m, m.c.id == t.c.match_id)
             .where(or_(t.c.account0.in_(account_ids), t.c.account1.in_(account_ids)))
             .where(t.c.public.is_(True)).where(m.c.status == "playing")
             .order_by(m.c.created_at))
        out: dict[str, str] = {}
        wanted = set(account_ids)
        with self.engine.connect() as conn:
            for r in conn.execute(q).all():
                for acct in (r.account0, r.account1):
                    if acct in wanted:
                        out[str(acct)] = str(r.match_id)
        return out
