"""The first hour on the site (issue 44, item 9), in Chromium at 1280x800 and 390x664: a
signed-in player opens their own table while the address's reads are spent; the daily
deal's end; aborted matches in the lobby and the record; a puzzle's answer in words; the
way back to an arena and into its next pairing; the top bar and the pages on a phone; the
sign-up form; an account's name at its tables; How to play with the shared bar; API
tokens; BOT marks; the score sheet's every row; the daily page's requests."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from test_web_table import new_page

pytestmark = pytest.mark.e2e

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 664}
PASSWORD = "correct horse battery"

BUSY = json.dumps({"error": "Too many requests: at most 120 per 1 minute from one address. "
                            "Wait a moment and try again."})


@pytest.fixture()
def fast_reviews(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap reviews and hints for the server started by ``server`` (it inherits the
    environment)."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "2")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "none")


@pytest.fixture()
def server(fast_reviews: None, server: str) -> Iterator[str]:
    yield server


def sign_up(page: Any, server: str, name: str) -> None:
    """Sign ``name`` up in ``page``'s browser (its session cookie), through the API."""
    r = page.request.post(f"{server}/api/accounts",
                          data={"username": name, "password": PASSWORD})
    assert r.status == 201, r.text()


def csrf_of(page: Any, server: str) -> str:
    return str(page.request.get(f"{server}/api/session").json()["account"]["csrf"])


def computer_match(page: Any, server: str, **body: Any) -> dict[str, Any]:
    """A computer table made with the page's session (so kept in its account), its seat
    token not kept in the page's browser."""
    r = page.request.post(f"{server}/api/matches", headers={"Origin": server},
                          data={"opponent": "computer", "bot": "easy", **body})
    assert r.status == 201, r.text()
    return dict(r.json())


def wait_table(page: Any) -> None:
    page.wait_for_function("() => document.body.dataset.version !== undefined",
                           timeout=60_000)


