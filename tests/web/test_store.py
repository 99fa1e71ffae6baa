"""Storage of web matches, on SQLite and (when GINRUMMY_TEST_POSTGRES_URL is set)
PostgreSQL: versioned commits that refuse stale changes, actions kept in order, token
lookups by hash, and a match rebuilt from the database exactly as it was played."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from ginrummy import fairness
from ginrummy.bots import make_bot
from ginrummy.fairness import LEGACY_SCHEME, deal_for
from ginrummy.match import Match
from ginrummy.options import Options
from ginrummy.web.app import create_app
from ginrummy.web.store import (
    NO_TOKEN,
    Change,
    StaleVersionError,
    Store,
    StoredAction,
    StoredMatch,
    StoreError,
    hash_token,
)
from ginrummy.web.store.seeds import SeedCipher, load_key
from ginrummy.web.tables.table import build_match

from .conftest import auth, create, human_can_act, invite_token, wait_for

PG_ENV = "GINRUMMY_TEST_POSTGRES_URL"


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=[pytest.mark.postgres]),
    ]
)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL of each kind (PostgreSQL tests share one database: ids are random)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    # from the environment, or a throw-away server (skips, saying why, without one)
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = Store(db_url)
    yield s
    s.close()


def _row(**kw: Any) -> StoredMatch:
    base: dict[str, Any] = dict(
        id=secrets.token_urlsafe(9),
        token_hash0=hash_token(secrets.token_urlsafe(8)),
        token_hash1=hash_token(secrets.token_urlsafe(8)),
        options={"target": 100, "gin_only": False, "oklahoma": False},
        players=["Ann", "Friend"],
        seed=secrets.randbits(62),
        first_dealer=1,
        opponent="friend",
        bot_level=None,
        bot_name=None,
        status="waiting",
        joined=False,
        to_play=0,
    )
    base.update(kw)
    return StoredMatch(**base)


def _commit(store: Store, sm: StoredMatch, version: int, action: StoredAction | None) -> int:
    return store.commit_change(
        sm.id, version, action=action, status="playing", joined=True, hands_dealt=1,
        ready=[False, True], scores=[3, 4], winner=None, to_play=1,
    )


def test_create_load_and_versioned_commits(store: Store) -> None:
    sm = _row()
    store.create(sm)
    got = store.load(sm.id)
    assert got is not None and got.version == 0 and got.actions == []
    assert (got.options, got.players, got.seed, got.status) == (
        sm.options, sm.players, sm.seed, "waiting")
    a0 = StoredAction(0, 0, 0, {"act": "pass"})
    assert _commit(store, sm, 0, a0) == 1
    a1 = StoredAction(1, 0, 1, {"act": "draw", "from": "discard"})
    assert _commit(store, sm, 1, a1) == 2
    with pytest.raises(StaleVersionError):  # based on version 1: refused, nothing stored
        _commit(store, sm, 1, StoredAction(2, 0, 0, {"act": "pass"}))
    got = store.load(sm.id)
    assert got is not None
    assert got.version == 2 and got.actions == [a0, a1]
    assert got.ready == [False, True] and got.scores == [3, 4] and got.joined is True
    assert store.load("no-such-id") is None


def test_seat_token_is_stored_only_as_a_hash_and_found_by_it(store: Store) -> None:
    tok0, tok1 = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    sm = _row(token_hash0=hash_token(tok0), token_hash1=hash_token(tok1))
    store.create(sm)
    other = _row()
    store.create(other)
    found = store.find_by_token_hashes([hash_token(tok1), hash_token("nobody")])
    assert [m.id for m in found] == [sm.id]
    assert store.find_by_token_hashes([]) == []
    got = store.load(sm.id)
    assert got is not None and tok0 not in repr(got) and tok1 not in repr(got)


def test_ids_with_status(store: Store) -> None:
    a = _row(opponent="computer", bot_level="easy", bot_name="easy", status="playing",
             joined=True)
    b = _row(status="playing", joined=True)
    store.create(a)
    store.create(b)
    playing_computer = store.ids_with_status("playing", "computer")
    assert a.id in playing_computer and b.id not in playing_computer
    assert {a.id, b.id} <= set(store.ids_with_status("playing"))


def test_bad_database_url_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="Cannot"):
        Store("nosuchdb://x")
    with pytest.raises(StoreError, match="Cannot open"):
        Store(f"sqlite:///{tmp_path / 'missing-dir' / 'x.sqlite3'}")


def test_deals_are_a_function_of_seed_and_hand() -> None:
    assert deal_for(7, 0) == deal_for(7, 0)
    assert deal_for(7, 0) != deal_for(7, 1) and deal_for(7, 0) != deal_for(8, 0)


def test_match_rebuilt_from_database_is_identical(db_url: str) -> None:
    """Play part of a match through one app; a second app over the same database (a
    restart) shows every seat exactly the same state and lets play go on."""
    app = create_app(db_url, bot_delay=0)
    rng = random.Random(6)
    with TestClient(app) as c:
        m = create(c, opponent="friend")
        mid, toks = m["id"], [m["token"], invite_token(c, m)]
        for _ in range(25):
            s = c.get(f"/api/matches/{mid}", headers=auth(toks[0])).json()
            if s["hand_over"] is not None:
                for seat in (0, 1):
                    s = c.post(f"/api/matches/{mid}/next", headers=auth(toks[seat]),
                               json={"version": s["version"]}).json()
                continue
            seat = s["view"]["to_play"]
            me = c.get(f"/api/matches/{mid}", headers=auth(toks[seat])).json()
            r = c.post(f"/api/matches/{mid}/actions", headers=auth(toks[seat]),
                       json={"action": rng.choice(me["legal"]), "version": me["version"]})
            assert r.status_code == 200
        before = [c.get(f"/api/matches/{mid}", headers=auth(t)).json() for t in toks]
        comp = create(c, opponent="computer", bot="easy")
        comp_before = wait_for(c, comp["id"], comp["token"], human_can_act)
    app2 = create_app(db_url, bot_delay=0)
    with TestClient(app2) as c:
        after = [c.get(f"/api/matches/{mid}", headers=auth(t)).json() for t in toks]
        assert after == before
        comp_after = c.get(f"/api/matches/{comp['id']}", headers=auth(comp["token"])).json()
        assert comp_after == comp_before
        seat = after[0]["view"]["to_play"]
        if seat is not None:
            r = c.post(f"/api/matches/{mid}/actions", headers=auth(toks[seat]),
                       json={"action": after[seat]["legal"][0], "version": after[seat]["version"]})
            assert r.status_code == 200 and r.json()["version"] == before[0]["version"] + 1
    sm = Store(db_url, SeedCipher(load_key(None, None))).load(mid)
    assert sm is not None
    assert build_match(sm).to_record() == build_match(sm).to_record()


def test_invite_seat_is_taken_once_and_only_while_free(store: Store) -> None:
    """The friend's seat starts with no token; taking it with the invite stores the new
    token's hash once, and a second taking (even at a current version) changes nothing."""
    sm = _row(token_hash1=NO_TOKEN, invite_hash=hash_token("code"))
    store.create(sm)
    loaded = store.load(sm.id)
    assert loaded is not None and loaded.invite_hash == hash_token("code")
    assert loaded.token_hash1 == NO_TOKEN
    first = Change(match_id=sm.id, expected_version=0, status="playing", joined=True,
                   hands_dealt=1, ready=(False, False), scores=(0, 0), winner=None,
                   to_play=0, token_hash1=hash_token("t1"))
    assert store.commit_batch([first]) == [1]
    second = Change(match_id=sm.id, expected_version=1, status="playing", joined=True,
                    hands_dealt=1, ready=(False, False), scores=(0, 0), winner=None,
                    to_play=0, token_hash1=hash_token("t2"))
    assert store.commit_batch([second]) == [None]
    after = store.load(sm.id)
    assert after is not None and after.token_hash1 == hash_token("t1") and after.version == 1


