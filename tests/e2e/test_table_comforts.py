"""The table's comforts in a real browser: arranging one's hand by drag and drop (mouse and
touch), a layout that does not move under the mouse, phone-sized tap targets, "Play again"
between friends, the player's record and the How to play page (R1-R12)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_match_end import play_match_to_the_end
from test_web_table import (
    DESKTOP,
    PHONE,
    dataset,
    hand_codes,
    new_page,
    start_against_computer,
    version,
    wait_my_move,
    wait_newer,
)

pytestmark = pytest.mark.e2e

BOXES = """() => {
  const at = (sel) => {
    const b = document.querySelector(sel).getBoundingClientRect();
    return [Math.round(b.left), Math.round(b.top)];
  };
  return {
    stock: at('#stock-slot'), pile: at('#discard-slot'), opp: at('#opp-hand')[1],
    msg: at('.message-area')[1], tools: at('.hand-tools')[1], hand: at('#my-hand')[1],
    turn: at('#turn')[1], sort: at('.hand-tools').concat(at('#sort-button')),
  };
}"""


def _center(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_drag_to_arrange_survives_reload_and_regroups(
    server: str, browser: Any, artifacts: Path
) -> None:
    """Mouse: drag the last card of the hand to the front; the order sticks across a
    reload, the drag never discards, and "Group melds" brings the automatic grouping back."""
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    start_against_computer(page, server)
    wait_my_move(page)
    cards = page.locator("[data-testid=hand-card]")
    for _ in range(50):  # the hand may re-render right after the move arrives
        before = hand_codes(page)
        v = version(page)
        src = cards.nth(len(before) - 1).bounding_box()
        dst = cards.nth(0).bounding_box()
        if src and dst:
            break
        page.wait_for_timeout(100)
    assert src and dst
    page.mouse.move(*_center(src))
    page.mouse.down()
    page.mouse.move(dst["x"] + 4, dst["y"] + dst["height"] / 2, steps=12)
    page.mouse.up()
    page.wait_for_function("() => !document.getElementById('group-button').hidden")
    after = hand_codes(page)
    assert after[0] == before[-1] and sorted(after) == sorted(before)
    assert version(page) == v  # arranging is no move: nothing was sent
    page.screenshot(path=str(artifacts / "arranged.png"), animations="disabled")
    page.reload()
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=hand-card]').length")
    assert hand_codes(page) == after  # the player's order survived the reload
    assert page.get_by_test_id("group-button").is_visible()
    # The keyboard arranges too: Shift+Right moves the focused card one place on.
    page.locator(f'[data-testid=hand-card][data-card="{after[0]}"]').focus()
    page.keyboard.press("Shift+ArrowRight")
    assert hand_codes(page) == [after[1], after[0], *after[2:]]
    assert page.evaluate("document.activeElement.dataset.card") == after[0]
    page.get_by_test_id("group-button").click()
    assert page.get_by_test_id("sort-button").is_visible()
    assert page.get_by_test_id("group-button").is_hidden()
    assert hand_codes(page) == before  # the automatic grouping, as it was
    assert errors == []


def test_touch_drag_on_a_phone(server: str, browser: Any) -> None:
    """Touch: the same arranging with touch pointers (a finger drags a card). This phone
    asks for reduced motion: the card animations start switched off, and the Motion and
    Sound toggles remember the player's choice."""
    errors: list[str] = []
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                              reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    start_against_computer(page, server)
    wait_my_move(page)
    before = hand_codes(page)
    moved = before[0]
    page.evaluate(
        """(code) => {
          const cards = [...document.querySelectorAll('[data-testid=hand-card]')];
          const src = cards[0].getBoundingClientRect();
          const last = cards[cards.length - 1].getBoundingClientRect();
          const fire = (type, el, x, y) => el.dispatchEvent(new PointerEvent(type, {
            bubbles: true, cancelable: true, pointerId: 7, pointerType: 'touch',
            isPrimary: true, clientX: x, clientY: y, button: 0}));
          const x0 = src.left + 10, y0 = src.top + src.height / 2;
          const x1 = last.right - 4, y1 = last.top + last.height / 2;
          fire('pointerdown', cards[0], x0, y0);
          for (let i = 1; i <= 10; i++) {
            fire('pointermove', cards[0], x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10);
          }
          fire('pointerup', cards[0], x1, y1);
        }""",
        moved,
    )
    page.wait_for_function("() => !document.getElementById('group-button').hidden")
    after = hand_codes(page)
    assert after[-1] == moved and sorted(after) == sorted(before)

    motion = page.get_by_test_id("motion-toggle")
    assert page.evaluate("document.body.classList.contains('no-motion')")
    assert motion.get_attribute("aria-pressed") == "false"
    page.get_by_test_id("menu-button").click()  # the switches are in the Options menu
    motion.click()
    assert motion.get_attribute("aria-pressed") == "true"
    page.get_by_test_id("sound-toggle").click()
    page.reload()
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    assert not page.evaluate("document.body.classList.contains('no-motion')")
    assert page.get_by_test_id("sound-toggle").get_attribute("aria-pressed") == "false"
    ctx.close()
    assert errors == []