# ---------------------------------------------------------------- 1. a busy site


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_a_spent_read_allowance_never_loses_the_seat(server: str, browser: Any,
                                                    viewport: dict[str, int]) -> None:
    """Every read of the address refused (429, as when four arena tabs have spent it):
    the signed-in player's own table still opens from a link with no token, never says
    "no seat token", and plays; who is signed in is asked again until the site answers."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    sign_up(page, server, "Busy_Bee")
    m = computer_match(page, server)
    refused: list[str] = []

    def spent(route: Any) -> None:
        refused.append(route.request.url)
        route.fulfill(status=429, content_type="application/json", body=BUSY,
                      headers={"Retry-After": "1"})

    page.route(re.compile(r".*/api/(session|tournaments|daily|leaderboard|bots).*"), spent)
    page.goto(f"{server}/play/{m['id']}")  # the account's seat: no token in this browser
    wait_table(page)
    assert "no seat token" not in page.locator("body").inner_text()
    assert page.get_by_test_id("name-me").inner_text().startswith("Busy_Bee")
    assert any("/api/session" in u for u in refused)
    # a move is made through the session (its Origin: the CSRF token has not come yet)
    page.wait_for_function("() => document.body.dataset.myTurn === 'true'", timeout=60_000)
    v = int(page.evaluate("Number(document.body.dataset.version)"))
    phase = page.evaluate("document.body.dataset.phase")
    page.get_by_test_id("pass-button" if phase == "offer" else "stock").click()
    page.wait_for_function("v => Number(document.body.dataset.version) > v", arg=v)
    # the site answers again: who is signed in is asked again, and answered
    asked = len([u for u in refused if "/api/session" in u])
    page.unroute(re.compile(r".*/api/(session|tournaments|daily|leaderboard|bots).*"))
    with page.expect_response(lambda r: r.url.endswith("/api/session") and r.status == 200,
                              timeout=40_000):
        pass
    assert asked >= 1
    assert not errors, errors


def test_a_guest_without_the_link_is_told_so(server: str, browser: Any) -> None:
    """A guest opening a table's address without its token is told the link has no seat
    token (the table refuses the request: no session holds a seat)."""
    errors: list[str] = []
    page = new_page(browser, errors, LAPTOP)
    m = httpx.post(f"{server}/api/matches", json={"opponent": "computer", "bot": "easy"},
                   timeout=30).json()
    page.goto(f"{server}/play/{m['id']}")
    page.get_by_text("This table link has no seat token").wait_for()
    assert not errors, errors


# ---------------------------------------------------------------- 6, 9. the bar, a phone

TOPBAR_PAGES = ("/", "/rules", "/record", "/quick", "/tournaments", "/daily", "/live",
                "/leaderboard", "/puzzles", "/analysis", "/account", "/challenge")


def finished_friend_match(page: Any, server: str, name: str) -> str:
    """A friend match made with the page's session, joined by a guest and played to its
    end through the API; its id."""
    from test_match_end import play_out

    m = page.request.post(f"{server}/api/matches", headers={"Origin": server},
                          data={"opponent": "friend"}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    with httpx.Client(base_url=server, timeout=60) as guest:
        friend = guest.post(f"/api/matches/{m['id']}/join",
                            json={"invite": code, "name": "Guest_friend"}).json()
        play_out(guest, m["id"], [m["token"], friend["token"]])
    return str(m["id"])


SIDEWAYS = "() => document.documentElement.scrollWidth - innerWidth"


def test_no_page_scrolls_sideways_on_a_phone(server: str, browser: Any) -> None:
    """At 360 to 430 px wide no page is wider than the screen (Your record was 595 px at
    390: its tables scroll inside their box)."""
    errors: list[str] = []
    page = new_page(browser, errors, PHONE)
    sign_up(page, server, "Wide_Wendy")
    mid = finished_friend_match(page, server, "Wide_Wendy")
    pages = (*TOPBAR_PAGES, "/player/Wide_Wendy", f"/review/{mid}", f"/replay/{mid}",
             "/no/such/page")
    for width in (360, 390, 430):
        page.set_viewport_size({"width": width, "height": 664})
        for path in pages:
            page.goto(server + path)
            page.wait_for_load_state("networkidle")
            if path == "/record":
                page.locator("#record-details").wait_for()
            assert page.evaluate(SIDEWAYS) <= 0, f"{path} scrolls sideways at {width} px"
    assert not errors, errors


def test_the_phone_bar_shows_there_is_more(server: str, browser: Any) -> None:
    """On a phone the bar's links ran past its edge. Now they are a menu: its button is
    in the bar, and it opens every link in sight, the page's own marked (at 1280 every
    link is in the bar, no menu button). The menu itself: tests/e2e/test_phone_pages.py."""
    errors: list[str] = []
    page = new_page(browser, errors, PHONE)
    for path in ("/", "/rules", "/record", "/leaderboard"):
        page.goto(server + path)
        page.get_by_test_id("login-link").wait_for()
        button = page.get_by_test_id("pages-menu-button")
        box = button.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44 and box["x"] + box["width"] <= 390
        button.click()
        out_of_sight = page.evaluate("""() => [...document.querySelectorAll('#pages-menu a')]
            .filter((a) => { const r = a.getBoundingClientRect();
              return !(r.width > 0 && r.left >= 0 && r.right <= innerWidth); }).length""")
        assert out_of_sight == 0, path
        assert page.locator("#pages-menu [aria-current=page]").count() == 1, path
    page.set_viewport_size(LAPTOP)
    page.goto(server + "/")
    page.get_by_test_id("login-link").wait_for()
    assert page.get_by_test_id("pages-menu-button").is_hidden()
    assert page.get_by_test_id("analysis-link").is_visible()
    assert not errors, errors


def test_how_to_play_and_your_record_have_the_shared_bar(server: str, browser: Any) -> None:
    """/rules had a bar of its own, without the account or the challenge notices (and so
    did /record): both have the site's bar, who is signed in, and the notices."""
    errors: list[str] = []
    page = new_page(browser, errors, LAPTOP)
    sign_up(page, server, "Rule_Reader")
    with httpx.Client(base_url=server, timeout=30) as other:
        r = other.post("/api/accounts", json={"username": "Chall_Enger", "password": PASSWORD})
        other.post("/api/challenges", json={"to": "Rule_Reader"},
                   headers={"X-CSRF-Token": r.json()["csrf"]}).raise_for_status()
    for path, here in (("/rules", "rules-link"), ("/record", "record-link")):
        page.goto(server + path)
        page.get_by_test_id("account-name").wait_for()
        assert "Rule_Reader" in page.get_by_test_id("account-name").inner_text()
        for link in ("lobby-link", "quick-link", "arenas-link", "daily-link", "puzzles-link"):
            assert page.get_by_test_id(link).count() == 1, (path, link)
        assert page.get_by_test_id(here).get_attribute("aria-current") == "page"
        page.get_by_test_id("challenge-notice").wait_for()  # the notices, as on every page
        assert "Chall_Enger challenges you" in page.get_by_test_id("notices").inner_text()
    page.goto(server + "/rules")
    page.get_by_test_id("rules-learn").click()
    page.wait_for_url("**/learn")
    assert not errors, errors


