"""Play by keyboard and play by ear: a whole match against the computer with keys alone,
and the table told in words in a live region (#speech) a screen reader reads out.

The player's keys are the ones the table's Keys dialog lists (play.html): arrows pick a
card, Shift+arrows move it (arranging), G groups the melds again, Enter plays a card
(a card that may knock asks first, R6), D discards, K knocks, S and P draw (R5), T and N
take or pass the up-card (R4), N deals the next hand, R reads the hand by melds and
deadwood (R2), I says the table.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from test_web_table import (
    dataset,
    make_move,
    new_page,
    start_against_computer,
    version,
    wait_my_move,
)

pytestmark = pytest.mark.e2e

SPEECH = "[data-testid=speech]"
SYMBOLS = re.compile("[♣♦♥♠]")
RANK = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six",
        "7": "seven", "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen",
        "K": "king"}
SUIT = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
ORDER = "A23456789TJQK"


def words(code: str) -> str:
    """"7C" -> "seven of clubs"."""
    return f"{RANK[code[0]]} of {SUIT[code[1]]}"


def speech(page: Any) -> str:
    return str(page.locator(SPEECH).inner_text())


def last_said(page: Any) -> str:
    return str(page.evaluate(
        "s => document.querySelector(s).lastElementChild?.textContent || ''", SPEECH))


def recent(page: Any, n: int = 3) -> str:
    """The last n sentences said, one after the other."""
    return str(page.evaluate(
        "([s, n]) => [...document.querySelector(s).children].slice(-n)"
        ".map(p => p.textContent).join(' ')",
        [SPEECH, n]))


def said_count(page: Any) -> int:
    """How many sentences the live region has been given (it keeps the latest 40)."""
    return int(page.evaluate("s => Number(document.querySelector(s).dataset.count || 0)", SPEECH))


def wait_said(page: Any, n: int) -> None:
    """Until the live region has been given more than n sentences."""
    page.wait_for_function(
        "([s, n]) => Number(document.querySelector(s).dataset.count || 0) > n", arg=[SPEECH, n])


def press_and_hear(page: Any, key: str) -> str:
    """Press a key that speaks; the new sentence in the live region."""
    n = said_count(page)
    page.keyboard.press(key)
    wait_said(page, n)
    return last_said(page)


def active(page: Any) -> dict[str, str]:
    return dict(page.evaluate(
        "() => ({id: document.activeElement?.id || '',"
        " card: document.activeElement?.dataset?.card || ''})"))


def tab_to(page: Any, element_id: str, limit: int = 60) -> None:
    """Tab through the page until the element with this id has the focus."""
    for _ in range(limit):
        if active(page)["id"] == element_id:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached #{element_id}")


def start_by_keyboard(page: Any, base: str) -> None:
    """The lobby by keyboard: the name typed, the easy computer picked with the arrows in
    its radio group, the table dealt with Enter."""
    page.goto(base + "/")
    page.get_by_test_id("bot-easy").wait_for(state="attached")
    tab_to(page, "name")
    page.keyboard.type("Ann")
    page.keyboard.press("Tab")
    for _ in range(12):
        if page.evaluate("() => document.activeElement?.name") == "bot":
            break
        page.keyboard.press("Tab")
    for _ in range(8):
        if page.get_by_test_id("bot-easy").is_checked():
            break
        page.keyboard.press("ArrowLeft")
    assert page.get_by_test_id("bot-easy").is_checked()
    tab_to(page, "start-button")
    page.keyboard.press("Enter")
    page.wait_for_url("**/play/**")
    page.wait_for_function("() => document.body.dataset.version !== undefined")


def hand_cards(page: Any) -> list[dict[str, Any]]:
    """The hand in its shown order, with what each card allows (the server's figures)."""
    return list(page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=hand-card]')].map(c => ({
            code: c.dataset.card,
            knock: c.classList.contains('knock-ok'),
            gin: Boolean(c.querySelector('.knock-tag.gin')),
            taken: c.classList.contains('just-taken'),
            leaves: Number(((c.title || '').match(/\\d+/) || [99])[0]),
        }))"""))


def helps(card: str, hand: list[str]) -> bool:
    """Whether a card would join or make a meld with the hand (a rough player's eye)."""
    same_rank = sum(1 for c in hand if c[0] == card[0])
    suit = {ORDER.index(c[0]) for c in hand if c[1] == card[1]}
    r = ORDER.index(card[0])
    pairs = ({r - 1, r + 1}, {r - 1, r - 2}, {r + 1, r + 2})
    return same_rank >= 2 or any(p <= suit for p in pairs)


def focus_card(page: Any, code: str) -> None:
    """The arrows walk the hand until this card has the focus."""
    for _ in range(14):
        if active(page)["card"] == code:
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"the arrows never reached {code}")


