"""Opening the database (SQLite or PostgreSQL) and the store's errors."""

from __future__ import annotations

import hashlib
import os
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.pool import ConnectionPoolEntry

__all__ = [
    "CONNECT_TIMEOUT",
    "DEFAULT_DB_URL",
    "StaleVersionError",
    "StoreError",
    "hash_token",
    "open_engine",
    "resolve_db_url",
    "sqlite_path",
]

DEFAULT_DB_URL = "sqlite:///ginrummy.sqlite3"

CONNECT_TIMEOUT = 3
"""Seconds a new PostgreSQL connection may take: while the server is away, a request is
refused (503) within this, instead of hanging on the driver's default of minutes."""


class StoreError(RuntimeError):
    """The database cannot be opened or used; the message says which and why."""


class StaleVersionError(StoreError):
    """A change was based on a version that is no longer current (someone acted first)."""


def hash_token(token: str) -> str:
    """The SHA-256 hex digest stored instead of a seat token or an invite code (a leaked
    database leaks neither)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _sqlite_pragmas(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    """WAL lets readers run beside the writer; synchronous=FULL syncs every commit, so an
    acknowledged action survives a crash or power cut; busy_timeout waits out brief locks."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


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
    full syncs; a PostgreSQL connection gives up after :data:`CONNECT_TIMEOUT` seconds);
    raises StoreError for a URL or driver that cannot be used."""
    path = sqlite_path(url)
    if path is not None:
        _private_file(path)
    args: dict[str, Any] = {}
    if url.startswith("postgresql"):
        args["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT}
        # the database threads each keep a connection for the hot reads, the writer one:
        # room for those and for everything else
        args["pool_size"] = 16
        args["max_overflow"] = 8
    try:
        engine = create_engine(url, future=True, pool_pre_ping=True, **args)
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
