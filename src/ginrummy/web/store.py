"""Durable storage of web matches (SQLAlchemy 2): one row per match, one row per action.

A match is stored as its settings (options, players, seed, opponent, token hashes) plus
the actions played; each hand's deal is derived from (seed, hand index), so replaying the
rows rebuilds the match exactly. Every change is one transaction that also bumps the
match's version, checked against the version the change was based on (no lost updates).
Works with SQLite (default, embedded) and PostgreSQL (``postgresql+psycopg://...``).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.pool import ConnectionPoolEntry

from .seeds import SeedCipher

__all__ = [
    "Change",
    "DEFAULT_DB_URL",
    "NO_TOKEN",
    "StaleVersionError",
    "Store",
    "StoreError",
    "StoredAction",
    "StoredMatch",
    "hash_token",
    "open_engine",
    "resolve_db_url",
]

DEFAULT_DB_URL = "sqlite:///ginrummy.sqlite3"

metadata = MetaData()

matches_table = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash0", String(64), nullable=False, index=True),
    Column("token_hash1", String(64), nullable=False, index=True),
    Column("options", Text, nullable=False),
    Column("players", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("first_dealer", Integer, nullable=False),
    Column("opponent", String(16), nullable=False),
    Column("bot_level", String(32), nullable=True),
    Column("bot_name", String(64), nullable=True),
    Column("version", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("joined", Boolean, nullable=False),
    Column("hands_dealt", Integer, nullable=False),
    Column("ready", String(16), nullable=False),
    Column("score0", Integer, nullable=False),
    Column("score1", Integer, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("to_play", Integer, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("invite_hash", String(64), nullable=True),
    Column("seed_enc", Text, nullable=True),
    Column("joined_at", Float, nullable=True),
)

NO_TOKEN = ""
"""The token hash of a seat nobody holds yet (a friend's seat before the invite is used):
no SHA-256 digest equals it, so no token opens that seat."""

actions_table = Table(
    "actions",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("hand", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("action", Text, nullable=False),
)


_BULK_UPDATE = (
    update(matches_table)
    .where(matches_table.c.id == bindparam("b_id"))
    .where(matches_table.c.version == bindparam("b_expected"))
    .values(
        version=bindparam("b_version"),
        status=bindparam("b_status"),
        joined=bindparam("b_joined"),
        hands_dealt=bindparam("b_hands_dealt"),
        ready=bindparam("b_ready"),
        score0=bindparam("b_score0"),
        score1=bindparam("b_score1"),
        winner=bindparam("b_winner"),
        to_play=bindparam("b_to_play"),
        updated_at=bindparam("b_updated_at"),
    )
)
"""Every version bump of a group commit in one executemany (each row only if its match is
still at the expected version)."""


class _SomeStale(Exception):
    """A bulk commit bumped fewer rows than it had changes: roll back and go one by one."""


class StoreError(RuntimeError):
    """The database cannot be opened or used; the message says which and why."""


class StaleVersionError(StoreError):
    """A change was based on a version that is no longer current (someone acted first)."""


def hash_token(token: str) -> str:
    """The SHA-256 hex digest stored instead of a seat token (a leaked database leaks no
    tokens)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class StoredAction:
    """One stored action: its place in the match, the hand, the seat and the action JSON."""

    seq: int
    hand: int
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Change:
    """One accepted change of a match: the version it was based on, the action (if any)
    and the match's new summary fields."""

    match_id: str
    expected_version: int
    action: StoredAction | None
    status: str
    joined: bool
    hands_dealt: int
    ready: tuple[bool, ...]
    scores: tuple[int, ...]
    winner: int | None
    to_play: int | None
    token_hash1: str | None = None
    """Set only when the friend takes seat 1 with the invite: the new token's hash (stored
    only if the seat is still free)."""
    joined_at: float | None = None
    """With ``token_hash1``: when the seat was claimed (Unix seconds)."""


@dataclass(slots=True)
class StoredMatch:
    """A match row as stored (and, when loaded with :meth:`Store.load`, its actions)."""

    id: str
    token_hash0: str
    token_hash1: str
    options: dict[str, Any]
    players: list[str]
    seed: int
    first_dealer: int
    opponent: str
    bot_level: str | None
    bot_name: str | None
    version: int = 0
    status: str = "playing"
    joined: bool = True
    hands_dealt: int = 1
    ready: list[bool] = field(default_factory=lambda: [False, False])
    scores: list[int] = field(default_factory=lambda: [0, 0])
    winner: int | None = None
    to_play: int | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    invite_hash: str | None = None
    joined_at: float | None = None
    """When the friend's seat was claimed with the invite (Unix seconds), else None."""
    actions: list[StoredAction] = field(default_factory=list)

    def token_hash(self, seat: int) -> str:
        """The stored token hash of ``seat``."""
        return self.token_hash0 if seat == 0 else self.token_hash1


def _ready_text(ready: Sequence[bool]) -> str:
    return "".join("1" if r else "0" for r in ready)


def _row_to_match(row: Any, cipher: SeedCipher | None = None) -> StoredMatch:
    m = row._mapping
    enc = m.get("seed_enc")
    if enc:
        if cipher is None:
            raise StoreError("This database's seeds are encrypted: the seed key is needed.")
        try:
            seed = cipher.decrypt(enc, m["id"])
        except ValueError as e:
            raise StoreError(f"Cannot read the seed of match {m['id']}: {e}.") from None
    else:
        seed = int(m["seed"])
    return StoredMatch(
        id=m["id"],
        token_hash0=m["token_hash0"],
        token_hash1=m["token_hash1"],
        options=json.loads(m["options"]),
        players=json.loads(m["players"]),
        seed=seed,
        first_dealer=int(m["first_dealer"]),
        opponent=m["opponent"],
        bot_level=m["bot_level"],
        bot_name=m["bot_name"],
        version=int(m["version"]),
        status=m["status"],
        joined=bool(m["joined"]),
        hands_dealt=int(m["hands_dealt"]),
        ready=[c == "1" for c in m["ready"]],
        scores=[int(m["score0"]), int(m["score1"])],
        winner=m["winner"],
        to_play=m["to_play"],
        created_at=float(m["created_at"]),
        updated_at=float(m["updated_at"]),
        invite_hash=m.get("invite_hash"),
        joined_at=m.get("joined_at"),
    )


def _sqlite_pragmas(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    """WAL lets readers run beside the writer; synchronous=FULL syncs every commit, so an
    acknowledged action survives a crash or power cut; busy_timeout waits out brief locks."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


class Store:
    """The match database. All methods are synchronous and thread-safe (one connection
    per call from the engine's pool); the web service runs them off the event loop."""

    def __init__(
        self, url: str = DEFAULT_DB_URL, cipher: SeedCipher | None = None, migrate: bool = True
    ) -> None:
        """Open the database at ``url``, first bringing its schema to the head revision
        (:mod:`.migrations`); with ``migrate=False`` only check that it is there already.
        Raises StoreError (MigrationError for the schema) with a one-line reason."""
        self.url = url
        self.cipher = cipher
        """Encrypts new matches' seeds (None: stored in plain, as older versions did)."""
        self.engine: Engine = open_engine(url)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        # Bulk commits need the driver to count the rows an executemany changed.
        self._bulk_ok = bool(self.engine.dialect.supports_sane_multi_rowcount)
        from . import migrations  # imports this module: only once it is loaded

        try:
            if migrate:
                migrations.upgrade(self.engine)
            else:
                migrations.require_head(self.engine)
        except StoreError:
            self.engine.dispose()
            raise

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    # ------------------------------------------------------------------ writes

    def create(self, m: StoredMatch) -> None:
        """Insert a new match (its hand 0 already dealt, version 0)."""
        now = time.time()
        m.created_at = m.updated_at = now
        with self.engine.begin() as conn:
            conn.execute(
                insert(matches_table).values(
                    id=m.id,
                    token_hash0=m.token_hash0,
                    token_hash1=m.token_hash1,
                    options=json.dumps(m.options),
                    players=json.dumps(m.players),
                    seed=0 if self.cipher is not None else m.seed,
                    seed_enc=(
                        self.cipher.encrypt(m.seed, m.id) if self.cipher is not None else None
                    ),
                    first_dealer=m.first_dealer,
                    opponent=m.opponent,
                    bot_level=m.bot_level,
                    bot_name=m.bot_name,
                    version=m.version,
                    status=m.status,
                    joined=m.joined,
                    hands_dealt=m.hands_dealt,
                    ready=_ready_text(m.ready),
                    score0=m.scores[0],
                    score1=m.scores[1],
                    winner=m.winner,
                    to_play=m.to_play,
                    created_at=now,
                    updated_at=now,
                    invite_hash=m.invite_hash,
                )
            )

    def commit_change(
        self,
        match_id: str,
        expected_version: int,
        *,
        action: StoredAction | None = None,
        status: str,
        joined: bool,
        hands_dealt: int,
        ready: Sequence[bool],
        scores: Sequence[int],
        winner: int | None,
        to_play: int | None,
    ) -> int:
        """Store one accepted change (an action, a ``next``, a join) and bump the version,
        in one transaction; returns the new version. Raises StaleVersionError (changing
        nothing) when the stored version is no longer ``expected_version``."""
        change = Change(match_id, expected_version, action, status, joined, hands_dealt,
                        tuple(ready), tuple(scores), winner, to_play)
        result = self.commit_batch([change])[0]
        if result is None:
            raise StaleVersionError(
                f"Match {match_id} is no longer at version {expected_version}."
            )
        return result

    def commit_batch(self, changes: Sequence[Change]) -> list[int | None]:
        """Store several changes (of different matches) in ONE transaction, so one disk
        sync covers them all (group commit); returns each new version, or None for a
        change whose expected version was stale (that one changes nothing). Raises on a
        database error, in which case none of them is stored.

        The usual batch goes as two bulk statements (all version bumps, then all new
        actions); only if some change turns out stale, or a seat is being taken, is the
        batch redone change by change to tell which ones stand."""
        if self._bulk_ok and all(ch.token_hash1 is None for ch in changes):
            try:
                return self._commit_bulk(changes)
            except _SomeStale:
                pass  # rolled back, nothing stored: sort the batch out one by one
        return self._commit_each(changes)

    def _commit_bulk(self, changes: Sequence[Change]) -> list[int | None]:
        now = time.time()
        rows = [
            {
                "b_id": ch.match_id,
                "b_expected": ch.expected_version,
                "b_version": ch.expected_version + 1,
                "b_status": ch.status,
                "b_joined": ch.joined,
                "b_hands_dealt": ch.hands_dealt,
                "b_ready": _ready_text(ch.ready),
                "b_score0": ch.scores[0],
                "b_score1": ch.scores[1],
                "b_winner": ch.winner,
                "b_to_play": ch.to_play,
                "b_updated_at": now,
            }
            for ch in changes
        ]
        actions = [
            {
                "match_id": ch.match_id,
                "seq": ch.action.seq,
                "hand": ch.action.hand,
                "seat": ch.action.seat,
                "action": json.dumps(ch.action.action),
            }
            for ch in changes
            if ch.action is not None
        ]
        with self.engine.begin() as conn:
            res = conn.execute(_BULK_UPDATE, rows)
            if res.rowcount != len(rows):
                raise _SomeStale  # leaving the block rolls the transaction back
            if actions:
                conn.execute(insert(actions_table), actions)
        return [ch.expected_version + 1 for ch in changes]

    def _commit_each(self, changes: Sequence[Change]) -> list[int | None]:
        out: list[int | None] = []
        now = time.time()
        with self.engine.begin() as conn:
            for ch in changes:
                q = (
                    update(matches_table)
                    .where(matches_table.c.id == ch.match_id)
                    .where(matches_table.c.version == ch.expected_version)
                )
                extra: dict[str, Any] = {}
                if ch.token_hash1 is not None:  # the invite is used once: only a free seat
                    q = q.where(matches_table.c.token_hash1 == NO_TOKEN)
                    extra["token_hash1"] = ch.token_hash1
                    extra["joined_at"] = ch.joined_at or now  # shown to both seats
                res = conn.execute(
                    q.values(
                        **extra,
                        version=ch.expected_version + 1,
                        status=ch.status,
                        joined=ch.joined,
                        hands_dealt=ch.hands_dealt,
                        ready=_ready_text(ch.ready),
                        score0=ch.scores[0],
                        score1=ch.scores[1],
                        winner=ch.winner,
                        to_play=ch.to_play,
                        updated_at=now,
                    )
                )
                if res.rowcount != 1:
                    out.append(None)
                    continue
                if ch.action is not None:
                    conn.execute(
                        insert(actions_table).values(
                            match_id=ch.match_id,
                            seq=ch.action.seq,
                            hand=ch.action.hand,
                            seat=ch.action.seat,
                            action=json.dumps(ch.action.action),
                        )
                    )
                out.append(ch.expected_version + 1)
        return out

    # ------------------------------------------------------------------ reads

    def load(self, match_id: str, from_seq: int = 0) -> StoredMatch | None:
        """The match with its actions in order (those from ``from_seq`` on: a process
        catching up reads only what is new), or None if there is no such match. The row
        and its actions are read in one snapshot: read apart, a commit landing between
        the two reads showed an action without its version bump."""
        with self.engine.connect() as conn:
            if not self.is_sqlite:  # (SQLite: one process, its reads in one thread)
                conn.execution_options(isolation_level="REPEATABLE READ")
            row = conn.execute(
                select(matches_table).where(matches_table.c.id == match_id)
            ).first()
            if row is None:
                return None
            m = _row_to_match(row, self.cipher)
            rows = conn.execute(
                select(actions_table)
                .where(actions_table.c.match_id == match_id)
                .where(actions_table.c.seq >= from_seq)
                .order_by(actions_table.c.seq)
            ).all()
        m.actions = [
            StoredAction(int(r.seq), int(r.hand), int(r.seat), json.loads(r.action)) for r in rows
        ]
        return m

    def find_by_token_hashes(self, hashes: Iterable[str]) -> list[StoredMatch]:
        """Matches having a seat whose token hash is among ``hashes`` (rows only, no
        actions), most recently changed first."""
        hs = sorted(set(hashes))
        if not hs:
            return []
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(matches_table)
                .where(
                    or_(matches_table.c.token_hash0.in_(hs), matches_table.c.token_hash1.in_(hs))
                )
                .order_by(matches_table.c.updated_at.desc())
            ).all()
        return [_row_to_match(r, self.cipher) for r in rows]

    def ids_with_status(self, status: str, opponent: str | None = None) -> list[str]:
        """Ids of matches in ``status`` (and with that opponent kind, if given)."""
        q = select(matches_table.c.id).where(matches_table.c.status == status)
        if opponent is not None:
            q = q.where(matches_table.c.opponent == opponent)
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    def computer_turns(self, before: float) -> list[str]:
        """Ids of computer matches waiting for the computer's move since before ``before``
        (Unix seconds): candidates for another process to take over."""
        q = (
            select(matches_table.c.id)
            .where(matches_table.c.status == "playing")
            .where(matches_table.c.opponent == "computer")
            .where(matches_table.c.to_play == 1)
            .where(matches_table.c.updated_at < before)
            .limit(1000)
        )
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    def prune_abandoned(self, before: float) -> list[str]:
        """Delete unfinished matches last changed before ``before`` (Unix seconds), with
        their actions; returns their ids."""
        with self.engine.begin() as conn:
            ids = [
                str(r[0])
                for r in conn.execute(
                    select(matches_table.c.id)
                    .where(matches_table.c.status != "finished")
                    .where(matches_table.c.updated_at < before)
                    .limit(10000)
                ).all()
            ]
            if ids:
                conn.execute(delete(actions_table).where(actions_table.c.match_id.in_(ids)))
                conn.execute(delete(matches_table).where(matches_table.c.id.in_(ids)))
        return ids


def resolve_db_url(db: str | None) -> str:
    """A database URL from ``--db``: a URL as given, a plain path as an SQLite file.

    >>> resolve_db_url("games.sqlite3")
    'sqlite:///games.sqlite3'
    """
    if not db:
        return DEFAULT_DB_URL
    if "://" in db:
        return db
    return f"sqlite:///{db}"


def open_engine(url: str) -> Engine:
    """The SQLAlchemy engine for ``url`` (an SQLite file is created 0600, with WAL and
    full syncs); raises StoreError for a URL or driver that cannot be used."""
    path = sqlite_path(url)
    if path is not None:
        _private_file(path)
    try:
        engine = create_engine(url, future=True, pool_pre_ping=True)
    except (ArgumentError, NoSuchModuleError) as e:
        raise StoreError(f"Cannot use the database URL {url!r}: {e}") from None
    except ImportError as e:
        raise StoreError(f"The database driver for {url!r} is not installed: {e}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def sqlite_path(url: str) -> str | None:
    """The file of an SQLite URL (None for other databases and in-memory SQLite)."""
    for prefix in ("sqlite:///", "sqlite+pysqlite:///"):
        if url.startswith(prefix):
            path = url[len(prefix):].split("?", 1)[0]
            return path if path and path != ":memory:" else None
    return None


def _private_file(path: str) -> None:
    """Create the SQLite file readable by its owner only (0600), or tighten an existing
    one: it holds every match (SQLite gives its -wal and -shm files the same mode)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        os.close(fd)
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError:
        pass  # a missing folder etc.: the engine says what is wrong