def _friend_match(base: str) -> tuple[str, list[str]]:
    with httpx.Client(base_url=base, timeout=30) as http:
        m = http.post("/api/matches", json={"opponent": "friend", "name": "Ann"}).json()
        code = m["invite_url"].split("#invite=", 1)[1]
        joined = http.post(f"/api/matches/{m['id']}/join", json={"invite": code, "name": "Bea"})
        return str(m["id"]), [m["token"], joined.json()["token"]]


def _choose(s: dict[str, Any], took: bool) -> dict[str, Any]:
    """Pass the up-card (so the offer shows), then seat 1 takes the top discard once; else
    draw from the stock and throw the first legal card without knocking."""
    legal: list[dict[str, Any]] = s["legal"]
    if s["view"]["phase"] == "offer":
        return {"act": "pass"}
    if s["view"]["phase"] == "draw":
        if s["seat"] == 1 and not took:
            return {"act": "draw", "from": "discard"}
        return {"act": "draw", "from": "stock"}
    return next(a for a in legal if a["act"] == "discard" and not a.get("knock"))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_nothing_moves_through_the_offer_and_a_pile_take(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """The piles, the message line, the hand and its tools keep their places while the
    up-card is offered (R4), the opponent takes from the pile (its "holds" strip fills,
    R11) and the turn line changes."""
    mid, tokens = _friend_match(server)
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    page.goto(f"{server}/play/{mid}#token={tokens[0]}")
    page.wait_for_function("() => document.body.dataset.status === 'playing'")
    page.wait_for_timeout(300)
    base_boxes = page.evaluate(BOXES)
    saw = {"offer": False, "held": False}
    took = False
    with httpx.Client(base_url=server, timeout=30) as http:
        for _ in range(12):
            s0 = http.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {tokens[0]}"})
            seat = s0.json()["view"]["to_play"]
            head = {"Authorization": f"Bearer {tokens[seat]}"}
            s = http.get(f"/api/matches/{mid}", headers=head).json()
            if s["hand_over"] is not None:
                break
            if seat == 0 and s["view"]["phase"] == "offer":
                page.wait_for_function("() => document.body.dataset.phase === 'offer'")
                assert page.get_by_test_id("take-button").is_visible()
                assert page.evaluate(BOXES) == base_boxes
                saw["offer"] = True
            action = _choose(s, took)
            took = took or (seat == 1 and action.get("from") == "discard")
            r = http.post(f"/api/matches/{mid}/actions", headers=head,
                          json={"action": action, "version": s["version"]})
            assert r.status_code == 200, r.text
            page.wait_for_function("v => Number(document.body.dataset.version) >= v",
                                   arg=r.json()["version"])
            page.wait_for_timeout(50)
            if page.locator("[data-testid=opponent-known] .card").count():
                saw["held"] = True
                page.screenshot(path=str(artifacts / f"opponent_holds_{viewport['width']}.png"),
                                animations="disabled")
            assert page.evaluate(BOXES) == base_boxes, f"moved after {action}"
            if took and saw["offer"] and saw["held"] and seat == 1:
                break
    assert saw == {"offer": True, "held": True}
    assert errors == []


def test_phone_cards_are_finger_sized(server: str, browser: Any, artifacts: Path) -> None:
    """On a 390x844 phone each of the 11 cards shows at least 44 px of itself to tap."""
    errors: list[str] = []
    page = new_page(browser, errors, PHONE)
    start_against_computer(page, server)
    wait_my_move(page)
    v = version(page)
    if dataset(page, "phase") == "offer":
        page.get_by_test_id("take-button").click()
    else:
        page.get_by_test_id("stock").click()
    wait_newer(page, v)
    assert len(hand_codes(page)) == 11
    spans = page.evaluate(
        """() => {
          const cards = [...document.querySelectorAll('[data-testid=hand-card]')]
            .map((c) => c.getBoundingClientRect());
          return cards.map((r, i) => {
            const next = cards[i + 1];
            const sameRow = next && Math.abs(next.top - r.top) < 2;
            return [sameRow ? next.left - r.left : r.width, r.height, r.right];
          });
        }"""
    )
    assert all(w >= 44 and h >= 44 for w, h, _ in spans), spans
    assert max(right for _, _, right in spans) <= PHONE["width"]
    page.screenshot(path=str(artifacts / "phone_11_cards.png"), animations="disabled",
                    full_page=True)
    assert errors == []


def test_play_again_between_friends_and_the_record_page(
    server: str, browser: Any, artifacts: Path
) -> None:
    """After the match, Ann presses "Play again"; her friend's finished table offers to
    accept, and both land at the new match. Ann's record page counts the finished match;
    the lobby links the How to play page, which states R1-R12."""
    mid, tokens, final = play_match_to_the_end(server)
    errors: list[str] = []
    host = new_page(browser, errors, DESKTOP)
    guest = new_page(browser, errors, DESKTOP)
    host.goto(f"{server}/play/{mid}#token={tokens[0]}")
    guest.goto(f"{server}/play/{mid}#token={tokens[1]}")
    for p in (host, guest):
        p.wait_for_function("() => document.body.dataset.status === 'finished'")
    # Deals people can trust: at the end the seed and salt are revealed, and the page
    # checks them against the commitment (SHA-256) it was shown.
    host.wait_for_function(
        "() => document.getElementById('fair-reveal').dataset.verified === 'true'")
    assert "ginrummy verify" in host.get_by_test_id("fair-reveal").inner_text()
    # R8: runs are shown in rank order, a laid-off card in its place and marked.
    runs = host.evaluate(
        """() => [...document.querySelectorAll('#reveal .group.meld')]
          .filter((g) => g.querySelector('.group-label').textContent === 'Run')
          .map((g) => [...g.querySelectorAll('.card')].map((c) => c.dataset.card))"""
    )
    order = "A23456789TJQK"
    for run in runs:
        ranks = [order.index(c[0]) for c in run]
        assert ranks == list(range(ranks[0], ranks[0] + len(run))), run
    laid = final["hand_over"]["result"]["layoffs"]
    assert host.locator("#reveal [data-testid=laid-off]").count() == len(laid)
    host.get_by_test_id("play-again").click()
    host.wait_for_function("m => !location.pathname.endsWith(m)", arg=mid)
    host.wait_for_function("() => document.body.dataset.status === 'waiting'")
    accept = guest.get_by_test_id("play-again")
    guest.wait_for_function(
        "() => document.querySelector('[data-testid=play-again]').textContent"
        ".includes('Accept')", timeout=15_000)
    assert "Ann wants to play again" in guest.get_by_test_id("again-note").inner_text()
    guest.screenshot(path=str(artifacts / "rematch_offer.png"), animations="disabled")
    # However many hands were played (a match to 100 takes several), the panel's buttons
    # and the score sheet's Total row are in the 1280x860 window.
    box = accept.bounding_box()
    assert box and box["y"] + box["height"] <= DESKTOP["height"]
    guest.locator("#hide-over-button").click()
    guest.get_by_test_id("score-sheet-button").click()
    total = guest.get_by_test_id("score-sheet").get_by_test_id("sheet-total")
    total.wait_for(state="visible")
    tb = total.bounding_box()
    assert tb and tb["y"] + tb["height"] <= DESKTOP["height"]
    assert guest.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('tfoot') !== null",
        [tb["x"] + 20, tb["y"] + tb["height"] / 2])
    guest.keyboard.press("Escape")
    guest.get_by_test_id("show-result").click()
    accept.click()
    guest.wait_for_function("m => !location.pathname.endsWith(m)", arg=mid)
    for p in (host, guest):
        p.wait_for_function("() => document.body.dataset.status === 'playing'")
    assert host.url.split("#")[0] == guest.url.split("#")[0]
    # The new match shows its commitment from the start, and no seed yet.
    host.wait_for_function(
        "() => /[0-9a-f]{64}/.test(document.getElementById('fair-line').textContent)")
    assert re.search(r"\b[0-9a-f]{64}\b", host.get_by_test_id("fairness").inner_text())
    assert host.get_by_test_id("fair-reveal").is_hidden()
    assert guest.get_by_test_id("name-opponent").inner_text() == "Ann"
    assert host.get_by_test_id("name-opponent").inner_text() == "Friend"

    # Your record: this browser's finished match, from Ann's side.
    host.goto(server + "/")
    host.get_by_role("link", name="Your record").click()
    host.wait_for_url("**/record")
    host.wait_for_function(
        "() => document.querySelector('[data-testid=record-summary] dl') !== null")
    text = host.get_by_test_id("record-summary").inner_text()
    assert "1 match" in text
    won = final["winner"] == 0
    assert ("1 won" if won else "0 won") in text
    host.screenshot(path=str(artifacts / "record_page.png"), animations="disabled",
                    full_page=True)

    host.goto(server + "/")
    host.get_by_role("link", name="How to play").first.click()
    host.wait_for_url("**/rules")
    for n in range(1, 13):
        assert host.locator(f"#r{n}").count() == 1, f"R{n} missing"
    assert "You cannot put that straight back." in host.inner_text("body")
    assert errors == []