# ---------------------------------------------------------------- 7, 17, 18. the account


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_the_sign_up_page_signs_up_with_enter_and_its_primary_button(
        server: str, browser: Any, viewport: dict[str, int]) -> None:
    """The bar's Sign up opens /account#signup, where Enter and the primary button signed
    a new player in ("Wrong username or password"): there they sign up; at /account they
    log in. The password inputs look like the other inputs."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    page.goto(server + "/")
    page.get_by_test_id("signup-link").click()
    page.wait_for_url("**/account#signup")
    primary = page.locator("#account-form .btn.primary")
    expect(primary).to_have_text("Sign up", timeout=5_000)  # set before the page fetches
    page.get_by_test_id("username").fill("New_Nora")
    page.get_by_test_id("password").fill(PASSWORD)
    page.get_by_test_id("password").press("Enter")
    page.wait_for_url(server + "/")
    page.get_by_test_id("account-name").wait_for()
    assert "New_Nora" in page.get_by_test_id("account-name").inner_text()

    other = new_page(browser, errors, viewport)
    other.goto(server + "/account#signup")
    other.get_by_test_id("username").fill("New_Olga")
    other.get_by_test_id("password").fill(PASSWORD)
    other.locator("#account-form .btn.primary").click()
    other.wait_for_url(server + "/")
    # logging in: at /account Enter and the primary button log in
    other.context.clear_cookies()
    other.goto(server + "/account")
    assert other.locator("#account-form .btn.primary").inner_text() == "Log in"
    other.get_by_test_id("username").fill("New_Olga")
    other.get_by_test_id("password").fill(PASSWORD)
    other.get_by_test_id("password").press("Enter")
    other.wait_for_url(server + "/")
    other.get_by_test_id("account-name").wait_for()

    # the password input is styled as the username's
    other.goto(server + "/account#signup")
    look = """id => { const s = getComputedStyle(document.getElementById(id));
        return [s.backgroundColor, s.borderRadius, s.paddingLeft]; }"""
    assert other.evaluate(look, "password") == other.evaluate(look, "username")
    assert not errors, errors


def test_api_tokens_are_copied_and_revoked_with_a_word(server: str, browser: Any) -> None:
    """A new token has a Copy button saying Copied; revoking asks first (no: nothing is
    revoked) and then says it was revoked. The account's one-line forms are styled."""
    errors: list[str] = []
    page = new_page(browser, errors, LAPTOP)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_up(page, server, "Tok_Ted")
    page.goto(server + "/account")
    page.get_by_test_id("token-name").fill("my bot")
    page.get_by_test_id("token-make").click()
    page.get_by_test_id("token-new").wait_for(state="visible")
    token = page.get_by_test_id("token-value").inner_text()
    page.get_by_test_id("token-copy").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=token-copy]').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == token
    look = """sel => { const s = getComputedStyle(document.querySelector(sel));
        return [s.backgroundColor, s.borderRadius]; }"""
    assert page.evaluate(look, "#close-password") == page.evaluate(look, "#token-name")
    assert page.evaluate(look, "#token-name") == page.evaluate(look, "#current-password")

    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.get_by_test_id("token-revoke").click()
    page.wait_for_timeout(300)
    assert asked and "my bot" in asked[0]
    assert page.get_by_test_id("token-revoke").count() == 1  # dismissed: still there
    page.once("dialog", lambda d: d.accept())
    page.get_by_test_id("token-revoke").click()
    page.get_by_test_id("token-revoke").wait_for(state="detached")
    page.get_by_test_id("message").get_by_text("is revoked").wait_for()
    status = page.evaluate(f"""async () => (await fetch('/api/me',
        {{headers: {{Authorization: 'Bearer {token}'}}}})).status""")
    assert status == 401
    assert not errors, errors


