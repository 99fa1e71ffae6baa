"""Challenges in a real browser: a player challenges another from the profile's
"Challenge"; the challenged player sees the notice at once in every tab (the lobby and a
table), declines one with a reason and accepts the next from the table's tab (the notice
leaves the other tab), and both land at the new table. On "Play someone", a player left
waiting is offered the computer, which takes the seek's terms at once."""

from __future__ import annotations

from typing import Any

import pytest
from test_web_table import DESKTOP, new_page, start_against_computer

pytestmark = pytest.mark.e2e


def _sign_up(page: Any, server: str, name: str) -> None:
    page.goto(server + "/account")
    page.get_by_test_id("username").fill(name)
    page.get_by_test_id("password").fill("correct horse battery")
    page.get_by_test_id("signup").click()
    page.wait_for_url(server + "/")


def _challenge(page: Any, server: str, name: str) -> None:
    """From ``name``'s profile: Challenge, a 1-minute clock, Send; the page waits."""
    page.goto(f"{server}/player/{name}")
    page.get_by_test_id("challenge-player").click()
    page.wait_for_url("**/challenge?to=*")
    page.get_by_test_id("challenge-clock").select_option("60+300")
    page.get_by_test_id("challenge-send").click()
    page.wait_for_url("**/challenge/*")
    page.get_by_test_id("challenge-status").wait_for()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=challenge-status]').textContent"
        ".startsWith('Waiting for')")


def test_a_challenge_shows_in_every_tab_and_is_accepted_from_the_table(
        server: str, browser: Any) -> None:
    errors: list[str] = []
    ana = new_page(browser, errors, DESKTOP)
    lobby = new_page(browser, errors, DESKTOP)  # Ben's browser: two tabs
    _sign_up(ana, server, "Ana_c")
    _sign_up(lobby, server, "Ben_c")
    table = lobby.context.new_page()
    table.set_default_timeout(20_000)
    table.on("pageerror", lambda e: errors.append(str(e)))
    start_against_computer(table, server, "Ben")  # Ben is at a table in the other tab
    lobby.goto(server + "/")

    # a first challenge: declined with a reason from the lobby's notice
    _challenge(ana, server, "Ben_c")
    for tab in (lobby, table):
        tab.get_by_test_id("challenge-notice").wait_for(timeout=10_000)
        assert "Ana_c challenges you" in tab.get_by_test_id("challenge-notice").inner_text()
    lobby.get_by_test_id("challenge-reason").select_option("later")
    lobby.get_by_test_id("challenge-decline").click()
    ana.wait_for_function(
        "() => document.querySelector('[data-testid=challenge-status]').textContent"
        ".startsWith('Declined: This is not the right time')")
    table.get_by_test_id("challenge-notice").wait_for(state="detached")

    # a second: accepted from the table's tab; the lobby's notice leaves by itself
    _challenge(ana, server, "Ben_c")
    for tab in (lobby, table):
        tab.get_by_test_id("challenge-notice").wait_for(timeout=10_000)
    old = table.url
    table.get_by_test_id("challenge-accept").click()
    table.wait_for_url(lambda url: url != old and "/play/" in url)
    lobby.get_by_test_id("challenge-notice").wait_for(state="detached", timeout=10_000)
    ana.wait_for_url("**/play/**", timeout=20_000)
    mid = table.evaluate("location.pathname.split('/').pop()")
    assert ana.evaluate("location.pathname.split('/').pop()") == mid
    for p in (ana, table):
        p.wait_for_function("() => document.body.dataset.status === 'playing'")
        scores = p.get_by_test_id("scores").inner_text()
        assert "Ana_c" in scores and "Ben_c" in scores, scores
    assert not errors, errors


def test_play_someone_offers_the_computer_after_a_wait(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    page.goto(server + "/quick")
    page.get_by_test_id("seek-clock").select_option("60+300")
    page.get_by_test_id("seek-button").click()
    page.get_by_test_id("seek-waiting").wait_for(state="visible")
    assert page.get_by_test_id("seek-computer").is_hidden()
    page.get_by_test_id("seek-computer").wait_for(state="visible", timeout=15_000)
    page.get_by_test_id("computer-medium").click()  # a guest rates 1500: medium first
    page.wait_for_url("**/play/**")
    page.wait_for_function("() => document.body.dataset.status === 'playing'")
    assert "BOT Medium computer" in page.get_by_test_id("name-opponent").inner_text()
    state = page.evaluate("""async () => {
        const id = location.pathname.split('/').pop();
        const token = new URLSearchParams(location.hash.slice(1)).get('token');
        const r = await fetch(`/api/matches/${id}`, {headers: {Authorization: `Bearer ${token}`}});
        return r.json(); }""")
    assert state["bots"] == [False, True] and state["clock"]["move"] == 60  # the seek's terms
    assert not errors, errors


def test_a_bot_account_makes_and_revokes_a_token_on_the_account_page(
        server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    page.goto(server + "/account")
    page.get_by_test_id("username").fill("Robo_e2e")
    page.get_by_test_id("password").fill("correct horse battery")
    page.locator("label", has=page.get_by_test_id("bot-account")).click()
    page.get_by_test_id("signup").click()
    page.wait_for_url(server + "/")
    page.goto(server + "/account")
    page.get_by_test_id("token-name").fill("my bot")
    page.get_by_test_id("token-make").click()
    page.get_by_test_id("token-new").wait_for(state="visible")
    token = page.get_by_test_id("token-value").inner_text()
    assert token.startswith("ginrummy.") and len(token) == 52
    page.get_by_test_id("token-revoke").wait_for()
    assert "my bot (never used)" in page.get_by_test_id("token-list").inner_text()
    me = page.evaluate(f"""async () => (await fetch('/api/me',
        {{headers: {{Authorization: 'Bearer {token}'}}}})).status""")
    assert me == 200
    page.once("dialog", lambda d: d.accept())  # revoking asks first (issue 44)
    page.get_by_test_id("token-revoke").click()
    page.get_by_test_id("token-revoke").wait_for(state="detached")
    me = page.evaluate(f"""async () => (await fetch('/api/me',
        {{headers: {{Authorization: 'Bearer {token}'}}}})).status""")
    assert me == 401
    page.goto(server + "/player/Robo_e2e")
    page.get_by_test_id("bot-mark").wait_for()
    assert page.locator("#player-name").inner_text().startswith("BOT")
    assert not errors, errors
