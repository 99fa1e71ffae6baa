"""The site's pages on a phone (issue 46, item 5), in Chromium at 360 and 430 px wide.

The top bar had eleven links in a row that scrolled sideways: at 360 px nine of them were
past the screen's edge. On a phone the bar is the site's mark, a Menu button and who is
signed in; the button opens the pages as a list (the page shown marked, the language
picker at its foot), Escape and a click or the focus elsewhere close it, and each of its
controls is a finger's target of 44 px. On a laptop the bar is the one row of links it
was. No page is wider than the screen, after its script has drawn what it loaded: a
puzzle's row of the opponent's cards made some puzzles up to 477 px wide at 360.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_match_end import play_out
from test_online_pages import console_errors

from ginrummy.web.store import Store
from ginrummy.web.training.puzzles import context_of, puzzle_row, starter_puzzles

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"
NARROW = {"width": 360, "height": 740}
WIDE_PHONE = {"width": 430, "height": 932}
LAPTOP = {"width": 1280, "height": 800}
PUZZLES = [puzzle_row(p) for p in
           json.loads((Path(__file__).parent / "data" / "puzzles.json").read_text("utf-8"))]


def _opponents_row(p: Any) -> int:
    """The most cards a puzzle shows in one row of what the opponent did."""
    c = context_of(p.body["view"])
    return max(len(c["opponent_took"]), len(c["opponent_discarded"]), len(c["opponent_passed"]))


# the starter puzzles with the longest rows of the opponent's cards (up to 17 cards, 477
# px wide at 360)
LONG_ROWS = sorted(starter_puzzles(), key=_opponents_row, reverse=True)[:4]

# the pages' links, in the bar's order (the Lobby link is the phone's: on a laptop the
# site's mark is the lobby's link)
LINKS = ("lobby-link", "rules-link", "record-link", "quick-link", "arenas-link", "daily-link",
         "live-link", "leaderboard-link", "puzzles-link", "analysis-link")
SIDEWAYS = ("() => document.documentElement.scrollWidth"
            " - document.documentElement.clientWidth")
BOX = """(sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null)
  .map((e) => { const r = e.getBoundingClientRect();
    return {id: e.dataset.testid || e.id || e.tagName, left: r.left, right: r.right,
            top: r.top, bottom: r.bottom, width: r.width, height: r.height}; })"""


@pytest.fixture()
def fast_reviews(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap reviews for the server started by ``server`` (it inherits the environment)."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "2")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "none")


@pytest.fixture()
def server(fast_reviews: None, server: str, tmp_path: Path) -> Iterator[str]:
    """The server, its database holding the prepared puzzles (tests/e2e/data) and the
    starter puzzles with the longest rows."""
    store = Store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    try:
        store.puzzles.add([*PUZZLES, *LONG_ROWS])
    finally:
        store.close()
    yield server


def phone(browser: Any, errors: list[str], viewport: dict[str, int] = NARROW) -> Any:
    """A page in a fresh phone's context (touch), recording the page's errors."""
    ctx = browser.new_context(viewport=viewport, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    console_errors(page, errors)
    return page


def expanded(page: Any) -> str | None:
    return page.get_by_test_id("pages-menu-button").get_attribute("aria-expanded")


def focused(page: Any) -> str:
    return str(page.evaluate("() => document.activeElement.dataset.testid || ''"))


def test_the_phones_menu_opens_closes_and_navigates(server: str, browser: Any,
                                                    artifacts: Path) -> None:
    errors: list[str] = []
    page = phone(browser, errors)
    page.goto(server + "/")
    page.get_by_test_id("login-link").wait_for()
    # the bar: the mark, the Menu button and Log in / Sign up, each 44 px to the finger;
    # the pages are not shown, nor the bar's language picker (it is in the menu)
    button = page.get_by_test_id("pages-menu-button")
    assert button.is_visible() and expanded(page) == "false"
    assert button.get_attribute("aria-controls") == "pages-menu"
    bar = page.evaluate(BOX, ".topbar a, .topbar button, .topbar select")
    assert {b["id"] for b in bar} == {"A", "pages-menu-button", "login-link", "signup-link"}
    for b in bar:
        assert b["width"] >= 44 and b["height"] >= 44, b
        assert b["left"] >= 0 and b["right"] <= NARROW["width"], b
    assert page.get_by_test_id("pages-menu").is_hidden()
    assert page.get_by_test_id("lang-picker").is_hidden()
    # open: every page's link in sight, a full-width list of 44 px rows, this page marked
    button.click()
    assert expanded(page) == "true"
    page.get_by_test_id("pages-menu").wait_for(state="visible")
    page.screenshot(path=str(artifacts / "phone_pages_menu.png"), animations="disabled")
    links = page.evaluate(BOX, "#pages-menu a")
    assert [b["id"] for b in links] == list(LINKS)
    for b in links:
        assert b["height"] >= 44 and b["width"] >= 0.8 * NARROW["width"], b
        assert b["left"] >= 0 and b["right"] <= NARROW["width"], b
    assert page.get_by_test_id("lobby-link").get_attribute("aria-current") == "page"
    assert page.locator("#pages-menu [aria-current]").count() == 1
    picker = page.get_by_test_id("menu-lang-picker")
    picker.scroll_into_view_if_needed()
    assert picker.is_visible() and picker.bounding_box()["height"] >= 44
    assert page.evaluate(SIDEWAYS) <= 0
    # Escape closes it and gives the focus back to the button
    page.keyboard.press("Escape")
    assert expanded(page) == "false" and page.get_by_test_id("pages-menu").is_hidden()
    assert focused(page) == "pages-menu-button"
    # by the keyboard: Enter opens it, Tab goes into the list, Tab past its end closes it
    page.keyboard.press("Enter")
    assert expanded(page) == "true"
    page.keyboard.press("Tab")
    assert focused(page) == "lobby-link"
    picker.focus()
    page.keyboard.press("Tab")
    assert focused(page) == "login-link"
    assert expanded(page) == "false" and page.get_by_test_id("pages-menu").is_hidden()
    # a click elsewhere (the bar beside the button) closes it
    button.click()
    box = button.bounding_box()
    page.mouse.click(box["x"] + box["width"] + 6, box["y"] + box["height"] / 2)
    assert expanded(page) == "false" and page.get_by_test_id("pages-menu").is_hidden()
    # a tap on a page's link goes there; that page's link is the one marked
    button.tap()
    page.get_by_test_id("puzzles-link").tap()
    page.wait_for_url("**/puzzles/*")
    assert expanded(page) == "false"
    page.get_by_test_id("pages-menu-button").click()
    assert page.get_by_test_id("puzzles-link").get_attribute("aria-current") == "page"
    assert page.get_by_test_id("lobby-link").get_attribute("aria-current") is None
    # the language from the menu: the page comes back in it
    with page.expect_navigation():
        page.get_by_test_id("menu-lang-picker").select_option("es")
    page.wait_for_function("document.documentElement.lang === 'es'")
    assert page.get_by_test_id("pages-menu-button").is_visible()
    assert not errors, errors


def test_a_signed_in_phone_and_a_laptop(server: str, browser: Any) -> None:
    """Signed in, the bar holds the account's name (cut short on a phone, never widening
    the page) and Log out; on a laptop every link, Log in and Sign up and the language
    picker are in the bar, in one row, and no Menu button."""
    errors: list[str] = []
    page = phone(browser, errors)
    name = "Maximiliana_Longname"  # the longest a name is: 20
    r = page.request.post(f"{server}/api/accounts",
                          data={"username": name, "password": PASSWORD})
    assert r.status == 201, r.text()
    page.goto(server + "/leaderboard")
    page.get_by_test_id("logout-top").wait_for()
    bar = page.evaluate(BOX, ".topbar a, .topbar button")
    assert {b["id"] for b in bar} == {"A", "pages-menu-button", "account-name", "logout-top"}
    for b in bar:
        assert b["height"] >= 44 and b["left"] >= 0 and b["right"] <= NARROW["width"], b
    assert page.evaluate(SIDEWAYS) <= 0
    page.get_by_test_id("pages-menu-button").click()
    assert page.get_by_test_id("leaderboard-link").get_attribute("aria-current") == "page"

    # a laptop: every link in sight, and a guest's bar in one row (with the wide fonts of
    # a Linux machine from 1440 px on; an account's name and rating, or a narrower
    # window, take a second row, as they always did)
    page = browser.new_context(viewport=LAPTOP).new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    for width in (1280, 1440):
        page.set_viewport_size({"width": width, "height": 800})
        for path in ("/", "/leaderboard"):
            page.goto(server + path)
            page.get_by_test_id("login-link").wait_for()
            assert page.get_by_test_id("pages-menu-button").is_hidden()
            assert page.get_by_test_id("menu-lang-picker").is_hidden()
            assert page.get_by_test_id("lang-picker").is_visible()
            row = page.evaluate(BOX, ".topbar nav a, .topbar nav button")
            # the mark is the lobby's link
            assert [b["id"] for b in row] == [*LINKS[1:], "login-link", "signup-link"]
            for b in row:
                assert b["left"] >= 0 and b["right"] <= width, b
            assert page.evaluate(SIDEWAYS) <= 0
            if width == 1440:
                middles = [(b["top"] + b["bottom"]) / 2 for b in row]
                assert max(middles) - min(middles) < 8, row
    assert not errors, errors


def finished_public_match(page: Any, server: str) -> tuple[str, str]:
    """A public friend match of the page's account, played to its end through the API;
    its id and the account's seat token."""
    m = page.request.post(f"{server}/api/matches", headers={"Origin": server},
                          data={"opponent": "friend", "public": True}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    with httpx.Client(base_url=server, timeout=60) as guest:
        friend = guest.post(f"/api/matches/{m['id']}/join",
                            json={"invite": code, "name": "Guest_friend"}).json()
        play_out(guest, m["id"], [m["token"], friend["token"]])
    return str(m["id"]), str(m["token"])


def drawn(page: Any, path: str) -> None:
    """Wait until the page's script has drawn what it loaded."""
    if not path.startswith("/play/"):  # (the table asks on: never idle)
        page.wait_for_load_state("networkidle")
    if path == "/record":
        page.locator("#record-details").wait_for()
    elif path.startswith(("/puzzles", "/analysis")):
        page.wait_for_function("() => document.body.dataset.ready === '1'")
    elif path.startswith("/review/"):
        page.get_by_test_id("review-summary").wait_for(timeout=120_000)
    elif path.startswith("/play/"):
        page.wait_for_function("() => document.body.dataset.version !== undefined")
    elif path.startswith("/player/"):
        page.locator("#player-recent tr").first.wait_for()
    page.wait_for_timeout(150)


def test_every_page_fits_a_phone(server: str, browser: Any) -> None:
    """At 360 and 430 px wide no page scrolls sideways, once its script has run and its
    data is in (a signed-in account with a finished match: its record, profile, review,
    the match watched; puzzles; the table)."""
    errors: list[str] = []
    page = phone(browser, errors)
    name = "Wide_Wendy_e2e"
    r = page.request.post(f"{server}/api/accounts", data={"username": name, "password": PASSWORD})
    assert r.status == 201, r.text()
    mid, token = finished_public_match(page, server)
    table = page.request.post(f"{server}/api/matches", headers={"Origin": server},
                              data={"opponent": "computer", "bot": "easy"}).json()
    pages = ["/", "/rules", "/record", "/account", "/quick", "/leaderboard", "/live",
             "/challenge", "/tournaments", "/daily", "/puzzles", "/analysis", "/mod",
             "/open-data", f"/player/{name}", f"/watch/{mid}", f"/review/{mid}#token={token}",
             f"/replay/{mid}", f"/play/{table['id']}#token={table['token']}",
             "/no/such/page"]
    wide: list[str] = []
    for viewport in (NARROW, WIDE_PHONE):
        page.set_viewport_size(viewport)
        for path in pages:
            page.goto(server + path)
            drawn(page, path)
            over = page.evaluate(SIDEWAYS)
            if over > 0:
                wide.append(f"{path} at {viewport['width']} px: {over} px too wide")
    # and with the menu open
    page.set_viewport_size(NARROW)
    page.goto(server + "/daily")
    page.get_by_test_id("pages-menu-button").click()
    assert page.evaluate(SIDEWAYS) <= 0
    assert not wide, wide
    # (the mod page refuses a player who is not a moderator, and the not-found page is
    # a 404: the logged refusals)
    assert all("403" in e or "404" in e for e in errors), errors


def test_puzzles_fit_a_phone(server: str, browser: Any, artifacts: Path) -> None:
    """Puzzles at 360 px, the longest rows of the opponent's cards among them: what the
    opponent took, threw and passed wraps onto rows of its own rather than widen the
    page."""
    errors: list[str] = []
    page = phone(browser, errors)
    wide = []
    assert _opponents_row(LONG_ROWS[0]) >= 15
    for p in [*LONG_ROWS, *PUZZLES]:
        pid = p.id
        page.goto(f"{server}/puzzles/{pid}")
        page.wait_for_function(f"() => document.body.dataset.ready === '1'"
                               f" && document.body.dataset.puzzle === '{pid}'")
        over = page.evaluate(SIDEWAYS)
        facts = page.evaluate(BOX, ".pz-fact")
        if over > 0 or any(f["right"] > NARROW["width"] for f in facts):
            wide.append((pid, over, facts))
    page.screenshot(path=str(artifacts / "phone_puzzle_360.png"), animations="disabled",
                    full_page=True)
    assert not wide, wide
    assert not errors, errors