def test_a_bot_account_sees_its_bot_mark_on_its_own_pages(server: str, browser: Any) -> None:
    """A BOT account signed in saw no BOT mark on its own pages: the bar, its account
    page and its profile mark it."""
    errors: list[str] = []
    page = new_page(browser, errors, LAPTOP)
    r = page.request.post(f"{server}/api/accounts",
                          data={"username": "Robo_Rita", "password": PASSWORD, "bot": True})
    assert r.status == 201
    for path in ("/", "/account", "/player/Robo_Rita"):
        page.goto(server + path)
        page.get_by_test_id("account-name").wait_for()
        assert page.get_by_test_id("account-name").get_by_test_id("account-bot-mark").count() \
            == 1, path
    page.goto(server + "/account")
    page.get_by_test_id("account-in").get_by_test_id("account-bot-mark").wait_for()
    page.goto(server + "/player/Robo_Rita")
    page.locator("#player-name").get_by_test_id("bot-mark").wait_for()
    assert not errors, errors


# ---------------------------------------------------------------- 10, 11, 15. words


def test_your_record_says_it_is_the_accounts(server: str, browser: Any) -> None:
    """Your record said "this browser" to a signed-in account: it says it is the
    account's, on every device; a guest's still says this browser."""
    errors: list[str] = []
    page = new_page(browser, errors, LAPTOP)
    page.goto(server + "/record")
    page.get_by_text("No matches in this browser yet").wait_for()
    assert "this browser" in page.get_by_test_id("record-about").inner_text()
    sign_up(page, server, "Rec_Rob")
    page.goto(server + "/record")
    page.wait_for_function("() => !document.querySelector('[data-testid=record-summary]')"
                           ".textContent.includes('Loading')")
    about = page.get_by_test_id("record-about").inner_text()
    assert "your account" in about and "every device" in about
    assert not about.startswith("The finished matches played in this browser")
    assert not errors, errors


def test_an_open_links_life_is_in_words(server: str, browser: Any) -> None:
    """An open challenge's link said "works for 1440 min": it says "24 hours"."""
    errors: list[str] = []
    page = new_page(browser, errors, LAPTOP)
    sign_up(page, server, "Link_Lou")
    page.goto(server + "/challenge")
    page.get_by_test_id("challenge-send").click()
    page.wait_for_url("**/challenge/*")
    page.wait_for_function("() => document.querySelector('[data-testid=challenge-status]')"
                           ".textContent.startsWith('Waiting')")
    status = page.get_by_test_id("challenge-status").inner_text()
    assert " min)" not in status and re.search(r"works for (24 hours|1 day)", status), status
    assert not errors, errors


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_the_quick_match_levels_are_spaced(server: str, browser: Any,
                                           viewport: dict[str, int]) -> None:
    """Play someone's "or play the computer now" buttons ran together: they are spaced."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    page.goto(server + "/quick")
    page.get_by_test_id("seek-button").click()
    page.get_by_test_id("seek-computer").wait_for(state="visible", timeout=20_000)
    page.get_by_test_id("computer-easy").wait_for()
    boxes = page.evaluate("""() => [...document.querySelectorAll('#seek-levels button')]
        .map((b) => { const r = b.getBoundingClientRect();
                      return [r.left, r.top, r.right, r.bottom]; })""")
    assert len(boxes) >= 2
    for a, b in zip(boxes, boxes[1:], strict=False):
        same_row = abs(a[1] - b[1]) < 2
        gap = b[0] - a[2] if same_row else b[1] - a[3]
        assert gap >= 6, (a, b)
    page.get_by_test_id("seek-cancel").click()
    assert not errors, errors


# ---------------------------------------------------------------- 3. aborted matches


def keep_seat(page: Any, server: str, m: dict[str, Any]) -> None:
    """Keep a seat in the page's browser, as the lobby does when it makes a table."""
    page.goto(server + "/rules")
    page.evaluate("""m => localStorage.setItem('ginrummy.seats', JSON.stringify(
        [{id: m.id, token: m.token, seat: 0, created: Date.now()}]))""", m)


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_an_aborted_match_shows_as_aborted_not_a_tie(server: str, browser: Any,
                                                    viewport: dict[str, int]) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    m = httpx.post(f"{server}/api/matches", json={"opponent": "computer", "bot": "easy"},
                   timeout=30).json()
    r = httpx.post(f"{server}/api/matches/{m['id']}/abort",
                   headers={"Authorization": f"Bearer {m['token']}"}, timeout=30)
    assert r.status_code == 200, r.text
    keep_seat(page, server, m)
    page.goto(server + "/")
    page.locator("[data-filter=finished]").click()
    item = page.locator(f"[data-testid=match-item][data-match-id='{m['id']}']")
    item.wait_for()
    tag = item.locator(".tag").inner_text().strip().lower()
    assert tag == "aborted", tag
    page.goto(server + "/record")
    page.locator("#record-details").wait_for()
    assert "aborted" in page.get_by_test_id("record-matches").inner_text()
    assert "tie" not in page.get_by_test_id("record-matches").inner_text()
    levels = page.get_by_test_id("record-levels").inner_text()
    assert "Easy computer" not in levels  # counted in no total
    assert "1 aborted" in page.get_by_test_id("record-summary").inner_text()
    assert not errors, errors


