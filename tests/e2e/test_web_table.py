"""The web table in a real browser: lobby, play by clicking and keys, hand end, friend seats.

Each test starts its own server (see conftest.py) and checks what a player sees, citing the
rules: R4 (up-card offer), R5 (a turn; the "straight back" refusal), R6 (knock), R7 (dead
hand reveals nothing), R9 (score line), R11 (a page never shows the other seat's hand).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
MSG = "[data-testid=message]"
MY_MOVE = (
    "() => document.body.dataset.myTurn === 'true' || document.body.dataset.handOver === 'true'"
)
CLEAR = (
    "sel => { const m = document.querySelector(sel); m.textContent = ''; m.className = 'message'; }"
)


def new_page(browser: Any, errors: list[str], viewport: dict[str, int] = DESKTOP) -> Any:
    """A page in a fresh context (its own localStorage: another player), recording JS errors."""
    ctx = browser.new_context(viewport=viewport, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def shot(page: Any, path: Path, full_page: bool = False) -> None:
    """Save a screenshot artifact with the card animations finished."""
    page.screenshot(path=str(path), full_page=full_page, animations="disabled")


def version(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.version || 0)"))


def dataset(page: Any, key: str) -> str:
    return str(page.evaluate(f"document.body.dataset.{key} || ''"))


def wait_newer(page: Any, v: int) -> None:
    page.wait_for_function("v => Number(document.body.dataset.version) > v", arg=v)


def wait_my_move(page: Any, timeout: int = 60_000) -> None:
    """Until this seat is to move, or the hand is over."""
    page.wait_for_function(MY_MOVE, timeout=timeout)


def clear_message(page: Any) -> None:
    page.evaluate(CLEAR, MSG)


def hand_codes(page: Any) -> list[str]:
    return [
        str(c)
        for c in page.locator("[data-testid=hand-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
    ]


def discard_first_allowed(page: Any) -> str:
    """Click hand cards left to right until the server accepts a discard (R5); returns it."""
    v = version(page)
    for code in hand_codes(page):
        clear_message(page)
        page.locator(f'[data-testid=hand-card][data-card="{code}"]').click()
        page.wait_for_function(
            "([v, sel]) => Number(document.body.dataset.version) > v"
            " || document.querySelector(sel).classList.contains('error')",
            arg=[v, MSG],
        )
        if version(page) > v:
            return code
    raise AssertionError("every discard was refused")


def make_move(page: Any) -> str:
    """One move by the random-ish strategy: pass the up-card, draw from the stock, knock when
    the knock button is offered (R6), else discard the first card that is accepted."""
    phase = dataset(page, "phase")
    v = version(page)
    if phase == "offer":
        page.get_by_test_id("pass-button").click()
        wait_newer(page, v)
        return "pass"
    if phase == "draw":
        page.get_by_test_id("stock").click()
        wait_newer(page, v)
        return "draw"
    assert phase == "discard"
    assert len(hand_codes(page)) == 11  # R5: 11 cards between draw and discard
    knock = page.get_by_test_id("knock-button")
    if knock.is_visible():
        knock.click()
        page.locator("[data-testid=hand-card].knock-ok").first.click()
        wait_newer(page, v)
        return "knock"
    discard_first_allowed(page)
    return "discard"


def assert_no_hidden_cards(page: Any, other_hand: list[str] | None = None) -> None:
    """R11: the opponent's hand is face down, and none of its cards appear outside the cards
    the opponent publicly took from the discard pile."""
    assert page.locator("[data-testid=opponent-hand] .face").count() == 0
    for code in other_hand or []:
        shown = page.locator(f'[data-card="{code}"]:not(#opp-known [data-card])')
        assert shown.count() == 0, f"{code} of the other hand is visible"


def choose(page: Any, testid: str) -> None:
    """Pick a lobby option the way a person does: by clicking its label."""
    page.locator("label", has=page.get_by_test_id(testid)).click()
    assert page.get_by_test_id(testid).is_checked()


def start_against_computer(page: Any, base: str, name: str = "Ann") -> None:
    page.goto(base + "/")
    page.get_by_test_id("name-input").fill(name)
    choose(page, "bot-easy")
    page.get_by_test_id("start-button").click()
    page.wait_for_url("**/play/**")
    page.wait_for_function("() => document.body.dataset.version !== undefined")


def test_full_hand_against_computer_by_clicking(server: str, browser: Any, artifacts: Path) -> None:
    """A whole hand against the computer, every move by a click, through to the hand-over
    panel (R7 dead hand or R8/R9 showdown and score line), then the next hand and the
    downloaded ginrummy/1 record."""
    errors: list[str] = []
    page = new_page(browser, errors)
    start_against_computer(page, server)
    assert page.get_by_test_id("hand-card").count() == 10  # R3
    page.screenshot(path=str(artifacts / "computer_start.png"), animations="disabled")
    moves: list[str] = []
    for _ in range(200):
        wait_my_move(page)
        if dataset(page, "handOver") == "true":
            break
        assert_no_hidden_cards(page)
        moves.append(make_move(page))
        if len(moves) == 6:
            page.screenshot(path=str(artifacts / "computer_midhand.png"), animations="disabled")
    else:
        raise AssertionError("the hand did not end")
    assert "draw" in moves

    panel = page.get_by_test_id("hand-over")
    panel.wait_for(state="visible")
    line = page.get_by_test_id("hand-over-line").inner_text()
    shot(page, artifacts / "computer_hand_over.png", full_page=True)
    if page.get_by_test_id("dead-hand").count():
        # R7: nobody scores and nothing is revealed.
        assert "Nobody scores" in line
        assert page.locator("#reveal .card").count() == 0
    else:
        # R8: both hands revealed with the deadwood counts; R9: the score line names a scorer.
        assert "scores" in line
        # Laid-off cards move onto the knocker's melds, so the 20 cards are all shown once.
        assert page.locator("#reveal .card").count() == 20
        assert page.get_by_test_id("reveal-me").locator(".card").count() >= 1
        assert page.get_by_test_id("reveal-opponent").locator(".card").count() >= 1
        assert "Deadwood" in page.get_by_test_id("reveal-opponent").inner_text()
    assert page.get_by_test_id("score-sheet-table").locator("tbody tr").count() == 1

    # The record of the hands already over downloads as ginrummy/1 JSON; before the end a
    # dead hand is left out (R7 reveals neither hand), so then it holds no hand yet.
    dead = page.get_by_test_id("dead-hand").count() > 0
    with page.expect_download() as dl:
        page.get_by_test_id("hand-over-download").click()
    record = json.loads(Path(dl.value.path()).read_text())
    assert record["format"] == "ginrummy/1"
    finished = dataset(page, "status") == "finished"
    assert len(record["hands"]) == (1 if finished or not dead else 0)

    if dataset(page, "status") != "finished":
        page.get_by_test_id("next-hand-button").click()
        page.wait_for_function("() => document.body.dataset.handIndex === '1'")
        panel.wait_for(state="hidden")
        assert page.get_by_test_id("hand-card").count() in (10, 11)
    assert errors == []


def test_two_friends_play_without_seeing_each_other(
    server: str, browser: Any, artifacts: Path
) -> None:
    """A friend table: the host creates it in the lobby, the guest opens the invite link in
    another browser context, they play alternately over live updates, and neither page ever
    shows the other's hand (R11)."""
    errors: list[str] = []
    host = new_page(browser, errors)
    host.goto(server + "/")
    host.get_by_test_id("name-input").fill("Ann")
    choose(host, "opponent-friend")
    host.get_by_test_id("start-button").click()
    invite = host.get_by_test_id("invite-link")
    invite.wait_for(state="visible")
    link = invite.input_value()
    # The invite carries a single-use code, never a seat token (the host cannot use it to
    # watch the friend's hand, R11).
    assert "/play/" in link and "#invite=" in link and "token" not in link
    # The box's line is tall enough that underscores in the link show (not cut off).
    ratio = invite.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)"
                            " / parseFloat(getComputedStyle(e).fontSize)")
    assert ratio >= 1.5
    host.screenshot(path=str(artifacts / "friend_invite.png"), animations="disabled")
    host.get_by_test_id("go-to-table").click()
    host.wait_for_url("**/play/**")
    host.wait_for_function("() => document.body.dataset.version !== undefined")

    guest = new_page(browser, errors, PHONE)
    guest.goto(link)
    # The friend gives a name before taking the seat; both tables show it.
    guest.get_by_test_id("join-name").fill("Bea")
    guest.get_by_test_id("join-button").click()
    guest.wait_for_function("() => document.body.dataset.status === 'playing'")
    host.wait_for_function(
        "() => document.querySelector('[data-testid=name-opponent]')?.textContent === 'Bea'")
    host.wait_for_function("() => document.body.dataset.status === 'playing'")
    assert host.get_by_test_id("invite-panel").is_hidden()
    # Joining swapped the code for the guest's own token: in the fragment and kept in
    # this browser's storage, so a reload reopens the seat.
    fragment = guest.evaluate("location.hash")
    assert fragment.startswith("#token=") and "invite" not in fragment
    guest_token = fragment.split("=", 1)[1]
    kept = guest.evaluate("JSON.parse(localStorage.getItem('ginrummy.seats') || '[]')")
    assert any(e["token"] == guest_token and e["seat"] == 1 for e in kept)
    guest.reload()
    guest.wait_for_function("() => document.body.dataset.status === 'playing'")
    # The guest opening the used invite again still finds their own seat.
    guest.goto(link)
    guest.wait_for_function("t => location.hash === '#token=' + t", arg=guest_token)
    guest.wait_for_function("() => document.body.dataset.status === 'playing'")

    # The invite is single-use: anyone else opening it (even the host) gets a clear message.
    for opener in (new_page(browser, errors), host.context.new_page()):
        opener.goto(link)
        opener.get_by_test_id("join-button").click()
        msg = opener.get_by_test_id("connection")
        msg.wait_for(state="visible")
        opener.wait_for_function(
            "() => document.getElementById('connection').textContent.includes('already')"
        )
        assert "This invitation has already been used." in msg.inner_text()
        assert opener.locator("#table").is_hidden()
        if opener.context is not host.context:
            opener.screenshot(path=str(artifacts / "invite_used.png"), animations="disabled")
            opener.context.close()
        else:
            opener.close()

    pages = {"host": host, "guest": guest}
    turns = 0
    deadline = time.monotonic() + 60
    while turns < 10 and time.monotonic() < deadline:
        movers = [p for p in pages.values() if dataset(p, "myTurn") == "true"]
        if dataset(host, "handOver") == "true":
            break
        if not movers:
            # The live update has not arrived yet on the mover's page.
            host.wait_for_timeout(100)
            continue
        assert len(movers) == 1, "both seats think it is their turn"
        mover = movers[0]
        other = guest if mover is host else host
        before = version(other)
        move = make_move(mover)
        # The other page follows over the live connection without a reload.
        other.wait_for_function("v => Number(document.body.dataset.version) > v", arg=before)
        turns += 1
        if move == "knock":
            break  # the showdown shows both hands to both players (R8): nothing is hidden
        host_hand, guest_hand = hand_codes(host), hand_codes(guest)
        assert not set(host_hand) & set(guest_hand)
        assert_no_hidden_cards(host, guest_hand)
        assert_no_hidden_cards(guest, host_hand)
    assert turns >= 4
    host.screenshot(path=str(artifacts / "friend_host.png"), animations="disabled")
    guest.screenshot(path=str(artifacts / "friend_guest_phone.png"), animations="disabled")
    assert host.get_by_test_id("player-opponent").inner_text().strip() != ""

    # The host's lobby lists the open match (tokens kept in this browser only).
    host.goto(server + "/")
    item = host.get_by_test_id("match-item")
    item.wait_for(state="visible")
    assert item.count() == 1
    assert "Ann v Bea" in item.inner_text()
    host.screenshot(path=str(artifacts / "lobby_with_match.png"), animations="disabled")
    assert errors == []


