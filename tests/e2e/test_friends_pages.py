"""Friends, search, blocks, privacy and the moderator's mute in a real browser (issue 45),
at a laptop's and a phone's size. Two players sign up through the page; Ann finds Bob by
the start of his name, follows him from his profile, and her lobby's friends panel shows
him online while his page is open, offline within seconds of it closing, and playing
(with a Watch link to his public match) while he plays one; a notice tells her when he
starts an arena; her one-click Challenge reaches his page and, accepted there, takes both
to the table, where he is rude and she reports the line. She blocks him from his
profile: his follow and his challenge are then refused with a sentence. Her chat and
privacy settings are saved and read back; a moderator sees the reported line in its
conversation and mutes Bob, whose account page then says until when, and lifts the mute.
Names with markup are shown as text, and no page is wider than a phone's screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_challenges import _sign_up
from test_web_table import new_page

from conftest import serve
from ginrummy.web.commands.accounts import main as accounts_main

pytestmark = pytest.mark.e2e

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SESSION = "ginrummy_session"
SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
STATE = "([sel, want]) => document.querySelector(sel)?.dataset.state === want"


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[str]:
    """The site, with room for four people's reads from one address (the test's browsers
    all come from 127.0.0.1; each person's own would have an allowance of its own)."""
    with serve(tmp_path, "--rate-reads", "100000/minute") as base:
        yield base


def _http_of(page: Any, server: str) -> httpx.Client:
    """An HTTP client signed in as the page's account (its session cookie, same origin)."""
    jar = {c["name"]: c["value"] for c in page.context.cookies()}
    return httpx.Client(base_url=server, timeout=30, cookies=jar, headers={"Origin": server})


