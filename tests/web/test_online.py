"""Quick-match seeks, rated matches, the leaderboard and profiles, the live list and the
spectator's view (docs/web-api.md, "Online play"), on SQLite."""

from __future__ import annotations

import base64
import hashlib
import re
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from ginrummy.ratings import DEFAULT, Rating, match_update
from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.online.fairplay import CAP, rated_result
from ginrummy.web.online.seeks import QUICK_CLOCK, SEEKER_COOKIE
from ginrummy.web.store.schema import accounts_table, seeks_table

from .conftest import LeakChecker, auth, card_strings, create, invite_token, site, state
from .online import both_move, keep_seeker, play_to_end, sign_up, wait_paired


def _as(c: TestClient, cookie: str | None) -> None:
    """Make ``c`` the browser holding this session cookie (None: a guest); the browser
    stays the seeker of its seeks."""
    keep_seeker(c, c.cookies.clear)
    if cookie is not None:
        c.cookies.set(COOKIE, cookie)


def test_two_guests_are_paired_and_play(client: TestClient) -> None:
    r = client.post("/api/seeks", json={"target": 150})
    assert r.status_code == 201 and set(r.json()) == {"seek", "status"}
    seek = r.json()["seek"]
    assert client.get(f"/api/seeks/{seek}").json() == {"status": "waiting"}
    other = client.post("/api/seeks", json={"target": 100})  # other options: no pair
    assert "seek" in other.json()
    r = client.post("/api/seeks", json={"target": 150, "gin_only": False})
    assert r.status_code == 200, r.text
    mine = r.json()["match"]
    assert set(mine) == {"id", "seat", "token", "url"} and mine["seat"] == 1
    theirs = wait_paired(client, seek)
    assert theirs["id"] == mine["id"] and theirs["seat"] == 0
    assert theirs["url"].endswith(theirs["token"]) and theirs["token"] != mine["token"]
    s0, s1 = state(client, mine["id"], theirs["token"]), state(client, mine["id"], mine["token"])
    assert s0["seat"] == 0 and s1["seat"] == 1 and s0["status"] == "playing"
    assert s0["players"][0] != s0["players"][1] and s0["options"]["target"] == 150
    assert all(p.startswith("Guest ") for p in s0["players"])
    # the other seek is still waiting; a paired one cannot be cancelled
    assert client.delete(f"/api/seeks/{seek}").status_code == 409
    assert client.delete(f"/api/seeks/{other.json()['seek']}").json() == {"status": "cancelled"}
    assert client.get(f"/api/seeks/{other.json()['seek']}").status_code == 404
    # casual quick matches are private
    assert client.get(f"/api/matches/{mine['id']}/watch").status_code == 404
    # the database holds no seat token: only hashes
    with site(client).store.engine.connect() as conn:
        rows = conn.execute(seeks_table.select()).all()
    assert all(theirs["token"] not in repr(tuple(r)) for r in rows)


def test_seek_refusals(client: TestClient) -> None:
    cases = [
        ({"rated": True}, 401, "Rated matches need an account"),
        ({"rated": "yes"}, 400, "'rated' is true or false."),
        ({"target": 99}, 400, ""),
        ({"colour": "red"}, 400, "Unknown field 'colour'."),
        ([1], 400, "The request body must be a JSON object."),
    ]
    for body, status, text in cases:
        r = client.post("/api/seeks", json=body)
        assert r.status_code == status and r.json()["error"].startswith(text), r.text
    assert client.get("/api/seeks/nope").status_code == 404
    assert client.delete("/api/seeks/nope").status_code == 404
    assert client.post("/api/seeks").status_code == 201  # no body: all defaults


def test_a_seek_expires(client: TestClient) -> None:
    seek = client.post("/api/seeks", json={}).json()["seek"]
    with site(client).store.engine.begin() as conn:
        conn.execute(update(seeks_table).values(expires_at=time.time() - 1))
    assert client.get(f"/api/seeks/{seek}").status_code == 404
    assert "seek" in client.post("/api/seeks", json={}).json()  # nothing to pair with


