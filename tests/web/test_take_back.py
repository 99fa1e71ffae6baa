"""A change whose commit fails is taken back on the table's match (``Match.pop``): an
action, a deal, a resignation and an abort each leave the table exactly as it was, and
the same request goes through once the database takes it."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from ginrummy.web.errors import TableError
from ginrummy.web.store import Change

from .conftest import auth, create, invite_token, site, state


def _friend(c: TestClient) -> tuple[str, list[str]]:
    m = create(c, opponent="friend", name="Ann")
    return m["id"], [m["token"], invite_token(c, m)]


def _fail_next_write(c: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[Change]:
    """The next commit fails as a database away does (503, nothing stored)."""
    db = site(c).db
    real = db.write
    failed: list[Change] = []

    async def write(change: Change) -> int:
        if not failed:
            failed.append(change)
            raise TableError(503, "The database is away (a test).")
        return await real(change)

    monkeypatch.setattr(db, "write", write)
    return failed


def _table(c: TestClient, mid: str) -> Any:
    return site(c).registry.tables[mid]


def _snapshot(c: TestClient, mid: str, tokens: list[str]) -> Any:
    m = _table(c, mid).match
    return (m.to_record(), m.timeouts, m.has_moved(0), m.has_moved(1),
            state(c, mid, tokens[0]), state(c, mid, tokens[1]))


def _post(c: TestClient, mid: str, token: str, path: str, body: Any) -> Any:
    return c.post(f"/api/matches/{mid}/{path}", headers=auth(token), json=body)


def test_a_failed_commit_takes_each_kind_of_change_back(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    c = client
    mid, tokens = _friend(c)
    # an abort, refused by the database, then every move of the hand (no knock: it ends
    # dead)
    before = _snapshot(c, mid, tokens)
    failed = _fail_next_write(c, monkeypatch)
    assert _post(c, mid, tokens[0], "abort", {}).status_code == 503 and failed
    assert _snapshot(c, mid, tokens) == before
    while True:
        s0 = state(c, mid, tokens[0])
        if s0["hand_over"] is not None:
            break
        seat = s0["view"]["to_play"]
        s = state(c, mid, tokens[seat])
        action = next((a for a in s["legal"] if not a.get("knock")), s["legal"][0])
        before = _snapshot(c, mid, tokens)
        failed = _fail_next_write(c, monkeypatch)
        r = _post(c, mid, tokens[seat], "actions", {"action": action, "version": s["version"]})
        assert r.status_code == 503 and failed
        assert _snapshot(c, mid, tokens) == before
        r = _post(c, mid, tokens[seat], "actions", {"action": action, "version": s["version"]})
        assert r.status_code == 200, r.text
    # the deal of the next hand, refused when the second seat is ready
    version = state(c, mid, tokens[0])["version"]
    assert _post(c, mid, tokens[0], "next", {"version": version}).status_code == 200
    version = state(c, mid, tokens[1])["version"]
    before = _snapshot(c, mid, tokens)
    failed = _fail_next_write(c, monkeypatch)
    assert _post(c, mid, tokens[1], "next", {"version": version}).status_code == 503
    assert failed and failed[0].hands_dealt == 2
    assert _snapshot(c, mid, tokens) == before
    assert _post(c, mid, tokens[1], "next", {"version": version}).status_code == 200
    assert len(_table(c, mid).match.hands) == 2
    # a resignation (both have moved), refused, then stored
    before = _snapshot(c, mid, tokens)
    failed = _fail_next_write(c, monkeypatch)
    assert _post(c, mid, tokens[1], "resign", {}).status_code == 503 and failed
    assert _snapshot(c, mid, tokens) == before
    r = _post(c, mid, tokens[1], "resign", {})
    assert r.status_code == 200 and r.json()["end"] == "resigned"
