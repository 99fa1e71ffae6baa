"""The ``seeks`` table: quick-match requests, paired by whichever process sees two fit.

A seek is ``waiting`` until a process takes it (``taken``: a conditional update, so on
PostgreSQL as on SQLite exactly one process takes a seek however many try at once), then
``paired`` once the match exists (its seat token is derived from the seek's id: see
:mod:`ginrummy.web.online.seeks`). A taken seek whose taker died before pairing it reads as
waiting again after :data:`TAKE_SECONDS`. Expired seeks are deleted as they are met.

A seek made from a browser (its cookie's hash, :mod:`ginrummy.web.online.browsers`) is
added under a lock on that browser's row, after a look for the same browser's identical
seek: on PostgreSQL as on SQLite, two identical seeks sent at once from one browser (a
double click, on one process or two) store one, and the second is answered with it. The
accounts that seek from a browser are noted with it; candidates never include a seek of
the same browser, or of an account that shares a browser with the seeker's.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Table,
    and_,
    delete,
    exists,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from .schema import (
    accounts_table,
    browser_accounts_table,
    browsers_table,
    matches_table,
    seeks_table,
)
from .schema_people import blocks_table

__all__ = ["SeekRow", "SeekStore", "TAKE_SECONDS"]

TAKE_SECONDS = 15.0
"""How long a taken seek waits for its taker to pair it before it is waiting again."""


@dataclass(frozen=True, slots=True)
class SeekRow:
    """One stored seek."""

    id_hash: str
    account_id: str | None
    name: str
    rating: float
    options: dict[str, Any]
    rated: bool
    status: str
    created_at: float
    expires_at: float
    seat_token_hash: str
    match_id: str | None = None
    seat: int | None = None
    bot: bool = False
    """The seeker is a BOT account."""
    bots: bool = False
    """The seeker accepts BOT opponents (a BOT is paired only with such seeks)."""
    browser_hash: str | None = None
    """The seeker's browser cookie, hashed (None: no browser, e.g. a program)."""
    nonce: str | None = None
    """With the browser's cookie, derives the seek's id (None: a random id)."""
    address_hash: str | None = None
    """The seeker's address, hashed."""
    seeker_hash: str | None = None
    """The hash of the seeker's secret (None: a seek stored before revision 0010)."""
    token_enc: str | None = None
    """The seek's seat token, encrypted (None: before revision 0010)."""


def _row(r: Any) -> SeekRow:
    m = r._mapping
    return SeekRow(str(m["id_hash"]), m["account_id"], str(m["name"]), float(m["rating"]),
                   json.loads(m["options"]), bool(m["rated"]), str(m["status"]),
                   float(m["created_at"]), float(m["expires_at"]), str(m["seat_token_hash"]),
                   m["match_id"], m["seat"], bot=bool(m.get("bot")), bots=bool(m.get("bots")),
                   browser_hash=m["browser_hash"], nonce=m["nonce"],
                   address_hash=m["address_hash"], seeker_hash=m.get("seeker_hash"),
                   token_enc=m.get("token_enc"))


def _waiting(now: float) -> Any:
    """A seek that can be taken: waiting, or taken by a process that never paired it."""
    t = seeks_table
    return and_(t.c.expires_at > now, or_(
        t.c.status == "waiting",
        and_(t.c.status == "taken", t.c.taken_at < now - TAKE_SECONDS)))


class _Gone(Exception):
    """A seek to take was no longer there to take."""