def wait_moved(page: Any, v: int) -> None:
    page.wait_for_function(
        "v => Number(document.body.dataset.version) > v"
        " || document.querySelector('[data-testid=message]').classList.contains('error')",
        arg=v)
    assert version(page) > v, page.get_by_test_id("message").inner_text()


def arrange_and_regroup(page: Any) -> None:
    """Shift+arrow moves the focused card (the hand is then in the player's order), and G
    groups the melds again."""
    code = active(page)["card"]
    page.keyboard.press("Shift+ArrowRight")
    page.get_by_test_id("group-button").wait_for(state="visible")
    assert active(page)["card"] == code  # the moved card keeps the focus
    page.keyboard.press("g")
    page.get_by_test_id("group-button").wait_for(state="hidden")


def keyboard_turn(page: Any, turn: int, arranged: bool) -> str:
    """One decision by keys alone; returns what was done."""
    phase = dataset(page, "phase")
    v = version(page)
    hand = [c["code"] for c in hand_cards(page)]
    top = page.get_by_test_id("discard-pile").get_attribute("data-top") or ""
    if phase == "offer":
        key = "t" if top and helps(top, hand) else "n"
        page.keyboard.press(key)
        wait_moved(page, v)
        return "take" if key == "t" else "pass"
    if phase == "draw":
        key = "p" if top and helps(top, hand) else "s"
        page.keyboard.press(key)
        wait_moved(page, v)
        return "pile" if key == "p" else "stock"
    assert phase == "discard"
    cards = hand_cards(page)
    assert len(cards) == 11
    if active(page)["card"] not in hand:
        page.keyboard.press("ArrowRight")  # the focus into the hand: its first card
    if not arranged:
        arrange_and_regroup(page)
    gins = [c for c in cards if c["gin"]]
    knocks = sorted((c for c in cards if c["knock"]), key=lambda c: c["leaves"])
    if gins:
        focus_card(page, gins[0]["code"])
        page.keyboard.press("Enter")  # a card that goes gin goes gin at once
        wait_moved(page, v)
        return "gin"
    if knocks:
        focus_card(page, knocks[0]["code"])
        if turn % 2:
            page.keyboard.press("k")
        else:
            page.keyboard.press("Enter")  # asks first: knock or just discard
            page.get_by_test_id("knock-ask").wait_for(state="visible")
            assert active(page)["id"] == "knock-ask-knock"
            # the question names the card in words to a screen reader, not "black spade suit"
            words = r"(ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king) of " \
                r"(clubs|diamonds|hearts|spades)"
            asked = page.get_by_role("dialog", name=re.compile(rf"^Knock with the {words} ?\?$"))
            assert asked.count() == 1, page.get_by_test_id("knock-ask").aria_snapshot()
            page.keyboard.press("Enter")
        wait_moved(page, v)
        return "knock"
    allowed = [c for c in cards if not c["taken"]]
    pick = min(allowed, key=lambda c: (c["leaves"], -ORDER.index(c["code"][0])))
    focus_card(page, pick["code"])
    page.keyboard.press("d" if turn % 3 == 0 else "Enter")
    wait_moved(page, v)
    return "discard"


