"""What players of the popular apps expect, in Chromium: Learn to play walked from the
lobby to the end (left and resumed on the way), the four-colour and large-card decks
(remembered; their pictures in docs/img), and the installable site that says so when
offline."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_web_table import DESKTOP, PHONE, new_page, start_against_computer

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
LESSON = json.loads(
    (ROOT / "src" / "ginrummy" / "web" / "static" / "learn" / "lesson.json").read_text("utf-8"))
STEPS: list[dict[str, Any]] = LESSON["steps"]


def _at(page: Any, i: int) -> None:
    page.wait_for_function("i => document.body.dataset.lessonStep === String(i)", arg=i)


def _do(page: Any, step: dict[str, Any]) -> None:
    """The step's move, made as a player makes it: by clicking."""
    w = step["await"]
    if w is None:
        page.get_by_test_id("lesson-next").click()
    elif w["act"] == "pass":
        page.get_by_test_id("pass-button").click()
    elif w["act"] == "draw":
        page.get_by_test_id("stock" if w["from"] == "stock" else "discard-top").click()
    else:
        card = page.locator(f'[data-testid=hand-card][data-card="{w["card"]}"]')
        gin = card.locator(".knock-tag.gin").count() == 1
        card.click()
        if not gin and card.locator(".knock-tag").count():  # a K card asks first
            page.get_by_test_id("knock-ask").wait_for(state="visible")
            page.get_by_test_id("knock-ask-knock" if w["knock"] else "knock-ask-discard").click()


def test_learn_to_play_walks_a_whole_hand_and_resumes(
    server: str, browser: Any, artifacts: Path
) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    page.goto(server + "/")
    page.get_by_test_id("learn-link").click()
    page.wait_for_url("**/learn")
    total = len(STEPS)
    kinds: set[str] = set()
    left = False
    i = 0
    while i < total:
        step = STEPS[i]
        _at(page, i)
        lesson = page.get_by_test_id("lesson")
        assert lesson.is_visible()
        assert page.get_by_test_id("lesson-count").inner_text() == f"Step {i + 1} of {total}"
        assert page.get_by_test_id("lesson-title").inner_text() == step["title"]
        assert step["text"] in page.get_by_test_id("lesson-text").inner_text()
        # The cards the sentence is about are highlighted, on the table or in the result.
        lit = set(page.locator(".card.lesson-spot").evaluate_all(
            "els => els.map(e => e.dataset.card)"))
        assert lit == set(step["highlight"]), (i, lit)
        kinds.add(step["title"])
        if i == 5 and not left:
            # A wrong card is explained and changes nothing.
            page.locator('[data-testid=hand-card][data-card="9C"]').click()
            assert "Not this time" in page.get_by_test_id("message").inner_text()
            _at(page, i)
            # Leave for the lobby, which offers to resume; the lesson comes back here.
            page.get_by_test_id("lesson-leave").click()
            page.wait_for_url(f"{server}/")
            link = page.get_by_test_id("learn-link")
            assert link.inner_text() == "Resume the lesson"
            assert f"step {i + 1} of {total}" in page.get_by_test_id("learn-note").inner_text()
            link.click()
            page.wait_for_url("**/learn")
            left = True
            continue
        if i == 6:  # one step back and forward again
            page.get_by_test_id("lesson-back").click()
            _at(page, 5)
            assert len(page.locator("[data-testid=hand-card]").all()) == 11
            _do(page, STEPS[5])
            _at(page, 6)
        if step["title"] in ("Melds", "Knock", "Undercut!", "Gin"):
            page.screenshot(path=str(artifacts / f"learn_{i:02d}.png"), animations="disabled")
        if i == total - 1:
            break
        _do(page, step)
        i += 1
    assert left
    # Every lesson of the issue had its step: the draw, the discard, melds and deadwood,
    # knocking, lay-offs, an undercut and gin.
    for word in ("draw", "discard", "Melds", "Deadwood", "Knock", "lay-offs", "Undercut", "Gin"):
        assert any(word.lower() in k.lower() for k in kinds), word
    play = page.get_by_test_id("lesson-play")
    assert play.is_visible() and page.get_by_test_id("lesson-next").is_hidden()
    # Done: the lobby offers the lesson afresh, and the lesson made no match.
    page.goto(server + "/")
    assert page.get_by_test_id("learn-link").inner_text() == "Learn to play"
    assert page.get_by_test_id("match-item").count() == 0
    # The last step's button starts a real match against the Easy computer.
    page.goto(server + "/learn")
    page.get_by_test_id("lesson-restart").wait_for(state="visible")
    page.evaluate("localStorage.setItem('ginrummy.learn', JSON.stringify("
                  f"{{step: {total - 1}, total: {total}, done: false}}))")
    page.reload()
    page.get_by_test_id("lesson-play").click()
    page.wait_for_url("**/play/**")
    page.wait_for_function("() => document.body.dataset.status === 'playing'")
    assert "Easy computer" in page.get_by_test_id("name-opponent").inner_text()
    assert errors == []


