"""Chat in a real browser (issue 45): the players' chat at the table, beside it on a laptop
(1280x800) and in a drawer behind a "Chat" button on a phone (390x844), with quick phrases,
the unread count, the keys (Tab to the box, Enter sends, Escape shuts the drawer), a flood
refused with the server's sentence, a line reported to the moderators and a muted player
told until when; the account's settings (quick phrases only, chat off); no chat at a
computer's table; the spectators' chat on the watch page, which the players do not see
while they play; and markup and script in chat lines and names shown as text, run never.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from test_fair_rated import SESSION, Account, _rated_match
from test_web_table import DESKTOP, start_against_computer

from ginrummy.web.commands.accounts import main as accounts_main

pytestmark = pytest.mark.e2e

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
IMG = "<img src=x onerror=window.__pwned=1>"
SCRIPT = "<script>window.__pwned=1</script>"
PLAYING = "() => document.body.dataset.status === 'playing'"


def _page(browser: Any, errors: list[str], viewport: dict[str, int],
          server: str | None = None, account: Account | None = None) -> Any:
    """A page in a browser of its own (a phone's with touch), signed in as ``account``."""
    phone = viewport["width"] < 600
    ctx = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    if account is not None:
        ctx.add_cookies([{"name": SESSION, "value": account.http.cookies[SESSION],
                          "url": server}])
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def _table(page: Any, server: str, mid: str, token: str) -> None:
    """Open the seat's table; wait until it plays and its chat is there."""
    page.goto(f"{server}/play/{mid}#token={token}")
    page.wait_for_function(PLAYING)
    page.locator("#chat:not([hidden])").wait_for(state="attached")


def _line(page: Any, text: str) -> Any:
    return page.get_by_test_id("chat-line").filter(has_text=text)


def _say(page: Any, text: str) -> None:
    box = page.get_by_test_id("chat-input")
    box.fill(text)
    box.press("Enter")


def _open_drawer(page: Any) -> None:
    if page.get_by_test_id("chat-toggle").get_attribute("aria-expanded") != "true":
        page.get_by_test_id("chat-toggle").click()
    page.get_by_test_id("chat-panel").wait_for(state="visible")


def _fits(page: Any, width: int) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width, wide


def _moderator(server: str, tmp_path: Path, name: str) -> Account:
    moe = Account(server, name)
    assert accounts_main(["moderator", name, "--db", str(tmp_path / "table.sqlite3")]) == 0
    return moe


def test_two_players_chat_at_the_table_on_a_laptop_and_a_phone(
        server: str, browser: Any, tmp_path: Path, artifacts: Path) -> None:
    errors: list[str] = []
    ann, bob = Account(server, "Ann_chat"), Account(server, "Bob_chat")
    mid, tokens = _rated_match(ann, bob)
    laptop = _page(browser, errors, LAPTOP, server, ann)
    phone = _page(browser, errors, PHONE, server, bob)
    _table(laptop, server, mid, tokens[0])
    _table(phone, server, mid, tokens[1])

    # the laptop: the chat beside the table, no Chat button; the phone: the button, shut
    panel = laptop.get_by_test_id("chat-panel")
    panel.wait_for(state="visible")
    table, side = laptop.locator("#table").bounding_box(), panel.bounding_box()
    assert side["x"] >= table["x"] + table["width"] and side["y"] < 200, (table, side)
    assert side["y"] + side["height"] <= LAPTOP["height"] + 1, side
    assert laptop.get_by_test_id("chat-toggle").is_hidden()
    assert phone.get_by_test_id("chat-panel").is_hidden()
    toggle = phone.get_by_test_id("chat-toggle")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    assert phone.get_by_test_id("chat-unread").is_hidden()
    box = laptop.get_by_test_id("chat-input")
    assert box.get_attribute("maxlength") == "140"
    assert laptop.get_by_test_id("chat-count").inner_text() == "0/140"

    # Ann writes; Bob's button counts it, his screen reader hears it
    _say(laptop, "Hello Bob, good luck!")
    _line(laptop, "Hello Bob").wait_for()
    assert box.input_value() == ""
    assert _line(laptop, "Hello Bob").get_by_test_id("chat-report").count() == 0  # her own
    phone.get_by_test_id("chat-unread").filter(has_text="1").wait_for()
    assert "1 unread message" in toggle.inner_text()
    phone.wait_for_function("() => document.querySelector('[data-testid=chat-live]')"
                            ".textContent.includes('Ann_chat: Hello Bob, good luck!')")
    _fits(phone, PHONE["width"])
    phone.screenshot(path=str(artifacts / "chat_phone_badge.png"), animations="disabled")

    # Bob opens the drawer (the count goes, the box has the focus) and says a quick phrase
    toggle.click()
    phone.get_by_test_id("chat-panel").wait_for(state="visible")
    assert toggle.get_attribute("aria-expanded") == "true"
    assert phone.get_by_test_id("chat-unread").is_hidden()
    assert phone.evaluate("document.activeElement.dataset.testid") == "chat-input"
    drawer = phone.get_by_test_id("chat-panel").bounding_box()
    assert drawer["y"] + drawer["height"] <= PHONE["height"] + 1 and drawer["width"] <= 390
    _line(phone, "Hello Bob").wait_for()
    phone.get_by_test_id("chat-phrase-gg").click()
    _line(phone, "Good game").wait_for()
    line = _line(laptop, "Good game")
    line.wait_for()
    assert "phrase" in (line.get_attribute("class") or "")
    assert line.get_by_test_id("chat-name").inner_text() == "Bob_chat"
    _fits(phone, PHONE["width"])
    phone.screenshot(path=str(artifacts / "chat_phone_drawer.png"), animations="disabled")
    # Escape shuts the drawer and gives the focus back to the button
    phone.keyboard.press("Escape")
    phone.get_by_test_id("chat-panel").wait_for(state="hidden")
    assert phone.evaluate("document.activeElement.dataset.testid") == "chat-toggle"
    assert toggle.get_attribute("aria-expanded") == "false"
    # the result of a hand covers the Chat button: the result has one of its own, and the
    # drawer opens above it (shown here by showing the panel as the page does at a hand's
    # end; its own tests play hands to the end)
    assert laptop.get_by_test_id("chat-toggle-over").is_hidden()  # (the laptop's is there)
    phone.evaluate("document.getElementById('hand-over').hidden = false")
    over = phone.get_by_test_id("chat-toggle-over")
    assert over.is_visible()
    over.click()
    phone.get_by_test_id("chat-panel").wait_for(state="visible")
    hit = phone.evaluate("""() => { const b = document.querySelector('[data-testid=chat-input]')
        .getBoundingClientRect(); const e = document.elementFromPoint(b.x + 5, b.y + 5);
        return !!e.closest('[data-testid=chat-panel]'); }""")
    assert hit, "the drawer is under the result"
    phone.keyboard.press("Escape")
    phone.get_by_test_id("chat-panel").wait_for(state="hidden")
    assert phone.evaluate("document.activeElement.dataset.testid") == "chat-toggle-over"
    phone.evaluate("document.getElementById('hand-over').hidden = true")

    # the keyboard on the laptop: Tab from the last phrase reaches the box, Enter sends, a
    # key typed there is the chat's, not the table's; the box takes at most 140 characters
    version = laptop.evaluate("document.body.dataset.version")
    laptop.get_by_test_id("chat-phrase-oops").focus()
    laptop.keyboard.press("Tab")
    assert laptop.evaluate("document.activeElement.dataset.testid") == "chat-input"
    laptop.keyboard.type("sk pd")  # (the table's keys: S draws, K knocks, P takes the pile)
    laptop.keyboard.press("Enter")
    _line(laptop, "sk pd").wait_for()
    assert laptop.evaluate("document.body.dataset.version") == version
    box.fill("x" * 139)
    box.press_sequentially("yz")
    assert len(box.input_value()) == 140
    assert laptop.get_by_test_id("chat-count").inner_text() == "140/140"
    box.fill("")
    laptop.screenshot(path=str(artifacts / "chat_laptop.png"), animations="disabled")

    # a flood: refused with the server's sentence, in the panel
    notice = laptop.get_by_test_id("chat-notice")
    for i in range(8):
        _say(laptop, f"flood {i}")
        laptop.wait_for_function(
            "([sel, text]) => document.querySelector(sel).textContent !== ''"
            " || [...document.querySelectorAll('[data-testid=chat-text]')]"
            ".some((n) => n.textContent === text)",
            arg=["[data-testid=chat-notice]", f"flood {i}"])
        if notice.inner_text():
            break
    assert notice.inner_text().startswith("Too many chat messages"), notice.inner_text()

    # Bob reports Ann's first line, in a few words (markup in them stays text)
    _open_drawer(phone)
    report = _line(phone, "Hello Bob").get_by_test_id("chat-report")
    assert report.get_attribute("aria-label") == "Report the message from Ann_chat"
    report.click()
    dialog = phone.get_by_test_id("chat-report-dialog")
    dialog.wait_for(state="visible")
    assert "Hello Bob, good luck!" in phone.get_by_test_id("chat-report-quote").inner_text()
    phone.get_by_test_id("chat-report-text").fill(f"rude {SCRIPT}")
    phone.screenshot(path=str(artifacts / "chat_phone_report.png"), animations="disabled")
    phone.get_by_test_id("chat-report-send").click()
    dialog.wait_for(state="hidden")
    phone.get_by_test_id("chat-notice").filter(has_text="a moderator will look at it").wait_for()
    assert report.is_disabled() and report.inner_text() == "Reported"

    # the moderator sees it with the conversation; then mutes Ann, who is told until when
    moe = _moderator(server, tmp_path, "Moe_chat")
    reports = moe.http.get("/api/mod/reports").json()["reports"]
    mine = [r for r in reports if r["username"] == "Ann_chat" and r["reason"] == "abuse"]
    assert mine and mine[0]["text"] == f"rude {SCRIPT}" and mine[0]["match"] == mid, reports
    talk = [m["text"] for m in mine[0]["context"]["conversation"]]
    assert "Hello Bob, good luck!" in talk and "Good game" in talk, talk
    r = moe.http.post("/api/mod/accounts/Ann_chat/mute", json={"minutes": 10, "reason": "rude"},
                      headers={"X-CSRF-Token": moe.csrf})
    assert r.status_code == 200, r.text
    laptop.get_by_test_id("chat-phrase-thanks").click()
    notice.filter(has_text="A moderator muted you").wait_for()  # the server's sentence
    laptop.reload()  # a muted player's chat says so as it opens
    laptop.get_by_test_id("chat-notice").filter(
        has_text="A moderator has muted you until").wait_for()
    assert _line(laptop, "Hello Bob").count() == 1  # the lines are kept with the match
    assert laptop.evaluate("window.__pwned") is None
    assert errors == [], errors


def test_settings_phrases_only_and_off_and_no_chat_with_the_computer(
        server: str, browser: Any) -> None:
    errors: list[str] = []
    ann, bob = Account(server, "Ann_set"), Account(server, "Bob_set")
    for who, choice in ((ann, "phrases"), (bob, "off")):
        r = who.http.post("/api/me/settings", json={"chat": choice},
                          headers={"X-CSRF-Token": who.csrf})
        assert r.status_code == 200 and r.json()["chat"] == choice, r.text
    mid, tokens = _rated_match(ann, bob)
    first = _page(browser, errors, LAPTOP, server, ann)
    second = _page(browser, errors, PHONE, server, bob)
    _table(first, server, mid, tokens[0])
    second.goto(f"{server}/play/{mid}#token={tokens[1]}")
    second.wait_for_function(PLAYING)
    # quick phrases only: the phrases, no box
    first.get_by_test_id("chat-panel").wait_for(state="visible")
    first.get_by_test_id("chat-phrases-only").wait_for()
    assert first.get_by_test_id("chat-input").count() == 0
    first.get_by_test_id("chat-phrase-gl").click()
    _line(first, "Good luck").wait_for()
    # chat off: no panel, no button, and what the other says is not shown
    second.wait_for_timeout(1500)
    assert second.get_by_test_id("chat-panel").is_hidden()
    assert second.get_by_test_id("chat-toggle").count() == 0
    assert second.get_by_test_id("chat-line").count() == 0

    # a computer's table has no chat, at either size
    for size in (DESKTOP, PHONE):
        page = _page(browser, errors, size)
        start_against_computer(page, server)
        page.wait_for_timeout(1500)
        assert page.get_by_test_id("chat-panel").is_hidden()
        assert page.get_by_test_id("chat-toggle").count() == 0
        page.context.close()
    assert errors == [], errors


def test_spectators_chat_on_the_watch_page(server: str, browser: Any,
                                           artifacts: Path) -> None:
    errors: list[str] = []
    ann, bob, cal = Account(server, "Ann_w"), Account(server, "Bob_w"), Account(server, "Cal_w")
    mid, tokens = _rated_match(ann, bob)  # rated, so public
    player = _page(browser, errors, LAPTOP, server, ann)
    _table(player, server, mid, tokens[0])
    watcher = _page(browser, errors, LAPTOP, server, cal)
    guest = _page(browser, errors, PHONE)
    watcher.goto(f"{server}/watch/{mid}")
    guest.goto(f"{server}/watch/{mid}")
    for p in (watcher, guest):
        p.get_by_test_id("watch-chat").wait_for(state="visible")
        p.get_by_test_id("chat-empty").wait_for()
    # a guest reads, and is asked to log in to write
    assert guest.get_by_test_id("chat-login").inner_text() == "Log in to chat"
    assert guest.get_by_test_id("chat-input").count() == 0
    # Cal writes and sends a phrase; the guest sees both within a poll or two
    _say(watcher, "Who wins this one?")
    _line(watcher, "Who wins this one?").wait_for()
    watcher.get_by_test_id("chat-phrase-nice-gin").click()
    _line(watcher, "Nice gin").wait_for()
    _line(guest, "Who wins this one?").wait_for(timeout=10_000)
    _line(guest, "Nice gin").wait_for(timeout=10_000)
    assert _line(guest, "Who wins").get_by_test_id("chat-name").inner_text() == "Cal_w"
    guest.get_by_test_id("chat-live").filter(has_text="Cal_w: Nice gin").wait_for()
    _fits(guest, PHONE["width"])
    box, chat = (watcher.locator("main > section.prose").bounding_box(),
                 watcher.get_by_test_id("watch-chat").bounding_box())
    assert chat["x"] >= box["x"] + box["width"], (box, chat)  # beside, on a laptop
    watcher.screenshot(path=str(artifacts / "chat_watch_laptop.png"), animations="disabled")
    guest.screenshot(path=str(artifacts / "chat_watch_phone.png"), full_page=True,
                     animations="disabled")
    # the players do not see it while they play: not at the table, not on the watch page
    player.wait_for_timeout(2500)
    assert player.get_by_test_id("watch-chat").count() == 0
    assert "Who wins this one?" not in player.locator("body").inner_text()
    assert _line(player, "Nice gin").count() == 0
    peek = player.context.new_page()
    peek.goto(f"{server}/watch/{mid}")
    peek.get_by_test_id("chat-notice").filter(
        has_text="Players do not see the spectators' chat while they play.").wait_for()
    assert peek.get_by_test_id("chat-line").count() == 0
    assert peek.get_by_test_id("chat-input").is_hidden()
    assert errors == [], errors


def test_markup_and_script_in_chat_and_names_are_only_text(server: str, browser: Any,
                                                           artifacts: Path) -> None:
    """Guests' names and chat lines at the table, and a spectator's lines, full of markup
    and script: every page shows them as they were written, and nothing runs."""
    errors: list[str] = []
    host_name, friend_name = "<b>Ann</b><i>x</i>", "<img src=x onerror=__pwned=1>"
    with httpx.Client(base_url=server, timeout=30) as http:
        m = http.post("/api/matches", headers={"Origin": server},
                      json={"opponent": "friend", "name": host_name, "public": True}).json()
        code = m["invite_url"].split("#invite=", 1)[1]
        friend = http.post(f"/api/matches/{m['id']}/join",
                           json={"invite": code, "name": friend_name}).json()
    mid = m["id"]
    host = _page(browser, errors, LAPTOP)
    guest = _page(browser, errors, PHONE)
    _table(host, server, mid, m["token"])
    _table(guest, server, mid, friend["token"])
    _say(host, IMG)
    _line(host, IMG).wait_for()
    _say(host, SCRIPT)
    _line(host, SCRIPT).wait_for()
    _open_drawer(guest)
    guest.get_by_test_id("chat-input").fill(f"{friend_name} says hi")
    guest.get_by_test_id("chat-input").press("Enter")
    for page in (host, guest):
        for text in (IMG, SCRIPT, f"{friend_name} says hi"):
            _line(page, text).get_by_test_id("chat-text").filter(has_text=text).wait_for()
        names = page.get_by_test_id("chat-name").all_inner_texts()
        assert set(names) == {host_name, friend_name}, names
    cal = Account(server, "Cal_x")
    watcher = _page(browser, errors, LAPTOP, server, cal)
    viewer = _page(browser, errors, PHONE)
    watcher.goto(f"{server}/watch/{mid}")
    viewer.goto(f"{server}/watch/{mid}")
    _say(watcher, IMG)
    _line(watcher, IMG).wait_for()
    _say(watcher, SCRIPT)
    for page in (watcher, viewer):
        _line(page, SCRIPT).wait_for(timeout=10_000)
        assert _line(page, IMG).get_by_test_id("chat-text").inner_text() == IMG
    host.wait_for_timeout(500)  # (an image's error would have fired by now)
    for page in (host, guest, watcher, viewer):
        assert page.evaluate("window.__pwned") is None
        assert page.locator("#chat img, #chat script, #chat b, #watch-chat img, "
                            "#watch-chat script").count() == 0
    guest.screenshot(path=str(artifacts / "chat_markup_phone.png"), animations="disabled")

    # the match over (the friend resigns): on a laptop its result covers the table, not the
    # chat, where the host says "gg" over it
    r = httpx.post(f"{server}/api/matches/{mid}/resign", timeout=30,
                   headers={"Authorization": f"Bearer {friend['token']}"})
    assert r.status_code == 200, r.text
    host.get_by_test_id("match-over").wait_for()
    host.get_by_test_id("chat-input").click()  # (a click lands on it: nothing covers it)
    _say(host, "gg")
    _line(guest, "gg").wait_for()
    host.screenshot(path=str(artifacts / "chat_match_over_laptop.png"), animations="disabled")
    assert errors == [], errors


def _axe(page: Any, popup: str | None = None, contrast: bool = True) -> None:
    """axe-core finds nothing on the page (or in ``popup`` alone), as
    ``test_accessibility.py`` judges every page of the site (its rules, its proofs of the
    contrasts axe cannot decide, and one h1, one main, one banner); ``contrast`` False
    leaves the contrast rule out (a page whose contrast is judged in parts)."""
    import test_accessibility as a11y  # (skipped where axe-core is not installed)

    a11y.still(page)
    page.evaluate(a11y.axe_script())
    run = a11y.RUN if contrast else a11y.RUN.replace(
        "resultTypes:", "rules: {'color-contrast': {enabled: false}}, resultTypes:", 1)
    assert contrast or run != a11y.RUN
    found = page.evaluate(run, [a11y.TAGS, a11y.DECIDE, popup])
    found["incomplete"] = a11y.prove(page, found["incomplete"])
    assert not found["violations"] and not found["incomplete"], "\n" + a11y.report(found)
    if popup is None:
        assert page.evaluate(a11y.STRUCTURE) == {"h1": 1, "main": 1, "banner": 1}


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_the_chats_pass_axe(server: str, browser: Any, size: str) -> None:
    """The table's chat (beside the table; a phone's drawer open), its report dialog, and
    the watch page's chat for a signed-in spectator and for a guest, at both sizes: no
    violation of WCAG 2.2 A and AA or of axe's best practices."""
    pytest.importorskip("axe_playwright_python", reason="axe-core is not installed")
    viewport = LAPTOP if size == "laptop" else PHONE
    errors: list[str] = []
    ann, bob, cal = (Account(server, f"Ann_{size}"), Account(server, f"Bob_{size}"),
                     Account(server, f"Cal_{size}"))
    mid, tokens = _rated_match(ann, bob)
    for token, body in ((tokens[0], {"text": "Good luck, Bob!"}), (tokens[1], {"phrase": "gl"})):
        r = ann.http.post(f"/api/matches/{mid}/chat", json=body,
                          headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201, r.text
    r = cal.http.post(f"/api/matches/{mid}/watch/chat", json={"text": "Nice play"},
                      headers={"X-CSRF-Token": cal.csrf})
    assert r.status_code == 201, r.text

    page = _page(browser, errors, viewport, server, bob)
    _table(page, server, mid, tokens[1])
    if size == "phone":
        _open_drawer(page)
    report = _line(page, "Good luck, Bob!").get_by_test_id("chat-report")
    report.wait_for()
    page.wait_for_timeout(400)  # (the drawer has opened)
    # the chat alone: at 1280x800 a timed table's hand reaches below the window's edge with
    # or without the chat (its clocks' row), where axe cannot tell the cards' contrast
    _axe(page, "#chat")
    _axe(page, contrast=False)  # the whole page: its landmarks, names, headings, ...
    report.click()
    page.get_by_test_id("chat-report-dialog").wait_for(state="visible")
    _axe(page, "dialog.chat-dialog")
    page.keyboard.press("Escape")  # a dialog's Escape: shut, the focus back on its button
    page.get_by_test_id("chat-report-dialog").wait_for(state="hidden")
    assert page.evaluate("document.activeElement.dataset.testid") == "chat-report"

    for who in (cal, None):
        watch = _page(browser, errors, viewport, server, who)
        watch.goto(f"{server}/watch/{mid}")
        _line(watch, "Nice play").wait_for()
        watch.get_by_test_id("chat-input" if who else "chat-login").wait_for()
        _axe(watch)
        watch.context.close()
    assert errors == [], errors


def test_lines_missed_while_the_socket_was_away_are_caught_up(server: str,
                                                               browser: Any) -> None:
    """The table's socket loses the chat's pushes (a proxy drops them), then closes: the
    page opens it again and asks for the lines after the last it has, so none is lost."""
    errors: list[str] = []
    with httpx.Client(base_url=server, timeout=30) as http:
        m = http.post("/api/matches", headers={"Origin": server},
                      json={"opponent": "friend", "name": "Ann"}).json()
        code = m["invite_url"].split("#invite=", 1)[1]
        friend = http.post(f"/api/matches/{m['id']}/join",
                           json={"invite": code, "name": "Bea"}).json()
    mid = m["id"]
    sockets: list[Any] = []

    def proxy(ws: Any) -> None:  # the page's socket, its chat lines dropped on the way
        upstream = ws.connect_to_server()
        ws.on_message(upstream.send)
        upstream.on_message(lambda msg: None if '"type":"chat"' in str(msg).replace(" ", "")
                            else ws.send(msg))
        sockets.append(ws)

    page = _page(browser, errors, LAPTOP)
    page.route_web_socket("**/ws", proxy)
    looks: list[str] = []  # the page's own reads of the chat
    page.on("request", lambda r: looks.append(r.url) if f"/api/matches/{mid}/chat" in r.url
            and r.method == "GET" else None)
    _table(page, server, mid, friend["token"])
    page.get_by_test_id("chat-panel").wait_for(state="visible")
    for _ in range(20):  # past the chat's own looks after it and its socket opened: none
        seen = len(looks)  # for 2.6 s (they come at most 2 s apart)
        page.wait_for_timeout(2600)
        if len(looks) == seen >= 2:
            break
    assert len(looks) >= 2, looks
    http = httpx.Client(base_url=server, timeout=30,
                        headers={"Authorization": f"Bearer {m['token']}"})
    for text in ("one", "two"):
        r = http.post(f"/api/matches/{mid}/chat", json={"text": text})
        assert r.status_code == 201, r.text
    page.wait_for_timeout(1500)
    assert page.get_by_test_id("chat-line").count() == 0  # (dropped on the way)
    sockets[-1].close()  # the page reconnects, then catches up
    _line(page, "two").wait_for(timeout=10_000)
    assert page.get_by_test_id("chat-text").all_inner_texts() == ["one", "two"]
    assert len(sockets) >= 2
    http.close()
    assert errors == [], errors
