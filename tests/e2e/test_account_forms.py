"""The account forms in a real browser: another site's page cannot sign the visitor in
(login CSRF, issue 36 item 1), while this site's own page signs up and in as before; a
username too long is refused with the rule, never cut short without a word."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e

ATTACK = """<!doctype html><html><body>
<form id="f" method="POST" action="{action}" enctype="text/plain">
<input type="hidden" name='{{"username": "mallory", "password": "correct horse' value='"}}'>
</form><script>document.getElementById("f").submit();</script></body></html>"""
"""An auto-submitting form whose text/plain body reads as the attacker's credentials in
JSON: ``{"username": "mallory", "password": "correct horse="}``."""


def test_another_sites_form_cannot_sign_the_browser_in(server: str, browser: Any) -> None:
    r = httpx.post(server + "/api/accounts",
                   json={"username": "mallory", "password": "correct horse="})
    assert r.status_code == 201, r.text
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.route("http://evil.test/**", lambda route: route.fulfill(
            status=200, content_type="text/html",
            body=ATTACK.format(action=server + "/api/session")))
        with page.expect_response(server + "/api/session") as answer:
            page.goto("http://evil.test/attack")
        assert answer.value.status in (403, 415)
        assert not [c for c in ctx.cookies(server) if c["name"] == "ginrummy_session"]
        page.goto(server + "/account")
        assert page.evaluate("fetch('/api/me').then((r) => r.status)") == 401
    finally:
        ctx.close()


def test_own_page_signs_up_and_a_long_username_is_refused_with_the_rule(
        server: str, browser: Any) -> None:
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(server + "/account")
        page.get_by_test_id("username").fill("x" * 60)
        assert page.get_by_test_id("username").input_value() == "x" * 60  # not cut to 20
        page.get_by_test_id("password").fill("a fine long passphrase")
        page.locator("#signup").click()
        page.get_by_text("A username is 3 to 20 characters").wait_for()
        assert not [c for c in ctx.cookies(server) if c["name"] == "ginrummy_session"]
        page.get_by_test_id("username").fill("Ann_Lee")
        page.locator("#signup").click()
        page.wait_for_url(server + "/")
        me = page.evaluate("fetch('/api/me').then((r) => r.json())")
        assert me["username"] == "Ann_Lee"
    finally:
        ctx.close()


def test_the_account_page_changes_the_password_and_closes_the_account(
        server: str, browser: Any) -> None:
    ctx = browser.new_context()
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server + "/account")
        page.get_by_test_id("username").fill("Cleo")
        page.get_by_test_id("password").fill("a fine long passphrase")
        page.locator("#signup").click()
        page.wait_for_url(server + "/")
        page.goto(server + "/account")
        page.get_by_test_id("current-password").fill("not my password")
        page.get_by_test_id("new-password").fill("another fine passphrase")
        page.get_by_test_id("password-change").click()
        page.get_by_text("That is not this account's password").wait_for()
        page.get_by_test_id("current-password").fill("a fine long passphrase")
        page.get_by_test_id("password-change").click()
        page.get_by_text("Your password is changed").wait_for()
        r = httpx.post(server + "/api/session",
                       json={"username": "Cleo", "password": "another fine passphrase"})
        assert r.status_code == 200
        # closing asks for the password and a confirmation, then the lobby, logged out
        page.once("dialog", lambda d: d.accept())
        page.get_by_test_id("close-password").fill("another fine passphrase")
        page.get_by_test_id("account-close").click()
        page.wait_for_url(server + "/")
        assert page.evaluate("fetch('/api/session').then((r) => r.json())") == {"account": None}
        r = httpx.post(server + "/api/session",
                       json={"username": "Cleo", "password": "another fine passphrase"})
        assert r.status_code == 401
    finally:
        ctx.close()
    assert not errors, errors
