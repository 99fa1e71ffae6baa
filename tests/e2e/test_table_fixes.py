"""The table's rough edges of issue 32, each checked in Chromium: the downloaded record is
the server's bytes and `ginrummy verify` accepts it; the end-of-match result fits a
1280x800 window with no stale fair-deal sentence; a click on a card marked GIN goes gin
(R6) and one that allows a knock asks first; the computer's discard never flies in larger
than a card; a mistyped address is a page; every control on a 390x844 phone is a 44 px
target, and Download record and Keys are within reach."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_match_end import play_match_to_the_end
from test_web_table import (
    DESKTOP,
    PHONE,
    make_move,
    new_page,
    start_against_computer,
    version,
    wait_my_move,
)

from ginrummy.cards import Card, parse_cards, to_mask
from ginrummy.melds import deadwood_mask

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
LAPTOP = {"width": 1280, "height": 800}

IN_VIEW = """(el) => {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    return false;
  }
  // Seen, not scrolled away inside a box nor covered: the point at its centre is itself.
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit !== null && (el === hit || el.contains(hit));
}"""


def test_finished_match_record_verifies_and_the_result_fits_1280x800(
    server: str, browser: Any, artifacts: Path, tmp_path: Path
) -> None:
    mid, tokens, final = play_match_to_the_end(server)
    errors: list[str] = []
    page = new_page(browser, errors, LAPTOP)
    page.goto(f"{server}/play/{mid}#token={tokens[0]}")
    page.wait_for_function("() => document.body.dataset.status === 'finished'")
    page.wait_for_function(
        "() => document.getElementById('fair-reveal').dataset.verified === 'true'")
    page.wait_for_timeout(600)  # the lay-offs have landed

    # The whole result at once in a 1280x800 window: the winner and the final scores, the
    # last hand's sentence, its row and the Total of the score sheet, the fair-deal line
    # and Play again, none of them scrolled away or covered.
    panel = page.get_by_test_id("hand-over")
    rows = panel.locator("[data-testid=score-sheet-table] tbody tr")
    assert rows.count() == len(final["score_sheet"])
    shown = {
        "winner": page.get_by_test_id("match-over"),
        "last hand": page.get_by_test_id("hand-over-line"),
        "last row": rows.last,
        "total": panel.get_by_test_id("sheet-total"),
        "fair deal": page.get_by_test_id("fair-reveal"),
        "play again": page.get_by_test_id("play-again"),
    }
    page.screenshot(path=str(artifacts / "match_over_1280x800.png"), animations="disabled")
    for what, loc in shown.items():
        assert loc.evaluate(IN_VIEW), f"{what} is not in view at 1280x800"
    assert f"{final['scores'][0]}" in shown["total"].inner_text()

    # After the end nothing says the seed is still to come.
    fair_line = page.get_by_test_id("fairness").inner_text()
    assert "shown when the match ends" not in fair_line
    assert "revealed" in fair_line

    # Download record: the server's bytes unchanged (the 64-bit seed intact), and the
    # command line verifies them.
    with page.expect_download() as dl:
        page.get_by_test_id("hand-over-download").click()
    saved = tmp_path / dl.value.suggested_filename
    dl.value.save_as(saved)
    assert saved.name == f"ginrummy-{mid}.json"
    served = httpx.get(f"{server}/api/matches/{mid}/record", timeout=30).content
    assert saved.read_bytes() == served
    done = subprocess.run([sys.executable, "-m", "ginrummy.cli", "verify", str(saved)],
                          capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NOT VERIFIED" not in done.stdout and "Verified" in done.stdout
    assert errors == []


# ---------------------------------------------------------------------- GIN and K cards


def _friend_match(base: str, options: dict[str, Any]) -> tuple[str, list[str]]:
    with httpx.Client(base_url=base, timeout=30) as http:
        m = http.post("/api/matches", json={"opponent": "friend", "name": "Ann",
                                            "options": options}).json()
        code = m["invite_url"].split("#invite=", 1)[1]
        joined = http.post(f"/api/matches/{m['id']}/join", json={"invite": code}).json()
        return str(m["id"]), [m["token"], joined["token"]]


def _play_until(base: str, mid: str, tokens: list[str],
                stop: Callable[[dict[str, Any]], bool]) -> tuple[int, dict[str, Any]]:
    """Play both seats through the API (draw from the stock, throw the card that leaves
    the least deadwood, never knock; next hand when one is over) until the seat to play
    has a STATE for which ``stop`` holds; that seat and STATE."""
    heads = [{"Authorization": f"Bearer {t}"} for t in tokens]
    with httpx.Client(base_url=base, timeout=30) as http:
        for _ in range(3000):
            s = http.get(f"/api/matches/{mid}", headers=heads[0]).json()
            assert s["status"] == "playing", "the match ended first"
            if s["hand_over"] is not None:
                for h in heads:
                    http.post(f"/api/matches/{mid}/next", headers=h,
                              json={"version": s["version"]})
                continue
            seat = s["view"]["to_play"]
            me = http.get(f"/api/matches/{mid}", headers=heads[seat]).json()
            if stop(me):
                return seat, me
            legal = me["legal"]
            if me["view"]["phase"] == "offer":
                action = {"act": "pass"}
            elif me["view"]["phase"] == "draw":
                action = {"act": "draw", "from": "stock"}
            else:
                hand = to_mask(parse_cards(me["view"]["hand"]))
                action = min((a for a in legal if a["act"] == "discard" and not a.get("knock")),
                             key=lambda a: deadwood_mask(hand & ~Card.parse(a["card"]).mask))
            r = http.post(f"/api/matches/{mid}/actions", headers=heads[seat],
                          json={"action": action, "version": me["version"]})
            assert r.status_code == 200, r.text
    raise AssertionError("the position never came")


def _options(s: dict[str, Any]) -> list[dict[str, Any]]:
    return list(s.get("discard_options") or [])


def test_a_click_on_a_gin_card_gins_and_a_knock_card_asks(
    server: str, browser: Any, artifacts: Path
) -> None:
    errors: list[str] = []
    # Gin only (R12): the 11 cards hold a gin; the card tagged GIN is clicked once.
    mid, tokens = _friend_match(server, {"gin_only": True, "target": 250})
    seat, s = _play_until(server, mid, tokens,
                          lambda s: any(o["gin"] for o in _options(s)))
    gin_card = next(o["card"] for o in _options(s) if o["gin"])
    page = new_page(browser, errors, DESKTOP)
    page.goto(f"{server}/play/{mid}#token={tokens[seat]}")
    page.wait_for_function("v => Number(document.body.dataset.version) === v", arg=s["version"])
    card = page.locator(f'[data-testid=hand-card][data-card="{gin_card}"]')
    assert card.locator(".knock-tag.gin").inner_text() == "GIN"
    page.get_by_test_id("knock-button").click()  # the hint names the GIN tag on this table
    assert "marked GIN" in page.get_by_test_id("message").inner_text()
    page.get_by_test_id("knock-button").click()  # Knock mode off again: a plain click now
    card.click()
    page.wait_for_function("() => document.body.dataset.handOver === 'true'")
    line = page.get_by_test_id("hand-over-line").inner_text()
    assert line.startswith("You go gin"), line
    with httpx.Client(base_url=server, timeout=30) as http:
        after = http.get(f"/api/matches/{mid}",
                         headers={"Authorization": f"Bearer {tokens[seat]}"}).json()
    assert after["hand_over"]["result"]["result"] == "gin"
    assert after["hand_over"]["result"]["knocker"] == seat
    # The lobby calls a hand waiting for this seat's "Next hand" its move, not "in play".
    page.goto(server + "/")
    item = page.get_by_test_id("match-item")
    item.wait_for(state="visible")
    assert "your move" in item.inner_text().lower()
    page.context.close()

    # A standard table: a card that allows a knock (not gin) asks; Cancel sends nothing,
    # Knock knocks (R6).
    mid, tokens = _friend_match(server, {"target": 250})
    seat, s = _play_until(server, mid, tokens,
                          lambda s: any(o["knock"] and not o["gin"] for o in _options(s)))
    k_card = next(o for o in _options(s) if o["knock"] and not o["gin"])
    page = new_page(browser, errors, DESKTOP)
    page.goto(f"{server}/play/{mid}#token={tokens[seat]}")
    page.wait_for_function("v => Number(document.body.dataset.version) === v", arg=s["version"])
    card = page.locator(f'[data-testid=hand-card][data-card="{k_card["card"]}"]')
    card.click()
    ask = page.get_by_test_id("knock-ask")
    ask.wait_for(state="visible")
    assert f"leaves you {k_card['leaves']} deadwood" in ask.inner_text()
    assert page.evaluate("document.activeElement.dataset.testid") == "knock-ask-knock"
    page.screenshot(path=str(artifacts / "knock_asks.png"), animations="disabled")
    page.get_by_test_id("knock-ask-cancel").click()
    ask.wait_for(state="hidden")
    assert version(page) == s["version"]  # nothing was sent
    card.click()
    page.get_by_test_id("knock-ask-knock").click()
    page.wait_for_function("() => document.body.dataset.handOver === 'true'")
    assert page.get_by_test_id("hand-over-line").inner_text().startswith("You knock")
    assert errors == []


# ---------------------------------------------------------------------- card movements

MONITOR = """() => {
  // Every frame, each card that is moving: its drawn box against its own size.
  window.__fly = { over: [], pile: new Set(), frames: 0 };
  const tick = () => {
    window.__fly.frames += 1;
    for (const a of document.getAnimations()) {
      const el = a.effect && a.effect.target;
      if (!el || !el.classList || !el.classList.contains('card')) continue;
      if (a.playState !== 'running') continue;
      const r = el.getBoundingClientRect();
      if (r.width > el.offsetWidth + 1 || r.height > el.offsetHeight + 1) {
        window.__fly.over.push([el.dataset.card || 'back', Math.round(r.width), el.offsetWidth]);
      }
      if (el.closest('#discard-slot')) window.__fly.pile.add(el.dataset.card);
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def test_the_computers_discard_flies_in_at_card_size(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    start_against_computer(page, server)
    assert page.evaluate("!document.body.classList.contains('no-motion')")
    page.evaluate(MONITOR)
    token = page.evaluate("location.hash.split('=')[1]")
    mid = page.evaluate("location.pathname.split('/').pop()")
    seen: set[str] = set()
    for _ in range(40):
        wait_my_move(page)
        if page.evaluate("document.body.dataset.handOver") == "true":
            break
        page.wait_for_timeout(400)  # the last movement has finished
        with httpx.Client(base_url=server, timeout=30) as http:
            s = http.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {token}"})
        theirs = {h["card"] for h in s.json()["view"]["history"]
                  if h["seat"] == 1 and h["act"] == "discard"}
        seen = theirs & set(page.evaluate("[...window.__fly.pile]"))
        if seen:
            break
        make_move(page)
    assert seen, "no discard of the computer's was seen flying in"
    assert page.evaluate("window.__fly.frames") > 10
    assert page.evaluate("window.__fly.over") == []

    # The coach's line shows above the hand, and Hint is for this match only: the next
    # match starts with it off.
    if page.evaluate("document.body.dataset.myTurn") == "true":
        page.get_by_test_id("hint-toggle").click()
        line = page.get_by_test_id("coach-hint")
        line.wait_for(state="visible")
        hand = page.get_by_test_id("my-hand").bounding_box()
        box = line.bounding_box()
        assert box and hand and box["y"] + box["height"] <= hand["y"]
    start_against_computer(page, server)
    assert page.get_by_test_id("hint-toggle").get_attribute("aria-pressed") == "false"
    assert errors == []


# ---------------------------------------------------------------------- pages


def test_a_mistyped_address_is_a_page_with_a_working_toolbar(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    answer = page.goto(f"{server}/no/such/page")
    assert answer is not None and answer.status == 404
    assert page.get_by_role("heading", name="This page does not exist").is_visible()
    page.get_by_test_id("record-link").click()
    page.wait_for_url("**/record")
    page.go_back()
    page.get_by_role("link", name="Go to the lobby").click()
    page.wait_for_url(f"{server}/")
    page.get_by_test_id("start-button").wait_for(state="visible")

    # A table link to no match: the sentence, a way back, and no table buttons that
    # would do nothing.
    page.goto(f"{server}/play/nosuchmatch#token=abc")
    page.get_by_test_id("connection").wait_for(state="visible")
    assert "no match" in page.get_by_test_id("connection").inner_text().lower()
    for testid in ("score-sheet-button", "download-record", "keys-button", "menu-button"):
        assert page.get_by_test_id(testid).is_hidden(), testid
    page.get_by_test_id("rules-link").wait_for(state="visible")
    assert errors == []


TARGETS = """(within) => [...document.querySelectorAll(
    `${within} :is(a[href], button, input, select, summary)`)]
  .filter((e) => !e.classList.contains('card') && e.offsetParent !== null
          && getComputedStyle(e).visibility !== 'hidden')
  .map((e) => { const r = e.getBoundingClientRect();
    return [e.id || e.dataset.testid || e.textContent.trim().slice(0, 20), r.width, r.height]; })"""


def _in_bar(page: Any, testid: str) -> bool:
    """Whether the top bar's link ``testid`` is wholly in sight in the bar."""
    return bool(page.evaluate(
        """id => { const a = document.querySelector(`[data-testid=${id}]`);
        const nav = document.querySelector('.topbar nav.tools');
        const r = a.getBoundingClientRect(), n = nav.getBoundingClientRect();
        return r.left >= n.left - 0.5 && r.right <= n.right + 0.5; }""", testid))


def _small(page: Any, within: str = "body") -> list[Any]:
    """The visible controls (cards aside: test_table_comforts measures them) under 44 px."""
    return [t for t in page.evaluate(TARGETS, within) if t[1] < 44 or t[2] < 44]


def test_phone_targets_are_44px_and_download_and_keys_are_in_reach(
    server: str, browser: Any, artifacts: Path
) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, PHONE)
    start_against_computer(page, server)
    wait_my_move(page)
    assert page.get_by_test_id("history-button").is_visible()
    assert _small(page) == []
    page.get_by_test_id("menu-button").click()
    menu = page.get_by_test_id("table-menu")
    menu.wait_for(state="visible")
    assert _small(page) == []
    page.screenshot(path=str(artifacts / "phone_menu.png"), animations="disabled")
    for testid in ("menu-download", "menu-keys", "motion-toggle", "four-colour-toggle"):
        assert menu.get_by_test_id(testid).is_visible(), testid
    page.get_by_test_id("menu-keys").click()
    page.get_by_test_id("keys-dialog").wait_for(state="visible")
    assert "draw from the stock" in page.get_by_test_id("keys-dialog").inner_text()
    page.keyboard.press("Escape")
    page.get_by_test_id("keys-dialog").wait_for(state="hidden")
    page.get_by_test_id("menu-button").click()
    with page.expect_download() as dl:
        page.get_by_test_id("menu-download").click()
    assert dl.value.suggested_filename.endswith(".json")
    # The other pages' top bars too.
    for path in ("/", "/rules", "/record", "/no/such/page"):
        page.goto(server + path)
        page.wait_for_load_state()
        assert _small(page, ".topbar") == [], path
        if path in ("/", "/no/such/page"):  # the pages are a menu on a phone: Log in
            page.get_by_test_id("login-link").wait_for()  # and Sign up in the bar, in sight
            assert _in_bar(page, "login-link") and _in_bar(page, "signup-link"), path
        if path == "/record":  # no finished match yet: it says what will be there
            page.get_by_text("Once you finish a match, this page shows").wait_for()
            assert page.get_by_role("heading", name="By opponent").is_hidden()
    for path, here in (("/leaderboard", "leaderboard-link"), ("/analysis", "analysis-link")):
        page.goto(server + path)  # the page's own link in the menu, marked
        page.get_by_test_id("login-link").wait_for()
        page.get_by_test_id("pages-menu-button").click()
        page.get_by_test_id(here).wait_for(state="visible")
        assert page.get_by_test_id(here).get_attribute("aria-current") == "page", path
        assert _small(page, ".topbar") == [], path
    assert errors == []
