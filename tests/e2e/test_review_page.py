"""The game review and the Hint toggle in a real browser (issue 8, item 5).

Against the computer: the player turns Hint on (off by default, remembered by the
browser), sees the coach's suggestion, plays the hand out (the rest through the API, and
further hands until one of its moves is marked), opens Review from the end-of-hand panel,
and the review page shows the marked moves, the win-chance graph (clicking a point jumps
to its decision), steps with the arrow keys and shows the hinted decision as hinted.
Reviews are made cheap through the environment.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture()
def fast_reviews(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap reviews and hints for the server started by ``server`` (it inherits the
    environment)."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "2")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "3")


@pytest.fixture()
def server(fast_reviews: None, server: str) -> Iterator[str]:
    yield server


def _move(s: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Often random (so some moves earn marks), else knock when allowed or draw."""
    legal: list[dict[str, Any]] = s["legal"]
    knocks = [a for a in legal if a.get("knock")]
    if knocks:
        return knocks[0]
    return rng.choice(legal)


def _review(http: httpx.Client, mid: str, head: dict[str, str]) -> dict[str, Any]:
    """The seat's review of the finished hands, started and waited for as the page does."""
    deadline = time.monotonic() + 300  # only catches a review that never finishes
    while True:
        body: dict[str, Any] = http.post(f"/api/matches/{mid}/review", headers=head).json()
        if body["status"] == "done":
            return body
        assert body["status"] == "running", body
        assert time.monotonic() < deadline, "the review did not finish"
        time.sleep(0.2)


