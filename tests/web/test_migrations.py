"""Schema migrations (Alembic, shipped in the package): a fresh database, a database made
before migrations, processes upgrading together, ``ginrummy db``, and a database newer
than the code. PostgreSQL tests each get a database of their own on the test server (the
other tests share its default one), dropped afterwards.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from ginrummy.cli import main as cli_main
from ginrummy.web import migrations
from ginrummy.web.server import main as serve_main
from ginrummy.web.store import Store, open_engine

from .cluster import SRC


@pytest.fixture
def pg_fresh(postgres_url: str) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database (dropped at the end)."""
    name = "gr_mig_" + secrets.token_hex(6)
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    return str(request.getfixturevalue("pg_fresh"))


def _differences(url: str) -> list[object]:
    """What the database's schema lacks or has beyond the tables the code uses."""
    engine = open_engine(url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(ctx, migrations.target_metadata()))
    finally:
        engine.dispose()


def _revision(url: str) -> str | None:
    engine = open_engine(url)
    try:
        return migrations.current(engine).revision
    finally:
        engine.dispose()


def test_fresh_database_gets_exactly_the_schema_the_code_uses(fresh_url: str) -> None:
    Store(fresh_url).close()
    assert _revision(fresh_url) == migrations.head()
    assert _differences(fresh_url) == []
    Store(fresh_url, migrate=False).close()  # at head: the check passes


def test_every_table_the_package_defines_is_under_migrations() -> None:
    """A module defining a table (on any MetaData) must be in SCHEMA_MODULES, or its table
    would get no revision and the comparison above could not notice."""
    import importlib
    import pkgutil

    from sqlalchemy import MetaData, Table

    import ginrummy.web

    defined: set[str] = set()
    for info in pkgutil.walk_packages(ginrummy.web.__path__, "ginrummy.web."):
        if ".migrations." in info.name:
            continue  # env.py and the revisions
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, MetaData):
                defined |= set(value.tables)
            elif isinstance(value, Table):
                defined.add(value.name)
    assert "matches" in defined and "deal_salts" in defined
    assert defined <= set(migrations.target_metadata().tables)


def test_every_revision_goes_down_and_up_again(fresh_url: str) -> None:
    """Each packaged revision's downgrade undoes its upgrade (a release can be rolled
    back before any player used it)."""
    engine = open_engine(fresh_url)
    try:
        migrations.upgrade(engine)
        with engine.begin() as conn:
            command.downgrade(migrations.config(conn), "base")
        with engine.connect() as conn:
            left = set(conn.dialect.get_table_names(conn)) - {"alembic_version"}
        assert left == set()
        migrations.upgrade(engine)
    finally:
        engine.dispose()
    assert _differences(fresh_url) == []


# --------------------------------------------------------------------- made before migrations

FIRST_RELEASE = [
    """CREATE TABLE matches (
        id VARCHAR(32) NOT NULL, token_hash0 VARCHAR(64) NOT NULL,
        token_hash1 VARCHAR(64) NOT NULL, options TEXT NOT NULL, players TEXT NOT NULL,
        seed BIGINT NOT NULL, first_dealer INTEGER NOT NULL, opponent VARCHAR(16) NOT NULL,
        bot_level VARCHAR(32), bot_name VARCHAR(64), version INTEGER NOT NULL,
        status VARCHAR(16) NOT NULL, joined BOOLEAN NOT NULL, hands_dealt INTEGER NOT NULL,
        ready VARCHAR(16) NOT NULL, score0 INTEGER NOT NULL, score1 INTEGER NOT NULL,
        winner INTEGER, to_play INTEGER, created_at FLOAT NOT NULL, updated_at FLOAT NOT NULL,
        PRIMARY KEY (id))""",
    "CREATE INDEX ix_matches_token_hash0 ON matches (token_hash0)",
    "CREATE INDEX ix_matches_token_hash1 ON matches (token_hash1)",
    """CREATE TABLE actions (
        match_id VARCHAR(32) NOT NULL, seq INTEGER NOT NULL, hand INTEGER NOT NULL,
        seat INTEGER NOT NULL, action TEXT NOT NULL, PRIMARY KEY (match_id, seq),
        FOREIGN KEY(match_id) REFERENCES matches (id))""",
]
"""The schema as the first release's ``create_all`` made it (no invites, no encrypted
seeds, no rematches, no deal salts)."""

LAST_BEFORE_MIGRATIONS = [
    *FIRST_RELEASE,
    # what its start-up ALTERs and extras' create_all added since
    "ALTER TABLE matches ADD COLUMN invite_hash VARCHAR(64)",
    "ALTER TABLE matches ADD COLUMN seed_enc TEXT",
    "ALTER TABLE matches ADD COLUMN joined_at FLOAT",
    """CREATE TABLE rematches (old_id VARCHAR(32) NOT NULL, new_id VARCHAR(32) NOT NULL,
        offered_by VARCHAR(1) NOT NULL, invite VARCHAR(64), PRIMARY KEY (old_id))""",
    """CREATE TABLE deal_salts (match_id VARCHAR(32) NOT NULL, salt VARCHAR(64) NOT NULL,
        PRIMARY KEY (match_id))""",
]


