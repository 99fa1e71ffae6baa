"""The clock beat (:mod:`ginrummy.web.store.clocks`): written while a clock runs and not
while none does, and after a pause each running deadline moved on by the time its own clock
stood still (from the last beat, or from the match's last change when that is later).
SQLite only: the beat's cross-process behaviour on PostgreSQL is in
tests/web/test_clock_rules_cluster.py, and a shared PostgreSQL holds other tests' clocks."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select, update

from ginrummy.web.store import Store, StoredMatch, hash_token
from ginrummy.web.store.clocks import BEAT_ID
from ginrummy.web.store.schema import clock_beats_table, matches_table

PAUSE = 5.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(f"sqlite:///{tmp_path / 'beat.sqlite3'}")
    yield s
    s.close()


def _beat_at(store: Store) -> float | None:
    with store.engine.connect() as conn:
        at = conn.execute(select(clock_beats_table.c.at)
                          .where(clock_beats_table.c.id == BEAT_ID)).scalar()
    return None if at is None else float(at)


def _timed(store: Store, deadline: float, changed: float) -> str:
    """A playing match whose clock runs to ``deadline``, last changed at ``changed``."""
    sm = StoredMatch(
        id=secrets.token_urlsafe(9), token_hash0=hash_token(secrets.token_urlsafe(8)),
        token_hash1=hash_token(secrets.token_urlsafe(8)),
        options={"target": 100, "gin_only": False, "oklahoma": False},
        players=["Ann", "Bob"], seed=secrets.randbits(62), first_dealer=0,
        opponent="friend", bot_level=None, bot_name=None, status="playing", joined=True,
        to_play=0, deadline=deadline)
    store.create(sm)
    with store.engine.begin() as conn:
        conn.execute(update(matches_table).where(matches_table.c.id == sm.id)
                     .values(updated_at=changed))
    return sm.id


def _deadline_and_version(store: Store, mid: str) -> tuple[float, int]:
    m = matches_table
    with store.engine.connect() as conn:
        row = conn.execute(select(m.c.deadline, m.c.version).where(m.c.id == mid)).one()
    return float(row[0]), int(row[1])


def test_no_clock_runs_nothing_is_written(store: Store) -> None:
    """An idle site writes no beat (the first beat of a database is its row)."""
    t0 = 1_000_000.0
    assert store.clocks.beat(t0, PAUSE) == [] and _beat_at(store) == t0
    for k in range(1, 5):  # twice a second, and after a long idle spell: no write
        assert store.clocks.beat(t0 + k * 0.5, PAUSE) == []
    assert store.clocks.beat(t0 + 3600, PAUSE) == []
    assert _beat_at(store) == t0


def test_a_running_clock_keeps_the_beat_fresh(store: Store) -> None:
    t0 = 1_000_000.0
    store.clocks.beat(t0, PAUSE)
    mid = _timed(store, t0 + 30, t0)
    before = _deadline_and_version(store, mid)
    for k in range(1, 5):
        assert store.clocks.beat(t0 + k * 0.5, PAUSE) == []
        assert _beat_at(store) == t0 + k * 0.5
    assert _deadline_and_version(store, mid) == before  # short gaps: nothing moves


def test_an_outage_moves_a_running_deadline_on_by_the_gap(store: Store) -> None:
    t0 = 1_000_000.0
    store.clocks.beat(t0, PAUSE)
    mid = _timed(store, t0 + 30, t0 - 1)
    store.clocks.beat(t0 + 0.5, PAUSE)
    deadline, version = _deadline_and_version(store, mid)
    moved = store.clocks.beat(t0 + 20.5, PAUSE)  # 20 s without a beat
    assert moved == [(mid, version + 1)]
    assert _deadline_and_version(store, mid) == (deadline + 20.0, version + 1)
    assert _beat_at(store) == t0 + 20.5
    assert store.clocks.beat(t0 + 21.0, PAUSE) == []  # once, not again


def test_a_clock_started_after_an_idle_spell_is_not_moved_on_by_it(store: Store) -> None:
    """Before, an idle site wrote the beat twice a second so that this could not happen;
    now the match's last change bounds the time its clock stood still."""
    t0 = 1_000_000.0
    store.clocks.beat(t0, PAUSE)
    store.clocks.beat(t0 + 3600, PAUSE)  # an hour with no clock: no beat written
    mid = _timed(store, t0 + 3630, t0 + 3599.8)  # a clock started just now
    deadline, version = _deadline_and_version(store, mid)
    assert store.clocks.beat(t0 + 3600.2, PAUSE) == []
    assert _deadline_and_version(store, mid) == (deadline, version)
    assert _beat_at(store) == t0 + 3600.2  # a clock runs: the beat is written again
    # ... and one started 20 s before an outage (no process beat since) moves by the 20 s
    # since its change, not by the hour before it
    late = _timed(store, t0 + 3640, t0 + 3600.3)
    d2, v2 = _deadline_and_version(store, late)
    moved = dict(store.clocks.beat(t0 + 3620.3, PAUSE))
    assert set(moved) == {mid, late}
    assert _deadline_and_version(store, late) == (pytest.approx(d2 + 20.0), v2 + 1)
    assert _deadline_and_version(store, mid)[0] == pytest.approx(deadline + 20.1)
