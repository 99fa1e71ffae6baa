"""No request is ever answered 500 or 503-with-a-traceback for what it holds: integers past
Python's 4,300-digit limit, lone surrogates, NUL characters in a path or a field, on every
JSON endpoint and on the socket (a 4xx with one sentence, nothing changed), and a database
error is logged in one line and refused with the standard sentence."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import DataError, IntegrityError

from ginrummy.web.app import create_app
from ginrummy.web.backends.database import Database
from ginrummy.web.errors import DB_ERROR, TableError

from .conftest import NO_RATE_LIMITS, auth, create, invite_token, site

HUGE = "1" * 4400
"""An integer JSON text Python refuses to read (more than 4,300 digits)."""
BIG = 10 ** 4000
"""An integer it reads, far past anything a field means."""


def _endpoints(c: TestClient) -> list[tuple[str, str, dict[str, str]]]:
    """(method, path, headers) of every endpoint that reads a JSON body, with a real match
    and seat behind the paths."""
    m = create(c, opponent="friend")
    invite_token(c, m)
    mid, h = m["id"], auth(m["token"])
    return [
        ("POST", "/api/matches", {}),
        ("POST", "/api/matches/lookup", {}),
        ("POST", f"/api/matches/{mid}/join", {}),
        ("POST", f"/api/matches/{mid}/actions", h),
        ("POST", f"/api/matches/{mid}/next", h),
        ("POST", f"/api/matches/{mid}/rematch", h),
        ("POST", f"/api/matches/{mid}/chat", h),
        ("POST", f"/api/matches/{mid}/watch/chat", {}),
        ("POST", "/api/record", {}),
        ("POST", "/api/accounts", {}),
        ("POST", "/api/session", {}),
        ("POST", "/api/seeks", {}),
        ("POST", "/api/me/matches", {}),
    ]


def _sentence(r: Any) -> str:
    body = r.json()
    assert set(body) <= {"error", "state"}, body
    text = body["error"]
    assert isinstance(text, str) and text.endswith(".") and "Error" not in text, text
    return str(text)


@pytest.fixture
def pg_client(postgres_url: str) -> Iterator[TestClient]:
    """A TestClient on the real PostgreSQL (which refuses NUL in text, unlike SQLite)."""
    app = create_app(postgres_url, bot_delay=0, settings=NO_RATE_LIMITS)
    with TestClient(app) as c:
        yield c


def test_an_integer_past_4300_digits_is_400_on_every_endpoint(client: TestClient) -> None:
    for method, path, headers in _endpoints(client):
        for body in (f'{{"version": {HUGE}}}', f"[{HUGE}]", HUGE,
                     f'{{"clock": {{"move": {HUGE}}}, "options": {{"target": -{HUGE}}}}}'):
            r = client.request(method, path, content=body,
                               headers={**headers, "Content-Type": "application/json"})
            assert 400 <= r.status_code < 500, (path, r.status_code, r.text[:200])
            said = _sentence(r)
            if not path.endswith(("/rematch", "/me/matches")):  # state first
                assert r.status_code == 400 and "4300 digits" in said, (path, r.text)


def test_numbers_too_big_for_any_field_are_4xx(client: TestClient) -> None:
    """Read, but past every field's range: each field's own refusal, never a 500."""
    m = create(client, opponent="friend")
    mid, h = m["id"], auth(m["token"])
    bodies: list[tuple[str, dict[str, Any], dict[str, str]]] = [
        ("/api/matches", {"clock": {"move": BIG, "bank": BIG}}, {}),
        ("/api/matches", {"clock": {"move": 10, "bank": 1e308}}, {}),
        ("/api/matches", {"options": {"target": BIG}}, {}),
        ("/api/matches", {"options": {"target": 1e400}}, {}),
        ("/api/seeks", {"clock": {"move": BIG, "bank": 5}, "target": BIG}, {}),
        (f"/api/matches/{mid}/actions", {"version": BIG, "action": {"act": "pass"}}, h),
        (f"/api/matches/{mid}/actions", {"version": -BIG, "action": {"act": "pass"}}, h),
        (f"/api/matches/{mid}/next", {"version": BIG}, h),
        ("/api/session", {"username": BIG, "password": BIG}, {}),
    ]
    for path, body, headers in bodies:
        r = client.post(path, content=json.dumps(body), headers={
            **headers, "Content-Type": "application/json"})
        assert 400 <= r.status_code < 500, (path, body, r.status_code, r.text[:200])
        _sentence(r)


@pytest.mark.parametrize("where", ["sqlite", "postgres"])
def test_nul_and_lone_surrogates_are_400_everywhere(where: str, client: TestClient,
                                                    request: pytest.FixtureRequest) -> None:
    c = client if where == "sqlite" else request.getfixturevalue("pg_client")
    before = _names_like_a_b(c)  # the database is shared: other tests' "ann_…b" count too
    for text, word in (("a\\u0000b", "NUL"), ("a\\ud800b", "surrogate"),
                       ("\\udfff", "surrogate")):
        for method, path, headers in _endpoints(c):
            for body in (f'{{"username": "{text}", "password": "correct horse"}}',
                         f'{{"username": "ann", "password": "{text}12345678"}}',
                         f'{{"name": "{text}", "tokens": ["{text}"], "invite": "{text}"}}',
                         f'{{"{text}": 1}}'):
                r = c.request(method, path, content=body,
                              headers={**headers, "Content-Type": "application/json"})
                assert 400 <= r.status_code < 500, (path, body, r.status_code, r.text[:200])
                said = _sentence(r)
                if not path.endswith(("/rematch", "/me/matches")):
                    assert r.status_code == 400 and word in said, (path, body, r.text)
    m = create(c, opponent="friend")
    for path in ("/api/matches/a%00b", f"/api/matches/{m['id']}%00", "/api/players/ann%00",
                 "/api/seeks/x%00y", "/play/a%00b", "/api/matches/x%00/record",
                 f"/api/matches/{m['id']}?x=%00"):
        for method in ("GET", "POST", "DELETE"):
            r = c.request(method, path, headers=auth(m["token"]))
            assert r.status_code == 400, (method, path, r.status_code, r.text[:200])
            assert "NUL" in _sentence(r)
    assert _names_like_a_b(c) == before  # nothing was stored


def _names_like_a_b(c: TestClient) -> int:
    """How many accounts have a name like the refused "a\\x00b" (a, anything, b)."""
    from sqlalchemy import text as sql

    with site(c).store.engine.connect() as conn:
        n: int = conn.execute(sql("SELECT count(*) FROM accounts WHERE username LIKE 'a%b'")
                              ).scalar_one()
    return n


def test_the_socket_answers_bad_numbers_and_text_with_an_error(client: TestClient) -> None:
    m = create(client, opponent="friend")
    url = f"/api/matches/{m['id']}/ws"
    with client.websocket_connect(url) as ws:  # the first message: a close with a reason
        ws.send_text(f'{{"type": "auth", "token": "{m["token"]}", "n": {HUGE}}}')
        err = ws.receive_json()
        assert err["status"] == 400 and "4300 digits" in err["message"]
        closed = ws.receive()
        assert closed["type"] == "websocket.close" and closed["code"] == 4400
    with client.websocket_connect(url) as ws:  # later ones: an error, the socket stays
        ws.send_json({"type": "auth", "token": m["token"]})
        assert ws.receive_json()["type"] == "state"
        for text, word in ((f'{{"type": "action", "version": {HUGE}}}', "4300 digits"),
                           ('{"type": "act\\u0000ion"}', "NUL"),
                           ('{"type": "state", "x": "\\ud83d"}', "surrogate"),
                           (f'{{"type": "ping", "version": {10 ** 4000}}}', None)):
            ws.send_text(text)
            msg = ws.receive_json()
            if word is None:
                assert msg == {"type": "pong"}
                continue
            assert msg["type"] == "error" and msg["status"] == 400 and word in msg["message"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_a_database_error_is_one_log_line_and_the_standard_sentence(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    db = Database.__new__(Database)  # only the refusal is exercised: no store needed
    db.available = True
    caplog.set_level(logging.INFO, logger="ginrummy.web")
    for e, status in ((IntegrityError("INSERT ...", {}, Exception("duplicate key\nDETAIL")),
                       503),
                      (DataError("SELECT ...", {}, Exception("invalid byte sequence")), 400)):
        caplog.clear()
        refusal = db._refusal(e)
        assert isinstance(refusal, TableError) and refusal.status == status
        assert type(e).__name__ not in refusal.message and refusal.message.endswith(".")
        if status == 503:
            assert refusal.message == DB_ERROR
        records = [r for r in caplog.records if r.name == "ginrummy.web"]
        assert len(records) == 1 and records[0].exc_info is None
        assert "\n" not in records[0].getMessage()


WRONG_TYPES: list[Any] = [[], {}, None, 5, 1.5, True, "x" * 300, [["a"]], {"a": []}]
"""Values of every wrong type a field may be sent (lists and objects are unhashable: a
field used as a key must be checked for its type first)."""


def test_challenge_and_token_fields_of_any_wrong_type_are_4xx(client: TestClient) -> None:
    """Issue 44 item 8: ``POST /api/challenges/{id}/decline`` with ``{"reason": []}`` or
    ``{}`` was a 500 (an unhashable reason looked up among the reasons). Every field of
    the challenge and token endpoints, sent with a value of any type, is a 4xx with one
    sentence, or (``{}``, a reason left out) the default; nothing is changed by a
    refusal."""
    from .online import sign_up

    sign_up(client, "Ann_500")
    ann = client.cookies["ginrummy_session"]
    own = {"Origin": "http://testserver"}
    client.cookies.clear()
    sign_up(client, "Bob_500")
    bob = client.cookies["ginrummy_session"]

    def as_(cookie: str) -> None:
        client.cookies.clear()
        client.cookies.set("ginrummy_session", cookie)

    def challenge() -> str:
        as_(ann)
        r = client.post("/api/challenges", json={"to": "Bob_500"}, headers=own)
        assert r.status_code == 201, r.text
        return str(r.json()["challenge"])

    cid = challenge()
    as_(bob)
    for value in WRONG_TYPES:
        r = client.post(f"/api/challenges/{cid}/decline", json={"reason": value}, headers=own)
        assert r.status_code == 400, (value, r.status_code, r.text[:200])
        _sentence(r)
    assert client.get(f"/api/challenges/{cid}").json()["status"] == "open"  # unchanged
    r = client.post(f"/api/challenges/{cid}/decline", json={}, headers=own)
    assert r.status_code == 200 and r.json()["reason"] == "generic", r.text
    cid = challenge()
    as_(bob)
    for body in ([], "reason", 5, [{"reason": "later"}]):
        r = client.post(f"/api/challenges/{cid}/decline", json=body, headers=own)
        assert r.status_code == 400, (body, r.status_code, r.text[:200])
        _sentence(r)
    r = client.post(f"/api/challenges/{cid}/decline", headers=own)  # no body: the default
    assert r.status_code == 200 and r.json()["reason"] == "generic", r.text
    as_(ann)
    for field in ("to", "target", "gin_only", "oklahoma", "rated", "clock"):
        for value in WRONG_TYPES:
            r = client.post("/api/challenges", json={field: value}, headers=own)
            if r.status_code < 300:  # null: an open link, the defaults; true: a flag
                assert value is None or value is True, (field, value, r.text[:200])
                client.delete(f"/api/challenges/{r.json()['challenge']}", headers=own)
                continue
            assert 400 <= r.status_code < 500, (field, value, r.status_code, r.text[:200])
            _sentence(r)
    for value in WRONG_TYPES:
        for path in ("/api/challenges/{}/accept", "/api/challenges/{}"):
            for method in ("POST", "DELETE", "GET"):
                r = client.request(method, path.format(cid), json={"x": value}, headers=own)
                assert r.status_code < 500, (method, path, value, r.status_code, r.text[:200])
        r = client.post("/api/tokens", json={"name": value}, headers=own)
        assert 400 <= r.status_code < 500, (value, r.status_code, r.text[:200])
        _sentence(r)
        r = client.delete(f"/api/tokens/{json.dumps(value)[:40]}", headers=own)
        assert 400 <= r.status_code < 500, (value, r.status_code, r.text[:200])