def test_a_whole_match_by_keyboard_alone(server: str, browser: Any, artifacts: Path) -> None:
    """From the lobby to the end of a match to 100 against the easy computer with no click:
    Tab, arrows and Enter in the lobby; at the table the arrows pick cards, Shift+arrow and
    G arrange the hand, Enter, D and K discard and knock (the knock question answered with
    Enter), T/N/S/P draw, Space or N deals the next hand; R and I speak on request. Every
    hand's end is told in the live region (the showdown and the score)."""
    errors: list[str] = []
    page = new_page(browser, errors)
    start_by_keyboard(page, server)
    assert "the up-card is the" in speech(page)  # the first hand's up-card, in words
    deadline = time.monotonic() + 420
    done: list[str] = []
    hands = 0
    arranged = False
    read = False
    turn = 0
    while dataset(page, "status") != "finished":
        assert time.monotonic() < deadline, f"the match did not end in time ({hands} hands)"
        wait_my_move(page)
        if dataset(page, "status") == "finished":
            break
        if dataset(page, "handOver") == "true":
            hands += 1
            page.get_by_test_id("hand-over").wait_for(state="visible")
            page.wait_for_function(
                "s => document.querySelector(s).textContent.includes('Score: you')", arg=SPEECH)
            told = last_said(page)
            assert "Score: you" in told and not SYMBOLS.search(told), told
            if page.get_by_test_id("dead-hand").count() == 0:
                assert "Your hand: " in told and "'s hand: " in told, told
            if dataset(page, "status") == "finished":
                break
            index = dataset(page, "handIndex")
            page.wait_for_function("() => document.activeElement?.id === 'next-button'")
            page.keyboard.press(" " if hands % 2 else "n")
            page.wait_for_function("i => document.body.dataset.handIndex !== i", arg=index)
            arranged = False
            read = False
            continue
        if not read:
            said = press_and_hear(page, "r")
            assert said.startswith("Your hand: ") and "deadwood" in said, said
            said = press_and_hear(page, "i")
            assert "left in the stock" in said and "Score: you" in said, said
            read = True
        if dataset(page, "phase") == "discard" and not arranged:
            done.append(keyboard_turn(page, turn, arranged=False))
            arranged = True
        else:
            done.append(keyboard_turn(page, turn, arranged=True))
        turn += 1
    page.get_by_test_id("match-over").wait_for(state="visible")
    scores = [int(page.get_by_test_id(t).inner_text()) for t in ("score-me", "score-opponent")]
    assert max(scores) >= 100
    page.wait_for_function(
        "s => /wins the match|win the match|no winner/.test(document.querySelector(s).textContent)",
        arg=SPEECH)
    # what a screen reader heard in the last hands, kept for a person to read
    (artifacts / "play_by_ear.txt").write_text(
        "\n".join(page.locator(SPEECH + " p").all_inner_texts()) + "\n", encoding="utf-8")
    assert {"stock", "discard"} <= set(done)
    assert {"knock", "gin"} & set(done), done  # the player ended hands too
    assert errors == []


def test_the_computers_move_is_said_in_words(server: str, browser: Any) -> None:
    """After the computer's move the live region says it with the card's name in words:
    "Easy computer drew from the stock." / "... took the seven of clubs from the discard
    pile." and "Easy computer discarded the nine of spades.", never a suit symbol; the
    player's own draw is confirmed with its card; R (and the Read my hand button) reads
    the hand by melds and deadwood."""
    errors: list[str] = []
    page = new_page(browser, errors)
    start_against_computer(page, server)
    opponent = page.get_by_test_id("name-opponent").inner_text().strip()
    first = speech(page)
    assert re.search(r"Hand 1: (you deal|.+ deals); the up-card is the \w+ of \w+\.", first), first
    for _ in range(120):
        wait_my_move(page)
        assert dataset(page, "handOver") == "false", "the hand ended before the computer discarded"
        if dataset(page, "phase") == "draw":
            last = page.get_by_test_id("discard-pile").get_attribute("data-top") or ""
            told = recent(page)
            if f"{opponent} discarded the {words(last)}." in told:
                break
        v = version(page)
        did = make_move(page)
        if did == "draw":
            # the player's own draw: a short confirmation naming the card drawn
            mine = last_said(page)
            assert re.search(r"You drew the \w+ of \w+ from the stock\.", mine), mine
        assert version(page) > v
    else:
        raise AssertionError("the computer never discarded")
    drew = r"(drew from the stock|took the \w+ of \w+ from the discard pile)"
    assert re.search(rf"{re.escape(opponent)} {drew}\.", told), told
    assert f"{opponent} discarded the {words(last)}." in told
    assert not SYMBOLS.search(speech(page))
    # The visible line keeps its short form; the spoken one is in words.
    assert page.get_by_test_id("opponent-last").inner_text()

    said = press_and_hear(page, "r")
    assert said.startswith("Your hand: ") and said.endswith(".")
    assert re.search(r"deadwood: .+ \(\d+ points?\)|no deadwood", said), said
    deadwood = page.evaluate("() => document.getElementById('deadwood').textContent")
    points = re.search(r"\d+", deadwood)
    assert points, deadwood
    assert f"({points.group(0)} point" in said or "no deadwood" in said, (deadwood, said)
    n = said_count(page)
    page.get_by_test_id("read-hand-button").click()
    wait_said(page, n)
    assert last_said(page) == said
    said = press_and_hear(page, "i")
    assert said.startswith("Your turn: draw from the stock (S) or take the discard (P).")
    assert f"On the discard pile: {words(last)}." in said
    assert re.search(r"\d+ cards left in the stock\.", said)
    assert "Hand 1, playing to 100. Score: you 0, " in said
    # The keys are in the Keys dialog.
    page.get_by_test_id("keys-button").click()
    keys = page.get_by_test_id("keys-dialog").inner_text()
    assert "read your hand aloud" in keys and "say the table" in keys
    assert errors == []