class SeekStore:
    """Seeks (synchronous; the web layer runs these off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _insert_ignore(self, conn: Connection, table: Table, **values: Any) -> None:
        """Insert a row unless its key is there already."""
        dialect = sqlite if self.engine.dialect.name == "sqlite" else postgresql
        conn.execute(dialect.insert(table).values(**values).on_conflict_do_nothing())

    def _note_browser(self, conn: Connection, browser: str, account_id: str | None,
                      now: float) -> None:
        """The browser's row (locked until the transaction ends: its seeks are added one
        at a time) and, for an account, that it used this browser."""
        self._insert_ignore(conn, browsers_table, browser_hash=browser, created_at=now,
                            seen_at=now)
        conn.execute(update(browsers_table).where(browsers_table.c.browser_hash == browser)
                     .values(seen_at=now))
        if account_id is not None:
            self._insert_ignore(conn, browser_accounts_table, browser_hash=browser,
                                account_id=account_id, seen_at=now)

    def note_browser(self, browser: str, account_id: str) -> None:
        """Note that an account uses this browser (it is then never paired with another
        account that uses it)."""
        with self.engine.begin() as conn:
            self._note_browser(conn, browser, account_id, time.time())

    def add(self, row: SeekRow, same_since: float = 0.0) -> SeekRow | None:
        """Store a new waiting seek, unless its browser already has the same seek (same
        options, rated or not, account): then nothing is stored and that seek is
        returned (waiting, being paired, or paired since ``same_since`` into a match not
        over yet)."""
        now = time.time()
        t, m = seeks_table, matches_table
        with self.engine.begin() as conn:
            if row.browser_hash is not None:
                self._note_browser(conn, row.browser_hash, row.account_id, now)
                same = (select(t).where(t.c.browser_hash == row.browser_hash)
                        .where(t.c.options == json.dumps(row.options, sort_keys=True))
                        .where(t.c.rated.is_(row.rated))
                        .where(t.c.account_id.is_(None) if row.account_id is None
                               else t.c.account_id == row.account_id)
                        .where(t.c.expires_at > now)
                        .where(or_(t.c.status.in_(("waiting", "taken")), and_(
                            t.c.created_at >= same_since,
                            t.c.match_id.in_(select(m.c.id).where(m.c.status != "finished")))))
                        .order_by(t.c.created_at).limit(1))
                found = conn.execute(same).first()
                if found is not None:
                    return _row(found)
            conn.execute(insert(t).values(
                id_hash=row.id_hash, account_id=row.account_id, name=row.name,
                rating=row.rating, options=json.dumps(row.options, sort_keys=True),
                rated=row.rated, status="waiting", created_at=row.created_at,
                expires_at=row.expires_at, seat_token_hash=row.seat_token_hash,
                bot=row.bot, bots=row.bots,
                browser_hash=row.browser_hash, nonce=row.nonce,
                address_hash=row.address_hash, seeker_hash=row.seeker_hash,
                token_enc=row.token_enc))
        return None

    def get(self, id_hash: str) -> SeekRow | None:
        """The seek (None: no such seek, or it expired)."""
        t = seeks_table
        with self.engine.connect() as conn:
            r = conn.execute(select(t).where(t.c.id_hash == id_hash)).first()
        if r is None:
            return None
        row = _row(r)
        if row.status != "paired" and row.expires_at <= time.time():
            return None
        return row

    def candidates(self, options: dict[str, Any], rated: bool, exclude: str,
                   account_id: str | None, bot: bool = False, bots: bool = False,
                   browser: str | None = None) -> list[SeekRow]:
        """Seeks that could be paired with one of these options now, oldest first: not
        ``exclude`` (the seeker's own), not one of the seeker's ``browser``, and not one of
        the seeker's account or of an account that shares a browser with it, nor of one
        with a block between it and the seeker's account. A BOT's seek
        (``bot``) is paired only with seeks that accept BOTs; BOTs' seeks are left out
        unless this seeker accepts them (``bots``). In rated play an account a moderator
        marked meets only marked accounts, and others never meet it. An account marked a
        program player
        (``accounts.program``: it has played through an API token) counts as a BOT on
        either side, even if it became one after seeking."""
        now = time.time()
        t, ba = seeks_table, browser_accounts_table
        q = (select(t).where(_waiting(now))
             .where(t.c.options == json.dumps(options, sort_keys=True))
             .where(t.c.rated.is_(rated)).where(t.c.id_hash != exclude)
             .order_by(t.c.created_at).limit(50))
        if account_id is not None:
            mine = select(ba.c.browser_hash).where(ba.c.account_id == account_id)
            shared = select(ba.c.account_id).where(ba.c.browser_hash.in_(mine))
            q = q.where(or_(t.c.account_id.is_(None),
                            and_(t.c.account_id != account_id,
                                 t.c.account_id.not_in(shared))))
        if account_id is not None:  # a block either way: never paired (issue 45)
            b = blocks_table
            q = q.where(or_(t.c.account_id.is_(None), and_(
                t.c.account_id.not_in(select(b.c.blocked_id)
                                      .where(b.c.account_id == account_id)),
                t.c.account_id.not_in(select(b.c.account_id)
                                      .where(b.c.blocked_id == account_id)))))
        if browser is not None:
            q = q.where(or_(t.c.browser_hash.is_(None), t.c.browser_hash != browser))
        programs = select(accounts_table.c.id).where(accounts_table.c.program.is_(True))
        if bot:
            q = q.where(t.c.bots.is_(True))
        elif account_id is not None:  # (an account that became a program since it sought)
            me = exists(programs.where(accounts_table.c.id == account_id))
            q = q.where(or_(t.c.bots.is_(True), ~me))
        if not bots:
            q = q.where(or_(t.c.bot.is_(None), t.c.bot.is_(False)))
            q = q.where(or_(t.c.account_id.is_(None), t.c.account_id.not_in(programs)))
        # a moderator's mark (engine, booster): marked accounts meet only each other in
        # rated play, as on lichess; casual play is open to all
        marked = select(accounts_table.c.id).where(accounts_table.c.mark.is_not(None))
        if rated:
            if account_id is not None and self._marked(account_id):
                q = q.where(t.c.account_id.in_(marked))
            else:
                q = q.where(or_(t.c.account_id.is_(None), t.c.account_id.not_in(marked)))
        with self.engine.connect() as conn:
            return [_row(r) for r in conn.execute(q).all()]

    def _marked(self, account_id: str) -> bool:
        """Whether a moderator has marked the account."""
        a = accounts_table
        with self.engine.connect() as conn:
            row = conn.execute(select(a.c.mark).where(a.c.id == account_id)).first()
        return row is not None and row[0] is not None

    def take(self, id_hashes: list[str], taken_by: str = "") -> bool:
        """Take all these seeks for pairing, or none: True when every one was waiting
        (or stale-taken) and is now taken by this caller (``taken_by``: its pairing's
        name, which :meth:`paired` checks)."""
        now = time.time()
        t = seeks_table
        try:
            with self.engine.begin() as conn:
                # in one order for every caller: two takes of the same seeks never lock
                # them crosswise (a deadlock), the second simply finds them taken
                for h in sorted(id_hashes):
                    n = conn.execute(update(t).where(t.c.id_hash == h).where(_waiting(now))
                                     .values(status="taken", taken_at=now,
                                             taken_by=taken_by or None)).rowcount
                    if n != 1:
                        raise _Gone  # leaving the block rolls the whole take back
        except _Gone:
            return False
        return True

    def release(self, id_hashes: list[str], taken_by: str = "") -> None:
        """Put seeks this pairing took back to waiting (pairing them failed)."""
        t = seeks_table
        with self.engine.begin() as conn:
            conn.execute(update(t).where(t.c.id_hash.in_(id_hashes))
                         .where(t.c.status == "taken")
                         .where(t.c.taken_by == taken_by if taken_by
                                else t.c.taken_by.is_(None))
                         .values(status="waiting", taken_at=None, taken_by=None))

    def paired(self, seats: list[tuple[str, int]], match_id: str, keep_seconds: float,
               taken_by: str = "") -> bool:
        """Mark taken seeks paired, each (id hash, seat) with the match (kept for
        ``keep_seconds`` so its holder can read it), all or none, and only while the take
        is still this pairing's (``taken_by``): False when another process has taken a
        seek since (this pairing stalled past :data:`TAKE_SECONDS`), and its match must
        be given up."""
        t = seeks_table
        now = time.time()
        try:
            with self.engine.begin() as conn:
                for id_hash, seat in sorted(seats):
                    n = conn.execute(update(t).where(t.c.id_hash == id_hash)
                                     .where(t.c.status == "taken")
                                     .where(t.c.taken_by == taken_by if taken_by
                                            else t.c.taken_by.is_(None))
                                     .values(status="paired", match_id=match_id, seat=seat,
                                             expires_at=now + keep_seconds)).rowcount
                    if n != 1:
                        raise _Gone
        except _Gone:
            return False
        return True

    def touch(self, id_hash: str, expires_at: float) -> None:
        """Keep a waiting seek alive until ``expires_at`` (its holder is still there)."""
        t = seeks_table
        with self.engine.begin() as conn:
            conn.execute(update(t).where(t.c.id_hash == id_hash)
                         .where(t.c.status == "waiting").values(expires_at=expires_at))

    def cancel(self, id_hash: str) -> str | None:
        """Delete a seek unless it is paired or being paired; its status before (None:
        no such seek). A taken seek is deleted too once its taker has given up on it."""
        t = seeks_table
        now = time.time()
        with self.engine.begin() as conn:
            r = conn.execute(select(t.c.status).where(t.c.id_hash == id_hash)).first()
            if r is None:
                return None
            n = conn.execute(delete(t).where(t.c.id_hash == id_hash).where(
                or_(t.c.status == "waiting", t.c.expires_at <= now,
                    and_(t.c.status == "taken", t.c.taken_at < now - TAKE_SECONDS)))).rowcount
            return "cancelled" if n == 1 else str(r[0])

    def sweep(self) -> int:
        """Delete expired seeks; how many."""
        t = seeks_table
        with self.engine.begin() as conn:
            return int(conn.execute(delete(t).where(t.c.expires_at <= time.time())
                                    .where(t.c.status != "taken")).rowcount)