def _set_rating(c: TestClient, username: str, rating: Rating) -> None:
    with site(c).store.engine.begin() as conn:
        conn.execute(update(accounts_table)
                     .where(accounts_table.c.username_key == username.casefold())
                     .values(rating=rating.rating, deviation=rating.deviation,
                             volatility=rating.volatility))


def test_nearest_rating_first_then_anyone(client: TestClient) -> None:
    cookies = {}
    for name, r in (("far", 2300.0), ("near", 1560.0), ("mine", 1500.0), ("late", 1900.0)):
        sign_up(client, name)
        cookies[name] = client.cookies[COOKIE]
        _set_rating(client, name, Rating(r, 80))
    seeks = {}
    for name in ("far", "near"):
        _as(client, cookies[name])
        seeks[name] = client.post("/api/seeks", json={"rated": True},
                                  headers={"Origin": "http://testserver"}).json()["seek"]
    _as(client, cookies["mine"])
    r = client.post("/api/seeks", json={"rated": True}, headers={"Origin": "http://testserver"})
    assert r.status_code == 200, r.text
    _as(client, cookies["near"])  # a seek answers its seeker only
    assert wait_paired(client, seeks["near"])["id"] == r.json()["match"]["id"]
    # 1900 vs 2300 is too far at first; the window widens as the seek waits
    with site(client).store.engine.begin() as conn:  # "far" has only just come
        conn.execute(update(seeks_table).where(seeks_table.c.status == "waiting")
                     .values(created_at=time.time()))
    _as(client, cookies["late"])
    r = client.post("/api/seeks", json={"rated": True}, headers={"Origin": "http://testserver"})
    late = r.json()["seek"]
    assert client.get(f"/api/seeks/{late}").json() == {"status": "waiting"}
    match = wait_paired(client, late, timeout=10)
    _as(client, cookies["far"])
    assert wait_paired(client, seeks["far"])["id"] == match["id"]


def test_a_seek_with_the_cookie_needs_csrf(client: TestClient) -> None:
    sign_up(client, "Gus")
    r = client.post("/api/seeks", json={"rated": True})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]


def _rated_pair(c: TestClient) -> tuple[dict[str, Any], list[str]]:
    """Two accounts seek rated and are paired: the match and both seat tokens."""
    sign_up(c, "Hana")
    hana = c.cookies[COOKIE]
    sign_up(c, "Ivo")
    ivo = c.cookies[COOKIE]
    _as(c, hana)
    seek = c.post("/api/seeks", json={"rated": True, "target": 100},
                  headers={"Origin": "http://testserver"}).json()["seek"]
    _as(c, ivo)
    mine = c.post("/api/seeks", json={"rated": True, "target": 100},
                  headers={"Origin": "http://testserver"}).json()["match"]
    _as(c, None)
    theirs = wait_paired(c, seek)
    return mine, [theirs["token"], mine["token"]]


