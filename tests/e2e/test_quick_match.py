"""Quick match in a real browser: two guests, each in a browser context of their own,
press "Play someone" and are paired; they play a whole hand by clicking (over live
updates), the rest of the match is played through the API with the seats their pages
hold, and both tables show the match over."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_match_end import play_out
from test_web_table import (
    DESKTOP,
    hand_codes,
    make_move,
    new_page,
    start_against_computer,
    wait_my_move,
)

pytestmark = pytest.mark.e2e


def _seat_of(page: Any) -> tuple[str, str]:
    """(match id, seat token) of a table page (the token lives in the fragment)."""
    mid = page.evaluate("location.pathname.split('/').pop()")
    token = page.evaluate("location.hash").split("=", 1)[1]
    return str(mid), str(token)


def test_two_guests_press_play_someone_and_play(server: str, browser: Any,
                                                 artifacts: Path) -> None:
    errors: list[str] = []
    pages = [new_page(browser, errors, DESKTOP), new_page(browser, errors, DESKTOP)]
    first, second = pages
    first.goto(server + "/")
    first.get_by_test_id("quick-link").first.click()
    first.wait_for_url("**/quick")
    first.get_by_test_id("seek-clock").select_option("60+300")  # a quick match is timed
    first.get_by_test_id("seek-button").click()
    first.get_by_test_id("seek-waiting").wait_for(state="visible")
    first.screenshot(path=str(artifacts / "quick_waiting.png"), animations="disabled")
    second.goto(server + "/quick")
    second.get_by_test_id("seek-clock").select_option("60+300")  # the same clock pairs
    second.get_by_test_id("seek-button").click()
    for p in pages:  # the second is paired at once, the first at its next poll
        p.wait_for_url("**/play/**", timeout=20_000)
        p.wait_for_function("() => document.body.dataset.status === 'playing'")
        for who in ("clock-me", "clock-opponent"):  # both clocks shown to both players
            p.get_by_test_id(who).wait_for(state="visible")
    (mid, tok0), (mid1, tok1) = _seat_of(first), _seat_of(second)
    assert mid == mid1 and tok0 != tok1
    # each browser keeps its seat, as for any table
    for p, tok in ((first, tok0), (second, tok1)):
        kept = p.evaluate("JSON.parse(localStorage.getItem('ginrummy.seats') || '[]')")
        assert any(e["token"] == tok for e in kept)

    # a whole hand by clicking: whoever is to move moves
    moves = 0
    while moves < 200:
        over = [p.evaluate("document.body.dataset.handOver === 'true'") for p in pages]
        if all(over):
            break
        mover = next((p for p in pages
                      if p.evaluate("document.body.dataset.myTurn === 'true'")), None)
        if mover is None:
            pages[0].wait_for_timeout(50)
            continue
        make_move(mover)
        moves += 1
    assert moves >= 2
    pages[0].screenshot(path=str(artifacts / "quick_hand_over.png"), animations="disabled")

    # the rest of the match through the API, with the seats the pages hold
    tokens = {}
    with httpx.Client(base_url=server, timeout=30) as http:
        for tok in (tok0, tok1):
            r = http.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {tok}"})
            tokens[r.json()["seat"]] = tok
        end = play_out(http, mid, [tokens[0], tokens[1]])
    assert end["status"] == "finished"
    # the pages draw every one of the ~380 states the API's moves pushed, in turn (about
    # 55 ms each): the first takes about 21 s to reach the end, the second then about 1 s
    for p in pages:
        p.wait_for_function("() => document.body.dataset.status === 'finished'",
                            timeout=90_000)
    pages[1].screenshot(path=str(artifacts / "quick_match_over.png"), animations="disabled")
    assert not errors, errors


def test_a_guest_signs_up_and_keeps_this_browsers_matches(server: str, browser: Any) -> None:
    """A guest plays the computer, then signs up on the account page: the match played in
    this browser is kept in the new account (its profile lists it), and the top bar shows
    the account until the player logs out."""
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    start_against_computer(page, server)
    mid = page.evaluate("location.pathname.split('/').pop()")
    page.goto(server + "/")
    page.get_by_test_id("signup-link").click()
    page.wait_for_url("**/account#signup")
    page.get_by_test_id("username").fill("Zoe_e2e")
    page.get_by_test_id("password").fill("short")
    page.get_by_test_id("signup").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=message]').textContent.includes('8 to 200')")
    page.get_by_test_id("password").fill("correct horse battery")
    page.get_by_test_id("signup").click()
    page.wait_for_url(server + "/")
    page.get_by_test_id("account-name").wait_for(state="visible")
    assert "Zoe_e2e" in page.get_by_test_id("account-name").inner_text()
    prof = page.evaluate("fetch('/api/players/zoe_e2e').then((r) => r.json())")
    assert prof["matches"] == 1 and prof["recent"][0]["id"] == mid  # the owner sees it
    with httpx.Client(base_url=server, timeout=30) as http:  # a stranger: private
        prof = http.get("/api/players/zoe_e2e").json()
    assert prof["matches"] == 1 and prof["recent"] == []
    page.goto(server + "/player/Zoe_e2e")
    page.get_by_test_id("rating-graph").locator("svg").wait_for()
    assert "1500 ± 350" in page.get_by_test_id("player-rating").inner_text()

    # another browser, no seat link in it: logged in, the account plays its seat there
    other = new_page(browser, errors, DESKTOP)
    other.goto(server + "/account")
    other.get_by_test_id("username").fill("zoe_e2e")
    other.get_by_test_id("password").fill("correct horse battery")
    other.get_by_test_id("login").click()
    other.wait_for_url(server + "/")
    other.goto(server + "/player/Zoe_e2e")
    other.get_by_test_id("continue-match").first.click()
    other.wait_for_url(f"**/play/{mid}")
    wait_my_move(other)
    assert other.evaluate("location.hash") == ""  # no token here: the session is the seat
    assert len(hand_codes(other)) in (10, 11)
    before = other.evaluate("Number(document.body.dataset.version)")
    make_move(other)  # a change through the session (its CSRF token)
    assert other.evaluate("Number(document.body.dataset.version)") > before

    page.get_by_test_id("logout-top").click()
    page.get_by_test_id("login-link").wait_for(state="visible")
    assert not errors, errors


def test_two_accounts_play_rated_and_a_third_browser_watches(server: str,
                                                              browser: Any) -> None:
    """Two players sign up, tick "Rated" and press "Play someone": they are paired into a
    public match, which a third browser finds on the live list and watches without ever
    being shown a card of a hand in play."""
    errors: list[str] = []
    pages = [new_page(browser, errors, DESKTOP) for _ in range(3)]
    players, watcher = pages[:2], pages[2]
    for p, name in zip(players, ("Ana_r", "Ben_r"), strict=True):
        p.goto(server + "/account")
        p.get_by_test_id("username").fill(name)
        p.get_by_test_id("password").fill("correct horse battery")
        p.get_by_test_id("signup").click()
        p.wait_for_url(server + "/")
        p.goto(server + "/quick")
        p.get_by_test_id("account-name").wait_for(state="visible")
        p.locator("label", has=p.get_by_test_id("rated")).click()
        p.get_by_test_id("seek-button").click()
    for p in players:
        p.wait_for_url("**/play/**", timeout=20_000)
        p.wait_for_function("() => document.body.dataset.status === 'playing'")
    mid = players[0].evaluate("location.pathname.split('/').pop()")
    watcher.goto(server + "/live")
    watcher.get_by_test_id("live-match").first.click()
    watcher.wait_for_url(f"**/watch/{mid}")
    watcher.get_by_test_id("watch-pile").wait_for()
    watcher.wait_for_function(
        "() => document.querySelector('[data-testid=watch-pile]').textContent.length > 0")
    for _ in range(6):  # a few moves; the spectator follows, behind
        mover = next((p for p in players
                      if p.evaluate("document.body.dataset.myTurn === 'true'")), None)
        if mover is None:
            players[0].wait_for_timeout(100)
            continue
        make_move(mover)
    with httpx.Client(base_url=server, timeout=30) as http:
        w = http.get(f"/api/matches/{mid}/watch").json()
        hands = set()
        for p in players:
            tok = p.evaluate("location.hash").split("=", 1)[1]
            s = http.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {tok}"})
            hands |= set(s.json()["view"]["hand"])
    watcher.get_by_test_id("watch-clocks").wait_for(state="visible")  # the live clocks
    shown = watcher.locator("main").inner_text()
    public = set(w["discards"]) | {e["card"] for e in w["history"] if "card" in e}
    if w["hand_over"] and w["hand_over"]["hands"]:  # a hand that ended in the few moves
        public |= {c for h in w["hand_over"]["hands"] for c in h}  # was shown to all (R11)
    words = shown.split()
    for card in hands - public:  # the page writes cards as the table does: 7♦, 10♣
        written = ("10" if card[0] == "T" else card[0]) + {"C": "♣", "D": "♦", "H": "♥",
                                                            "S": "♠"}[card[1]]
        assert card not in words and written not in words, \
            f"the spectator page shows {card} of a hand"
    pile = watcher.get_by_test_id("watch-pile").inner_text()
    assert re.search("[♣♦♥♠]", pile) and not re.search(r"\b[2-9TJQKA][CDHS]\b", pile), pile
    assert w["spectator"] is True and "Ana_r" in shown and "Ben_r" in shown
    assert not errors, errors
