"""A timed table in a real browser: both clocks shown and ticking, the tab's title saying
"Your move", a move the table plays for a seat out of time announced, and a resignation
through the page (with its confirmation) ending the match as the end-of-match dialog says
(docs/web-api.md; R10: the other seat wins)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


def test_clocks_tick_time_runs_out_and_resign_through_the_page(
    server: str, browser: Any, artifacts: Path
) -> None:
    with httpx.Client(base_url=server, timeout=30) as http:
        m = http.post("/api/matches", json={"opponent": "friend", "name": "Ann",
                                            "clock": {"move": 3, "bank": 2}}).json()
        code = m["invite_url"].split("#invite=", 1)[1]
        friend = http.post(f"/api/matches/{m['id']}/join", json={"invite": code}).json()
        mid, tokens = m["id"], [m["token"], friend["token"]]
        # both players pass the up-card themselves: the match has been played, so the
        # resignation below is one (before both move, any ending is an abort). Then the
        # table plays for a seat every 5 s or so (3 s a move, and the 2 s bank once), and
        # a third in a row loses the match on time (at about 19 s): time for a slow
        # browser to see a timeout and resign before that
        for _ in range(2):
            s = http.get(f"/api/matches/{mid}",
                         headers={"Authorization": f"Bearer {tokens[0]}"}).json()
            seat = s["view"]["to_play"]
            r = http.post(f"/api/matches/{mid}/actions",
                          headers={"Authorization": f"Bearer {tokens[seat]}"},
                          json={"action": {"act": "pass"}, "version": s["version"]})
            assert r.status_code == 200, r.text
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/play/{mid}#token={tokens[0]}")

    # Both clocks are shown; the one of the seat to play ticks.
    page.get_by_test_id("clock-me").wait_for(state="visible")
    page.get_by_test_id("clock-opponent").wait_for(state="visible")
    page.wait_for_selector("[data-testid=clocks] .clock.running")
    before = page.locator("[data-testid=clocks] .clock.running").inner_text()
    page.wait_for_function(
        "t => { const c = document.querySelector('[data-testid=clocks] .clock.running');"
        " return c && c.innerText !== t; }", arg=before, timeout=3_000)

    # Nobody moves: the table plays for whoever is out of time, and it becomes seat 0's
    # move at some point: the tab's title says so.
    page.wait_for_function("() => document.title.startsWith('● Your move')", timeout=15_000)
    page.wait_for_function(
        "() => document.getElementById('message').textContent.includes('ran out of time')",
        timeout=15_000)
    page.screenshot(path=str(artifacts / "clock_timeout.png"), animations="disabled")

    # Resign, confirmed in the page's own dialog.
    page.get_by_test_id("resign-button").click()
    ask = page.get_by_test_id("end-ask")
    ask.wait_for(state="visible")
    assert "Resign the match?" in ask.inner_text()
    page.get_by_test_id("end-ask-cancel").click()  # first thoughts: no
    assert ask.is_hidden()
    page.get_by_test_id("resign-button").click()
    page.get_by_test_id("end-ask-yes").click()
    end = page.get_by_test_id("match-end")
    end.wait_for(state="visible")
    assert "You resigned: Friend wins the match." in end.inner_text()
    assert "Friend wins the match" in page.get_by_test_id("match-over").inner_text()
    assert page.get_by_test_id("resign-button").is_hidden()
    page.wait_for_function("() => !document.title.startsWith('●')")
    page.screenshot(path=str(artifacts / "resigned.png"), animations="disabled")
    with httpx.Client(base_url=server, timeout=30) as http:
        s = http.get(f"/api/matches/{mid}",
                     headers={"Authorization": f"Bearer {tokens[1]}"}).json()
    assert s["status"] == "finished" and s["end"] == "resigned" and s["winner"] == 1
    assert s["clock"]["deadline"] is None
    ctx.close()
    assert errors == []


def test_the_lobby_starts_a_timed_table_against_the_computer(
    server: str, browser: Any, artifacts: Path
) -> None:
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.get_by_test_id("clock-choice").select_option("20+120")
    page.get_by_test_id("start-button").click()
    page.wait_for_url("**/play/**")
    page.get_by_test_id("clock-me").wait_for(state="visible")
    assert "bank 2:00" in page.get_by_test_id("clock-opponent").inner_text()
    page.get_by_test_id("abort-button").wait_for(state="visible")  # before any discard
    page.screenshot(path=str(artifacts / "timed_computer_table.png"), animations="disabled")
    ctx.close()
    assert errors == []
