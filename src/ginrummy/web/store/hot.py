"""The store's two hot paths, through the database driver directly: committing the changes
of a group commit (every move) and reading what another process stored since a table was
last read (every move made elsewhere).

Through the engine, each call paid for a pool checkout with its liveness ping, statement
compilation and result processing, which cost more than the database work itself. Here
each thread keeps one connection of its own (any error drops it; the next call opens a
fresh one) and runs fixed statements:

* :class:`Writer` (one per store, used by the group-commit writer): on SQLite the version
  bumps and the new actions as two ``executemany`` in one transaction; on PostgreSQL a
  change is one statement (the version bump and, in the same statement, its action),
  committed on its own when it is alone in the batch: one round trip for a move.
* :class:`Reader`: a match's changing fields and its actions from a sequence number on,
  in ONE statement, so the row and the actions are of one snapshot (read apart, a commit
  landing between the two reads showed an action without its version bump).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine

from .rows import Change, SomeStale, StoredAction, StoredMatch, ready_text

__all__ = ["Reader", "Writer"]

_UPDATE = (
    "UPDATE matches SET version = ?, status = ?, joined = ?, hands_dealt = ?, ready = ?, "
    "score0 = ?, score1 = ?, winner = ?, to_play = ?, updated_at = ?, "
    "bank0 = ?, bank1 = ?, deadline = ?, end_reason = ?, ended_by = ? "
    "WHERE id = ? AND version = ?"
)
_INSERT = "INSERT INTO actions (match_id, seq, hand, seat, action) VALUES (?, ?, ?, ?, ?)"
_UPDATE_AND_INSERT = (  # PostgreSQL: a data-modifying WITH, so both in one statement
    "WITH bumped AS (" + _UPDATE + " RETURNING id) "
    "INSERT INTO actions (match_id, seq, hand, seat, action) "
    "SELECT id, ?, ?, ?, ? FROM bumped"
)
_TAIL = (
    "SELECT m.version, m.status, m.joined, m.hands_dealt, m.ready, m.score0, m.score1, "
    "m.winner, m.to_play, m.updated_at, m.token_hash1, m.joined_at, m.players, "
    "a.seq, a.hand, a.seat, a.action, "
    "m.bank0, m.bank1, m.deadline, m.end_reason, m.ended_by, m.bot_seats "
    "FROM matches m LEFT JOIN actions a ON a.match_id = m.id AND a.seq >= ? "
    "WHERE m.id = ? ORDER BY a.seq"
)


def _style(engine: Engine, sql: str) -> str:
    """``sql`` in the driver's parameter style (``?`` or ``%s``)."""
    style = engine.dialect.paramstyle
    if style == "qmark":
        return sql
    if style in ("format", "pyformat"):
        return sql.replace("?", "%s")
    raise ValueError(f"no fast path for the {style} parameter style")


class _Connections:
    """One driver connection per thread (or, ``shared``, one for all, used by one thread at
    a time), opened on first use, dropped after an error."""

    def __init__(self, engine: Engine, autocommit: bool, shared: bool = False) -> None:
        self.engine = engine
        self.autocommit = autocommit and engine.dialect.name == "postgresql"
        self._local: Any = threading.local() if not shared else _One()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self._generation = 0

    def get(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "generation", -1) != self._generation:
            conn = None  # opened before the database went away: dropped by close()
        if conn is None:
            conn = self.engine.raw_connection()
            if self.autocommit:
                conn.dbapi_connection.autocommit = True  # type: ignore[union-attr]
            self._local.conn = conn
            self._local.generation = self._generation
            with self._lock:
                self._all.append(conn)
        return conn

    def drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            with self._lock:
                if conn in self._all:
                    self._all.remove(conn)
            with contextlib.suppress(Exception):
                conn.invalidate()

    def close(self) -> None:
        """Drop every connection (each thread opens a fresh one on its next call)."""
        with self._lock:
            conns, self._all = self._all, []
            self._generation += 1
        for conn in conns:
            with contextlib.suppress(Exception):
                conn.invalidate()


class _One:
    """A stand-in for ``threading.local`` that every thread shares."""

    conn: Any = None
    generation = -1