# ---------------------------------------------------------------- 2. the daily deal's end


def play_seat_out(server: str, mid: str, token: str) -> dict[str, Any]:
    """Play one seat against the computer through the API (greedy moves, "Next hand"
    between hands) to the end of the match; its last STATE."""
    from test_match_end import _greedy

    head = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=server, timeout=30) as http:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            s: dict[str, Any] = http.get(f"/api/matches/{mid}", headers=head).json()
            if s["status"] == "finished":
                return s
            if s["hand_over"] is not None:
                if not s["hand_over"]["ready"][s["seat"]]:
                    http.post(f"/api/matches/{mid}/next", headers=head,
                              json={"version": s["version"]})
                else:
                    time.sleep(0.05)
            elif s["my_turn"]:
                http.post(f"/api/matches/{mid}/actions", headers=head,
                          json={"action": _greedy(s), "version": s["version"]})
            else:
                time.sleep(0.05)
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_the_daily_deals_end_says_its_hands_and_offers_nothing_withheld(
        server: str, browser: Any, viewport: dict[str, int]) -> None:
    """The daily's end said "The 60-hand limit was reached" after its 3 hands and offered
    Replay, Download and Play again that only refused (Replay opened an empty dialog):
    it says its hands are played, offers none of them while the day lasts, and says when
    they open; there is no rematch (once a day), but the way to the day's leaderboard."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    sign_up(page, server, f"Day_{viewport['width']}")
    r = page.request.post(f"{server}/api/daily/play", headers={"Origin": server})
    assert r.status == 201, r.text()
    m = r.json()
    final = play_seat_out(server, m["id"], m["token"])
    assert final["end"] == "hand-cap" and len(final["score_sheet"]) >= 3
    page.goto(f"{server}/play/{m['id']}#token={m['token']}")
    page.wait_for_function("() => document.body.dataset.status === 'finished'")
    end = page.get_by_test_id("match-end")
    end.wait_for(state="visible")
    assert "The daily deal's 3 hands are played" in end.inner_text()
    assert "60-hand" not in page.get_by_test_id("hand-over").inner_text()
    note = page.get_by_test_id("ending-note")
    note.wait_for(state="visible")
    assert "00:00 UTC" in note.inner_text()
    for testid in ("replay-button", "hand-over-download", "play-again", "review-button"):
        assert page.get_by_test_id(testid).is_hidden(), testid
    assert page.get_by_test_id("download-record").is_hidden()
    board = page.get_by_test_id("daily-back")
    assert board.is_visible()
    # no refused request was made for what is withheld
    refused: list[str] = []
    page.on("response", lambda resp: refused.append(resp.url) if resp.status >= 400 else None)
    page.wait_for_timeout(1500)
    assert refused == []
    board.click()
    page.wait_for_url("**/daily")
    assert not errors, errors


# ---------------------------------------------------------------- 5. an arena's match


def api_player(server: str, name: str) -> tuple[httpx.Client, dict[str, str]]:
    """An account made through the API: its client (with the session cookie) and the
    headers a change needs."""
    c = httpx.Client(base_url=server, timeout=30)
    r = c.post("/api/accounts", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return c, {"X-CSRF-Token": r.json()["csrf"]}


def both_pass(server: str, players: list[tuple[Any, dict[str, str]]], mid: str) -> None:
    """Both seats pass the up-card in turn (each through its own session): the match has
    been played, so a resignation is one (not an abort)."""
    for _ in range(2):
        for http, head in players:
            s = http.get(f"{server}/api/matches/{mid}").json()
            if s["view"]["to_play"] == s["seat"] and s["legal"]:
                r = http.post(f"{server}/api/matches/{mid}/actions", headers=head,
                              json={"action": {"act": "pass"}, "version": s["version"]})
                assert r.status_code == 200, r.text
                break


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_an_arena_match_leads_back_to_the_arena_and_on_to_the_next_pairing(
        server: str, browser: Any, viewport: dict[str, int]) -> None:
    """An arena match's end offered no way back to the arena (only Play again, which an
    arena has no use for), and the next pairing was not opened while its clock ran: the
    end leads back to the arena, and the next pairing opens by itself."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    w = viewport["width"]
    ana, ana_head = api_player(server, f"Ana_{w}")
    bob, bob_head = api_player(server, f"Bob_{w}")
    try:
        # Ana's browser: her session cookie
        cookie = ana.cookies.get("ginrummy_session")
        page.context.add_cookies([{"name": "ginrummy_session", "value": cookie,
                                   "url": server}])
        a = ana.post("/api/tournaments", headers=ana_head,
                     json={"name": "Tea arena", "minutes": 15}).json()
        assert bob.post(f"/api/tournaments/{a['id']}/join", headers=bob_head).status_code == 200
        assert ana.post(f"/api/tournaments/{a['id']}/start", headers=ana_head).status_code == 200
        m1 = ana.get(f"/api/tournaments/{a['id']}").json()["me"]["match"]
        # opened from the lobby's list (not the arena page): the end finds its arena
        page.goto(f"{server}{m1['url']}")
        page.wait_for_function("() => document.body.dataset.status === 'playing'")
        both_pass(server, [(ana, ana_head), (bob, bob_head)], m1["id"])
        assert bob.post(f"/api/tournaments/{a['id']}/withdraw", headers=bob_head).status_code == 200
        assert bob.post(f"/api/matches/{m1['id']}/resign", headers=bob_head).status_code == 200
        page.wait_for_function("() => document.body.dataset.status === 'finished'")
        back = page.get_by_test_id("arena-back")
        back.wait_for(state="visible", timeout=20_000)
        assert back.get_attribute("href") == a["url"]
        assert page.get_by_test_id("play-again").is_hidden()
        # Bob comes back: the arena pairs them again, and Ana's table goes to that match
        assert bob.post(f"/api/tournaments/{a['id']}/join", headers=bob_head).status_code == 200
        page.wait_for_url(re.compile(r".*/play/(?!" + re.escape(m1["id"]) + r"$).+"),
                          timeout=30_000)
        m2 = ana.get(f"/api/tournaments/{a['id']}").json()["me"]["match"]
        assert m2 and m2["id"] != m1["id"] and page.url.endswith(m2["url"])
        page.wait_for_function("() => document.body.dataset.status === 'playing'")
        back_url = page.evaluate("id => localStorage.getItem(`ginrummy.arena.${id}`)", m2["id"])
        assert back_url == a["url"]
    finally:
        ana.close()
        bob.close()
    assert not errors, errors


