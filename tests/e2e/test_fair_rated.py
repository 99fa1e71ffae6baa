"""Fair rated play in a real browser (issue 36): an account that aborted three rated
matches is told on the quick-match page how many minutes it must wait; its profile shows
those matches as "aborted" (never "tie (rated) 0-0") and a played one from its own side
("loss 0-25", its own score first); a double click on "Play someone" makes one seek."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from test_match_end import _greedy
from test_web_table import DESKTOP, new_page

pytestmark = pytest.mark.e2e

SESSION = "ginrummy_session"


class Account:
    """An account signed up through the API, in a browser of its own (a cookie jar)."""

    def __init__(self, server: str, name: str) -> None:
        self.http = httpx.Client(base_url=server, timeout=30)
        self.http.get("/quick", headers={"Accept": "text/html"})  # its browser cookie
        r = self.http.post("/api/accounts", json={"username": name,
                                                  "password": "a long e2e password"})
        assert r.status_code == 201, r.text
        self.csrf = r.json()["csrf"]

    def seek(self) -> dict[str, Any]:
        r = self.http.post("/api/seeks", json={"rated": True, "target": 100},
                           headers={"X-CSRF-Token": self.csrf})
        assert r.status_code in (200, 201), r.text
        out: dict[str, Any] = r.json()
        return out


def _rated_match(first: Account, second: Account) -> tuple[str, list[str]]:
    """A rated match of the two (``first`` in seat 0): (id, both seat tokens)."""
    waiting = first.seek()["seek"]
    mine = second.seek()["match"]
    theirs = first.http.get(f"/api/seeks/{waiting}").json()["match"]
    return mine["id"], [theirs["token"], mine["token"]]


def _quick_page(page: Any, server: str) -> None:
    """Open the quick-match page and wait until it knows the account (the guest's name row
    goes and the form moves up): a click during that shift can land beside its target."""
    page.goto(server + "/quick")
    page.get_by_test_id("account-name").wait_for(state="visible")
    page.locator("#seek-name-row").wait_for(state="hidden")


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_waits_and_aborted_matches_are_shown(server: str, browser: Any,
                                             artifacts: Path) -> None:
    dodger, other = Account(server, "Dodger"), Account(server, "Steady")
    # hands played until someone has scored, then the dodger (seat 1) resigns: a loss,
    # its scores told from its own side
    mid, tokens = _rated_match(other, dodger)
    http = dodger.http
    while True:
        s = http.get(f"/api/matches/{mid}", headers=_auth(tokens[0])).json()
        if s["hand_over"] is not None:
            if s["scores"][0] != s["scores"][1]:
                break
            for seat in (0, 1):
                v = http.get(f"/api/matches/{mid}", headers=_auth(tokens[seat])).json()
                http.post(f"/api/matches/{mid}/next", headers=_auth(tokens[seat]),
                          json={"version": v["version"]})
            continue
        seat = s["view"]["to_play"]
        me = http.get(f"/api/matches/{mid}", headers=_auth(tokens[seat])).json()
        r = http.post(f"/api/matches/{mid}/actions", headers=_auth(tokens[seat]),
                      json={"action": _greedy(me), "version": me["version"]})
        assert r.status_code == 200, r.text
    theirs, own = s["scores"]
    assert http.post(f"/api/matches/{mid}/resign", headers=_auth(tokens[1])).json()[
        "end"] == "resigned"
    for _ in range(3):  # then three looks at the hand, and aborts
        mid, tokens = _rated_match(dodger, other)
        r = http.post(f"/api/matches/{mid}/abort", headers=_auth(tokens[0]))
        assert r.json()["end"] == "aborted"

    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    page.context.add_cookies([{"name": SESSION, "value": dodger.http.cookies[SESSION],
                               "url": server}])
    _quick_page(page, server)
    page.get_by_test_id("rated").check()
    page.get_by_test_id("seek-button").click()
    page.wait_for_function(
        "() => document.getElementById('message').textContent.includes('minutes')")
    said = page.locator("#message").inner_text()
    assert "You aborted or left 3 rated matches in the last 24 hours" in said
    assert "again in 5 minutes" in said
    assert page.get_by_test_id("seek-waiting").is_hidden()
    page.screenshot(path=str(artifacts / "rated_wait.png"), animations="disabled")

    page.goto(server + "/player/Dodger")
    rows = page.locator("#player-recent tr")
    rows.nth(4).wait_for()
    texts = [rows.nth(i).inner_text() for i in range(1, 5)]
    assert all("aborted" in t and "rated" not in t and "tie" not in t for t in texts[:3])
    assert "loss (rated)" in texts[3] and f"{own}–{theirs}" in texts[3], texts[3]
    page.screenshot(path=str(artifacts / "profile_aborted.png"), animations="disabled")

    # a double click on "Play someone" (a casual seek now): one seek, one waiting page
    # (on a clock no other test seeks with: the server is shared, and a seek another test
    # left waiting would pair at once)
    _quick_page(page, server)
    page.get_by_test_id("seek-clock").select_option("10+60")
    page.get_by_test_id("seek-button").dblclick()
    page.get_by_test_id("seek-waiting").wait_for(state="visible")
    terms = {"clock": {"move": 10, "bank": 60}}
    with httpx.Client(base_url=server, timeout=30) as guest:
        r = guest.post("/api/seeks", json=terms)
        assert r.status_code == 200 and "match" in r.json(), r.text  # paired with it
        second = guest.post("/api/seeks", json=terms)
        assert "seek" in second.json()  # nothing else was waiting: one seek was made
        guest.delete(f"/api/seeks/{second.json()['seek']}")
    page.wait_for_url("**/play/**")
    page.context.close()
    assert errors == []