def _public_match(http: httpx.Client, server: str) -> str:
    """A public friend table of ``http``'s account, joined by a guest: in play."""
    m = http.post("/api/matches", json={"opponent": "friend", "public": True}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    with httpx.Client(base_url=server, timeout=30) as guest:
        r = guest.post(f"/api/matches/{m['id']}/join", json={"invite": code, "name": "Guest"})
        assert r.status_code == 200, r.text
    return str(m["id"])


def _fits(page: Any, where: str) -> None:
    """The page is not wider than its screen."""
    assert page.evaluate(SIDEWAYS) <= 0, f"{where} is wider than the screen"


def _friend(page: Any, name: str) -> str:
    return f"[data-testid=friend][data-username='{name}']"


def _state(page: Any, name: str, want: str, timeout: float = 20_000) -> None:
    """Until the friends panel shows ``name`` as ``want`` (online, offline, playing)."""
    page.wait_for_function(STATE, arg=[_friend(page, name), want], timeout=timeout)


@pytest.mark.parametrize("size", list(SIZES))
def test_friends_search_blocks_privacy_and_mute(server: str, browser: Any, tmp_path: Path,
                                                artifacts: Path, size: str) -> None:
    view = SIZES[size]
    errors: list[str] = []
    ann, bob = new_page(browser, errors, view), new_page(browser, errors, view)
    _sign_up(ann, server, "Ann_f")
    _sign_up(bob, server, "Bob_f")

    # Ann's lobby: nobody followed yet; the search finds Bob by the start of his name
    ann.get_by_test_id("friends-empty").wait_for()
    search = ann.get_by_test_id("player-search")
    search.fill("bo")
    found = ann.locator("[data-testid=player-result][data-username=Bob_f]")
    found.wait_for()
    assert "online" in found.inner_text()  # his lobby is open: his notices' socket
    search.fill("zzz")
    ann.get_by_test_id("search-message").filter(has_text="No player's name starts with").wait_for()
    search.fill("BOB_")  # (any case)
    found.get_by_test_id("result-name").click()
    ann.wait_for_url("**/player/Bob_f")
    assert "online" in ann.get_by_test_id("player-presence").inner_text()
    follow = ann.get_by_test_id("follow-button")
    follow.click()
    ann.get_by_test_id("people-message").filter(has_text="You follow Bob_f").wait_for()
    assert follow.inner_text() == "Unfollow"
    _fits(ann, "the profile")

    # the friends panel: Bob online, then offline once his page closes
    ann.goto(server + "/")
    _state(ann, "Bob_f", "online")
    assert "online" in ann.locator(_friend(ann, "Bob_f")).inner_text()
    _fits(ann, "the lobby")
    ann.screenshot(path=str(artifacts / f"friends_online_{size}.png"), animations="disabled")
    bob_http = _http_of(bob, server)
    bob_browser = bob.context
    bob.close()
    _state(ann, "Bob_f", "offline", timeout=25_000)

    # he plays a public match: "playing", with a Watch link to it
    mid = _public_match(bob_http, server)
    _state(ann, "Bob_f", "playing", timeout=25_000)
    watch = ann.locator(_friend(ann, "Bob_f")).get_by_test_id("friend-watch")
    assert watch.get_attribute("href") == f"/watch/{mid}"
    watch.click()
    ann.wait_for_url(f"**/watch/{mid}")
    ann.locator("#watch-title").filter(has_text="Bob_f").wait_for()

    # he starts an arena (its name in markup): a notice on Ann's page, text only
    r = bob_http.post("/api/tournaments", json={"name": "<b>Bob's</b> arena", "minutes": 5})
    assert r.status_code == 201, r.text
    arena = r.json()["id"]
    ann.goto(server + "/")
    notice = ann.get_by_test_id("arena-notice")
    notice.wait_for(timeout=15_000)
    assert "Bob_f started an arena: <b>Bob's</b> arena" in notice.inner_text()
    assert ann.locator("[data-testid=notices] b").count() == 0
    link = notice.get_by_test_id("arena-notice-link")
    assert link.get_attribute("href") == f"/tournament/{arena}"
    notice.get_by_test_id("arena-notice-close").click()
    notice.wait_for(state="detached")
    ann.reload()
    ann.get_by_test_id("friends-list").locator(_friend(ann, "Bob_f")).wait_for()
    ann.wait_for_timeout(1000)  # (the notices' first snapshot has come)
    assert ann.get_by_test_id("arena-notice").count() == 0  # put away for good

    # Bob back in his lobby follows Ann from his search
    bob = bob_browser.new_page()  # (his browser: signed in still)
    bob.set_default_timeout(20_000)
    bob.on("pageerror", lambda e: errors.append(str(e)))
    bob.goto(server + "/")
    bob.get_by_test_id("player-search").fill("an")
    mine = bob.locator("[data-testid=player-result][data-username=Ann_f]")
    mine.get_by_test_id("result-follow").click()
    mine.get_by_test_id("result-follow").filter(has_text="Unfollow").wait_for()
    bob.locator(_friend(bob, "Ann_f")).wait_for()
    _fits(bob, "the lobby with results")
    bob.screenshot(path=str(artifacts / f"friends_search_{size}.png"), animations="disabled")

    # Ann's one-click challenge reaches his page; he accepts: both at the table
    friend = ann.locator(_friend(ann, "Bob_f"))
    friend.get_by_test_id("friend-challenge").click()
    friend.get_by_test_id("friend-said").filter(has_text="Waiting for Bob_f to answer").wait_for()
    card = bob.get_by_test_id("challenge-notice")
    card.wait_for(timeout=10_000)
    assert "Ann_f challenges you" in card.inner_text()
    card.get_by_test_id("challenge-accept").click()
    bob.wait_for_url("**/play/**", timeout=20_000)
    ann.wait_for_url("**/play/**", timeout=20_000)
    assert ann.url.split("#")[0] == bob.url.split("#")[0]
    # he is rude at the table (through the API); she reports the line
    table = ann.url.split("#")[0].rsplit("/", 1)[1]
    r = bob_http.post(f"/api/matches/{table}/chat", json={"text": "you <b>donkey</b>"})
    assert r.status_code == 201, r.text
    line = r.json()["message"]["id"]
    with _http_of(ann, server) as ann_http:
        r = ann_http.post("/api/reports", json={"username": "Bob_f", "reason": "abuse",
                                                "text": "rude", "match": table, "message": line})
        assert r.status_code == 201, r.text

    # she blocks him from his profile (asked first)
    ann.goto(server + "/player/Bob_f")
    block = ann.get_by_test_id("block-button")
    asked: list[str] = []
    ann.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    block.click()
    ann.get_by_test_id("people-message").filter(has_text="You blocked Bob_f").wait_for()
    assert asked and "Block Bob_f?" in asked[0]
    assert block.inner_text() == "Unblock"
    assert ann.get_by_test_id("follow-button").is_hidden()

    # his follow and his challenge are refused, each with a sentence
    bob.goto(server + "/")
    bob.get_by_test_id("friends-empty").wait_for()  # (the block ended his follow)
    bob.goto(server + "/player/Ann_f")
    bob.get_by_test_id("follow-button").click()
    said = bob.locator("[data-testid=people-message].error")
    said.wait_for()
    assert said.inner_text().strip().endswith(".")
    assert bob.get_by_test_id("follow-button").inner_text() == "Follow"
    bob.get_by_test_id("challenge-player").click()
    bob.wait_for_url("**/challenge?to=*")
    bob.get_by_test_id("challenge-send").click()
    refusal = bob.locator("#message.error")
    refusal.wait_for()
    assert refusal.inner_text().strip().endswith(".")
    assert "/challenge?" in bob.url  # no challenge made

    # Ann's settings, saved and read back; Bob in her blocked list
    ann.goto(server + "/account")
    ann.get_by_test_id("settings-form").wait_for()
    ann.locator("[data-testid=blocked-player][data-username=Bob_f]").wait_for()
    for testid in ("chat-phrases", "challenges-friends"):
        ann.locator("label", has=ann.get_by_test_id(testid)).click()
    ann.get_by_test_id("hide-online").check()
    ann.get_by_test_id("settings-save").click()
    ann.get_by_test_id("settings-message").filter(has_text="Your settings are saved").wait_for()
    _fits(ann, "the account page")
    ann.screenshot(path=str(artifacts / f"friends_settings_{size}.png"), full_page=True,
                   animations="disabled")
    ann.reload()
    ann.wait_for_function("() => document.querySelector('[data-testid=chat-phrases]').checked")
    assert ann.get_by_test_id("challenges-friends").is_checked()
    assert ann.get_by_test_id("hide-online").is_checked()
    assert not ann.get_by_test_id("chat-on").is_checked()
    # hidden: Bob's search shows her offline while her page is open
    bob.goto(server + "/")
    bob.get_by_test_id("player-search").fill("ann")
    hers = bob.locator("[data-testid=player-result][data-username=Ann_f]")
    hers.wait_for()
    assert "offline" in hers.inner_text()

    # a moderator mutes Bob for a day: his account page says until when; then lifts it
    moe = httpx.Client(base_url=server, timeout=30)
    r = moe.post("/api/accounts", json={"username": "Moe_f", "password": "correct horse battery"})
    assert r.status_code == 201, r.text
    assert accounts_main(["moderator", "Moe_f", "--db", str(tmp_path / "table.sqlite3")]) == 0
    mod = new_page(browser, errors, view)
    mod.context.add_cookies([{"name": SESSION, "value": moe.cookies[SESSION], "url": server}])
    mod.goto(server + "/mod?u=Bob_f")
    mod.get_by_test_id("mod-account-name").filter(has_text="Bob_f").wait_for()
    # the report carries the conversation, the reported line marked (as text)
    reported = mod.get_by_test_id("mod-reports").get_by_test_id("mod-reported-line")
    assert "Bob_f" in reported.inner_text() and "you <b>donkey</b>" in reported.inner_text()
    assert mod.locator("#mod-reports b").count() == 0
    assert mod.get_by_test_id("mod-muted").inner_text() == "Not muted."
    mod.get_by_test_id("mod-mute-minutes").select_option("1440")
    mod.get_by_test_id("mod-mute-reason").fill("insults in chat")
    mod.get_by_test_id("mod-mute").click()
    mod.get_by_test_id("mod-message").filter(has_text="Bob_f is muted until").wait_for()
    mod.get_by_test_id("mod-muted").filter(has_text="Muted until").wait_for()
    _fits(mod, "the moderators' page")
    mod.screenshot(path=str(artifacts / f"friends_mute_{size}.png"), full_page=True,
                   animations="disabled")
    bob.goto(server + "/account")
    note = bob.get_by_test_id("muted-note")
    note.wait_for()
    assert note.inner_text().startswith("You are muted until ")
    mod.get_by_test_id("mod-unmute-reason").fill("a day is enough")
    mod.get_by_test_id("mod-unmute").click()
    mod.get_by_test_id("mod-muted").filter(has_text="Not muted.").wait_for()
    bob.reload()
    bob.get_by_test_id("settings-form").wait_for()
    bob.wait_for_timeout(500)
    assert bob.get_by_test_id("muted-note").is_hidden()

    # Ann unblocks him from her settings
    ann.locator("[data-testid=blocked-player][data-username=Bob_f]").get_by_test_id("unblock").click()
    ann.get_by_test_id("blocks-empty").wait_for()
    for p in (ann, bob, mod):
        p.context.close()
    bob_http.close()
    moe.close()
    assert errors == [], errors