# ---------------------------------------------------------------- 16. the score sheet

ROW_SEEN = """(row, scroll) => {
  // (scrolled into view inside its box first, as a player scrolls the sheet, or as it is
  // shown) is the row's middle the row itself, in the window, not covered by the sheet's
  // sticky head or Total?
  if (scroll) row.scrollIntoView({ block: "nearest" });
  const r = row.getBoundingClientRect();
  if (r.height === 0 || r.top < 0 || r.bottom > innerHeight) return false;
  const hit = document.elementFromPoint(r.left + 8, r.top + r.height / 2);
  return hit !== null && row.contains(hit);
}"""


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_every_row_of_the_end_of_match_score_sheet_can_be_seen(
        server: str, browser: Any, viewport: dict[str, int]) -> None:
    """The 10th hand's row was hidden in the end-of-match score sheet (drawn while the
    panel was still closed, the sheet stayed at its top, its last row under the Total):
    the last hand's row is in sight as the panel opens, and every row can be seen."""
    from test_match_end import play_out

    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    with httpx.Client(base_url=server, timeout=60) as http:
        m = http.post("/api/matches", json={"opponent": "friend", "name": "Ann",
                                            "options": {"target": 150}}).json()
        code = m["invite_url"].split("#invite=", 1)[1]
        friend = http.post(f"/api/matches/{m['id']}/join", json={"invite": code}).json()
        page.goto(f"{server}/play/{m['id']}#token={m['token']}")  # open as it is played
        wait_table(page)
        final = play_out(http, m["id"], [m["token"], friend["token"]])
    rows_n = len(final["score_sheet"])
    page.wait_for_function("() => document.body.dataset.status === 'finished'")
    page.get_by_test_id("match-over").wait_for(state="visible")
    page.wait_for_timeout(800)  # the lay-offs have landed
    rows = page.get_by_test_id("hand-over").locator("[data-testid=score-sheet-table] tbody tr")
    assert rows.count() == rows_n
    if viewport is LAPTOP:  # (on a phone the panel scrolls as a whole: the sheet is below)
        assert rows.last.evaluate(ROW_SEEN, False), "the last hand's row is hidden"
    hidden = [i + 1 for i in range(rows_n) if not rows.nth(i).evaluate(ROW_SEEN, True)]
    assert hidden == [], f"hands {hidden} cannot be seen at {viewport['width']} px"
    assert not errors, errors


