"""What players met in the first hour (issue 36), in a real browser: a guest's pages log
no refused request; an account signed in on a new device finds its matches in the lobby
and opens its reviews there and from its profile; "Replay" opens the replay page; the
rating graph has axes; a finished public match's review and replay open for a spectator;
the spectator's "X to play" is the player whose clock runs; quick-match guests have
names of their own."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_match_end import play_out
from test_web_table import DESKTOP, new_page, start_against_computer

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"


@pytest.fixture()
def fast_reviews(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap reviews for the server started by ``server`` (it inherits the environment)."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "2")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "none")


@pytest.fixture()
def server(fast_reviews: None, server: str) -> Iterator[str]:
    yield server


def console_errors(page: Any, into: list[str]) -> None:
    """Record every error the page's console shows (a refused request shows as one)."""
    page.on("console", lambda m: into.append(m.text) if m.type == "error" else None)


def friend_match(http: httpx.Client, base: str, **body: Any) -> tuple[str, list[str]]:
    """A friend table made with ``http``'s session (kept in its account: the Origin header)
    and joined by a guest; (id, tokens)."""
    m = http.post("/api/matches", json={"opponent": "friend", **body},
                  headers={"Origin": base}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    with httpx.Client(base_url=base, timeout=30) as guest:
        friend = guest.post(f"/api/matches/{m['id']}/join", json={"invite": code}).json()
    return m["id"], [m["token"], friend["token"]]


def test_a_guests_pages_log_no_error(server: str, browser: Any) -> None:
    """Every guest page asked GET /api/me and logged its 401."""
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    console_errors(page, errors)
    for path in ("/", "/quick", "/leaderboard", "/live", "/account"):  # with the top bar
        page.goto(server + path)
        page.get_by_test_id("login-link").wait_for()  # the bar has asked who is signed in
    page.goto(server + "/record")
    page.wait_for_function("() => !document.querySelector('[data-testid=record-summary]')"
                           ".textContent.includes('Loading')")
    start_against_computer(page, server)
    page.wait_for_function("() => document.body.dataset.myTurn !== undefined")
    page.wait_for_timeout(500)
    assert errors == []


def test_an_account_on_a_new_device(server: str, browser: Any) -> None:
    """Signed in on a new device the lobby listed nothing; the profile's review links
    said "This review link has no seat token"; "Replay" opened raw JSON; the graph had
    no axes. Now the lobby lists the account's matches, its review opens from the lobby
    and the profile, Replay opens the replay page, and the graph has its axes."""
    with httpx.Client(base_url=server, timeout=60) as http:
        r = http.post("/api/accounts", json={"username": "Sam_e2e", "password": PASSWORD})
        assert r.status_code == 201, r.text
        done, tokens = friend_match(http, server, name="Sam_e2e", public=True)
        play_out(http, done, tokens)
        computer = http.post("/api/matches", json={"opponent": "computer", "bot": "easy"},
                             headers={"Origin": server}).json()["id"]
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)  # a new device: nothing in its storage
    console_errors(page, errors)
    page.goto(server + "/account")
    page.get_by_test_id("username").fill("sam_e2e")
    page.get_by_test_id("password").fill(PASSWORD)
    page.get_by_test_id("login").click()
    page.wait_for_url(server + "/")
    items = page.get_by_test_id("match-item")
    items.first.wait_for()
    assert page.locator(f"[data-testid=match-item][data-match-id='{computer}']").count() == 1
    page.locator("[data-filter=finished]").click()
    finished = page.locator(f"[data-testid=match-item][data-match-id='{done}']")
    finished.wait_for()
    assert "No finished matches yet" not in page.get_by_test_id("my-matches").inner_text()
    finished.get_by_test_id("lobby-review").click()
    page.wait_for_url(f"**/review/{done}")
    page.get_by_test_id("review-summary").wait_for(timeout=120_000)
    assert "no seat token" not in page.locator("main").inner_text()
    assert "You" in page.get_by_test_id("review-summary").inner_text()  # the session's seat

    page.goto(server + "/record")  # Your record: the account's, on this device too
    page.locator("#record-details").wait_for()
    assert "1 match" in page.locator("#record-summary").inner_text()

    page.goto(server + "/player/Sam_e2e")
    graph = page.get_by_test_id("rating-graph")
    graph.locator("svg").wait_for()
    assert graph.get_by_test_id("graph-y-axis").count() == 1
    assert graph.get_by_test_id("graph-x-axis").count() == 1
    assert graph.get_by_test_id("graph-y-tick").count() >= 2
    assert "Rating" in graph.inner_text() and "Rated matches" in graph.inner_text()
    assert "0 rated of 2 matches." in page.get_by_test_id("player-rating").inner_text()
    page.get_by_test_id("profile-review").first.click()
    page.wait_for_url(f"**/review/{done}")
    page.get_by_test_id("review-summary").wait_for(timeout=120_000)
    page.goto(server + "/player/Sam_e2e")
    page.get_by_test_id("profile-replay").first.click()
    page.wait_for_url(f"**/replay/{done}")
    page.wait_for_function("() => /^Step 0 of \\d+$/.test("
                           "document.querySelector('[data-testid=replay-step]').textContent)")
    for seat in (0, 1):
        assert page.get_by_test_id(f"replay-seat-{seat}").locator(".card").count() == 10
    page.get_by_test_id("replay-next").click()
    page.wait_for_function("() => document.querySelector('[data-testid=replay-step]')"
                           ".textContent.startsWith('Step 1 ')")
    assert "Sam_e2e" in page.get_by_test_id("replay-title").inner_text()

    # a spectator (no account) of the finished public match: its review and replay open
    watcher = new_page(browser, errors, DESKTOP)
    console_errors(watcher, errors)
    watcher.goto(f"{server}/watch/{done}")
    watcher.get_by_test_id("watch-review").wait_for()
    watcher.get_by_test_id("watch-review").click()
    watcher.wait_for_url(f"**/review/{done}")
    watcher.get_by_test_id("review-summary").wait_for(timeout=120_000)
    assert "You" not in watcher.get_by_test_id("review-summary").inner_text()
    watcher.goto(f"{server}/watch/{done}")
    watcher.get_by_test_id("watch-replay").click()
    watcher.wait_for_url(f"**/replay/{done}")
    watcher.get_by_test_id("replay-seat-0").wait_for()
    assert errors == []


