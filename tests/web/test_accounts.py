"""Accounts, sessions and CSRF (docs/web-api.md, "Accounts"), on SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from sqlalchemy import select

from ginrummy.web.accounts.accounts import (
    COOKIE,
    WRONG_LOGIN,
    check_password,
    check_username,
    csrf_of,
)
from ginrummy.web.app import create_app
from ginrummy.web.errors import TableError
from ginrummy.web.guard import Settings
from ginrummy.web.store.schema import accounts_table, sessions_table

from .conftest import create, site
from .online import sign_up


def test_username_and_password_rules() -> None:
    for good in ("abc", "Ann_Lee-2", "x" * 20, "007"):
        assert check_username(good) == good
    for bad in ("ab", "x" * 21, "a b", "ann!", "Ünal", "", None, 5):
        with pytest.raises(TableError) as e:
            check_username(bad)
        assert e.value.status == 400 and "3 to 20 characters" in e.value.message
    assert check_password("12345678") == "12345678"
    for bad in ("1234567", "x" * 201, None, 12345678):
        with pytest.raises(TableError) as e:
            check_password(bad)
        assert e.value.message == "A password is 8 to 200 characters."


def test_sign_up_sets_a_safe_cookie_and_me_answers(client: TestClient) -> None:
    r = client.post("/api/accounts", json={"username": "Ann_Lee", "password": "correct horse"})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["username"] == "Ann_Lee" and body["rating"] == 1500 and body["csrf"]
    cookie = r.headers["set-cookie"]
    assert f"{COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain HTTP here; over TLS it is Secure
    me = client.get("/api/me")
    assert me.status_code == 200 and me.json()["username"] == "Ann_Lee"
    assert me.json()["csrf"] == body["csrf"] == csrf_of(client.cookies[COOKIE])
    # only hashes are stored: neither the password nor the session token
    with site(client).store.engine.connect() as conn:
        pw = conn.execute(select(accounts_table.c.password_hash)  # (not the levels' BOTs)
                          .where(accounts_table.c.username == "Ann_Lee")).scalar_one()
        sess = conn.execute(select(sessions_table.c.token_hash)).scalar_one()
    assert pw.startswith("$argon2id$") and "correct horse" not in pw
    assert sess != client.cookies[COOKIE] and len(sess) == 64


def test_cookie_is_secure_behind_tls(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'w.sqlite3'}", bot_delay=0)
    with TestClient(app, base_url="https://gin.example") as c:
        r = c.post("/api/accounts", json={"username": "tls_user", "password": "correct horse"})
        assert r.status_code == 201 and "Secure" in r.headers["set-cookie"]


def test_sign_up_refusals_create_nothing(client: TestClient) -> None:
    cases = [
        ({"username": "ab", "password": "correct horse"}, 400, "A username is 3 to 20"),
        ({"username": "Ann", "password": "short"}, 400, "A password is 8 to 200"),
        ({"username": "Ann", "password": "x" * 201}, 400, "A password is 8 to 200"),
        ({"username": "Ann", "password": "correct horse", "admin": True}, 400, "Unknown field"),
        (["Ann"], 400, "Send {"),
    ]
    for body, status, text in cases:
        r = client.post("/api/accounts", json=body)
        assert r.status_code == status and r.json()["error"].startswith(text), r.text
        assert r.json()["error"].endswith(".")
    assert client.get("/api/me").status_code == 401
    with site(client).store.engine.connect() as conn:
        # none but the computer levels' BOT accounts (made at start-up)
        assert sorted(conn.execute(select(accounts_table.c.username)).scalars()) == [
            "easy", "hard", "medium"]
    sign_up(client, "Ann")
    r = client.post("/api/accounts", json={"username": "aNN", "password": "another one"})
    assert r.status_code == 409 and r.json()["error"] == "That username is taken: choose another."


def test_login_wrong_password_and_unknown_user_say_the_same(client: TestClient) -> None:
    sign_up(client, "Bob", "correct horse")
    client.cookies.clear()
    wrong = client.post("/api/session", json={"username": "Bob", "password": "wrong horse"})
    unknown = client.post("/api/session", json={"username": "Nobody", "password": "wrong horse"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"error": WRONG_LOGIN}
    assert COOKIE not in client.cookies
    ok = client.post("/api/session", json={"username": "bob", "password": "correct horse"})
    assert ok.status_code == 200 and ok.json()["username"] == "Bob" and ok.json()["csrf"]
    assert client.get("/api/me").json()["username"] == "Bob"


def test_an_unknown_username_is_checked_against_a_hash_too(client: TestClient) -> None:
    """Same work for an unknown username as for a wrong password: one argon2 verify."""
    sign_up(client, "Jan")
    client.cookies.clear()
    calls: list[str] = []

    class Counting(PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> bool:  # noqa: A002
            calls.append(str(hash))
            return super().verify(hash, password)

    site(client).accounts.hasher = Counting(time_cost=2, memory_cost=19456, parallelism=1)
    for name in ("Jan", "Nobody_here"):
        r = client.post("/api/session", json={"username": name, "password": "wrong horse"})
        assert r.status_code == 401
    assert len(calls) == 2 and all(h.startswith("$argon2id$") for h in calls)


def test_login_is_rate_limited_per_address(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'w.sqlite3'}", bot_delay=0,
                     settings=Settings(rate_login="3/minute"))
    with TestClient(app) as c:
        sign_up(c, "Carol")
        c.cookies.clear()
        for _ in range(3):
            r = c.post("/api/session", json={"username": "Carol", "password": "wrong horse"})
            assert r.status_code == 401
        r = c.post("/api/session", json={"username": "Carol", "password": "correct horse"})
        assert r.status_code == 429 and "Too many log-in attempts" in r.json()["error"]
        # the owner from another address is not kept out (tests/web/test_account_limits.py)
        accounts = site(c).accounts
        body = {"username": "carol", "password": "correct horse"}
        acct, _ = c.portal.call(accounts.log_in, body, "10.0.0.1")  # type: ignore[union-attr]
        assert acct.username == "Carol"


def test_csrf_is_needed_for_changes_made_with_the_cookie(client: TestClient) -> None:
    me = sign_up(client, "Dora")
    m = create(client, opponent="computer", bot="easy")
    body = {"tokens": [m["token"]]}
    r = client.post("/api/me/matches", json=body)
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = client.post("/api/me/matches", json=body, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    r = client.post("/api/me/matches", json=body, headers={"X-CSRF-Token": "nope"})
    assert r.status_code == 403
    r = client.delete("/api/session")
    assert r.status_code == 403 and client.get("/api/me").status_code == 200
    r = client.post("/api/me/matches", json=body, headers={"X-CSRF-Token": me["csrf"]})
    assert r.status_code == 200 and r.json() == {"claimed": 1}
    r = client.post("/api/me/matches", json=body, headers={"Origin": "http://testserver"})
    assert r.status_code == 200 and r.json() == {"claimed": 0}  # already this account's
    prof = client.get("/api/players/dora").json()
    assert prof["matches"] == 1 and prof["recent"][0]["id"] == m["id"]
    assert prof["recent"][0]["review"] == f"/review/{m['id']}"


def test_log_out_and_log_out_everywhere(client: TestClient) -> None:
    sign_up(client, "Eve")
    sessions = [client.cookies[COOKIE]]
    for _ in range(2):  # two more browsers log in
        client.cookies.clear()
        r = client.post("/api/session", json={"username": "eve", "password": "correct horse"})
        assert r.status_code == 200
        sessions.append(client.cookies[COOKIE])

    def use(k: int) -> None:
        client.cookies.clear()
        client.cookies.set(COOKIE, sessions[k])

    use(2)
    r = client.delete("/api/session", headers={"X-CSRF-Token": csrf_of(sessions[2])})
    assert r.status_code == 200 and r.json() == {"ended": 1}
    use(2)
    assert client.get("/api/me").status_code == 401
    use(0)
    assert client.get("/api/me").status_code == 200
    use(1)
    r = client.delete("/api/session?all=1", headers={"X-CSRF-Token": csrf_of(sessions[1])})
    assert r.status_code == 200 and r.json() == {"ended": 2}
    for k in (0, 1):
        use(k)
        assert client.get("/api/me").status_code == 401


def test_a_guest_plays_as_before_and_matches_created_logged_in_are_kept(
        client: TestClient) -> None:
    guest = create(client, opponent="computer", bot="easy")
    assert guest["token"]
    me = sign_up(client, "Finn")
    r = client.post("/api/matches", json={"opponent": "friend", "public": True},
                    headers={"X-CSRF-Token": me["csrf"]})
    assert r.status_code == 201
    r2 = client.post("/api/matches", json={"opponent": "friend", "public": "yes"})
    assert r2.status_code == 400 and r2.json()["error"] == "'public' is true or false."
    prof = client.get("/api/players/Finn").json()
    assert prof["matches"] == 1 and prof["recent"][0]["id"] == r.json()["id"]
    assert client.get("/api/players/nobody").status_code == 404


def test_signing_in_or_up_from_another_sites_page_is_refused(client: TestClient) -> None:
    """Login CSRF (issue 36, item 1): an auto-submitted form on another site posts a
    text/plain body that reads as JSON; neither it nor a cross-site JSON request may set
    the session cookie. A request with no Origin and no Sec-Fetch-Site (curl, a program)
    is allowed, as before."""
    creds = '{"username": "mallory", "password": "correct horse="}'
    r = client.post("/api/accounts", content=creds, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and "Content-Type: application/json" in r.json()["error"]
    r = client.post("/api/accounts", content=creds,
                    headers={"Content-Type": "application/json"})  # no browser headers
    assert r.status_code == 201, r.text
    client.cookies.clear()
    form = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    refused = [
        ({**form, "Content-Type": "text/plain"}, 415),
        ({**form, "Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({**form, "Content-Type": "multipart/form-data; boundary=x"}, 415),
        ({"Origin": "https://evil.example", "Content-Type": "application/json"}, 403),
        ({"Origin": "null", "Content-Type": "application/json"}, 403),
        ({"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}, 403),
        ({"Sec-Fetch-Site": "same-site", "Content-Type": "application/json"}, 403),
        ({"Origin": "http://testserver:8080", "Content-Type": "application/json"}, 403),
    ]
    for path in ("/api/session", "/api/accounts"):
        for headers, status in refused:
            r = client.post(path, content=creds, headers=headers)
            assert r.status_code == status, (path, headers, r.text)
            assert r.json()["error"].endswith(".") and "set-cookie" not in r.headers
    assert COOKIE not in client.cookies
    with site(client).store.engine.connect() as conn:
        assert len(conn.execute(select(sessions_table)).all()) == 1  # the sign-up's only
        people = select(accounts_table).where(accounts_table.c.bot.is_not(True))  # no levels
        assert len(conn.execute(people).all()) == 1
    for headers in ({"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"},
                    {"Sec-Fetch-Site": "none"}, {}):
        r = client.post("/api/session", content=creds, headers={
            **headers, "Content-Type": "application/json; charset=utf-8"})
        assert r.status_code == 200 and COOKIE in client.cookies, (headers, r.text)
        client.cookies.clear()