# ---------------------------------------------------------------- 12, 19. the daily deal


def test_the_daily_page_of_a_new_site_refuses_nothing(server: str, browser: Any) -> None:
    """/daily asked for yesterday's deal on a new site and logged its 404: it asks only
    when yesterday was dealt, so the page logs no error."""
    errors: list[str] = []
    page = new_page(browser, errors, LAPTOP)
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400
            else None)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server + "/daily")
    page.get_by_test_id("daily-commitment").wait_for()
    page.wait_for_load_state("networkidle")
    assert failed == [] and page.get_by_test_id("daily-yesterday").is_hidden()
    assert not errors, errors


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_the_daily_is_listed_by_its_hands(server: str, browser: Any,
                                          viewport: dict[str, int]) -> None:
    """The daily match was listed "to 250" (its target is there only so that its hands
    end it): the lobby and the table say its 3 hands."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    sign_up(page, server, f"Hands_{viewport['width']}")
    r = page.request.post(f"{server}/api/daily/play", headers={"Origin": server})
    assert r.status == 201, r.text()
    m = r.json()
    page.goto(server + "/")
    item = page.locator(f"[data-testid=match-item][data-match-id='{m['id']}']")
    item.wait_for()
    meta = item.locator(".meta").inner_text()
    assert "3 hands" in meta and "250" not in meta, meta
    page.goto(f"{server}/play/{m['id']}")
    wait_table(page)
    if viewport is LAPTOP:  # (a phone's table shows no such line)
        assert page.locator("#match-meta").inner_text().startswith("Hand 1 of 3")
    assert "250" not in page.locator("#match-meta").inner_text()
    assert not errors, errors


# ---------------------------------------------------------------- 14. arena standings

ARENA = {
    "id": "fire1", "name": "Hot arena", "status": "started", "creator": "Ana_f", "minutes": 30,
    "rated": False, "options": {"target": 100}, "clock": {"move": 20, "bank": 120},
    "target": 100, "created_at": 0, "started_at": 0, "ends_at": 0, "seconds_left": 900,
    "players": 2, "in_play": 0, "matches": [], "winner": None, "me": None,
    "standings": [
        {"rank": 1, "username": "Ana_f", "bot": False, "score": 4, "matches": 2, "wins": 2,
         "streak": 2, "fire": True, "sheet": "WW", "rating": 1500, "active": True,
         "paused": False, "playing": None},
        {"rank": 2, "username": "Bob_f", "bot": False, "score": 0, "matches": 2, "wins": 0,
         "streak": 0, "fire": False, "sheet": "LL", "rating": 1500, "active": True,
         "paused": False, "playing": None}],
}


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_a_streak_in_the_arena_standings_reads_as_a_streak(
        server: str, browser: Any, viewport: dict[str, int]) -> None:
    """"4 x2" in the standings read as a doubled score: the streak is said in words (a
    fire mark, "streak", and what it means), and no "x2" stands beside a score."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    page.route("**/api/tournaments/fire1", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(ARENA)))
    page.goto(server + "/tournament/fire1")
    rows = page.get_by_test_id("arena-row")
    rows.nth(1).wait_for()
    first = rows.nth(0).inner_text()
    assert "×2" not in first and "x2" not in first
    assert rows.nth(0).get_by_test_id("arena-score").inner_text() == "4"
    mark = rows.nth(0).get_by_test_id("streak-mark")
    assert "streak" in mark.inner_text() and "double" in str(mark.get_attribute("title"))
    assert rows.nth(1).get_by_test_id("streak-mark").count() == 0
    legend = page.get_by_test_id("streak-legend").inner_text()
    assert "count double" in legend
    assert page.evaluate(SIDEWAYS) <= 0
    assert not errors, errors