def test_the_spectators_to_play_is_the_running_clock(server: str, browser: Any) -> None:
    """The spectator's line "X to play" named the wrong player (the position shown
    behind); it now names the player whose clock is running."""
    with httpx.Client(base_url=server, timeout=60) as http:
        http.post("/api/accounts", json={"username": "Tia_e2e", "password": PASSWORD})
        mid, tokens = friend_match(http, server, name="Tia_e2e", public=True,
                                   clock={"move": 60, "bank": 60})
        errors: list[str] = []
        watcher = new_page(browser, errors, DESKTOP)
        watcher.goto(f"{server}/watch/{mid}")
        watcher.get_by_test_id("watch-clocks").wait_for(state="visible")
        for _ in range(6):
            play_out(http, mid, tokens, moves=1)
            s = http.get(f"/api/matches/{mid}",
                         headers={"Authorization": f"Bearer {tokens[0]}"}).json()
            if s["hand_over"] is not None or s["status"] != "playing":
                break
            who = s["players"][s["view"]["to_play"]]
            watcher.wait_for_function(
                "who => document.querySelector('[data-testid=watch-status]').textContent"
                ".startsWith(who + ' to play')", arg=who, timeout=10_000)
            running = watcher.locator("[data-testid^=watch-clock-].running .clock-name")
            assert running.inner_text() == who
            time.sleep(0.1)
    assert errors == []


def test_quick_match_guests_have_names_of_their_own(server: str, browser: Any) -> None:
    """Both quick-match guests were "Guest" ("Guest | Guest"): one gives a name, the
    other gets "Guest" and four digits, and each table shows both."""
    errors: list[str] = []
    pages = [new_page(browser, errors, DESKTOP), new_page(browser, errors, DESKTOP)]
    for p, name in zip(pages, ("Ann", ""), strict=True):
        p.goto(server + "/quick")
        p.get_by_test_id("seek-name").fill(name)
        p.get_by_test_id("seek-button").click()
        p.get_by_test_id("seek-waiting").or_(p.locator("#table")).first.wait_for()
    for p in pages:
        p.wait_for_url("**/play/**", timeout=20_000)
        p.wait_for_function("() => document.body.dataset.status === 'playing'")
    names = [p.locator("#players .pname").all_inner_texts() for p in pages]
    for shown in names:
        flat = [re.sub(r"\s*\(you\)$", "", n) for n in shown]
        assert sorted(flat)[0] == "Ann" and re.fullmatch(r"Guest \d{4}", sorted(flat)[1]), shown
    assert errors == []