SUIT_COLOURS = """() => Object.fromEntries(['C', 'D', 'H', 'S'].map((s) => {
  const c = document.querySelector(`#my-hand .card.suit-${s}`);
  return [s, c ? [getComputedStyle(c).fill, c.querySelectorAll('use').length] : null];
}))"""


def test_four_colour_and_large_decks_are_remembered(
    server: str, browser: Any, artifacts: Path
) -> None:
    """The lesson's fixed deal holds all four suits: the pictures are the same each run.
    With GINRUMMY_DOCS_IMG=1 they are also written to docs/img."""
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    page.goto(server + "/learn")
    page.wait_for_function("() => document.body.dataset.lessonStep === '0'")
    before = page.evaluate(SUIT_COLOURS)
    width = page.locator("#my-hand .card").first.evaluate("e => e.offsetWidth")
    page.get_by_test_id("menu-button").click()
    four = page.get_by_test_id("four-colour-toggle")
    large = page.get_by_test_id("large-cards-toggle")
    assert four.get_attribute("aria-pressed") == "false"
    four.click()
    after = page.evaluate(SUIT_COLOURS)
    assert after["C"][0] == "rgb(11, 122, 52)" and after["D"][0] == "rgb(20, 87, 196)"
    assert after["H"] == before["H"] and after["S"] == before["S"]  # hearts red, spades black
    assert before["C"][0] == before["S"][0] and before["D"][0] == before["H"][0]
    assert all(n >= 2 for _, n in after.values())  # every card still shows its suit symbols
    page.keyboard.press("Escape")
    # The pictures show the table as it plays, without the lesson's rings.
    unlit = ("() => document.querySelectorAll('.lesson-spot')"
             ".forEach(e => e.classList.remove('lesson-spot'))")
    page.evaluate(unlit)
    shots = [artifacts / "deck_four_colour.png", artifacts / "deck_large.png"]
    page.get_by_test_id("my-hand").screenshot(path=str(shots[0]), animations="disabled")
    page.get_by_test_id("menu-button").click()
    large.click()
    assert large.get_attribute("aria-pressed") == "true"
    assert page.locator("#my-hand .card").first.evaluate("e => e.offsetWidth") > width
    page.keyboard.press("Escape")
    page.evaluate(unlit)
    page.locator("#table").screenshot(path=str(shots[1]), animations="disabled")
    # Remembered: after a reload, and on another page of this browser.
    page.reload()
    page.wait_for_function("() => document.body.dataset.lessonStep === '0'")
    assert page.evaluate(SUIT_COLOURS) == after
    assert four.get_attribute("aria-pressed") == "true"
    assert large.get_attribute("aria-pressed") == "true"
    page.goto(server + "/")
    assert page.evaluate("document.documentElement.className") == "four-colour large-cards"
    if os.environ.get("GINRUMMY_DOCS_IMG") == "1":
        for shot in shots:
            shutil.copyfile(shot, ROOT / "docs" / "img" / shot.name)
    assert errors == []


def test_installable_and_says_so_when_offline(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, PHONE)
    page.goto(server + "/")
    assert page.evaluate(
        "async () => (await navigator.serviceWorker.ready).active.scriptURL"
    ).endswith("/sw.js")
    manifest = page.evaluate("document.querySelector('link[rel=manifest]').href")
    assert manifest == server + "/manifest.webmanifest"
    page.reload()  # the service worker now looks after this page
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    note = page.get_by_test_id("offline-note")
    assert note.is_hidden()
    page.context.set_offline(True)
    note.wait_for(state="visible")
    assert "You are offline" in note.inner_text()
    page.reload()  # the page itself cannot be fetched: the offline page says why
    page.get_by_test_id("offline-page").wait_for(state="visible")
    assert "needs a connection" in page.inner_text("body")
    page.context.set_offline(False)
    # At the table: the connection line says so too.
    start_against_computer(page, server)
    page.context.set_offline(True)
    conn = page.get_by_test_id("connection")
    conn.wait_for(state="visible")
    assert "You are offline" in conn.inner_text()
    page.context.set_offline(False)
    assert errors == []
