"""Which database errors pause the table and which refuse one call: a transaction the
database rolled back (a deadlock victim) is one failed call, not a database that is away,
and two quick-match takes of the same seeks never deadlock (they lock in one order). On a
real PostgreSQL."""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text, update
from sqlalchemy.exc import OperationalError

from ginrummy.web.backends.database import Database
from ginrummy.web.errors import TableError
from ginrummy.web.store import Store
from ginrummy.web.store.schema import seeks_table
from ginrummy.web.store.seeks import SeekRow

pytestmark = pytest.mark.postgres


def _real_deadlock(url: str) -> OperationalError:
    """Two transactions that lock two rows crosswise: PostgreSQL rolls one back."""
    engine = create_engine(url)
    name = f"deadlock_{secrets.token_hex(4)}"
    with engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE {name} (id int PRIMARY KEY, v int)"))
        conn.execute(text(f"INSERT INTO {name} VALUES (1, 0), (2, 0)"))
    both = threading.Barrier(2)
    errors: list[BaseException] = []

    def lock(first: int, second: int) -> None:
        try:
            with engine.begin() as conn:
                conn.execute(text(f"UPDATE {name} SET v = v + 1 WHERE id = {first}"))
                both.wait(10)
                conn.execute(text(f"UPDATE {name} SET v = v + 1 WHERE id = {second}"))
        except OperationalError as e:
            errors.append(e)

    threads = [threading.Thread(target=lock, args=p) for p in ((1, 2), (2, 1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    with engine.begin() as conn:
        conn.execute(text(f"DROP TABLE {name}"))
    engine.dispose()
    assert len(errors) == 1, errors
    return errors[0]  # type: ignore[return-value]


def test_a_deadlock_victim_is_one_refused_call_not_a_database_away(
        postgres_url: str, tmp_path: Path) -> None:
    err = _real_deadlock(postgres_url)
    assert getattr(err.orig, "sqlstate", "") == "40P01"
    db = Database(Store(f"sqlite:///{tmp_path / 'x.sqlite3'}"))

    def fails() -> Any:
        raise err

    async def call() -> TableError:
        with pytest.raises(TableError) as e:
            await db.run(fails)
        return e.value

    got: list[TableError] = []
    # on a thread of its own: an event loop of another test may be running on this one
    runner = threading.Thread(target=lambda: got.append(asyncio.run(call())))
    try:
        runner.start()
        runner.join(30)
        refused = got[0]
        assert refused.status == 503
        assert refused.message == "The database is busy: try again in a moment."
        assert db.available  # nothing paused: the next call goes through
    finally:
        db.close()


def _seek(store: Store) -> str:
    now = time.time()
    h = secrets.token_hex(16)
    store.seeks.add(SeekRow(h, None, "Guest", 1500.0, {"target": 100}, False, "waiting", now,
                            now + 60, secrets.token_hex(16)))
    return h


def test_crosswise_takes_of_the_same_seeks_never_deadlock(postgres_url: str) -> None:
    """Two processes see the same two seeks fit, each from its own side, and take them at
    the same moment: exactly one takes both, the other is told they are gone."""
    store = Store(postgres_url)
    try:
        for _ in range(30):
            a, b = _seek(store), _seek(store)
            both = threading.Barrier(2)
            out: list[Any] = [None, None]

            def take(i: int, ids: list[str], both: threading.Barrier = both,
                     out: list[Any] = out) -> None:
                both.wait(10)
                try:
                    out[i] = store.seeks.take(ids)
                except Exception as e:  # noqa: BLE001 - the failure is the finding
                    out[i] = e

            threads = [threading.Thread(target=take, args=(0, [a, b])),
                       threading.Thread(target=take, args=(1, [b, a]))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert sorted(out) == [False, True], out
    finally:
        store.close()


def test_a_stale_take_cannot_mark_its_seeks_paired(postgres_url: str) -> None:
    """A process that took two seeks and stalled past the take's life: another process
    takes them again; the first one's pairing is then refused (it gives its match up),
    the second one's stands (issue 44 item 8)."""
    store = Store(postgres_url)
    try:
        a, b = _seek(store), _seek(store)
        assert store.seeks.take([a, b], "first")
        assert not store.seeks.take([a, b], "second")  # taken, and not stale yet
        with store.engine.begin() as conn:  # the first process stalls past TAKE_SECONDS
            conn.execute(update(seeks_table).where(seeks_table.c.id_hash.in_([a, b]))
                         .values(taken_at=time.time() - 60))
        assert store.seeks.take([a, b], "second")
        assert not store.seeks.paired([(a, 0), (b, 1)], "m-first", 60, "first")
        assert store.seeks.paired([(a, 0), (b, 1)], "m-second", 60, "second")
        assert {store.seeks.get(h).match_id for h in (a, b)} == {"m-second"}  # type: ignore[union-attr]
    finally:
        store.close()