def test_hint_then_review_with_marks_graph_and_keys(
    server: str, browser: Any, artifacts: Path
) -> None:
    http = httpx.Client(base_url=server, timeout=30)
    # The deal is random: `easy` knocks as soon as it may (R6), even on its first turn,
    # and a hand already over would cover the table with its result. Start matches until
    # one waits for Ann's decision with a choice.
    for _attempt in range(10):
        # A long match (R10: to 250), so that the few hands played below cannot end it.
        m = http.post("/api/matches", json={"opponent": "computer", "bot": "easy",
                                            "name": "Ann", "options": {"target": 250}}).json()
        mid, tok = m["id"], m["token"]
        head = {"Authorization": f"Bearer {tok}"}
        while True:
            s = http.get(f"/api/matches/{mid}", headers=head).json()
            if s.get("hand_over") or (s["my_turn"] and len(s["legal"]) >= 2):
                break
            time.sleep(0.05)
        if not s.get("hand_over"):
            break
    assert not s.get("hand_over"), "every match began with a knock by the computer"
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}{m['url']}")
    toggle = page.get_by_test_id("hint-toggle")
    toggle.wait_for(state="visible")
    assert toggle.get_attribute("aria-pressed") == "false"  # off by default
    assert page.get_by_test_id("coach-hint").is_hidden()
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"

    # Ann's decision with a choice (waited for above) gets its suggestion.
    rng = random.Random(9)
    hint = page.get_by_test_id("coach-hint")
    page.wait_for_function(
        "() => /^(Suggestion|Either is fine): /.test("
        "document.querySelector('[data-testid=coach-hint]').textContent)")
    # the coach writes cards as the table does (7♦, 10♣), never 7D (issue 36)
    assert not re.search(r"\b(10|[2-9TJQKA])[CDHS]\b", hint.inner_text()), hint.inner_text()
    assert hint.is_visible()
    page.screenshot(path=str(artifacts / "hint.png"), animations="disabled")
    hinted_action = len(s["view"]["history"])
    # The toggle is remembered by this browser.
    page.reload()
    page.get_by_test_id("hint-toggle").wait_for(state="visible")
    assert page.get_by_test_id("hint-toggle").get_attribute("aria-pressed") == "true"
    page.get_by_test_id("hint-toggle").click()  # off again: only that decision is hinted
    assert page.get_by_test_id("hint-toggle").get_attribute("aria-pressed") == "false"
    assert page.get_by_test_id("coach-hint").is_hidden()

    # Play the hand out through the API. A short hand (easy knocks as soon as it may, R6)
    # can leave Ann only a move or two, none of them marked: play further hands until the
    # finished hands hold a marked move (their review is what the page shows).
    for _hand in range(4):
        for _ in range(500):
            s = http.get(f"/api/matches/{mid}", headers=head).json()
            if s["hand_over"] is not None:
                break
            if not s["my_turn"]:
                page.wait_for_timeout(30)
                continue
            r = http.post(f"/api/matches/{mid}/actions", headers=head,
                          json={"action": _move(s, rng), "version": s["version"]})
            assert r.status_code == 200, r.text
        assert s["hand_over"] is not None
        assert s["status"] != "finished", "the match ended: its review would show both seats"
        body = _review(http, mid, head)
        decisions = [d for h in body["review"]["hands"] for d in h["decisions"]]
        marked = [d for d in decisions if d["mark"]]
        if marked:
            break
        r = http.post(f"/api/matches/{mid}/next", headers=head, json={"version": s["version"]})
        assert r.status_code == 200, r.text
    assert marked, "random moves earn marks"

    # Review from the end-of-hand panel: a new tab.
    page.get_by_test_id("hand-over").wait_for(state="visible")
    with ctx.expect_page() as new:
        page.get_by_test_id("review-button").click()
    rv = new.value
    rv.set_default_timeout(60_000)
    rv.on("pageerror", lambda e: errors.append(str(e)))
    rv.get_by_test_id("review-board").wait_for(state="visible")
    assert rv.get_by_test_id("review-mark").count() == len(marked)
    assert rv.locator("[data-testid=graph-point]").count() == len(decisions)
    assert "Your decisions in the finished hands" in rv.get_by_test_id("review-scope").inner_text()
    # the rating in words, with the bot that reviews alike (docs/review.md)
    seat = body["review"]["seats"][0] if body["review"]["seats"][0]["decisions"] \
        else body["review"]["seats"][1]
    line = rv.locator("[data-testid^=rating-seat-]")
    line.first.wait_for(state="visible")
    assert line.count() == 1 and seat["rating"] in line.inner_text()
    like = {"easy": "the Easy computer", "marjj": "the Medium computer",
            "strong or marjj": "the Medium computer",
            "expert": "the Hard computer"}.get(seat["plays_like"], "")  # the site's levels
    assert seat["plays_like"] and "plays like " + like in line.inner_text()
    assert "more accurate than any" not in line.inner_text()  # never said of a computer
    # the page opens at the first marked move, with its mark, loss and best move shown
    verdict = rv.get_by_test_id("decision-mark")
    verdict.wait_for(state="visible")
    assert "points of win chance" in verdict.inner_text()
    assert rv.locator("#rv-me .card.rv-best, #rv-discard .card.rv-best, #rv-stock .rv-best"
                      ).count() + (1 if marked[0]["best"]["act"] == "pass" else 0) >= 1
    rv.screenshot(path=str(artifacts / "review_1280.png"), animations="disabled")

    # Clicking a graph point jumps to its decision; arrows step.
    last = rv.locator("[data-testid=graph-point]").last
    target = int(last.get_attribute("data-step") or "0")
    last.click()
    rv.wait_for_function("n => document.body.dataset.step === String(n)", arg=target)
    rv.keyboard.press("ArrowLeft")
    rv.wait_for_function("n => document.body.dataset.step === String(n - 1)", arg=target)
    rv.keyboard.press("ArrowRight")
    rv.keyboard.press("ArrowRight")
    rv.wait_for_function("n => document.body.dataset.step === String(n + 1)", arg=target)

    # The hinted decision is shown as hinted.
    flags = [(h["index"], d["action"]) for h in body["review"]["hands"]
             for d in h["decisions"] if d["hinted"]]
    assert flags == [(0, hinted_action)]
    item = rv.locator(".rv-move", has=rv.locator(".rv-hinted"))
    assert item.count() == 1
    item.click()
    rv.get_by_test_id("decision-hinted").wait_for(state="visible")

    # A phone.
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                has_touch=True)
    pp = phone.new_page()
    pp.on("pageerror", lambda e: errors.append(str(e)))
    pp.goto(f"{server}/review/{mid}#token={tok}")
    pp.get_by_test_id("review-board").wait_for(state="visible")
    pp.screenshot(path=str(artifacts / "review_390.png"), full_page=True, animations="disabled")
    width = pp.evaluate("() => document.documentElement.scrollWidth")
    wide = pp.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 391)
        .slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)""")
    assert width <= 390 and wide == [], f"wider than the phone ({width}px): {wide}"
    phone.close()
    ctx.close()
    http.close()
    assert errors == []