def test_a_rated_match_moves_both_ratings_as_glicko2_says(client: TestClient) -> None:
    m, tokens = _rated_pair(client)
    mid = m["id"]
    live = client.get("/api/live").json()["matches"]
    assert [x["id"] for x in live] == [mid] and live[0]["rated"] is True
    assert live[0]["players"] == ["Hana", "Ivo"]
    end = play_to_end([client, client], mid, tokens)
    assert end["winner"] in (0, 1)
    client.portal.call(site(client).ratings.settled)  # type: ignore[union-attr]
    score0 = 1.0 if end["winner"] == 0 else 0.0
    # two fresh (provisional) accounts, both seeks from one address: Glicko-2's deviations
    # and volatilities, each rating moved by at most CAP (online.fairplay)
    want = rated_result(DEFAULT, DEFAULT, score0, same_address=True)
    assert abs(want[0].rating - DEFAULT.rating) == CAP
    assert want[0].deviation == match_update(DEFAULT, DEFAULT, score0)[0].deviation
    for seat, name in enumerate(("Hana", "Ivo")):
        p = client.get(f"/api/players/{name}").json()
        assert set(p) >= {"username", "rating", "deviation", "volatility", "matches",
                          "history"}
        assert p["rating"] == pytest.approx(want[seat].rating, abs=0.05)
        assert p["deviation"] == pytest.approx(want[seat].deviation, abs=0.05)
        assert p["volatility"] == pytest.approx(want[seat].volatility, abs=1e-6)
        assert p["matches"] == 1 and p["rated_matches"] == 1
        assert len(p["history"]) == 1 and p["history"][0]["match"] == mid
        other = "Ivo" if seat == 0 else "Hana"
        won = end["winner"] == seat
        assert p["record"] == [{"opponent": other, "wins": int(won), "ties": 0,
                                "losses": int(not won), "bot": False}]
        assert p["recent"][0]["result"] == ("win" if won else "loss")
        assert p["recent"][0]["replay"] == f"/api/matches/{mid}/replay"
    # settled once: settling again changes nothing
    s = site(client)
    t = s.registry.tables[mid]
    outcome = t.match.outcome()
    assert outcome is not None
    assert client.portal.call(s.ratings.settle, mid, outcome) is False  # type: ignore[union-attr]
    assert client.get("/api/players/hana").json()["rating"] == pytest.approx(
        want[0].rating, abs=0.05)
    # the leaderboard lists settled deviations only
    assert client.get("/api/leaderboard").json()["players"] == []
    _set_rating(client, "Ivo", Rating(1600, 60))
    board = client.get("/api/leaderboard").json()
    assert [p["username"] for p in board["players"]] == ["Ivo"]
    assert board["bots"]["hard"] > board["bots"]["easy"]
    # over: gone from the live list, and the watch view links the replay and review
    assert client.get("/api/live").json()["matches"] == []
    w = client.get(f"/api/matches/{mid}/watch").json()
    assert w["status"] == "finished" and w["review"] == f"/review/{mid}"


def test_an_aborted_rated_match_changes_no_rating(client: TestClient) -> None:
    m, tokens = _rated_pair(client)
    r = client.post(f"/api/matches/{m['id']}/abort", headers=auth(tokens[1]))
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "finished" and r.json()["end"] == "aborted"
    client.portal.call(site(client).ratings.settled)  # type: ignore[union-attr]
    for name in ("Hana", "Ivo"):
        p = client.get(f"/api/players/{name}").json()
        assert p["rating"] == DEFAULT.rating and p["deviation"] == DEFAULT.deviation
        assert p["rated_matches"] == 0 and p["history"] == []


def test_a_resignation_settles_a_rated_match_as_a_loss(client: TestClient) -> None:
    m, tokens = _rated_pair(client)
    mid = m["id"]
    both_move(client, mid, tokens)  # the match is played: a resignation is one
    r = client.post(f"/api/matches/{mid}/resign", headers=auth(tokens[0]))
    assert r.status_code == 200, r.text
    assert r.json()["winner"] == 1 and r.json()["end"] == "resigned"
    client.portal.call(site(client).ratings.settled)  # type: ignore[union-attr]
    want = rated_result(DEFAULT, DEFAULT, 0.0, True)  # seat 0 (Hana) resigned: a loss
    for seat, name in enumerate(("Hana", "Ivo")):
        p = client.get(f"/api/players/{name}").json()
        assert p["rating"] == pytest.approx(want[seat].rating, abs=0.05)
        assert p["recent"][0]["result"] == ("loss" if seat == 0 else "win")