def _legacy(url: str, ddl: list[str]) -> None:
    """A database as an older version left it, with one match and one action in it."""
    engine = create_engine(url)
    with engine.begin() as conn:
        for statement in ddl:
            conn.execute(text(statement))
        conn.execute(text(
            "INSERT INTO matches (id, token_hash0, token_hash1, options, players, seed, "
            "first_dealer, opponent, bot_level, bot_name, version, status, joined, "
            "hands_dealt, ready, score0, score1, winner, to_play, created_at, updated_at) "
            "VALUES ('oldmatch', :h0, :h1, '{}', :players, 12345, 1, 'friend', NULL, NULL, "
            "1, 'playing', :joined, 1, '00', 0, 0, NULL, 0, 1.5, 2.5)"),
            {"h0": "a" * 64, "h1": "b" * 64, "players": json.dumps(["Ann", "Bob"]),
             "joined": True})
        conn.execute(text("INSERT INTO actions (match_id, seq, hand, seat, action) "
                          "VALUES ('oldmatch', 0, 0, 0, :a)"),
                     {"a": json.dumps({"act": "pass"})})
    engine.dispose()


@pytest.mark.parametrize("ddl", [FIRST_RELEASE, LAST_BEFORE_MIGRATIONS],
                         ids=["first-release", "last-before-migrations"])
def test_database_made_before_migrations_is_adopted_keeping_its_rows(
    fresh_url: str, ddl: list[str]
) -> None:
    _legacy(fresh_url, ddl)
    engine = open_engine(fresh_url)
    try:
        state = migrations.current(engine)
    finally:
        engine.dispose()
    assert state.revision is None and state.legacy
    store = Store(fresh_url)
    try:
        got = store.load("oldmatch")
        assert got is not None
        assert (got.players, got.seed, got.version, got.invite_hash, got.joined_at) == (
            ["Ann", "Bob"], 12345, 1, None, None)
        assert [(a.seq, a.action) for a in got.actions] == [(0, {"act": "pass"})]
    finally:
        store.close()
    assert _revision(fresh_url) == migrations.head()
    assert _differences(fresh_url) == []


# --------------------------------------------------------------------- many processes

_UPGRADER = """
import sys
from ginrummy.web import migrations
from ginrummy.web.store import open_engine
engine = open_engine(sys.argv[1])
engine.connect().close()  # imports done and connected: only the upgrade is left
print("ready", flush=True)
sys.stdin.readline()  # all start together
before, after = migrations.upgrade(engine)
print(before.revision or "none", after.revision)
"""


@pytest.mark.postgres
def test_processes_upgrading_together_upgrade_once(pg_fresh: str) -> None:
    """Three processes upgrade one empty PostgreSQL database at the same instant: one
    creates the schema, the others wait for its lock and find it done."""
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, "-c", _UPGRADER, pg_fresh], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline() == "ready\n", p.communicate()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err for _, err in outs]
    head = migrations.head()
    lines = sorted(out.strip() for out, _ in outs)
    assert lines == sorted([f"none {head}", f"{head} {head}", f"{head} {head}"])
    assert _differences(pg_fresh) == []


# --------------------------------------------------------------------- ginrummy db


def test_db_command_upgrades_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         ) -> None:
    db = str(tmp_path / "ops.sqlite3")
    head = migrations.head()
    assert cli_main(["db", "current", "--db", db]) == 2
    assert "no database file" in capsys.readouterr().err
    _legacy(f"sqlite:///{db}", FIRST_RELEASE)
    assert cli_main(["db", "current", "--db", db, "--check"]) == 1
    assert capsys.readouterr().out.startswith("none: tables made before migrations")
    assert cli_main(["db", "upgrade", "--db", db]) == 0
    assert capsys.readouterr().out == (
        f"Adopted a database made before migrations: now at {head} (head).\n")
    assert cli_main(["db", "current", "--db", db, "--check"]) == 0
    assert capsys.readouterr().out == f"{head} (head)\n"
    assert cli_main(["db", "upgrade", "--db", db]) == 0
    assert capsys.readouterr().out == f"Already at the head revision {head}: nothing to do.\n"
    assert cli_main(["db", "history", "--db", db]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("0001 ") and listed[-1].startswith(f"{head} (head, current)")
    assert cli_main(["db", "upgrade", "--db", "nosuchdb://x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ginrummy db upgrade: Cannot use the database URL")
    assert err.count("\n") == 1


def test_serve_no_migrate_refuses_a_database_not_at_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "nm.sqlite3")
    assert serve_main(["--db", db, "--no-migrate", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "ginrummy db upgrade" in err and err.count("\n") == 1
    assert _revision(f"sqlite:///{db}") is None  # nothing was created
    assert cli_main(["db", "upgrade", "--db", db]) == 0
    Store(f"sqlite:///{db}", migrate=False).close()


def test_database_newer_than_the_code_is_refused(
    fresh_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Store(fresh_url).close()
    engine = open_engine(fresh_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    for argv in (["serve", "--db", fresh_url, "--port", "0"],
                 ["db", "upgrade", "--db", fresh_url]):
        assert cli_main(argv) == 2
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1, captured.err
        assert "revision 9999, which this version of ginrummy does not know" in captured.err
        assert "Traceback" not in captured.err + captured.out
    assert cli_main(["db", "current", "--db", fresh_url]) == 2
    assert capsys.readouterr().out.startswith("9999: unknown to this version")
    assert _revision(fresh_url) == "9999"  # left as it was
