"""Fair rated play (issue 36, docs/web-api.md "What is rated"): what a rated result moves,
one counted result per pair a day, aborted matches shown and counted as such, the waits
after aborting or leaving rated matches, the browser a seek comes from (never paired with
itself, accounts sharing it never paired, a double click makes one seek), seeks counted
as creations, and private matches kept private. On SQLite through the TestClient."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from ginrummy.ratings import DEFAULT, Rating, match_update
from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.app import create_app
from ginrummy.web.guard import Settings
from ginrummy.web.online.browsers import COOKIE as BROWSER
from ginrummy.web.online.fairplay import (
    CAP,
    OFFENCE_WINDOW,
    WAITS,
    rated_result,
    wait_seconds,
    wait_sentence,
)
from ginrummy.web.online.seeks import SEEKER_COOKIE
from ginrummy.web.store.schema import accounts_table, seeks_table

from .conftest import auth, site, state
from .online import both_move, quick_move, sign_up, wait_paired

ORIGIN = {"Origin": "http://testserver"}

# ----------------------------------------------------------------------------- the rules


def test_a_result_against_a_provisional_opponent_moves_a_rating_by_at_most_cap() -> None:
    settled = Rating(1500, 60)
    fresh = DEFAULT
    a, b = rated_result(fresh, fresh, 1.0)  # two fresh alts: a few points, not 162
    assert (a.rating, b.rating) == (DEFAULT.rating + CAP, DEFAULT.rating - CAP)
    glicko = match_update(fresh, fresh, 1.0)
    assert glicko[0].rating - DEFAULT.rating > 150  # what Glicko-2 alone would give
    assert (a.deviation, b.deviation) == (glicko[0].deviation, glicko[1].deviation)
    s, f = rated_result(settled, fresh, 1.0)  # the settled player beats a newcomer
    assert s.rating - settled.rating <= CAP
    assert f.rating == pytest.approx(match_update(settled, fresh, 1.0)[1].rating)  # full
    x, y = rated_result(settled, Rating(1520, 70), 0.0)  # two settled players
    assert (x, y) == match_update(settled, Rating(1520, 70), 0.0)
    x, y = rated_result(settled, Rating(1520, 70), 0.0, same_address=True)
    assert settled.rating - x.rating == pytest.approx(min(CAP, settled.rating - match_update(
        settled, Rating(1520, 70), 0.0)[0].rating))


def test_waits_escalate_and_are_forgotten_after_a_day() -> None:
    now = 1_000_000.0
    assert wait_seconds([], now) == 0 and wait_seconds([now - 10, now - 5], now) == 0
    for n, wait in zip(range(3, 8), (*WAITS, WAITS[-1]), strict=True):
        times = [now - 100.0 + i for i in range(n)]
        assert wait_seconds(times, now) == pytest.approx(times[-1] + wait - now)
    old = [now - OFFENCE_WINDOW - 1] * 5
    assert wait_seconds(old + [now - 1], now) == 0
    assert wait_sentence(3, 299) == (
        "You aborted or left 3 rated matches in the last 24 hours: you can seek a rated "
        "match again in 5 minutes (casual matches are open now).")


# ----------------------------------------------------------------------------- helpers


def browser_cookie(c: TestClient) -> str:
    """A new browser cookie, as a page gives it (a browser without one is given one)."""
    c.cookies.clear()
    r = c.get("/rules", headers={"Accept": "text/html"})
    assert r.status_code == 200
    value = r.cookies.get(BROWSER)
    assert value, r.headers
    return str(value)


def be(c: TestClient, session: str | None = None, browser: str | None = None) -> None:
    """Make ``c`` a browser with this session and browser cookie (None: without)."""
    c.cookies.clear()
    if session is not None:
        c.cookies.set(COOKIE, session)
    if browser is not None:
        c.cookies.set(BROWSER, browser)


def account(c: TestClient, name: str) -> str:
    """Sign up ``name``; its session cookie."""
    c.cookies.clear()
    sign_up(c, name)
    return str(c.cookies[COOKIE])


def seek(c: TestClient, **body: Any) -> dict[str, Any]:
    r = c.post("/api/seeks", json={"target": 100, **body}, headers=ORIGIN)
    assert r.status_code in (200, 201), r.text
    out: dict[str, Any] = r.json()
    return out


def rated_pair(c: TestClient, first: str, second: str) -> tuple[str, list[str]]:
    """``first`` (seat 0) and ``second`` (seat 1), sessions, seek rated and are paired,
    each from a browser of its own."""
    be(c, first, browser_cookie(c))
    waiting = seek(c, rated=True)["seek"]
    be(c, second, browser_cookie(c))
    mine = seek(c, rated=True)["match"]
    be(c, first)  # a seek answers its seeker only
    theirs = wait_paired(c, waiting)
    assert theirs["id"] == mine["id"]
    return mine["id"], [theirs["token"], mine["token"]]


def profile(c: TestClient, name: str, session: str | None = None) -> dict[str, Any]:
    be(c, session)
    r = c.get(f"/api/players/{name}")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def settle_soon(c: TestClient) -> None:
    """Wait for the ratings the last commits settle (just after the commit)."""
    c.portal.call(site(c).ratings.settled)  # type: ignore[union-attr]


# ----------------------------------------------------------------------------- rated


def test_a_pair_counts_once_a_day_and_fresh_alts_farm_a_few_points(
        client: TestClient) -> None:
    """Issue 36: ten resignations in a minute took an account from 1500 to 1954. Now a
    resignation before both moved is an abort, two fresh accounts move each other by CAP
    at most, and their later results that day move nothing."""
    alt, main = account(client, "Alt"), account(client, "Main")
    for i in range(4):  # the farm as reported: resign at once (taking turns, so that
        mid, tokens = rated_pair(client, alt, main)  # neither has to wait yet)
        r = client.post(f"/api/matches/{mid}/resign", headers=auth(tokens[i % 2]))
        assert r.json()["end"] == "aborted"
    for _ in range(3):  # and played a little first: one counts, for CAP at most
        mid, tokens = rated_pair(client, alt, main)
        both_move(client, mid, tokens)
        r = client.post(f"/api/matches/{mid}/resign", headers=auth(tokens[0]))
        assert r.json()["end"] == "resigned" and r.json()["winner"] == 1
    settle_soon(client)
    p = profile(client, "Main")
    assert p["rating"] == DEFAULT.rating + CAP and p["rated_matches"] == 1
    assert len(p["history"]) == 1
    notes = [(m["result"], m["rated"], m["note"]) for m in p["recent"]]
    assert notes == [("win", False, "not rated: repeated pairing")] * 2 + [
        ("win", True, None)] + [("aborted", False, None)] * 4
    assert profile(client, "Alt")["rating"] == DEFAULT.rating - CAP


def test_an_aborted_match_shows_as_aborted_and_scores_are_the_owners_first(
        client: TestClient) -> None:
    ann, bob = account(client, "Ann"), account(client, "Bob")
    mid, tokens = rated_pair(client, ann, bob)
    r = client.post(f"/api/matches/{mid}/abort", headers=auth(tokens[1]))
    assert r.json()["end"] == "aborted"
    settle_soon(client)
    item = profile(client, "Ann")["recent"][0]
    assert (item["result"], item["rated"], item["status"]) == ("aborted", False, "finished")
    # a played hand, then a resignation: each profile tells its own score first
    mid, tokens = rated_pair(client, ann, bob)
    while (s := state(client, mid, tokens[0]))["hand_over"] is None:
        me = state(client, mid, tokens[s["view"]["to_play"]])
        r = client.post(f"/api/matches/{mid}/actions", headers=auth(tokens[me["seat"]]),
                        json={"action": quick_move(me), "version": me["version"]})
        assert r.status_code == 200, r.text
    scores = s["scores"]
    r = client.post(f"/api/matches/{mid}/resign", headers=auth(tokens[0]))
    assert r.json()["end"] == "resigned"
    settle_soon(client)
    for name, seat, result in (("Ann", 0, "loss"), ("Bob", 1, "win")):
        item = profile(client, name)["recent"][0]
        assert item["result"] == result and item["rated"] is True
        assert item["scores"] == [scores[seat], scores[1 - seat]]


def test_aborting_or_leaving_rated_matches_makes_an_account_wait(client: TestClient) -> None:
    dodger, other = account(client, "Dodger"), account(client, "Other")
    for n in range(3):
        mid, tokens = rated_pair(client, dodger, other)
        # Dodger looks at the hand and aborts before moving; then again, and again
        r = client.post(f"/api/matches/{mid}/abort", headers=auth(tokens[0]))
        assert r.status_code == 200 and r.json()["ended_by"] == 0
        settle_soon(client)
        be(client, dodger, browser_cookie(client))
        r = client.post("/api/seeks", json={"rated": True, "target": 100}, headers=ORIGIN)
        if n < 2:  # two are free
            assert r.status_code in (200, 201), r.text
            assert client.delete(f"/api/seeks/{r.json()['seek']}").status_code == 200
    assert r.status_code == 429
    body = r.json()
    assert body["error"] == wait_sentence(3, WAITS[0]) and WAITS[0] - 5 <= body["wait"] <= WAITS[0]
    assert "seek" in seek(client)  # casual matches are open
    # the other player, who never aborted, may seek rated
    be(client, other, browser_cookie(client))
    assert "seek" in seek(client, rated=True)


# ----------------------------------------------------------------------------- browsers


def test_two_tabs_of_one_browser_are_never_paired_and_a_double_click_makes_one_seek(
        client: TestClient) -> None:
    tab = browser_cookie(client)
    be(client, browser=tab)
    first = seek(client)
    tab_seeker = client.cookies.get(SEEKER_COOKIE, path="/api/seeks")
    again = seek(client)  # the second tab, or a double click: the same seek
    assert first["seek"] == again["seek"] and again["status"] == "waiting"
    sam = account(client, "Sam")
    be(client, sam, tab)  # the same browser, now as an account: never paired with itself
    own = seek(client)
    assert "seek" in own and own["seek"] != first["seek"]
    with site(client).store.engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(seeks_table)
                         .where(seeks_table.c.status == "waiting")).scalar()
    assert n == 2
    # another browser is paired with the oldest waiting seek; its double click, sent after
    # it was paired, gets the same match and seat: no second seek, no orphaned seat
    be(client, browser=browser_cookie(client))
    made = seek(client)
    assert "match" in made
    assert seek(client) == made
    be(client, browser=tab)  # the first tab (its seeker's cookie) reads its seek
    client.cookies.set(SEEKER_COOKIE, tab_seeker, path="/api/seeks")
    assert wait_paired(client, first["seek"])["id"] == made["match"]["id"]
    with site(client).store.engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(seeks_table)).scalar()
    assert n == 3  # the two paired and Sam's, still waiting


def test_accounts_that_share_a_browser_are_never_paired(client: TestClient) -> None:
    main, alt, stranger = (account(client, n) for n in ("Main", "Alt", "Stranger"))
    shared = browser_cookie(client)
    be(client, alt, shared)
    assert client.get("/api/me").status_code == 200  # the alt has used this browser
    be(client, main, shared)
    waiting = seek(client, rated=True)["seek"]
    be(client, alt, browser_cookie(client))  # the alt seeks from another browser
    alt_seek = seek(client, rated=True)
    assert "seek" in alt_seek  # not paired with Main
    be(client, stranger, browser_cookie(client))
    made = seek(client, rated=True)["match"]
    be(client, main)  # each seek answers its own seeker only
    assert wait_paired(client, waiting)["id"] == made["id"]
    be(client, alt)
    assert client.get(f"/api/seeks/{alt_seek['seek']}").json() == {"status": "waiting"}


def test_a_page_gives_a_browser_cookie_and_the_api_does_not(client: TestClient) -> None:
    be(client)
    r = client.get("/", headers={"Accept": "text/html"})
    assert BROWSER in r.cookies and "httponly" in r.headers["set-cookie"].lower()
    be(client)
    assert BROWSER not in client.get("/api/bots").cookies
    assert BROWSER not in client.post("/api/seeks", json={}).cookies


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[TestClient]:
    """An app with the default rate limits."""
    app = create_app(f"sqlite:///{tmp_path / 'limits.sqlite3'}", bot_delay=0,
                     settings=Settings())
    with TestClient(app) as c:
        yield c


def test_seeks_count_against_the_creation_limit(limited: TestClient) -> None:
    """Issue 36: 150 seeks from one address made 63 timed matches in 7.6 s (seeks counted
    as reads, 120 a minute). A seek can make a match: it is a creation (20 a minute)."""
    statuses = [limited.post("/api/seeks", json={"target": 100 + 50 * (i % 4),
                                                 "gin_only": i % 8 >= 4}).status_code
                for i in range(21)]
    assert statuses[:8] == [201] * 8 and 429 not in statuses[:20]
    assert statuses[20] == 429
    r = limited.post("/api/matches", json={"opponent": "computer"})
    assert r.status_code == 429 and "at most 20 per 1 minute" in r.json()["error"]


# ----------------------------------------------------------------------------- private


def test_private_matches_stay_private(client: TestClient) -> None:
    """Issue 36: a public profile listed the account's private matches in progress, and a
    stranger read their record."""
    owner = account(client, "Owner")
    be(client, owner)
    hidden = client.post("/api/matches", json={"opponent": "computer", "bot": "easy"},
                         headers=ORIGIN).json()
    shown = client.post("/api/matches", json={"opponent": "friend", "public": True},
                        headers=ORIGIN).json()
    mine = [m["id"] for m in profile(client, "Owner", owner)["recent"]]
    assert set(mine) == {hidden["id"], shown["id"]}  # the owner sees both
    for viewer in (None, account(client, "Nosy")):
        seen = [m["id"] for m in profile(client, "Owner", viewer)["recent"]]
        assert seen == [shown["id"]]
    be(client)
    r = client.get(f"/api/matches/{hidden['id']}/record")
    assert r.status_code == 403 and r.json()["error"] == (
        "This match is private while it is played: only its players can read it until it "
        "is over.")
    assert client.get(f"/api/matches/{hidden['id']}/record", headers=auth("nope")).status_code \
        == 403
    assert client.get(f"/api/matches/{hidden['id']}/record",
                      headers=auth(hidden["token"])).status_code == 200
    be(client, owner)  # the player's session is its seat too
    assert client.get(f"/api/matches/{hidden['id']}/record").status_code == 200
    be(client)
    assert client.get(f"/api/matches/{shown['id']}/record").status_code == 200  # public
    assert client.get(f"/api/matches/{hidden['id']}/watch").status_code == 404
    r = client.post(f"/api/matches/{hidden['id']}/resign", headers=auth(hidden["token"]))
    assert r.status_code == 200
    assert client.get(f"/api/matches/{hidden['id']}/record").status_code == 200  # over
    with site(client).store.engine.connect() as conn:  # (nothing else was touched)
        people = accounts_table.c.bot.is_not(True)  # the levels are BOT accounts
        assert conn.execute(select(func.count()).select_from(accounts_table)
                            .where(people)).scalar() == 2
