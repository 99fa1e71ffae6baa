"""Schema migrations of the web table's database, with Alembic, shipped inside the package.

The revisions live in ``versions/`` (``revNNNN_*.py``, oldest first) and are run through
this module, configured in code: no ``alembic.ini`` is needed. :func:`upgrade` brings a
database to the head revision, on PostgreSQL under an advisory lock held for the whole
upgrade (one transaction), so processes starting together upgrade it once; the others
wait, then find it at head. A database made before migrations (tables, no
``alembic_version``) is completed by the baseline revision and stamped with it. A
database at a revision this code does not know (upgraded by a newer version) is refused.

The tables the code uses are collected by :func:`target_metadata` from the MetaData of the
modules in :data:`SCHEMA_MODULES`; a module that defines a new table
adds itself there, and its table gets a revision (:func:`new_revision`, docs/deploy.md).
"""

from __future__ import annotations

import functools
import importlib
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, MetaData, create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from ..store.engine import StoreError

__all__ = [
    "LOCK_KEY",
    "MigrationError",
    "Revision",
    "SCHEMA_MODULES",
    "SchemaState",
    "config",
    "current",
    "head",
    "history",
    "new_revision",
    "require_head",
    "schema_state",
    "target_metadata",
    "upgrade",
]

log = logging.getLogger("ginrummy.web")

HERE = Path(__file__).resolve().parent

LOCK_KEY = 0x67696E72756D6D79
"""The PostgreSQL advisory lock taken while upgrading (the bytes of "ginrummy")."""

SCHEMA_MODULES = ("ginrummy.web.store.schema", "ginrummy.web.store.schema_people")
"""Modules defining tables of the web table's database, on a module-level MetaData (any
name; imported by :func:`target_metadata`): the site's games, accounts and fair play in
:mod:`ginrummy.web.store.schema`, its people (chat, follows, blocks) in
:mod:`ginrummy.web.store.schema_people`; a module defining a table elsewhere would have to
be added here."""


class MigrationError(StoreError):
    """The schema cannot be brought to (or is not at) the revision this code needs."""


@dataclass(frozen=True, slots=True)
class Revision:
    """One revision of the schema: its id, the one before, and what it does."""

    id: str
    down: str | None
    doc: str


@dataclass(frozen=True, slots=True)
class SchemaState:
    """Where a database's schema stands against this code's revisions."""

    revision: str | None
    """The database's revision (None: never migrated)."""
    legacy: bool
    """Tables made before migrations (no revision yet)."""
    head: str
    """The newest revision this code knows."""
    known: bool
    """Whether this code knows the database's revision (None counts as known)."""

    @property
    def at_head(self) -> bool:
        """Nothing to upgrade."""
        return self.revision == self.head

    @property
    def newer(self) -> bool:
        """Upgraded by a newer version of ginrummy: this code must not touch it."""
        return not self.known

    def describe(self) -> str:
        """One line for ``ginrummy db current``."""
        if self.revision is None:
            if self.legacy:
                return (f"none: tables made before migrations (`ginrummy db upgrade` "
                        f"adopts them and upgrades to {self.head})")
            return f"none: empty database (`ginrummy db upgrade` creates revision {self.head})"
        if self.at_head:
            return f"{self.revision} (head)"
        if self.newer:
            return (f"{self.revision}: unknown to this version of ginrummy (newer than its "
                    f"head {self.head})")
        return f"{self.revision} (behind: head is {self.head}; run `ginrummy db upgrade`)"


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for the packaged revisions (``connection``: the database
    to work on, handed to ``env.py``)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    cfg.set_main_option("file_template", "rev%%(rev)s_%%(slug)s")
    cfg.set_main_option("truncate_slug_length", "32")
    cfg.attributes["connection"] = connection
    return cfg


@functools.cache
def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(config())


@functools.cache
def _known() -> frozenset[str]:
    return frozenset(s.revision for s in _script().walk_revisions())


def head() -> str:
    """The newest revision this code knows."""
    heads = _script().get_heads()
    if len(heads) != 1:
        raise MigrationError(f"The packaged migrations have {len(heads)} heads "
                             f"({', '.join(heads)}): merge them into one revision.")
    return heads[0]


def history() -> list[Revision]:
    """Every revision, oldest first."""
    out = []
    for s in _script().walk_revisions():
        down = s.down_revision
        doc = (s.doc or "").strip().splitlines()
        out.append(Revision(s.revision, down if isinstance(down, str) or down is None
                            else ",".join(down), doc[0] if doc else ""))
    return out[::-1]


