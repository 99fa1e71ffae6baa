"""``ginrummy db``: the web table's database schema, for operators who migrate explicitly.

``upgrade`` brings the database to this version's head revision (what ``ginrummy serve``
does at start-up unless given ``--no-migrate``), ``current`` says where it stands,
``history`` lists the revisions, ``close-account`` closes an account (an operator's
answer to abuse), and ``revision`` (for developers) writes a new revision
for tables the code has and the head revision lacks. Exit status: 0 done, 1 ``current
--check`` found the database behind, 2 the database or an option cannot be used (one line
on standard error, no traceback).
"""

from __future__ import annotations

import argparse
import os
import sys

from sqlalchemy import Engine

from .. import migrations
from ..store import StoreError, open_engine, resolve_db_url, sqlite_path

__all__ = ["build_parser", "main", "open_existing"]

_DB_HELP = ("database URL or SQLite file, as for `ginrummy serve` (default: ginrummy.sqlite3 "
            "in the current directory)")


def build_parser() -> argparse.ArgumentParser:
    """The ``db`` sub-command's options."""
    p = argparse.ArgumentParser(
        prog="ginrummy db",
        description="The web table's database schema (Alembic migrations shipped with "
        "ginrummy; docs/deploy.md), and closing an account.",
        epilog="Exit status: 0 done; 1 `current --check` found the database behind this "
        "version's schema, or `close-account` found no such open account; 2 a wrong "
        "command line, or a database that cannot be used; 130 stopped with Ctrl-C.",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    up = sub.add_parser("upgrade", help="bring the database to this version's schema "
                        "(creates it if empty; adopts one made before migrations)")
    up.add_argument("--db", default=None, help=_DB_HELP)
    cur = sub.add_parser("current", help="the database's schema revision")
    cur.add_argument("--db", default=None, help=_DB_HELP)
    cur.add_argument("--check", action="store_true",
                     help="exit 1 unless the database is at this version's head revision")
    hist = sub.add_parser("history", help="the schema revisions this version knows")
    hist.add_argument("--db", default=None,
                      help="also mark the revision this database is at")
    close = sub.add_parser("close-account", help="close an account: it can no longer log "
                           "in, act or be challenged (its sessions end, its API tokens are "
                           "revoked, its open challenges cancelled)")
    close.add_argument("username", help="the account's username (any case)")
    close.add_argument("--db", default=None, help=_DB_HELP)
    rev = sub.add_parser("revision", help="(developers) write a new revision for the tables "
                         "the code has and the head revision lacks")
    rev.add_argument("-m", "--message", required=True, help="what the revision does")
    return p


def open_existing(db: str | None) -> Engine:
    """The engine of an existing database (StoreError when an SQLite file is missing)."""
    return _engine(db, must_exist=True)


def _engine(db: str | None, must_exist: bool) -> Engine:
    url = resolve_db_url(db)
    path = sqlite_path(url)
    if must_exist and path is not None and not os.path.exists(path):
        raise StoreError(f"There is no database file {path!r}.")
    return open_engine(url)


def _upgrade(db: str | None) -> int:
    engine = _engine(db, must_exist=False)
    try:
        before, after = migrations.upgrade(engine)
    finally:
        engine.dispose()
    if before.at_head:
        print(f"Already at the head revision {after.head}: nothing to do.")
    elif before.legacy:
        print(f"Adopted a database made before migrations: now at {after.revision} (head).")
    else:
        print(f"Upgraded from {before.revision or 'an empty database'} to {after.revision} "
              f"(head).")
    return 0


def _current(db: str | None, check: bool) -> int:
    engine = _engine(db, must_exist=True)
    try:
        state = migrations.current(engine)
    finally:
        engine.dispose()
    print(state.describe())
    if state.newer:
        return 2
    return 1 if check and not state.at_head else 0


def _history(db: str | None) -> int:
    at: str | None = None
    if db is not None:
        engine = _engine(db, must_exist=True)
        try:
            at = migrations.current(engine).revision
        finally:
            engine.dispose()
    head = migrations.head()
    for r in migrations.history():
        marks = [m for m, on in (("head", r.id == head), ("current", r.id == at)) if on]
        shown = f" ({', '.join(marks)})" if marks else ""
        print(f"{r.id}{shown}  {r.doc}")
    return 0


def _close_account(db: str | None, username: str) -> int:
    from ..store.tokens import TokenStore

    engine = _engine(db, must_exist=True)
    try:
        migrations.require_head(engine)
        closed = TokenStore(engine).close_account(username.casefold())
    finally:
        engine.dispose()
    if closed is None:
        print(f"ginrummy db close-account: there is no open account {username!r}.",
              file=sys.stderr)
        return 1
    print(f"Closed the account {username!r}.")
    return 0


def main(argv: list[str]) -> int:
    """Run ``ginrummy db ACTION``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.action == "upgrade":
            return _upgrade(args.db)
        if args.action == "current":
            return _current(args.db, args.check)
        if args.action == "history":
            return _history(args.db)
        if args.action == "close-account":
            return _close_account(args.db, args.username)
        path = migrations.new_revision(args.message)
        print(f"Wrote {path}: review it (and test it on PostgreSQL) before committing.")
        return 0
    except StoreError as e:
        print(f"ginrummy db {args.action}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"ginrummy db {args.action}: {e.strerror or e}", file=sys.stderr)
        return 2
