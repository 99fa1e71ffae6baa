"""API tokens and BOT accounts (docs/web-api.md, "API tokens and BOT accounts"), on
SQLite: tokens made with the session, shown once and stored hashed, acting as the account
with no CSRF token, revoked at once (their sockets closed); a BOT account plays only
through a token, is marked BOT everywhere, and a quick match pairs it only with a person
who asked for BOT opponents; an operator closes an account."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from starlette.websockets import WebSocketDisconnect

from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.accounts.tokens import MALFORMED, MAX_TOKENS, REVOKED, UNKNOWN
from ginrummy.web.commands import db as dbcommand
from ginrummy.web.routes.common import BOT_SESSION
from ginrummy.web.store.schema import accounts_table, api_tokens_table

from .conftest import site, state
from .online import keep_seeker, sign_up


def _as(c: TestClient, cookie: str | None) -> None:
    """Make ``c`` the browser holding this session cookie (None: a guest); the browser
    stays the seeker of its seeks."""
    keep_seeker(c, c.cookies.clear)
    if cookie is not None:
        c.cookies.set(COOKIE, cookie)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_token(c: TestClient, csrf: str, name: str = "bot") -> dict[str, Any]:
    r = c.post("/api/tokens", json={"name": name}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_token_is_shown_once_stored_hashed_and_acts_as_its_account(
        client: TestClient) -> None:
    ann = sign_up(client, "Ann")
    made = new_token(client, ann["csrf"], "my script")
    token = made["token"]
    assert token.startswith("ginrummy.") and len(token) == len("ginrummy.") + 43
    assert set(made) == {"token", "id", "name"} and made["name"] == "my script"
    listed = client.get("/api/tokens").json()["tokens"]
    assert [(t["id"], t["name"]) for t in listed] == [(made["id"], "my script")]
    assert "token" not in listed[0] and listed[0]["last_used"] is None
    with site(client).store.engine.connect() as conn:
        rows = conn.execute(select(api_tokens_table)).all()
    assert len(rows) == 1 and token not in repr(tuple(rows[0]))
    # a program with the token: the account, no cookie and no CSRF token needed
    _as(client, None)
    me = client.get("/api/me", headers=bearer(token))
    assert me.status_code == 200 and me.json()["username"] == "Ann"
    assert me.json()["csrf"] is None and me.json()["bot"] is False
    r = client.post("/api/seeks", json={"rated": True}, headers=bearer(token))
    assert r.status_code == 201, r.text  # a rated seek: it is the account's
    assert client.get("/api/tokens", headers=bearer(token)).json()["tokens"][0][
        "last_used"] is not None
    # tokens are made and revoked with the session, never with another token
    r = client.post("/api/tokens", json={}, headers=bearer(token))
    assert r.status_code == 403 and r.json()["error"] == (
        "API tokens are made and revoked with the account's session (the account page), "
        "not with another token.")


def test_bad_tokens_are_refused_with_one_sentence_and_change_nothing(
        client: TestClient) -> None:
    ann = sign_up(client, "Ann")
    cookie = client.cookies[COOKIE]
    made = new_token(client, ann["csrf"])
    # the session needs its CSRF token to make or revoke one
    assert client.post("/api/tokens", json={}).status_code == 403
    assert client.delete(f"/api/tokens/{made['id']}").status_code == 403
    for body, text in (({"name": ""}, "A token's name is 1 to 40"),
                       ({"name": "x" * 41}, "A token's name is 1 to 40"),
                       ({"scope": "all"}, "Unknown field 'scope'."),
                       ([1], "The request body must be a JSON object.")):
        r = client.post("/api/tokens", json=body, headers={"X-CSRF-Token": ann["csrf"]})
        assert r.status_code == 400 and r.json()["error"].startswith(text), r.text
    r = client.delete("/api/tokens/nope", headers={"X-CSRF-Token": ann["csrf"]})
    assert r.status_code == 404 and r.json()["error"] == "You have no API token with this id."
    _as(client, None)
    for token, text in (("ginrummy.short", MALFORMED), ("ginrummy." + "A" * 43, UNKNOWN)):
        r = client.get("/api/me", headers=bearer(token))
        assert r.status_code == 401 and r.json()["error"] == text
    # at most MAX_TOKENS live tokens
    _as(client, cookie)
    for i in range(MAX_TOKENS - 1):
        new_token(client, ann["csrf"], f"t{i}")
    r = client.post("/api/tokens", json={}, headers={"X-CSRF-Token": ann["csrf"]})
    assert r.status_code == 409 and "at most 20 API tokens" in r.json()["error"]
    with site(client).store.engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(api_tokens_table)).scalar()
    assert n == MAX_TOKENS
    # revoked: refused at once with its own sentence
    r = client.delete(f"/api/tokens/{made['id']}", headers={"X-CSRF-Token": ann["csrf"]})
    assert r.status_code == 200 and r.json() == {"revoked": made["id"]}
    _as(client, None)
    r = client.get("/api/me", headers=bearer(made["token"]))
    assert r.status_code == 401 and r.json()["error"] == REVOKED


def test_a_revoked_token_closes_its_sockets(client: TestClient) -> None:
    ann = sign_up(client, "Ann")
    ann_cookie = client.cookies[COOKIE]
    _as(client, None)
    bot = client.post("/api/accounts", json={"username": "robo", "password": "correct horse",
                                              "bot": True}).json()
    bot_cookie = client.cookies[COOKIE]
    token = new_token(client, bot["csrf"])
    _as(client, ann_cookie)
    cid = client.post("/api/challenges", json={"to": "robo"},
                      headers={"X-CSRF-Token": ann["csrf"]}).json()["challenge"]
    _as(client, None)
    match = client.post(f"/api/challenges/{cid}/accept",
                        headers=bearer(token["token"])).json()["match"]
    with client.websocket_connect(f"/api/matches/{match['id']}/ws") as table, \
            client.websocket_connect("/api/me/ws") as notices:
        table.send_json({"type": "auth", "token": token["token"]})
        first = table.receive_json()
        assert first["type"] == "state" and first["state"]["seat"] == 1
        assert first["state"]["bots"] == [False, True]
        notices.send_json({"type": "auth", "token": token["token"]})
        snap = notices.receive_json()
        assert snap["type"] == "notices" and snap["playing"] == [{"id": match["id"],
                                                                  "seat": 1}]
        _as(client, bot_cookie)
        r = client.delete(f"/api/tokens/{token['id']}", headers={"X-CSRF-Token": bot["csrf"]})
        assert r.status_code == 200
        for ws in (table, notices):
            with pytest.raises(WebSocketDisconnect) as e:
                while True:
                    ws.receive_json()
            assert e.value.code == 4401 and e.value.reason == REVOKED
    # and a new socket with it is refused with the same sentence
    with client.websocket_connect("/api/me/ws") as ws:
        ws.send_json({"type": "auth", "token": token["token"]})
        assert ws.receive_json() == {"type": "error", "status": 401, "message": REVOKED}


def test_a_bot_account_plays_only_through_a_token_and_is_marked_bot(
        client: TestClient) -> None:
    r = client.post("/api/accounts", json={"username": "robo", "password": "correct horse",
                                            "bot": "yes"})
    assert r.status_code == 400 and r.json()["error"] == "'bot' is true or false."
    r = client.post("/api/accounts", json={"username": "robo", "password": "correct horse",
                                            "bot": True})
    assert r.status_code == 201 and r.json()["bot"] is True
    bot = r.json()
    assert client.get("/api/me").json()["bot"] is True
    assert client.get("/api/players/robo").json()["bot"] is True
    # its session makes tokens, but never plays
    for path, body in (("/api/seeks", {}), ("/api/challenges", {})):
        r = client.post(path, json=body, headers={"X-CSRF-Token": bot["csrf"]})
        assert r.status_code == 403 and r.json()["error"] == BOT_SESSION
    token = new_token(client, bot["csrf"])["token"]
    _as(client, None)
    r = client.post("/api/challenges", json={}, headers=bearer(token))
    assert r.status_code == 201, r.text  # through its token it may
    # a person plays it from a challenge: STATE marks the BOT's seat for both
    person = sign_up(client, "Ann")
    r = client.post(f"/api/challenges/{r.json()['challenge']}/accept",
                    headers={"X-CSRF-Token": person["csrf"]})
    mine = r.json()["match"]
    s = state(client, mine["id"], mine["token"])
    assert s["players"] == ["robo", "Ann"] and s["bots"] == [True, False]
    # nor can a BOT's session play its seat
    _as(client, None)
    client.post("/api/session", json={"username": "robo", "password": "correct horse"})
    r = client.get(f"/api/matches/{mine['id']}")
    assert r.status_code == 403 and r.json()["error"] == BOT_SESSION


def test_quick_matches_pair_a_bot_only_with_people_who_asked(client: TestClient) -> None:
    client.post("/api/accounts", json={"username": "robo", "password": "correct horse",
                                       "bot": True})
    token = new_token(client, client.get("/api/me").json()["csrf"])["token"]
    _as(client, None)
    r = client.post("/api/seeks", json={"target": 150}, headers=bearer(token))
    assert r.status_code == 201
    bot_seek = r.json()["seek"]
    person = client.post("/api/seeks", json={"target": 150})
    assert person.status_code == 201  # a person who did not ask: not paired with the BOT
    assert client.post("/api/seeks", json={"target": 150, "bots": "yes"}).status_code == 400
    r = client.post("/api/seeks", json={"target": 150, "bots": True})
    assert r.status_code == 200, r.text
    mine = r.json()["match"]
    theirs = client.get(f"/api/seeks/{bot_seek}").json()["match"]
    assert theirs["id"] == mine["id"]  # the BOT's seek, waiting longest, was taken
    s = state(client, mine["id"], mine["token"])
    assert s["bots"] == [True, False] and s["players"][0] == "robo"
    assert client.get(f"/api/seeks/{person.json()['seek']}").json() == {"status": "waiting"}


def test_the_levels_are_bot_accounts_made_once(client: TestClient) -> None:
    s = site(client)
    for level in ("easy", "medium", "hard"):
        p = client.get(f"/api/players/{level}").json()
        assert p["bot"] is True and p["rated_matches"] == 0
    board = client.get("/api/leaderboard").json()
    assert board["bots"] == {"easy": 910, "medium": 1500, "hard": 1680}
    r = client.post("/api/session", json={"username": "easy", "password": "!"})
    assert r.status_code == 401  # a level has no password: nobody logs in as it
    assert client.post("/api/accounts", json={"username": "Hard",
                                              "password": "correct horse"}).status_code == 409
    client.portal.call(s.ladder.ensure)  # start-up again: nothing new
    with s.store.engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(accounts_table)).scalar()
    assert n == 3


def test_an_operator_closes_an_account(client: TestClient) -> None:
    ann = sign_up(client, "Ann")
    token = new_token(client, ann["csrf"])["token"]
    _as(client, None)
    bob = sign_up(client, "Bob")
    url = site(client).store.url
    assert dbcommand.main(["close-account", "ANN", "--db", url]) == 0
    assert dbcommand.main(["close-account", "ann", "--db", url]) == 1  # no open account
    r = client.post("/api/challenges", json={"to": "Ann"}, headers={"X-CSRF-Token": bob["csrf"]})
    assert r.status_code == 410 and r.json()["error"] == (
        "That account is closed: it takes no challenges.")
    assert client.get("/api/me", headers=bearer(token)).status_code == 401
    _as(client, None)
    r = client.post("/api/session", json={"username": "Ann", "password": "correct horse"})
    assert r.status_code == 401