def test_a_spectator_never_sees_a_hidden_card(client: TestClient) -> None:
    """R11 for spectators: at every step of a public match, the watch payload holds no
    card of either hand in play and no stock card; it runs a few moves behind."""
    m = create(client, opponent="friend", public=True)
    mid, tokens = m["id"], [m["token"], invite_token(client, m)]
    payloads: list[dict[str, Any]] = []

    def watch() -> None:
        r = client.get(f"/api/matches/{mid}/watch")
        assert r.status_code == 200, r.text
        payloads.append(r.json())

    play_to_end([client, client], mid, tokens, after_move=watch)
    rec = site(client).registry.tables[mid].match.to_record()
    checker = LeakChecker(rec)
    behind = 0
    for p in payloads:
        assert "seed" not in repr(p) and p["spectator"] is True
        hi, k = p["hand_index"], len(p["history"])
        bad = checker.forbidden(0, hi, k) | checker.forbidden(1, hi, k)
        if p["hand_over"] is None:
            hand = checker._hand_at(hi, k)
            bad |= {str(c) for c in hand.cards_of(0)} | {str(c) for c in hand.cards_of(1)}
            public = {e["card"] for e in p["history"] if "card" in e} | set(p["discards"])
            bad -= public
        leaked = card_strings(p) & bad
        assert not leaked, f"spectator shown {sorted(leaked)}"
        behind = max(behind, p["behind"])
    assert behind == 2 and len(payloads) > 20
    # a private table cannot be watched; an unknown one looks the same
    priv = create(client, opponent="friend")
    assert client.get(f"/api/matches/{priv['id']}/watch").json() == {
        "error": "No public match has this id."}
    assert client.get("/api/matches/nope/watch").status_code == 404
    assert state(client, mid, tokens[0])["status"] == "finished"
    assert auth  # (imported for symmetry with the other API tests)


def test_a_quick_match_always_has_a_clock(client: TestClient) -> None:
    """Quick matches are timed (issue: strangers must not stall each other): a seek with no
    clock gets the default one, a seek's own clock reaches the match, and seeks pair only
    with the same clock."""
    seek = client.post("/api/seeks", json={"target": 200}).json()["seek"]
    r = client.post("/api/seeks", json={"target": 200, "clock": None})  # null: the default
    assert r.status_code == 200, r.text
    mine = r.json()["match"]
    assert wait_paired(client, seek)["id"] == mine["id"]
    clock = state(client, mine["id"], mine["token"])["clock"]
    assert clock is not None and clock["move"] == QUICK_CLOCK.move
    assert clock["bank"] == [QUICK_CLOCK.bank, QUICK_CLOCK.bank]
    assert clock["deadline"] > time.time()  # running from the start: both seats are there

    fast = {"move": 5, "bank": 30}
    waiting = client.post("/api/seeks", json={"clock": fast}).json()["seek"]
    assert "seek" in client.post("/api/seeks", json={}).json()  # the default clock: apart
    r = client.post("/api/seeks", json={"clock": fast})
    assert r.status_code == 200, r.text
    mine = r.json()["match"]
    assert wait_paired(client, waiting)["id"] == mine["id"]
    clock = state(client, mine["id"], mine["token"])["clock"]
    assert clock["move"] == 5 and clock["bank"] == [30, 30]

    r = client.post("/api/seeks", json={"clock": {"move": 0}})
    assert r.status_code == 400
    assert r.json()["error"] == ("The clock's 'move' must be a whole number of seconds from 1 "
                                 "to 600, not 0.")


def test_a_spectator_sees_the_live_clocks_and_how_it_ended(client: TestClient) -> None:
    """The moves are shown behind, the clocks as they are (a clock shows no card); a
    resignation is told with who resigned."""
    c = create(client, opponent="friend", public=True, clock={"move": 20, "bank": 60})
    mid = c["id"]
    tokens = [c["token"], invite_token(client, c)]
    w = client.get(f"/api/matches/{mid}/watch").json()
    live = state(client, mid, tokens[0])
    assert w["clock"]["move"] == 20 and w["clock"]["bank"] == [60, 60]
    assert w["clock"]["deadline"] == live["clock"]["deadline"] > time.time()
    assert w["clock"]["to_play"] == live["view"]["to_play"]
    both_move(client, mid, tokens)
    r = client.post(f"/api/matches/{mid}/resign", headers=auth(tokens[1]))
    assert r.status_code == 200, r.text
    w = client.get(f"/api/matches/{mid}/watch").json()
    assert (w["status"], w["end"], w["ended_by"], w["winner"]) == ("finished", "resigned", 1, 0)
    assert w["clock"]["deadline"] is None and w["clock"]["to_play"] is None


