"""Training with the coach in a real browser (issue 38; docs/training.md): the puzzle page
solved and failed by clicking the cards (the answer, the values table, the streak, an
account's puzzle rating), a refused move that changes nothing, the analysis board set up
by dragging and refining its figures (and an impossible position's sentence), a review's
"Practise these" leading to the player's own puzzles (and the review's and the replay's
"Analyse this position"), and the three new lessons walked to their ends; no page logs
an error, to its console or otherwise, but the refusals a test asks for.

The puzzles are stored ahead (tests/e2e/data/puzzles.json: six puzzles of one self-play
match, made with ``find_puzzles(self_play(1, seed=5, bot="simple"), samples=512,
screen=64, seed=2)``), so no test waits for a 4,096-deal search.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from test_challenges import _sign_up
from test_learn_and_decks import _at, _do
from test_online_pages import console_errors
from test_table_fixes import _small
from test_web_table import DESKTOP, PHONE, new_page

from ginrummy.cards import Card, parse_cards, to_mask
from ginrummy.melds import deadwood_mask
from ginrummy.web.store import Store
from ginrummy.web.training.puzzles import puzzle_id, puzzle_row

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PUZZLES = json.loads((Path(__file__).parent / "data" / "puzzles.json").read_text("utf-8"))
BY_KEY = {puzzle_id(p["key"]): p for p in PUZZLES}


@pytest.fixture()
def cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap reviews and private puzzles for the server (it inherits the environment)."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "16")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "none")
    monkeypatch.setenv("GINRUMMY_PUZZLE_SAMPLES", "256")


@pytest.fixture()
def server(cheap: None, server: str, tmp_path: Path) -> Iterator[str]:
    """The server, its database holding the prepared puzzles."""
    store = Store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    try:
        store.puzzles.add(puzzle_row(p) for p in PUZZLES)
    finally:
        store.close()
    yield server


def _id_of(key_end: str) -> str:
    return next(i for i, p in BY_KEY.items() if p["key"].endswith(key_end))


def _wait(page: Any, expr: str, timeout: int = 20_000) -> None:
    page.wait_for_function(expr, timeout=timeout)


def _click_move(page: Any, action: dict[str, Any]) -> None:
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


def _answered(page: Any) -> None:
    _wait(page, "() => document.body.dataset.answered === 'true'")
    page.get_by_test_id("puzzle-answer").wait_for(state="visible")


def test_a_puzzle_solved_then_one_failed_as_a_guest(server: str, browser: Any,
                                                    artifacts: Path) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    console: list[str] = []
    console_errors(page, console)
    knock = _id_of("/2/17")  # a discard: knock with the JH
    body = BY_KEY[knock]
    page.goto(f"{server}/puzzles/{knock}")
    _wait(page, "() => document.body.dataset.ready === '1'")
    assert page.get_by_test_id("puzzle-streak").inner_text() == "0"
    assert page.get_by_test_id("puzzle-guest").is_visible()
    assert len(page.get_by_test_id("hand-card").all()) == 11
    assert page.get_by_test_id("knock-button").is_visible()
    # a move the puzzle does not allow: the server's sentence, nothing changes
    page.get_by_test_id("stock").click()
    page.locator("[data-testid=message].error").wait_for()
    assert "not legal" in page.get_by_test_id("message").inner_text()
    assert page.get_by_test_id("puzzle-answer").is_hidden()
    assert page.evaluate("document.body.dataset.answered") == "false"
    # the right answer, made on the cards
    _click_move(page, body["best"])
    _answered(page)
    assert page.get_by_test_id("puzzle-answer").get_attribute("data-correct") == "true"
    assert page.get_by_test_id("puzzle-verdict").inner_text().startswith("Right")
    assert page.get_by_test_id("puzzle-streak").inner_text() == "1"
    rows = page.get_by_test_id("value-row")
    assert rows.count() == len(body["legal"])
    assert "(best)" in rows.first.inner_text() and "←" in rows.first.inner_text()
    assert "±" in rows.first.inner_text()
    assert page.get_by_test_id("puzzle-why").inner_text().startswith("Why: ")
    assert "not rated" in page.get_by_test_id("puzzle-rating-change").inner_text()
    page.screenshot(path=str(artifacts / "puzzle-solved.png"), full_page=True,
                    animations="disabled")

    # another, failed: a draw puzzle answered with the worse draw
    draw = _id_of("/1/24")
    body = BY_KEY[draw]
    page.goto(f"{server}/puzzles/{draw}")
    _wait(page, "() => document.body.dataset.ready === '1'")
    assert page.get_by_test_id("puzzle-streak").inner_text() == "1"  # kept by this browser
    wrong = next(a for a in body["legal"] if a != body["best"])
    _click_move(page, wrong)
    _answered(page)
    assert page.get_by_test_id("puzzle-answer").get_attribute("data-correct") == "false"
    assert page.get_by_test_id("puzzle-verdict").inner_text().startswith("Not this time")
    assert "The best move: " in page.get_by_test_id("puzzle-best").inner_text()
    assert page.get_by_test_id("puzzle-streak").inner_text() == "0"
    rows = page.get_by_test_id("value-row")
    assert rows.count() == 2
    assert "best" in (rows.nth(0).get_attribute("class") or "")
    assert "chosen" in (rows.nth(1).get_attribute("class") or "")
    # Next puzzle: another position, by theme
    page.get_by_test_id("puzzle-theme").select_option("knock-or-play-on")
    _wait(page, f"() => document.body.dataset.puzzle && document.body.dataset.puzzle !== '{draw}'"
                " && document.body.dataset.answered === 'false'")
    shown = page.evaluate("document.body.dataset.puzzle")
    assert "knock-or-play-on" in BY_KEY[shown]["themes"]
    assert page.get_by_test_id("puzzle-history").get_by_test_id("history-row").count() == 2
    assert not errors, errors
    assert len(console) == 1 and "400" in console[0], console  # the refused move only


def test_an_account_solves_and_its_rating_moves(server: str, browser: Any,
                                                artifacts: Path) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, PHONE)
    console_errors(page, errors)
    _sign_up(page, server, "Pia")
    page.get_by_test_id("pages-menu-button").click()  # (a phone: the pages are a menu)
    page.get_by_test_id("puzzles-link").click()
    page.wait_for_url("**/puzzles/*")
    _wait(page, "() => document.body.dataset.ready === '1' && document.body.dataset.puzzle")
    assert page.get_by_test_id("puzzle-rating").inner_text() == "1500"
    assert page.get_by_test_id("puzzle-guest").is_hidden()
    pid = page.evaluate("document.body.dataset.puzzle")
    body = BY_KEY[pid]
    _click_move(page, body["best"])
    _answered(page)
    assert page.get_by_test_id("puzzle-answer").get_attribute("data-correct") == "true"
    assert page.get_by_test_id("puzzle-streak").inner_text() == "1"
    _wait(page, "() => Number(document.querySelector('[data-testid=puzzle-rating]')"
                ".textContent) > 1500")
    assert "1500 → " in page.get_by_test_id("puzzle-rating-change").inner_text()
    row = page.get_by_test_id("history-row").first
    row.wait_for()
    assert row.locator("a").get_attribute("href") == f"/puzzles/{pid}"
    # the page fits the phone, its controls big enough to touch
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert _small(page, ".tr-main") == []
    page.screenshot(path=str(artifacts / "puzzle-phone.png"), full_page=True,
                    animations="disabled")
    # "Analyse this position" opens the board on the puzzle's facts, already answered
    page.get_by_test_id("puzzle-analyse").click()
    page.wait_for_url("**/analysis#position=*")
    _wait(page, "() => document.querySelector('[data-testid=analysis-results]')"
                ".dataset.samples")
    hand = page.get_by_test_id("zone-hand").get_attribute("data-cards") or ""
    assert sorted(hand.split()) == sorted(body["view"]["hand"])
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert not errors, errors


def _drag(page: Any, card: str, zone: str) -> None:
    page.locator(f"[data-testid=deck-card][data-card=\"{card}\"]").drag_to(
        page.get_by_test_id(f"zone-{zone}"))


def test_the_analysis_board_set_up_by_dragging_refines(server: str, browser: Any,
                                                      artifacts: Path) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    console: list[str] = []
    console_errors(page, console)
    _sign_up(page, server, "Bo_Board")  # an account refines to 16,384 deals (a guest: 4,096)
    page.goto(server + "/analysis")
    _wait(page, "() => document.body.dataset.ready === '1'")
    # docs/web-api.md's example position
    for c in ["7C", "8C", "9C", "9D", "9H", "9S", "KD", "QH", "4S", "2H"]:
        _drag(page, c, "hand")
    for c in ("TD", "5S"):
        _drag(page, c, "pile")
    _drag(page, "5S", "opponent_discarded")
    _drag(page, "TD", "opponent_passed")
    # the touch way: click a card, then the place
    page.locator("[data-testid=deck-card][data-card='3H']").click()
    page.get_by_test_id("zone-hand").click()
    assert (page.get_by_test_id("zone-hand").get_attribute("data-cards") or "").split() == \
        ["7C", "8C", "9C", "9D", "9H", "9S", "KD", "QH", "4S", "2H", "3H"]
    assert page.get_by_test_id("zone-pile").get_attribute("data-cards") == "TD 5S"
    page.get_by_test_id("analysis-stock").fill("29")
    page.get_by_test_id("analysis-to-play").select_option("discard")
    page.get_by_test_id("analysis-score-me").fill("10")
    page.get_by_test_id("analysis-score-opp").fill("35")
    page.get_by_test_id("analysis-go").click()
    page.get_by_test_id("analysis-row").first.wait_for()
    seen = set()
    deadline = time.monotonic() + 120  # 16,384 deals take seconds on a busy machine
    while time.monotonic() < deadline:
        # "done" first: the last figures are drawn before the refining stops
        done = page.evaluate("document.body.dataset.refining") == "false"
        n = page.get_by_test_id("analysis-results").get_attribute("data-samples")
        if n:
            seen.add(int(n))
        if done and n:
            break
        time.sleep(0.02)
    assert max(seen) == 16384 and len(seen) >= 2, seen  # the figures settled on more deals
    assert page.get_by_test_id("analysis-row").count() == 11  # a discard of each card
    assert "on 16,384 deals" in page.get_by_test_id("analysis-samples").inner_text()
    page.screenshot(path=str(artifacts / "analysis.png"), full_page=True, animations="disabled")
    # a card moved between places leaves the old one (a card is in one place)
    _drag(page, "QS", "hand")
    page.get_by_test_id("zone-hand").locator("[data-card='QS']").drag_to(
        page.get_by_test_id("zone-pile"))
    assert "QS" not in (page.get_by_test_id("zone-hand").get_attribute("data-cards") or "")
    page.get_by_test_id("zone-pile").locator("[data-card='QS']").click()
    page.get_by_test_id("zone-pile").locator("[data-card='QS']").click()  # taken back
    assert page.get_by_test_id("zone-pile").get_attribute("data-cards") == "TD 5S"
    # an impossible position: the opponent threw a card that is nowhere
    _drag(page, "KS", "opponent_discarded")
    page.get_by_test_id("analysis-go").click()
    page.locator("[data-testid=message].error").wait_for()
    assert "KS" in page.get_by_test_id("message").inner_text()
    assert page.get_by_test_id("analysis-row").count() == 0
    assert not errors, errors
    assert len(console) == 1 and "400" in console[0], console  # the refused position only


def test_a_guests_analysis_settles_on_4096_deals(server: str, browser: Any) -> None:
    """Issue 44 item 8: guests ask the coach for at most 4,096 deals (the server refuses
    them more: the coach's fair share). A guest's board refines to 4,096 and says how to
    go further, asking nothing it would be refused (the console stays clean)."""
    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    console: list[str] = []
    console_errors(page, console)
    position = {"hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H 3H", "pile": "TD 5S",
                "opponent_discarded": ["5S"], "opponent_passed": ["TD"], "stock": 29,
                "to_play": "discard", "scores": [10, 35]}
    page.goto(server + "/analysis#position=" + json.dumps(position).replace(" ", "%20"))
    _wait(page, "() => document.body.dataset.ready === '1'")
    page.get_by_test_id("analysis-go").click()
    page.get_by_test_id("analysis-row").first.wait_for()
    _wait(page, "() => document.body.dataset.refining === 'false'", 120_000)
    assert page.get_by_test_id("analysis-results").get_attribute("data-samples") == "4096"
    assert "on 4,096 deals" in page.get_by_test_id("analysis-samples").inner_text()
    assert page.get_by_test_id("message").inner_text() == "Log in to refine on 16,384 deals."
    assert not errors and not console, (errors, console)


# ------------------------------------------------------------------ Practise these


def _worst_move(s: dict[str, Any]) -> dict[str, Any]:
    """Bad habits a review marks: never knock, draw from the stock, throw the card that
    leaves the most deadwood."""
    legal: list[dict[str, Any]] = s["legal"]
    discards = [a for a in legal if a["act"] == "discard" and not a.get("knock")]
    if discards:
        hand = to_mask(parse_cards(s["view"]["hand"]))
        return dict(max(discards, key=lambda a: (
            deadwood_mask(hand & ~Card.parse(a["card"]).mask), a["card"])))
    for a in legal:
        if a["act"] == "draw" and a["from"] == "stock" or a["act"] == "pass":
            return dict(a)
    return dict(legal[0])


def _quick_move(s: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    knocks = [a for a in s["legal"] if a.get("knock")]
    return dict(knocks[0]) if knocks else dict(rng.choice(s["legal"]))


def test_practise_these_leads_to_the_players_own_puzzles(server: str, browser: Any) -> None:
    http = httpx.Client(base_url=server, timeout=30)
    m = http.post("/api/matches", json={"opponent": "friend", "name": "Lea"}).json()
    mid = m["id"]
    joined = http.post(f"/api/matches/{mid}/join",
                       json={"invite": m["invite_url"].split("#invite=", 1)[1]}).json()
    tokens = [m["token"], joined["token"]]
    rng = random.Random(3)
    s = http.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    while s["hand_over"] is None:
        seat = s["view"]["to_play"]
        head = {"Authorization": f"Bearer {tokens[seat]}"}
        if seat != s["seat"]:
            s = http.get(f"/api/matches/{mid}", headers=head).json()
        move = _worst_move(s) if seat == 0 else _quick_move(s, rng)
        r = http.post(f"/api/matches/{mid}/actions", headers=head,
                      json={"action": move, "version": s["version"]})
        assert r.status_code == 200, r.text
        s = r.json()

    errors: list[str] = []
    page = new_page(browser, errors, DESKTOP)
    console_errors(page, errors)
    _sign_up(page, server, "Lea")
    csrf = page.request.get(server + "/api/me").json()["csrf"]
    claimed = page.request.post(server + "/api/me/matches", data={"tokens": [tokens[0]]},
                                headers={"X-CSRF-Token": csrf})
    assert claimed.json() == {"claimed": 1}
    page.goto(f"{server}/review/{mid}")
    link = page.get_by_test_id("practise-link")
    link.wait_for(timeout=120_000)  # the review is graded first
    assert "Practise these" in link.inner_text()
    # the review opens at a marked decision of the player's: the board is offered on it
    board = page.get_by_test_id("review-analyse")
    assert board.is_visible()
    board_href = board.get_attribute("href") or ""
    assert board_href.startswith("/analysis#position=")
    sent = json.loads(unquote(board_href.split("#position=", 1)[1]))
    assert isinstance(sent["history"], list)  # the hand's moves so far, read by the board
    assert all("words" not in a for a in sent["history"])
    assert not any(a["seat"] != sent["seat"] and a["act"] == "draw" and a["from"] == "stock"
                   and "card" in a for a in sent["history"])  # R11: unseen draws unnamed
    link.click()
    page.wait_for_url("**/puzzles/mine")
    _wait(page, "() => document.body.dataset.ready === '1'", timeout=120_000)
    counts = page.get_by_test_id("puzzle-mine-counts")
    assert counts.get_attribute("data-pending") == "0"
    left = int(counts.get_attribute("data-left") or "0")
    assert left >= 1 and "to practise" in counts.inner_text()
    assert page.get_by_test_id("puzzle-board").is_visible()
    assert "marked as" in page.get_by_test_id("puzzle-where").inner_text()
    # answered with the move that was marked: wrong, and it stays on the list
    first = page.request.get(server + "/api/puzzles/mine").json()["puzzles"][0]
    assert page.evaluate("document.body.dataset.puzzle") == first["id"]
    _click_move(page, first["played"])
    _answered(page)
    assert page.get_by_test_id("puzzle-answer").get_attribute("data-correct") == "false"
    assert "stays on your list" in page.get_by_test_id("puzzle-rating-change").inner_text()
    assert first["id"] in {p["id"] for p in page.request.get(
        server + "/api/puzzles/mine").json()["puzzles"]}
    # the review's position, on the board: read and analysed
    page.goto(server + board_href)
    _wait(page, "() => document.querySelector('[data-testid=analysis-results]')"
                ".dataset.samples")
    assert page.get_by_test_id("analysis-row").count() >= 2
    # over (Lea resigns after the hand): the replay offers the board at every step
    r = http.post(f"/api/matches/{mid}/resign", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 200 and r.json()["end"] == "resigned", r.text
    page.goto(f"{server}/replay/{mid}")
    page.get_by_test_id("replay-next").click()
    _wait(page, "() => document.querySelector('[data-testid=replay-step]')"
                ".textContent.startsWith('Step 1 ')")
    page.get_by_test_id("replay-analyse").click()
    page.wait_for_url("**/analysis#position=*")
    _wait(page, "() => document.querySelector('[data-testid=analysis-results]')"
                ".dataset.samples")
    assert page.get_by_test_id("analysis-row").count() >= 2
    # and the review, the match over, offers it at the opponent's moves too, from its side
    page.goto(f"{server}/review/{mid}")
    _wait(page, "() => document.body.dataset.step !== undefined", timeout=120_000)
    link = page.get_by_test_id("review-analyse")
    for step in range(2):  # the first two moves are the two players' (R4: the up-card)
        page.keyboard.press("Home" if step == 0 else "ArrowRight")
        _wait(page, f"() => document.body.dataset.step === '{step}'")
        if "'s position" in link.inner_text():
            break
    said = link.inner_text()
    assert said.startswith("Analyse ") and said.endswith("'s position") and "You" not in said
    theirs = json.loads(unquote((link.get_attribute("href") or "").split("#position=", 1)[1]))
    assert theirs["seat"] == 1 and len(theirs["hand"]) == 10
    link.click()
    page.wait_for_url("**/analysis#position=*")
    _wait(page, "() => document.querySelector('[data-testid=analysis-results]')"
                ".dataset.samples")
    assert page.get_by_test_id("analysis-row").count() >= 2
    assert not errors, errors


# ------------------------------------------------------------------ the lessons


@pytest.mark.parametrize("name", ["knock", "safe-discards", "pile-takes"])
def test_each_lesson_walks_to_its_puzzles(server: str, browser: Any, artifacts: Path,
                                          name: str) -> None:
    lesson = json.loads((ROOT / "src" / "ginrummy" / "web" / "static" / "learn"
                         / f"{name}.json").read_text("utf-8"))
    steps = lesson["steps"]
    errors: list[str] = []
    page = new_page(browser, errors, PHONE if name == "safe-discards" else DESKTOP)
    console_errors(page, errors)
    page.goto(server + "/")
    page.get_by_test_id("lesson-more").get_by_role("link", name=lesson["title"]).click()
    page.wait_for_url(f"**/learn?lesson={name}")
    _at(page, 0)
    links = page.get_by_test_id("lesson-link")
    assert links.count() == 4 and links.first.get_attribute("href") == "/learn"
    assert page.locator("[data-testid=lesson-link][aria-current=page]").inner_text() == \
        lesson["title"]
    for i, step in enumerate(steps):
        _at(page, i)
        assert page.get_by_test_id("lesson-count").inner_text() == \
            f"Step {i + 1} of {len(steps)}"
        assert page.get_by_test_id("lesson-title").inner_text() == step["title"]
        assert step["text"] in page.get_by_test_id("lesson-text").inner_text()
        lit = set(page.locator(".card.lesson-spot").evaluate_all(
            "els => els.map(e => e.dataset.card)"))
        assert lit == set(step["highlight"]), (i, lit)
        if i == len(steps) - 1:
            break
        _do(page, step)
    page.screenshot(path=str(artifacts / f"lesson-{name}.png"), animations="disabled")
    finish = page.get_by_test_id("lesson-play")
    assert finish.is_visible() and page.get_by_test_id("lesson-list").is_visible()
    assert finish.get_attribute("href") == lesson["finish"]["href"]
    # this lesson's place is kept apart from the first lesson's
    assert page.evaluate(f"JSON.parse(localStorage.getItem('ginrummy.learn.{name}')).done")
    assert page.evaluate("localStorage.getItem('ginrummy.learn')") is None
    if name == "knock":
        finish.click()
        page.wait_for_url("**/puzzles/*?theme=knock-or-play-on")
        _wait(page, "() => document.body.dataset.ready === '1' && document.body.dataset.puzzle")
        assert page.get_by_test_id("puzzle-theme").input_value() == "knock-or-play-on"
        assert "knock-or-play-on" in BY_KEY[page.evaluate("document.body.dataset.puzzle")][
            "themes"]
    assert not errors, errors
