"""The whole table on a phone's screen (issue 36: on a 390 x 664 phone three of the
eleven cards sat below the screen, and the player scrolled every turn): at a timed table
(its clocks take a row too), holding eleven cards, every card of the hand, the piles and
the turn line are on the screen without scrolling, each card showing 44 px of itself to
the finger, upright and on its side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_web_table import choose, dataset, version, wait_my_move, wait_newer

pytestmark = pytest.mark.e2e

PORTRAIT = {"width": 390, "height": 664}
LANDSCAPE = {"width": 664, "height": 390}

LAYOUT = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const q = (sel) => document.querySelector(sel);
  return {
    w: innerWidth, h: innerHeight, scrollY: scrollY,
    overflowX: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    cards: [...document.querySelectorAll('[data-testid=hand-card]')].map(box),
    others: [q('#stock-slot'), q('#discard-slot'), q('[data-testid=turn]'),
             q('[data-testid=clocks]'), q('[data-testid=deadwood]')].map(box),
    players: [...document.querySelectorAll('#players .player')].map(box),
    names: [...document.querySelectorAll('#players .pname')].map((e) => e.clientWidth),
    clocks: box(q('[data-testid=clocks]')),
  };
}"""


@pytest.mark.parametrize("viewport", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
def test_the_whole_table_fits_a_phone(server: str, browser: Any, artifacts: Path,
                                      viewport: dict[str, int]) -> None:
    errors: list[str] = []
    ctx = browser.new_context(viewport=viewport, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.get_by_test_id("name-input").fill("Ann")
    choose(page, "bot-easy")
    page.get_by_test_id("clock-choice").select_option("60+300")  # the clocks' row as well
    page.get_by_test_id("start-button").click()
    page.wait_for_url("**/play/**")
    for _ in range(3):  # pass the up-card if offered, then draw: eleven cards (R5)
        wait_my_move(page)
        if dataset(page, "phase") == "discard":
            break
        v = version(page)
        if dataset(page, "phase") == "offer":
            page.get_by_test_id("pass-button").tap()
        else:
            page.get_by_test_id("stock").tap()
        wait_newer(page, v)
    assert dataset(page, "phase") == "discard"
    page.get_by_test_id("clocks").wait_for(state="visible")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(400)  # the drawn card has landed
    page.screenshot(path=str(artifacts / f"phone_table_{viewport['width']}x"
                                          f"{viewport['height']}.png"), animations="disabled")
    got = page.evaluate(LAYOUT)
    assert got["scrollY"] == 0 and got["overflowX"] <= 0
    cards = got["cards"]
    assert len(cards) == 11
    for c in cards + got["others"]:
        assert c["left"] >= 0 and c["right"] <= got["w"], (c, got["w"])
        assert c["top"] >= 0 and c["bottom"] <= got["h"], (c, got["h"])
    # with room under the last row for the marks a card may carry (K, GIN, TAKEN)
    assert max(c["bottom"] for c in cards) + 20 <= got["h"]
    # the players (names shown) and the clocks each have their room: nothing overlaps
    assert len(got["players"]) == 2 and min(got["names"]) >= 24
    for p in got["players"]:
        c = got["clocks"]
        apart = p["bottom"] <= c["top"] or c["bottom"] <= p["top"] or \
            p["right"] <= c["left"] or c["right"] <= p["left"]
        assert apart, (p, c)
    # each card shows 44 px of itself before the next card of its row covers it: a
    # finger's target (WCAG 2.5.5), its corner (rank and suit) in sight
    steps = [b["left"] - a["left"] for a, b in zip(cards, cards[1:], strict=False)
             if abs(b["top"] - a["top"]) < 2]
    assert steps and min(steps) >= 44, steps
    # and a tap on a card discards it (the turn moves on)
    v = version(page)
    page.locator("[data-testid=hand-card]").nth(5).tap()
    page.wait_for_function(
        "v => Number(document.body.dataset.version) > v || !document.getElementById("
        "'knock-ask').hidden || document.querySelector('[data-testid=message]')"
        ".classList.contains('error')", arg=v)
    assert errors == []
