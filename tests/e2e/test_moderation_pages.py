"""Fair play in a real browser (issue 44 items 2 and 3): the server screens a finished
rated match and flags an account whose play is beyond honest play; a player reports it
from its profile; a moderator (granted by ``ginrummy accounts moderator``) sees the flag
and the report on /mod, looks at the account and marks it: the loser gets back the points
it lost, the marked account's profile says so, and the page fits a phone."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from test_fair_rated import SESSION, Account, _auth, _rated_match
from test_web_table import DESKTOP, PHONE, new_page

from ginrummy.web.commands.accounts import main as accounts_main

pytestmark = pytest.mark.e2e


def _browser_of(page: Any, server: str, account: Account) -> None:
    page.context.add_cookies([{"name": SESSION, "value": account.http.cookies[SESSION],
                               "url": server}])


def _engine_like_past(db: Path, username: str, matches: int) -> None:
    """Screened matches of the account as the engine plays them (the calibration's
    expert figures), as if played before: with the next one, the rule flags it."""
    with sqlite3.connect(db) as conn:
        (aid,) = conn.execute("SELECT id FROM accounts WHERE username_key = ?",
                              (username.casefold(),)).fetchone()
        for i in range(matches):
            conn.execute("INSERT INTO screenings (match_id, account_id, seat, decisions, "
                         "agree, loss, contested, contested_agree, at) VALUES "
                         "(?, ?, 0, 110, 94, 0.09, 60, 58, ?)",
                         (f"past{i}", aid, time.time() - 3600 + i))


def test_a_flag_a_report_a_mark_and_a_refund(server: str, browser: Any, tmp_path: Path,
                                             artifacts: Path) -> None:
    db = tmp_path / "table.sqlite3"
    ann, bob, moe = Account(server, "Ann"), Account(server, "Bob"), Account(server, "Moe")
    _engine_like_past(db, "Ann", 3)
    mid, tokens = _rated_match(ann, bob)
    http = bob.http
    for seat in (0, 1, 0):  # both play a move, then Bob resigns: a rated loss
        s = http.get(f"/api/matches/{mid}", headers=_auth(tokens[seat])).json()
        if s["legal"]:
            act = next((a for a in s["legal"] if a["act"] in ("pass", "draw")), s["legal"][0])
            http.post(f"/api/matches/{mid}/actions", headers=_auth(tokens[seat]),
                      json={"action": act, "version": s["version"]})
    assert http.post(f"/api/matches/{mid}/resign", headers=_auth(tokens[1])).status_code == 200
    deadline = time.monotonic() + 90
    while True:  # settled, then screened in the background
        lost = http.get("/api/players/Bob").json()
        if lost["history"]:
            break
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert accounts_main(["moderator", "Moe", "--db", str(db)]) == 0

    errors: list[str] = []
    # the end of the finished match offers Bob a report of his opponent...
    page = new_page(browser, errors, DESKTOP)
    _browser_of(page, server, bob)
    page.goto(f"{server}/play/{mid}")
    page.get_by_test_id("ending-report").get_by_test_id("report-open").wait_for()
    assert "Report Ann" in page.get_by_test_id("ending-report").inner_text()
    # ... and he reports her from her profile
    page.goto(f"{server}/player/Ann")
    page.get_by_test_id("report-open").click()
    page.get_by_test_id("report-reason").select_option("engine")
    page.get_by_test_id("report-text").fill("<b>every move</b> instant <script>x()</script>")
    page.get_by_test_id("report-send").click()
    page.get_by_test_id("report-message").filter(has_text="Thank you").wait_for()
    page.context.close()

    # the moderator's page: the flag the server raised and Bob's report
    page = new_page(browser, errors, DESKTOP)
    _browser_of(page, server, moe)
    deadline = time.monotonic() + 120
    while True:
        page.goto(f"{server}/mod")
        page.get_by_test_id("mod-flags").wait_for()
        if page.get_by_test_id("mod-flag").count():
            break
        assert time.monotonic() < deadline, "the server raised no flag"
        time.sleep(1)
    flag = page.get_by_test_id("mod-flag").first.inner_text()
    assert "Ann" in flag and "agrees with the engine" in flag
    report = page.get_by_test_id("mod-report").first.inner_text()
    assert "Bob" in report and "<b>every move</b> instant <script>x()</script>" in report
    assert page.locator("#mod-reports b, #mod-reports script").count() == 0  # text only
    page.screenshot(path=str(artifacts / "mod_lists.png"), animations="disabled")
    page.get_by_test_id("mod-flags").get_by_test_id("mod-user").first.click()
    page.get_by_test_id("mod-account-name").filter(has_text="Ann").wait_for()
    page.get_by_test_id("mod-mark-engine-reason").fill("agrees with the engine throughout")
    page.get_by_test_id("mod-mark-engine").click()
    msg = page.get_by_test_id("mod-message")
    msg.filter(has_text="Marked Ann").wait_for()
    assert "Bob +" in msg.inner_text()
    page.get_by_test_id("mod-log").first.wait_for()
    assert "marked engine" in page.get_by_test_id("mod-log").first.inner_text()
    assert page.get_by_test_id("mod-flag").count() == 0  # the flag is closed by the mark
    page.screenshot(path=str(artifacts / "mod_account.png"), full_page=True,
                    animations="disabled")
    page.context.close()

    after = bob.http.get("/api/players/Bob").json()
    assert after["rating"] > lost["rating"]
    assert "Ann" not in [p["username"]
                         for p in bob.http.get("/api/leaderboard").json()["players"]]
    # Ann's profile says so; the moderators' page fits a phone
    page = new_page(browser, errors, PHONE)
    page.goto(f"{server}/player/Ann")
    page.get_by_test_id("player-mark").wait_for()
    assert "marked this account for engine help" in page.get_by_test_id("player-mark").inner_text()
    _browser_of(page, server, moe)
    page.goto(f"{server}/mod?u=Ann")
    page.get_by_test_id("mod-account-name").wait_for()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    page.context.close()
    # a player who is not a moderator is told so
    page = new_page(browser, errors, DESKTOP)
    _browser_of(page, server, bob)
    page.goto(f"{server}/mod")
    page.get_by_test_id("mod-message").filter(has_text="Only moderators").wait_for()
    page.context.close()
    assert errors == []