def test_older_database_gains_the_invite_column(tmp_path: Path) -> None:
    """A database made before invites (and migrations) existed is upgraded in place; its
    rows still load (tests/web/test_migrations.py has the full legacy schemas)."""
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    s = Store(url)
    sm = _row()
    s.create(sm)
    with s.engine.begin() as conn:
        conn.execute(text("ALTER TABLE matches DROP COLUMN invite_hash"))
        conn.execute(text("DROP TABLE alembic_version"))
    s.close()
    s = Store(url)
    try:
        got = s.load(sm.id)
        assert got is not None and got.invite_hash is None
        assert got.token_hash1 == sm.token_hash1
    finally:
        s.close()


def test_a_match_stored_before_deal_schemes_keeps_its_deals_and_verifies(db_url: str) -> None:
    """Rows without a deal scheme were all dealt with python-random/1: the table deals
    them so (the one dealer, ginrummy.fairness, told the stored scheme), and their
    finished record names that scheme and verifies. New matches deal ginrummy-deal/1."""
    seed, salt = 99, "ab" * 16
    m = Match(Options(), seed=seed, first_dealer=0, players=("A", "B"), auto_deal=False)
    bots = [make_bot("simple", 1), make_bot("simple", 2)]
    acts: list[StoredAction] = []
    while not m.is_over():
        m.start_hand(deal_for(seed, len(m.hands), LEGACY_SCHEME))
        while not m.hand.is_over():
            seat = m.to_play
            assert seat is not None
            a = bots[seat].decide(m.view(seat))
            m.play(a, seat)
            acts.append(StoredAction(len(acts), len(m.hands) - 1, seat, a.to_json()))
    store = Store(db_url, SeedCipher(load_key(None, None)))
    sm = _row(seed=seed, first_dealer=0, status="playing", joined=True,
              deal_scheme=LEGACY_SCHEME)
    store.create(sm, salt)
    assert store.commit_batch([
        Change(match_id=sm.id, expected_version=i, action=a,
               status="finished" if i == len(acts) - 1 else "playing", joined=True,
               hands_dealt=a.hand + 1, ready=(False, False), scores=tuple(m.scores),
               winner=m.winner, to_play=None)
        for i, a in enumerate(acts)
    ]) == list(range(1, len(acts) + 1))
    with store.engine.begin() as conn:  # as older versions stored it: no scheme at all
        conn.execute(text("UPDATE matches SET deal_scheme = NULL WHERE id = :i"),
                     {"i": sm.id})
    store.close()
    with TestClient(create_app(db_url, bot_delay=0)) as c:
        rec = c.get(f"/api/matches/{sm.id}/record").json()
        assert rec["deal_scheme"] == LEGACY_SCHEME and fairness.verify_record(rec).ok
        assert c.get(f"/api/matches/{sm.id}/fairness").json()["deal_scheme"] == LEGACY_SCHEME
        last = c.get(f"/api/matches/{sm.id}/replay?step=0").json()
        assert last["upcard"] == str(deal_for(seed, 0, LEGACY_SCHEME).upcard)
        new = create(c, opponent="friend")
        assert c.get(f"/api/matches/{new['id']}/fairness").json()["deal_scheme"] == \
            fairness.DEAL_SCHEME