# ---------------------------------------------------------------- 4, 13. puzzles

RAW_CARD = re.compile(r"\b(?:10|[2-9TJQKA])[CDHS]\b")


@pytest.fixture()
def starter_server(server: str, tmp_path: Path) -> Iterator[str]:
    """The server, its database holding the starter puzzles (the site's own set)."""
    from ginrummy.web.store import Store
    from ginrummy.web.training.puzzles import starter_puzzles

    store = Store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    try:
        store.puzzles.add(starter_puzzles())
    finally:
        store.close()
    yield server


def click_move(page: Any, action: dict[str, Any]) -> None:
    """Make ``action`` on the puzzle's cards, as a player would."""
    if action["act"] == "pass":
        page.get_by_test_id("pass-button").click()
    elif action["act"] == "draw" and action["from"] == "stock":
        page.get_by_test_id("stock").click()
    elif action["act"] == "draw":
        if page.get_by_test_id("take-button").is_enabled():
            page.get_by_test_id("take-button").click()
        else:
            page.get_by_test_id("discard-top").click()
    else:
        if action.get("knock"):
            page.get_by_test_id("knock-button").click()
        page.locator(f"[data-testid=hand-card][data-card=\"{action['card']}\"]").click()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280", "390"])
def test_a_puzzles_answer_is_in_words_and_the_history_says_each_result(
        starter_server: str, browser: Any, viewport: dict[str, int]) -> None:
    """A puzzle's answer said "Your move 2C is worth +17.4" about the best move (not the
    player's, and neither row's figure), and its sentences used raw codes ("Discard 2C",
    "the JS makes no meld"); "Your solved puzzles" listed failed ones. The answer says
    why not the player's move, in the table's card words; the history says each result."""
    from ginrummy.web.training.puzzles import starter_puzzles

    server = starter_server
    rows = starter_puzzles()
    row = next(r for r in rows if any("play-outs" in (v["why"] or "")
                                      for v in r.body["values"]))
    wrong = next(v for v in row.body["values"] if "play-outs" in (v["why"] or ""))
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    sign_up(page, server, f"Puz_{viewport['width']}")
    page.goto(f"{server}/puzzles/{row.id}")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    click_move(page, wrong["action"])
    page.wait_for_function("() => document.body.dataset.answered === 'true'")
    answer = page.get_by_test_id("puzzle-answer")
    answer.wait_for(state="visible")
    assert answer.get_attribute("data-correct") == "false"
    mistake = page.get_by_test_id("puzzle-mistake").inner_text()
    assert mistake.startswith("Why not ") and "Your move" not in mistake
    assert "more points this hand than" in mistake and "+" not in mistake, mistake
    for testid in ("puzzle-mistake", "puzzle-why", "puzzle-verdict", "puzzle-best"):
        text = page.get_by_test_id(testid).inner_text()
        assert not RAW_CARD.search(text), (testid, text)
    # a puzzle solved after the one failed: the history says which was which
    page.goto(f"{server}/puzzles/{rows[0].id if rows[0].id != row.id else rows[1].id}")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    other = rows[0] if rows[0].id != row.id else rows[1]
    click_move(page, other.body["best"])
    page.wait_for_function("() => document.body.dataset.answered === 'true'")
    history = page.get_by_test_id("puzzle-history")
    history.get_by_test_id("history-row").nth(1).wait_for()
    results = [r.inner_text() for r in history.get_by_test_id("history-result").all()]
    assert any("solved" in r for r in results) and any("failed" in r for r in results)
    heading = page.locator("#pz-history-box h2").inner_text()
    assert "solved" not in heading.lower(), heading
    assert not errors, errors