class Writer:
    """Commits a group of changes (none with a seat or a name to set), on one connection
    (the group-commit writer runs one batch at a time, from whichever thread)."""

    def __init__(self, engine: Engine) -> None:
        self.pg = engine.dialect.name == "postgresql"
        self.update = _style(engine, _UPDATE)
        self.insert = _style(engine, _INSERT)
        self.both = _style(engine, _UPDATE_AND_INSERT)
        self._conns = _Connections(engine, autocommit=True, shared=True)
        self._one = threading.Lock()

    def commit(self, changes: Sequence[Change]) -> list[int | None]:
        """Store the changes in one transaction; raises SomeStale (nothing stored) when
        some change's version moved on."""
        now = time.time()
        with self._one:
            conn = self._conns.get()
            try:
                if self.pg:
                    self._commit_pg(conn, changes, now)
                else:
                    self._commit_sqlite(conn, changes, now)
            except SomeStale:
                raise
            except BaseException:
                self._conns.drop()
                raise
        return [ch.expected_version + 1 for ch in changes]

    @staticmethod
    def _bump(ch: Change, now: float) -> tuple[Any, ...]:
        return (ch.expected_version + 1, ch.status, ch.joined, ch.hands_dealt,
                ready_text(ch.ready), ch.scores[0], ch.scores[1], ch.winner, ch.to_play, now,
                ch.banks[0] if ch.banks else None, ch.banks[1] if ch.banks else None,
                ch.deadline, ch.end_reason, ch.ended_by,
                ch.match_id, ch.expected_version)

    @staticmethod
    def _action(a: StoredAction) -> tuple[Any, ...]:
        return (a.seq, a.hand, a.seat, json.dumps(a.action))

    def _commit_sqlite(self, conn: Any, changes: Sequence[Change], now: float) -> None:
        cur = conn.cursor()
        try:
            cur.executemany(self.update, [self._bump(ch, now) for ch in changes])
            if cur.rowcount != len(changes):
                conn.rollback()
                raise SomeStale
            actions = [(ch.match_id, *self._action(ch.action))
                       for ch in changes if ch.action is not None]
            if actions:
                cur.executemany(self.insert, actions)
            conn.commit()
        finally:
            cur.close()

    def _commit_pg(self, conn: Any, changes: Sequence[Change], now: float) -> None:
        with_action = [self._bump(ch, now) + self._action(ch.action)
                       for ch in changes if ch.action is not None]
        bare = [self._bump(ch, now) for ch in changes if ch.action is None]
        driver = conn.dbapi_connection
        if len(changes) == 1:  # one statement in autocommit: one round trip
            cur = driver.cursor()
            try:
                if with_action:
                    cur.execute(self.both, with_action[0])
                else:
                    cur.execute(self.update, bare[0])
                if cur.rowcount != 1:
                    raise SomeStale
            finally:
                cur.close()
            return
        with driver.transaction():
            cur = driver.cursor()
            try:
                done = 0
                if with_action:
                    cur.executemany(self.both, with_action)
                    done += cur.rowcount
                if bare:
                    cur.executemany(self.update, bare)
                    done += cur.rowcount
                if done != len(changes):
                    raise SomeStale  # leaving the block rolls the transaction back
            finally:
                cur.close()

    def close(self) -> None:
        """Give the connections back."""
        self._conns.close()


class Reader:
    """Reads what was stored of a match since a sequence number (see the module
    docstring); callable from any thread."""

    def __init__(self, engine: Engine) -> None:
        self.sql = _style(engine, _TAIL)
        self.mark = _style(engine, "?")
        self._conns = _Connections(engine, autocommit=True)

    def _rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        conn = self._conns.get()
        try:
            cur = conn.cursor()
            try:
                cur.execute(sql, params)
                rows = cur.fetchall()
            finally:
                cur.close()
            if not self._conns.autocommit:
                conn.rollback()  # SQLite: end the read
        except BaseException:
            self._conns.drop()
            raise
        return list(rows)

    def versions(self, ids: Sequence[str]) -> dict[str, int]:
        """The stored version of each of these matches (at most a few hundred)."""
        if not ids:
            return {}
        marks = ", ".join([self.mark] * len(ids))
        rows = self._rows(f"SELECT id, version FROM matches WHERE id IN ({marks})", ids)
        return {str(r[0]): int(r[1]) for r in rows}

    def tail(self, known: StoredMatch, from_seq: int) -> StoredMatch | None:
        """The match ``known`` as stored now, with its actions from ``from_seq`` on (the
        fields that never change are taken from ``known``; the bot seats are read, as a
        seat becomes a program's when it is first played through an API token); None when
        it is gone."""
        rows = self._rows(self.sql, (from_seq, known.id))
        if not rows:
            return None
        r = rows[0]
        sm = StoredMatch(
            id=known.id, token_hash0=known.token_hash0, token_hash1=r[10],
            options=known.options, players=json.loads(r[12]), seed=known.seed,
            first_dealer=known.first_dealer, opponent=known.opponent,
            bot_level=known.bot_level, bot_name=known.bot_name, version=int(r[0]),
            status=r[1], joined=bool(r[2]), hands_dealt=int(r[3]),
            ready=[c == "1" for c in r[4]], scores=[int(r[5]), int(r[6])], winner=r[7],
            to_play=r[8], created_at=known.created_at, updated_at=float(r[9]),
            invite_hash=known.invite_hash, joined_at=r[11], deal_scheme=known.deal_scheme,
            clock_move=known.clock_move, clock_bank=known.clock_bank,
            banks=[float(r[17]), float(r[18])] if r[17] is not None and r[18] is not None
            else None,
            deadline=r[19], end_reason=r[20], ended_by=r[21],
            bot_seats=(bool(r[22]) and r[22][0:1] == "1", bool(r[22]) and r[22][1:2] == "1"),
            no_coach=known.no_coach,
        )
        sm.actions = [StoredAction(int(x[13]), int(x[14]), int(x[15]), json.loads(x[16]))
                      for x in rows if x[13] is not None]
        return sm

    def close(self) -> None:
        """Give the connections back."""
        self._conns.close()