def test_straight_back_is_refused_with_the_rules_sentence(
    server: str, browser: Any, artifacts: Path
) -> None:
    """R5: taking the up-card (or the top discard) and trying to discard it at once shows
    the server's sentence in the message area and changes nothing; then the keyboard
    (P/T to take, arrows and D to discard) plays a legal discard. Phone-sized viewport."""
    errors: list[str] = []
    page = new_page(browser, errors, PHONE)
    start_against_computer(page, server, "Bo")
    wait_my_move(page)
    pile = page.get_by_test_id("discard-pile")
    top = pile.get_attribute("data-top")
    assert top
    v = version(page)
    if dataset(page, "phase") == "offer":
        page.get_by_test_id("take-button").click()  # R4: take the up-card
    else:
        page.get_by_test_id("discard-top").click()
    wait_newer(page, v)
    assert dataset(page, "phase") == "discard"
    assert top in hand_codes(page)

    v = version(page)
    page.locator(f'[data-testid=hand-card][data-card="{top}"]').click()
    message = page.get_by_test_id("message")
    page.wait_for_function(
        "sel => document.querySelector(sel).classList.contains('error')", arg=MSG
    )
    assert message.inner_text().strip() == "You cannot put that straight back."
    assert message.get_attribute("aria-live") == "polite"
    assert version(page) == v and top in hand_codes(page)  # the refusal changed nothing
    shot(page, artifacts / "straight_back_phone.png", full_page=True)

    # Keyboard: focus the hand, move to a card that is not the one just taken, press D.
    codes = hand_codes(page)
    target = next(c for c in codes if c != top)
    page.locator(f'[data-testid=hand-card][data-card="{codes[0]}"]').focus()
    for _ in range(codes.index(target)):
        page.keyboard.press("ArrowRight")
    focused = page.evaluate("document.activeElement.dataset.card")
    assert focused == target
    page.keyboard.press("d")
    wait_newer(page, v)
    # The refusal does not outlive the player's next action.
    assert "error" not in (message.get_attribute("class") or "")
    assert target not in hand_codes(page)
    # On the pile, unless the computer (fast in tests) has already taken it back up.
    known = page.get_by_test_id("opponent-known").inner_text()
    assert target in (pile.get_attribute("data-discards") or "").split() or (
        page.locator(f'#opp-known [data-card="{target}"]').count() == 1), known
    assert errors == []


def test_phone_table_fits_and_dialogs_give_focus_back(server: str, browser: Any) -> None:
    """On a 390 px phone nothing runs off the right edge; a dialog opened from the keyboard
    keeps Tab inside itself and hands focus back to its button when Escape closes it."""
    errors: list[str] = []
    page = new_page(browser, errors, PHONE)
    start_against_computer(page, server)
    wait_my_move(page)
    if dataset(page, "phase") == "draw":  # reach 11 cards, the widest hand (R5)
        v = version(page)
        page.get_by_test_id("stock").click()
        wait_newer(page, v)
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
    opener = page.get_by_test_id("score-sheet-button")
    opener.focus()
    page.keyboard.press("Enter")
    page.get_by_test_id("score-sheet").wait_for(state="visible")
    for _ in range(3):
        page.keyboard.press("Tab")
        assert page.evaluate("document.getElementById('sheet-overlay')"
                             ".contains(document.activeElement)")
    page.keyboard.press("Escape")
    page.get_by_test_id("score-sheet").wait_for(state="hidden")
    assert page.evaluate("document.activeElement.dataset.testid") == "score-sheet-button"
    assert errors == []
