"""An account's own settings (docs/web-api.md, "Accounts"): a new password, asked with the
current one, ends every session (other devices log in again) and keeps this browser in;
closing the account, asked with the password, works as an operator's close. Each refusal
is one sentence and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from ginrummy.web.accounts.accounts import COOKIE, NOT_YOUR_PASSWORD
from ginrummy.web.accounts.common import TOO_EASY

from .online import sign_up
from .test_tokens import _as, bearer, new_token

NEW = "purple tractor morning"


def _log_in(c: TestClient, name: str, password: str) -> Any:
    _as(c, None)
    return c.post("/api/session", json={"username": name, "password": password})


def test_a_new_password_ends_every_other_session_and_keeps_this_browser(
        client: TestClient) -> None:
    made = sign_up(client, "Ann")
    here = client.cookies[COOKIE]
    other = _log_in(client, "Ann", "correct horse")
    elsewhere = other.cookies[COOKIE]
    _as(client, here)
    r = client.post("/api/me/password", json={"password": "correct horse", "new_password": NEW},
                    headers={"X-CSRF-Token": made["csrf"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["changed"] is True and body["username"] == "Ann"
    fresh = r.cookies[COOKIE]
    assert fresh not in (here, elsewhere)
    for old in (here, elsewhere):  # both earlier sessions ended
        _as(client, old)
        assert client.get("/api/session").json() == {"account": None}
    _as(client, fresh)  # this browser is still in, with the new session's CSRF token
    got = client.get("/api/session").json()["account"]
    assert got["username"] == "Ann" and got["csrf"] == body["csrf"]
    assert _log_in(client, "Ann", "correct horse").status_code == 401
    assert _log_in(client, "Ann", NEW).status_code == 200


@pytest.mark.parametrize(("body", "status", "error"), [
    ({"password": "wrong horse", "new_password": NEW}, 403, NOT_YOUR_PASSWORD),
    ({"password": "correct horse", "new_password": "short"}, 400,
     "A password is 8 to 200 characters."),
    ({"password": "correct horse", "new_password": "password123"}, 400, TOO_EASY),
    ({"password": "correct horse", "new_password": "correct horse"}, 400,
     "The new password is the one you have: choose another."),
    ({"password": "correct horse", "new_password": NEW, "x": 1}, 400, "Unknown field 'x'."),
    (["correct horse"], 400, 'Send {"password": "...", "new_password": "..."}.'),
])
def test_a_refused_password_change_changes_nothing(client: TestClient, body: Any, status: int,
                                                   error: str) -> None:
    made = sign_up(client, "Ann")
    here = client.cookies[COOKIE]
    r = client.post("/api/me/password", json=body, headers={"X-CSRF-Token": made["csrf"]})
    assert (r.status_code, r.json()) == (status, {"error": error})
    assert client.get("/api/session").json()["account"]["username"] == "Ann"
    assert _log_in(client, "Ann", "correct horse").status_code == 200
    _as(client, here)
    assert client.get("/api/session").json()["account"] is not None  # the session stands


def test_a_change_to_the_account_needs_its_session_and_csrf(client: TestClient) -> None:
    made = sign_up(client, "Ann")
    body = {"password": "correct horse", "new_password": NEW}
    r = client.post("/api/me/password", json=body)  # no CSRF token, no Origin
    assert r.status_code == 403
    token = new_token(client, made["csrf"])["token"]
    _as(client, None)
    for path in ("/api/me/password", "/api/me/close"):
        r = client.post(path, json=body if path.endswith("password") else
                        {"password": "correct horse"}, headers=bearer(token))
        assert r.status_code == 403
        assert r.json()["error"].startswith("An API token cannot change its account")
        assert client.post(path, json={"password": "correct horse"}).status_code == 401
    assert _log_in(client, "Ann", "correct horse").status_code == 200


def test_wrong_passwords_wait_like_wrong_log_ins(client: TestClient) -> None:
    made = sign_up(client, "Ann")
    codes = [client.post("/api/me/close", json={"password": f"guess {i}"},
                         headers={"X-CSRF-Token": made["csrf"]}).status_code
             for i in range(8)]
    assert codes[0] == 403 and codes[-1] == 429  # slowed, as a log-in would be
    assert client.get("/api/session").json()["account"]["username"] == "Ann"


def test_an_account_closes_itself(client: TestClient) -> None:
    made = sign_up(client, "Ann")
    token = new_token(client, made["csrf"])["token"]
    r = client.post("/api/me/close", json={"password": "correct horse"},
                    headers={"X-CSRF-Token": made["csrf"]})
    assert r.status_code == 200, r.text
    assert r.json() == {"closed": True, "username": "Ann"}
    assert client.get("/api/session").json() == {"account": None}  # the cookie is cleared
    assert client.get("/api/me", headers=bearer(token)).status_code == 401  # token revoked
    assert _log_in(client, "Ann", "correct horse").status_code == 401
    _as(client, None)
    bob = sign_up(client, "Bob")
    r = client.post("/api/challenges", json={"to": "Ann"}, headers={"X-CSRF-Token": bob["csrf"]})
    assert r.status_code == 410
    _as(client, None)
    r = client.post("/api/accounts", json={"username": "ann", "password": NEW})
    assert r.status_code == 409  # the name stays its own