def target_metadata() -> MetaData:
    """Every table the code uses: those of each MetaData found in :data:`SCHEMA_MODULES`
    (copied into one MetaData, in that order; the first definition of a name wins)."""
    combined = MetaData()
    for name in SCHEMA_MODULES:
        module = importlib.import_module(name)
        for md in [v for v in vars(module).values() if isinstance(v, MetaData)]:
            for table in md.sorted_tables:
                if table.name not in combined.tables:
                    table.to_metadata(combined)
    return combined


def _safe_url(engine: Engine) -> str:
    return make_url(engine.url).render_as_string(hide_password=True)


def _db_error(doing: str, engine: Engine, e: SQLAlchemyError) -> MigrationError:
    """One line for a database error: cannot open it at all, or it refused the work."""
    orig = getattr(e, "orig", None) or e
    lines = str(orig).strip().splitlines()
    why = lines[0] if lines else type(orig).__name__
    what = "open" if isinstance(e, OperationalError) else doing
    return MigrationError(f"Cannot {what} the database {_safe_url(engine)}: {why}")


def schema_state(conn: Connection) -> SchemaState:
    """The schema's state as seen on ``conn``."""
    tables = set(inspect(conn).get_table_names())
    revision: str | None = None
    if "alembic_version" in tables:
        heads = MigrationContext.configure(conn).get_current_heads()
        revision = ",".join(heads) if heads else None
    return SchemaState(revision=revision, legacy=revision is None and "matches" in tables,
                       head=head(), known=revision is None or revision in _known())


def _newer_message(state: SchemaState) -> str:
    return (f"The database's schema is at revision {state.revision}, which this version of "
            f"ginrummy does not know (a newer version upgraded it; this one's newest is "
            f"{state.head}): run the newer version, or restore a backup made for this one.")


def _lock(conn: Connection) -> None:
    """Serialise upgrades across processes (PostgreSQL; released when the transaction
    ends). SQLite serialises writers itself and has no advisory locks."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})


def upgrade(engine: Engine) -> tuple[SchemaState, SchemaState]:
    """Bring the database to the head revision; returns its state before and after.
    Raises MigrationError (changing nothing) for a database newer than this code, or
    when the database refuses (unreachable, no rights)."""
    try:
        with engine.begin() as conn:
            _lock(conn)
            before = schema_state(conn)
            if before.newer:
                raise MigrationError(_newer_message(before))
            if before.at_head:
                return before, before
            if before.legacy:
                log.warning("adopting a database made before migrations: %s", _safe_url(engine))
            command.upgrade(config(conn), "head")
            after = schema_state(conn)
    except SQLAlchemyError as e:
        raise _db_error("upgrade", engine, e) from None
    if before.revision is None and not before.legacy:
        log.info("database schema created at revision %s", after.revision)
    else:
        log.warning("database schema upgraded from %s to %s", before.revision or "none",
                    after.revision)
    return before, after


def current(engine: Engine) -> SchemaState:
    """The database's schema state (reads only)."""
    try:
        with engine.connect() as conn:
            return schema_state(conn)
    except SQLAlchemyError as e:
        raise _db_error("read", engine, e) from None


def require_head(engine: Engine) -> SchemaState:
    """Raise MigrationError unless the database is at the head revision (for servers
    started with ``--no-migrate``, whose operators migrate first)."""
    state = current(engine)
    if state.newer:
        raise MigrationError(_newer_message(state))
    if not state.at_head:
        raise MigrationError(
            f"The database's schema is at {state.revision or 'no revision'}, this version "
            f"needs {state.head}: run `ginrummy db upgrade --db URL` first (or start "
            f"without --no-migrate).")
    return state


def run_env(cfg: Config) -> None:
    """The body of ``env.py``: run the revisions on the connection :func:`config` was
    given, comparing against :func:`target_metadata`."""
    from alembic import context

    conn = cfg.attributes.get("connection")
    if conn is None:
        raise MigrationError("ginrummy's migrations run through `ginrummy db upgrade`, "
                             "not the alembic command.")
    context.configure(connection=conn, target_metadata=target_metadata(),
                      render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def new_revision(message: str) -> Path:
    """For developers: write ``versions/revNNNN_*.py`` holding what the code's tables
    (:func:`target_metadata`) have that the head revision's schema lacks, as found by
    Alembic's autogenerate on a scratch SQLite database. Review and edit it before
    committing. Returns the new file."""
    try:
        rev_id: str | None = f"{int(head()) + 1:04d}"
    except ValueError:
        rev_id = None
    with tempfile.TemporaryDirectory() as scratch:
        engine = create_engine(f"sqlite:///{scratch}/scratch.sqlite3")
        try:
            upgrade(engine)
            with engine.begin() as conn:
                made: Any = command.revision(config(conn), message=message,
                                             autogenerate=True, rev_id=rev_id)
        finally:
            engine.dispose()
    _script.cache_clear()
    _known.cache_clear()
    return Path(made.path)