def test_an_account_plays_its_seat_from_another_browser(client: TestClient) -> None:
    """No seat link in this browser: the session cookie is the seat (a change needs its
    CSRF token), over HTTP and the socket; another account has no seat there."""
    m, tokens = _rated_pair(client)  # seat 0 Hana, seat 1 Ivo
    mid = m["id"]
    _as(client, None)
    r = client.post("/api/session", json={"username": "hana", "password": "correct horse"})
    assert r.status_code == 200, r.text
    csrf = r.json()["csrf"]
    s = client.get(f"/api/matches/{mid}").json()  # no Authorization header: the cookie
    assert s["seat"] == 0 and s["view"]["hand"] == state(client, mid, tokens[0])["view"]["hand"]
    with client.websocket_connect(f"/api/matches/{mid}/ws") as ws:
        ws.send_json({"type": "auth", "session": True})
        msg = ws.receive_json()
        assert msg["type"] == "state" and msg["state"]["seat"] == 0
    seat = s["view"]["to_play"]
    mover = tokens[seat]
    if seat == 0:  # Hana to move: through her session alone
        legal = s["legal"][0]
        r = client.post(f"/api/matches/{mid}/actions", json={"action": legal,
                                                             "version": s["version"]})
        assert r.status_code == 403 and "CSRF" in r.json()["error"]  # nothing changed
        assert state(client, mid, mover)["version"] == s["version"]
        r = client.post(f"/api/matches/{mid}/actions", headers={"X-CSRF-Token": csrf},
                        json={"action": legal, "version": s["version"]})
        assert r.status_code == 200 and r.json()["version"] == s["version"] + 1, r.text
    r = client.post(f"/api/matches/{mid}/resign", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200 and r.json()["ended_by"] == 0  # Hana's seat, not Ivo's
    sign_up(client, "Zoe")  # an account with no seat at this match
    r = client.get(f"/api/matches/{mid}")
    assert r.status_code == 403 and "no seat at this match" in r.json()["error"]
    _as(client, None)
    assert client.get(f"/api/matches/{mid}").status_code == 401  # a guest with no link


def test_the_spectators_to_play_is_the_clocks(client: TestClient) -> None:
    """Issue 36: the spectator's "X to play" named the wrong player in 291 of 305 states
    (worked out at the position shown behind, the clock at the live one). Both come from
    the live position: at every step the watch view's ``to_play`` is the clock's and the
    seat that is to play."""
    c = create(client, opponent="friend", public=True, clock={"move": 60, "bank": 60})
    mid = c["id"]
    tokens = [c["token"], invite_token(client, c)]
    seen = {"behind": 0, "steps": 0}

    def watch() -> None:
        w = client.get(f"/api/matches/{mid}/watch").json()
        s = state(client, mid, tokens[0])
        if w["status"] == "finished":
            return
        live = s["view"]["to_play"] if s["hand_over"] is None else None
        assert w["to_play"] == live, (w["to_play"], live, w["behind"])
        assert w["clock"]["to_play"] == live
        seen["behind"] = max(seen["behind"], w["behind"])
        seen["steps"] += 1

    play_to_end([client, client], mid, tokens, after_move=watch)
    assert seen["behind"] == 2 and seen["steps"] > 20


def test_guests_get_distinct_names(client: TestClient) -> None:
    """Issue 36: both quick-match guests were "Guest" ("Guest | Guest", "Guest wins the
    match"). A guest plays under the name its seek gives, else "Guest" and four digits;
    the two seats never share a name (an account keeps its username)."""
    names = []
    for _ in range(3):
        seek = client.post("/api/seeks", json={}).json()["seek"]
        mine = client.post("/api/seeks", json={}).json()["match"]
        wait_paired(client, seek)
        names.append(state(client, mine["id"], mine["token"])["players"])
    for a, b in names:
        assert a != b and all(re.fullmatch(r"Guest \d{4}", n) for n in (a, b)), (a, b)
    seek = client.post("/api/seeks", json={"name": "Ann"}).json()["seek"]
    mine = client.post("/api/seeks", json={"name": " ann "}).json()["match"]
    wait_paired(client, seek)
    assert state(client, mine["id"], mine["token"])["players"] == ["Ann", "ann (2)"]
    r = client.post("/api/seeks", json={"name": "x" * 31})
    assert r.status_code == 400
    assert r.json()["error"] == "A name is at most 30 printable characters."
    # an account plays under its username; a guest who chose it gives way
    sign_up(client, "Rex")
    cookie = client.cookies[COOKIE]
    _as(client, None)
    seek = client.post("/api/seeks", json={"name": "Rex"}).json()["seek"]
    _as(client, cookie)
    mine = client.post("/api/seeks", json={"name": "Other"},
                       headers={"Origin": "http://testserver"}).json()["match"]
    _as(client, None)
    wait_paired(client, seek)
    assert state(client, mine["id"], mine["token"])["players"] == ["Rex (2)", "Rex"]


def test_a_seek_answers_its_seeker_only_and_its_seat_token_is_random(client: TestClient
                                                                     ) -> None:
    """Issue 44 item 4: the seek's id is in a URL polled every second (so in access logs);
    whoever reads it must get neither the seat nor a way to compute it."""
    seek = client.post("/api/seeks", json={"target": 250}).json()["seek"]
    seeker = client.cookies.get(SEEKER_COOKIE, path="/api/seeks")
    assert seeker
    client.cookies.clear()  # a log reader: the id, nothing else
    assert client.get(f"/api/seeks/{seek}").status_code == 404
    assert client.delete(f"/api/seeks/{seek}").status_code == 404  # and it cannot cancel it
    mine = client.post("/api/seeks", json={"target": 250}).json()["match"]  # another guest
    client.cookies.clear()
    r = client.get(f"/api/seeks/{seek}")
    assert r.status_code == 404 and "match" not in r.text
    # the token the old scheme derived from the id opens nothing
    derived = base64.urlsafe_b64encode(
        hashlib.sha256(b"ginrummy-seek-seat:" + seek.encode()).digest()).decode().rstrip("=")
    assert client.get(f"/api/matches/{mine['id']}", headers=auth(derived)).status_code == 403
    # the seeker reads it: by its cookie, or a program by the X-Seeker header
    theirs = wait_paired(client, seek, headers={"X-Seeker": seeker})
    assert theirs["id"] == mine["id"] and theirs["token"] != derived
    assert state(client, mine["id"], theirs["token"])["seat"] == 0
    client.cookies.set(SEEKER_COOKIE, seeker, path="/api/seeks")
    assert wait_paired(client, seek)["token"] == theirs["token"]
    with site(client).store.engine.connect() as conn:
        rows = conn.execute(seeks_table.select()).all()
    assert all(theirs["token"] not in repr(tuple(r)) for r in rows)


def test_a_stale_pairing_gives_its_match_up(client: TestClient,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44 item 8: a process that stalled past the take's life made a second match
    from one seek (its pairing was written without checking the take was still its own).
    Here another process takes both seeks while this one is making the match: this one's
    match is aborted, linked to nobody, and the seeker is told to wait."""
    s = site(client)
    seek = client.post("/api/seeks", json={"target": 150, "oklahoma": True}).json()["seek"]
    made: list[str] = []
    real = s.lobby.claim_seat

    async def stalled(t: Any, name: str, token: str | None = None) -> Any:
        made.append(t.id)
        with s.store.engine.begin() as conn:  # meanwhile another process took both seeks
            conn.execute(update(seeks_table).values(taken_by="elsewhere"))
        return await real(t, name, token=token)

    monkeypatch.setattr(s.lobby, "claim_seat", stalled)
    r = client.post("/api/seeks", json={"target": 150, "oklahoma": True})
    assert r.status_code == 201 and r.json()["status"] == "waiting", r.text
    assert len(made) == 1
    t = s.registry.tables[made[0]]
    assert t.match.is_over() and t.stored.end_reason == "aborted"
    links = s.store.accounts.links(made)
    assert links == {}
    assert client.get(f"/api/seeks/{seek}").json()["status"] != "paired"
