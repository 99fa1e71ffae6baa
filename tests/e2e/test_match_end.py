"""The end of a match and the step-by-step replay, in a real browser.

A friend match is played to its end through the API (both seats by a quick greedy
strategy: draw, discard the card leaving the least deadwood, knock as soon as R6 allows),
then the table page shows the match-over banner (R9, R12: first to the target) and the
replay steps through the whole match with both hands shown (allowed once it is over).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from ginrummy.cards import Card, parse_cards, to_mask
from ginrummy.melds import deadwood_mask

pytestmark = pytest.mark.e2e


def _greedy(s: dict[str, Any]) -> dict[str, Any]:
    """Knock when allowed (R6), else draw from the stock, else shed the most deadwood."""
    legal: list[dict[str, Any]] = s["legal"]
    knocks = [a for a in legal if a.get("knock")]
    if knocks:
        return knocks[0]
    discards = [a for a in legal if a["act"] == "discard"]
    if discards:
        hand = to_mask(parse_cards(s["view"]["hand"]))
        return min(discards, key=lambda a: deadwood_mask(hand & ~Card.parse(a["card"]).mask))
    draws = [a for a in legal if a["act"] == "draw" and a["from"] == "stock"]
    return draws[0] if draws else legal[0]


def play_match_to_the_end(
    base: str, names: tuple[str, str | None] = ("Ann", None)
) -> tuple[str, list[str], dict[str, Any]]:
    """Create a friend match and play both seats to the end; (id, tokens, final STATE).
    ``names``: the host's and the friend's (None: the friend gives none)."""
    with httpx.Client(base_url=base, timeout=30) as http:
        m = http.post("/api/matches", json={"opponent": "friend", "name": names[0]}).json()
        code = m["invite_url"].split("#invite=", 1)[1]
        join: dict[str, Any] = {"invite": code}
        if names[1] is not None:
            join["name"] = names[1]
        tokens = [m["token"], http.post(f"/api/matches/{m['id']}/join",
                                        json=join).json()["token"]]
        return m["id"], tokens, play_out(http, m["id"], tokens)


def play_out(http: httpx.Client, mid: str, tokens: list[str],
             moves: int | None = None) -> dict[str, Any]:
    """Both seats (these tokens) play :func:`_greedy` through the API, pressing "Next hand"
    between hands, to the end of the match or for ``moves`` moves; seat 0's last STATE."""
    heads = [{"Authorization": f"Bearer {t}"} for t in tokens]
    done = 0
    for _ in range(3000):
        s: dict[str, Any] = http.get(f"/api/matches/{mid}", headers=heads[0]).json()
        if s["status"] == "finished" or (moves is not None and done >= moves):
            return s
        if s["hand_over"] is not None:
            for h in heads:
                st = http.get(f"/api/matches/{mid}", headers=h).json()
                if not st["hand_over"]["ready"][st["seat"]]:
                    r = http.post(f"/api/matches/{mid}/next", headers=h,
                                  json={"version": st["version"]})
                    assert r.status_code == 200, r.text
            continue
        seat = s["view"]["to_play"]
        me = http.get(f"/api/matches/{mid}", headers=heads[seat]).json()
        r = http.post(f"/api/matches/{mid}/actions", headers=heads[seat],
                      json={"action": _greedy(me), "version": me["version"]})
        assert r.status_code == 200, r.text
        done += 1
    raise AssertionError("the match did not end")


def test_match_over_banner_and_step_by_step_replay(
    server: str, browser: Any, artifacts: Path
) -> None:
    mid, tokens, final = play_match_to_the_end(server)
    winner = final["winner"]
    assert final["end_reason"] in ("target", "hand_limit")
    assert winner is None or max(final["scores"]) == final["scores"][winner]
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/play/{mid}#token={tokens[1]}")  # the friend's seat
    page.wait_for_function("() => document.body.dataset.status === 'finished'")

    # The match-over screen: the banner names the winner from this seat's side, with the
    # final scores, and the score sheet has one row per hand.
    banner = page.get_by_test_id("match-over")
    banner.wait_for(state="visible")
    text = banner.inner_text()
    expected = ("You win the match!" if winner == 1 else
                "Ann wins the match" if winner == 0 else "A tie: no winner")
    assert expected in text
    assert f"Ann {final['scores'][0]}" in text and f"Friend {final['scores'][1]}" in text
    assert "null" not in text and "undefined" not in text  # issue 36: "null" was printed
    rows = page.get_by_test_id("hand-over").locator("[data-testid=score-sheet-table] tbody tr")
    assert rows.count() == len(final["score_sheet"])
    assert page.get_by_test_id("next-hand-button").is_hidden()
    page.screenshot(path=str(artifacts / "match_over.png"), animations="disabled")

    # The replay: step 0 is hand 1 as dealt, both hands of 10 cards shown (the match is
    # over, so nothing is hidden any more); Next walks forward one action at a time.
    page.get_by_test_id("replay-button").click()
    board = page.get_by_test_id("replay")
    board.wait_for(state="visible")
    step_line = page.locator("#replay-step")
    page.wait_for_function("() => /^Step 0 of \\d+$/.test(document.getElementById("
                           "'replay-step').textContent)")
    steps = int(step_line.inner_text().rsplit(" ", 1)[1])
    assert steps > 10 * len(final["score_sheet"])
    for seat in (0, 1):
        assert page.get_by_test_id(f"replay-seat-{seat}").locator(".card").count() == 10
    assert "The deal." in board.inner_text()
    assert page.get_by_test_id("replay-prev").is_disabled()
    seen: list[str] = []
    for k in range(1, 6):
        page.get_by_test_id("replay-next").click()
        page.wait_for_function(
            "k => document.getElementById('replay-step').textContent.startsWith('Step ' + k + ' ')",
            arg=k,
        )
        seen.append(board.locator(".headline").inner_text())
    assert all(line and line != "The deal." for line in seen)
    assert len(set(seen)) > 1  # each step describes its own action
    page.screenshot(path=str(artifacts / "replay_step5.png"), animations="disabled")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "() => document.getElementById('replay-step').textContent.startsWith('Step 4 ')"
    )
    # The last step shows the last hand's result.
    page.locator("#replay-last").click()
    page.wait_for_function(
        "n => document.getElementById('replay-step').textContent === `Step ${n} of ${n}`",
        arg=steps,
    )
    assert page.get_by_test_id("replay-next").is_disabled()
    assert f"hand {len(final['score_sheet'])}" in page.locator("#replay-title").inner_text()
    assert "Hand " in board.locator(".headline").inner_text()
    page.screenshot(path=str(artifacts / "replay_last.png"), animations="disabled")
    ctx.close()
    assert errors == []
