"""Challenges and open links (docs/web-api.md, "Challenges"), on SQLite: made, pushed to
the challenged player's notice socket, accepted once into a match made like a quick
match's (rated ones move both ratings), declined with a reason, cancelled, expired; the
computer's levels accept at once and are rated like anyone; bad requests are one sentence
and change nothing."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from starlette.websockets import WebSocketDisconnect

from ginrummy.ratings import DEFAULT
from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.online import challenges as challenges_module
from ginrummy.web.online.challenges import DECLINE_REASONS, MAX_OPEN
from ginrummy.web.online.fairplay import rated_result
from ginrummy.web.store import hash_token
from ginrummy.web.store.schema import challenges_table, matches_table

from .conftest import site, state
from .online import play_to_end, quick_move, sign_up


class Player:
    """One account's browser on the shared test client (its cookie and CSRF token)."""

    def __init__(self, c: TestClient, name: str) -> None:
        self.c = c
        c.cookies.clear()
        self.name = name
        self.csrf = sign_up(c, name)["csrf"]
        self.cookie = c.cookies[COOKIE]

    def _use(self) -> None:
        self.c.cookies.clear()
        self.c.cookies.set(COOKIE, self.cookie)

    def post(self, path: str, body: Any = None) -> Any:
        self._use()
        return self.c.post(path, json=body, headers={"X-CSRF-Token": self.csrf})

    def get(self, path: str) -> Any:
        self._use()
        return self.c.get(path)

    def delete(self, path: str) -> Any:
        self._use()
        return self.c.delete(path, headers={"X-CSRF-Token": self.csrf})


def guest(c: TestClient) -> TestClient:
    c.cookies.clear()
    return c


def count(c: TestClient, table: Any) -> int:
    with site(c).store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar() or 0)


def test_a_challenge_is_accepted_into_a_match_with_its_options(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    r = ann.post("/api/challenges", {"to": "bob", "target": 150, "gin_only": True,
                                     "clock": {"move": 10, "bank": 60}})
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["status"] == "open" and made["url"] == f"/challenge/{made['challenge']}"
    cid = made["challenge"]
    inbox = bob.get("/api/challenges").json()
    assert [c["id"] for c in inbox["in"]] == [cid] and inbox["out"] == []
    seen = inbox["in"][0]
    assert seen["from"] == "Ann" and seen["to"] == "Bob" and seen["rated"] is False
    assert seen["options"] == {"target": 150, "gin_only": True, "oklahoma": False}
    assert seen["clock"] == {"move": 10, "bank": 60} and "match" not in seen
    assert [c["id"] for c in ann.get("/api/challenges").json()["out"]] == [cid]
    r = bob.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 200, r.text
    mine = r.json()["match"]
    assert set(mine) == {"id", "seat", "token", "url"} and mine["seat"] == 1
    theirs = ann.get(f"/api/challenges/{cid}").json()
    assert theirs["status"] == "accepted" and theirs["match"]["seat"] == 0
    assert theirs["match"]["token"] == made["token"]  # the token given when it was made
    s0 = state(client, mine["id"], theirs["match"]["token"])
    s1 = state(client, mine["id"], mine["token"])
    assert s0["players"] == s1["players"] == ["Ann", "Bob"] and s0["status"] == "playing"
    assert s0["options"] == {"target": 150, "gin_only": True, "oklahoma": False}
    assert s0["clock"]["move"] == 10 and s0["clock"]["bank"] == [60, 60]
    assert s0["bots"] == [False, False]
    # the acceptor does not see the challenger's token; a casual match is private
    assert "match" not in bob.get(f"/api/challenges/{cid}").json()
    assert client.get(f"/api/matches/{mine['id']}/watch").status_code == 404
    assert bob.get("/api/challenges").json()["in"] == []
    # the challenger's seat token is kept only as a hash and sealed with the seed key
    with site(client).store.engine.connect() as conn:
        rows = conn.execute(select(challenges_table)).all()
    assert made["token"] not in repr([tuple(r) for r in rows])
    # accepted once
    r = bob.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 409 and r.json()["error"] == "This challenge has already been accepted."


def test_a_rated_challenge_counts_like_any_rated_match(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    cid = ann.post("/api/challenges", {"to": "Bob", "rated": True}).json()["challenge"]
    mine = bob.post(f"/api/challenges/{cid}/accept").json()["match"]
    theirs = ann.get(f"/api/challenges/{cid}").json()["match"]
    assert mine["id"] in [m["id"] for m in client.get("/api/live").json()["matches"]]
    guest(client)
    end = play_to_end([client, client], mine["id"], [theirs["token"], mine["token"]])
    want = rated_result(DEFAULT, DEFAULT, 1.0 if end["winner"] == 0 else 0.0)  # fair-play rules
    deadline = time.monotonic() + 10
    for seat, name in enumerate(("Ann", "Bob")):
        while True:
            p = client.get(f"/api/players/{name}").json()
            if p["history"] or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert p["rating"] == pytest.approx(want[seat].rating, abs=0.05)
        assert [h["match"] for h in p["history"]] == [mine["id"]]


def test_decline_with_a_reason_cancel_and_expiry(client: TestClient,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    cid = ann.post("/api/challenges", {"to": "Bob"}).json()["challenge"]
    r = bob.post(f"/api/challenges/{cid}/decline", {"reason": "busy"})
    assert r.status_code == 400 and r.json()["error"].startswith("Unknown reason 'busy'")
    assert ann.post(f"/api/challenges/{cid}/decline", {"reason": "later"}).status_code == 403
    r = bob.post(f"/api/challenges/{cid}/decline", {"reason": "later"})
    assert r.status_code == 200
    assert r.json() == {"status": "declined", "reason": "later",
                        "text": DECLINE_REASONS["later"]}
    out = ann.get("/api/challenges").json()["out"][0]
    assert out["status"] == "declined" and out["reason_text"] == DECLINE_REASONS["later"]
    r = bob.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 409 and r.json()["error"] == "This challenge was declined."
    # cancelled by its maker, and only by its maker
    cid = ann.post("/api/challenges", {"to": "Bob"}).json()["challenge"]
    r = bob.delete(f"/api/challenges/{cid}")
    assert r.status_code == 403 and r.json()["error"] == (
        "Only the challenger may cancel this challenge.")
    assert ann.delete(f"/api/challenges/{cid}").json() == {"status": "cancelled"}
    r = bob.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 410 and r.json()["error"] == (
        "The challenger cancelled this challenge.")
    # expired: never accepted, gone from the lists
    monkeypatch.setattr(challenges_module, "DIRECT_TTL", 2.0)
    cid = ann.post("/api/challenges", {"to": "Bob"}).json()["challenge"]
    assert [c["id"] for c in bob.get("/api/challenges").json()["in"]] == [cid]
    time.sleep(2.1)
    assert bob.get("/api/challenges").json()["in"] == []
    r = bob.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 410 and r.json()["error"] == "This challenge has expired."
    assert ann.get(f"/api/challenges/{cid}").json()["status"] == "expired"
    assert count(client, matches_table) == 0


def test_bad_challenges_are_one_sentence_and_change_nothing(client: TestClient) -> None:
    ann = Player(client, "Ann")
    Player(client, "Bob")
    cases: list[tuple[Any, int, str]] = [
        ({"to": "Ann"}, 400, "You cannot challenge yourself."),
        ({"to": "nobody"}, 404, "No player has that username."),
        ({"to": "a b"}, 400, "A username is 3 to 20 characters"),
        ({"to": 7}, 400, "'to' is a username, or null for an open link."),
        ({"to": "Bob", "target": 120}, 400, "The target must be 100, 150, 200 or 250"),
        ({"to": "Bob", "clock": {"move": 0, "bank": 10}}, 400, "The clock"),
        ({"to": "Bob", "rated": "yes"}, 400, "'rated' is true or false."),
        ({"to": "Bob", "colour": "red"}, 400, "Unknown field 'colour'."),
        ([1, 2], 400, "The request body must be a JSON object."),
    ]
    for body, status, text in cases:
        r = ann.post("/api/challenges", body)
        assert r.status_code == status and r.json()["error"].startswith(text), (body, r.text)
    # guests: no challenge to a person, no rated one
    guest(client)
    for body, text in (({"to": "Bob"}, "Challenging a player needs an account"),
                       ({"rated": True}, "Rated matches need an account")):
        r = client.post("/api/challenges", json=body)
        assert r.status_code == 401 and r.json()["error"].startswith(text)
    # without the CSRF token the session changes nothing
    ann._use()
    assert client.post("/api/challenges", json={"to": "Bob"}).status_code == 403
    assert count(client, challenges_table) == 0
    # one at a time to the same player, and at most MAX_OPEN open
    assert ann.post("/api/challenges", {"to": "Bob"}).status_code == 201
    r = ann.post("/api/challenges", {"to": "Bob"})
    assert r.status_code == 409 and r.json()["error"] == (
        "You have already challenged Bob: wait for an answer, or cancel that challenge "
        "first.")
    for _ in range(MAX_OPEN - 1):
        assert ann.post("/api/challenges", {}).status_code == 201
    r = ann.post("/api/challenges", {})
    assert r.status_code == 429 and r.json()["error"].startswith(f"You have {MAX_OPEN} open")
    assert count(client, challenges_table) == MAX_OPEN
    # unknown ids
    for path in ("/api/challenges/nope/accept", "/api/challenges/nope/decline"):
        r = ann.post(path)
        assert r.status_code == 404 and r.json()["error"] == "No challenge has this id."


def test_a_player_is_not_flooded_with_challenges(client: TestClient) -> None:
    """Issue 44 item 8: 25 accounts each had an open challenge to one victim, and one
    challenger's create-and-cancel loop pushed 40 notices in 1.1 s. A player has at most
    MAX_INCOMING open challenges from everyone together, and one challenger may send one
    player at most PAIR_PER_MINUTE a minute, cancelled ones too: past either, 429 with a
    sentence, and nothing is stored."""
    from ginrummy.web.online.challenges import MAX_INCOMING, PAIR_PER_MINUTE

    vic = Player(client, "Vic")
    crowd = [Player(client, f"Fan{i}") for i in range(MAX_INCOMING + 2)]
    for p in crowd[:MAX_INCOMING]:
        assert p.post("/api/challenges", {"to": "vic"}).status_code == 201
    for p in crowd[MAX_INCOMING:]:
        r = p.post("/api/challenges", {"to": "vic"})
        assert r.status_code == 429 and r.json()["error"] == (
            f"Vic has {MAX_INCOMING} open challenges waiting already: try again once they "
            "have answered some."), r.text
    assert len(vic.get("/api/challenges").json()["in"]) == MAX_INCOMING
    first = vic.get("/api/challenges").json()["in"][0]["id"]
    assert vic.post(f"/api/challenges/{first}/decline").status_code == 200
    assert crowd[-1].post("/api/challenges", {"to": "vic"}).status_code == 201  # room again
    ann = Player(client, "Ann")
    Player(client, "Bob")
    for _ in range(PAIR_PER_MINUTE):
        r = ann.post("/api/challenges", {"to": "bob"})
        assert r.status_code == 201, r.text
        assert ann.delete(f"/api/challenges/{r.json()['challenge']}").status_code == 200
    before = count(client, challenges_table)
    r = ann.post("/api/challenges", {"to": "bob"})
    assert r.status_code == 429 and r.json()["error"] == (
        f"You have challenged Bob {PAIR_PER_MINUTE} times in the last minute: wait a "
        "minute before challenging them again."), r.text
    assert count(client, challenges_table) == before
    assert Player(client, "Cid").post("/api/challenges", {"to": "bob"}).status_code == 201


def test_an_open_link_for_guests_is_accepted_once(client: TestClient) -> None:
    guest(client)
    r = client.post("/api/challenges", json={"target": 100})
    assert r.status_code == 201, r.text
    link = r.json()
    cid, maker_token = link["challenge"], link["token"]
    shown = client.get(f"/api/challenges/{cid}").json()  # anyone with the link sees it
    assert shown["from"] == "Guest" and shown["to"] is None and "match" not in shown
    # the guest maker is known by its token; nobody else may cancel
    r = client.delete(f"/api/challenges/{cid}")
    assert r.status_code == 403
    bob = Player(client, "Bob")
    r = bob.post(f"/api/challenges/{cid}/decline")
    assert r.status_code == 400 and r.json()["error"].startswith("An open link cannot be")
    mine = bob.post(f"/api/challenges/{cid}/accept").json()["match"]
    guest(client)
    again = client.post(f"/api/challenges/{cid}/accept")
    assert again.status_code == 409
    theirs = client.get(f"/api/challenges/{cid}",
                        headers={"Authorization": f"Bearer {maker_token}"}).json()["match"]
    assert theirs["id"] == mine["id"] and theirs["token"] == maker_token
    assert state(client, mine["id"], mine["token"])["players"] == ["Guest", "Bob"]
    # a rated open link: a guest may not take it, the maker may not take its own
    ann = Player(client, "Ann")
    cid = ann.post("/api/challenges", {"rated": True}).json()["challenge"]
    r = ann.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 400 and r.json()["error"] == "You cannot accept your own challenge."
    guest(client)
    r = client.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 401 and r.json()["error"].startswith("Rated matches need")
    assert bob.post(f"/api/challenges/{cid}/accept").status_code == 200


def test_a_direct_challenge_is_private_to_its_two_players(client: TestClient) -> None:
    ann, bob, cleo = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Cleo")
    cid = ann.post("/api/challenges", {"to": "Bob"}).json()["challenge"]
    assert cleo.get(f"/api/challenges/{cid}").status_code == 404
    r = cleo.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 403 and r.json()["error"] == "This challenge is for another player."
    assert bob.get(f"/api/challenges/{cid}").json()["status"] == "open"


def test_a_level_accepts_at_once_and_is_rated_like_anyone(client: TestClient) -> None:
    ann = Player(client, "Ann")
    r = ann.post("/api/challenges", {"to": "easy", "rated": True, "target": 100})
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["status"] == "accepted" and made["match"]["seat"] == 0
    mid, token = made["match"]["id"], made["match"]["token"]
    assert ann.get(f"/api/challenges/{made['challenge']}").json()["match"]["id"] == mid
    s = state(client, mid, token)
    assert s["bots"] == [False, True] and s["opponent"] == "computer"
    guest(client)
    for _ in range(3000):  # the person plays quick moves; the computer answers
        s = state(client, mid, token)
        if s["status"] == "finished":
            break
        if s["hand_over"] is not None and not s["hand_over"]["ready"][0]:
            client.post(f"/api/matches/{mid}/next", json={"version": s["version"]},
                        headers={"Authorization": f"Bearer {token}"})
        elif s["my_turn"]:
            client.post(f"/api/matches/{mid}/actions",
                        json={"action": quick_move(s), "version": s["version"]},
                        headers={"Authorization": f"Bearer {token}"})
        else:
            time.sleep(0.005)
    assert s["status"] == "finished" and s["winner"] in (0, 1)
    deadline = time.monotonic() + 10
    while not client.get("/api/players/easy").json()["history"]:
        assert time.monotonic() < deadline, "the match was not rated"
        time.sleep(0.05)
    level = client.get("/api/players/easy").json()
    assert level["rated_matches"] == 1 and level["record"][0]["opponent"] == "Ann"
    assert level["history"][0]["match"] == mid and level["rating"] != 910.0  # from 910
    board = client.get("/api/leaderboard").json()
    assert board["bots"]["easy"] == round(level["rating"])
    me = client.get("/api/players/Ann").json()
    assert me["record"] == [{"opponent": "easy", "bot": True,
                             "wins": int(s["winner"] == 0), "ties": 0,
                             "losses": int(s["winner"] == 1)}]
    # a guest challenges a level casually, never rated
    r = client.post("/api/challenges", json={"to": "medium"})
    assert r.status_code == 201 and r.json()["status"] == "accepted"
    r = client.post("/api/challenges", json={"to": "medium", "rated": True})
    assert r.status_code == 401


def test_the_notice_socket_shows_a_challenge_at_once(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    bob._use()
    with client.websocket_connect("/api/me/ws") as ws:
        ws.send_json({"type": "auth", "session": True})
        first = ws.receive_json()
        assert first == {"type": "notices", "in": [], "out": [], "playing": [], "arenas": []}
        cid = ann.post("/api/challenges", {"to": "Bob", "rated": True}).json()["challenge"]
        pushed = ws.receive_json()
        assert [c["id"] for c in pushed["in"]] == [cid] and pushed["in"][0]["from"] == "Ann"
        ann.delete(f"/api/challenges/{cid}")
        assert ws.receive_json()["in"] == []
        cid = ann.post("/api/challenges", {"to": "Bob"}).json()["challenge"]
        assert [c["id"] for c in ws.receive_json()["in"]] == [cid]
        mine = bob.post(f"/api/challenges/{cid}/accept").json()["match"]
        after = ws.receive_json()
        assert after["in"] == [] and after["playing"] == [{"id": mine["id"], "seat": 1}]
    guest(client)
    with client.websocket_connect("/api/me/ws") as ws:
        ws.send_json({"type": "auth", "session": True})
        assert ws.receive_json() == {"type": "error", "status": 401,
                                     "message": "You are not logged in."}


def test_logging_out_closes_the_notice_socket_at_once(client: TestClient) -> None:
    """Issue 44 item 8: after a log-out the notice socket lived until the next periodic
    pass (up to 10 s) and was still pushed the account's challenges meanwhile. Logging
    out closes it at once (4401): a challenge made right after reaches it no more."""
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    bob._use()
    with client.websocket_connect("/api/me/ws") as ws:
        ws.send_json({"type": "auth", "session": True})
        assert ws.receive_json()["type"] == "notices"
        bob._use()
        r = client.delete("/api/session", headers={"X-CSRF-Token": bob.csrf})
        assert r.json()["ended"] == 1
        assert ann.post("/api/challenges", {"to": "Bob"}).status_code == 201
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_json()  # the close comes first: no push of the challenge
        assert e.value.code == 4401 and e.value.reason == "You are logged out."


def test_a_seat_token_is_never_pushed_to_a_socket_whose_session_ended(
        client: TestClient) -> None:
    """The log-out's news may never reach a process (the broker away): before a push that
    carries a seat token (the challenger's accepted challenge names its match and seat
    token), the socket's session is read again, and a socket whose session ended is
    closed instead of being handed the token."""
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    ann._use()
    with client.websocket_connect("/api/me/ws") as ws:
        ws.send_json({"type": "auth", "session": True})
        assert ws.receive_json()["type"] == "notices"
        cid = ann.post("/api/challenges", {"to": "Bob"}).json()["challenge"]
        assert [c["id"] for c in ws.receive_json()["out"]] == [cid]
        ended = client.portal.call(  # type: ignore[union-attr]
            site(client).db.run, site(client).store.accounts.end_session,
            hash_token(ann.cookie), False)  # no notice of it: as if on another process
        assert ended == 1
        r = bob.post(f"/api/challenges/{cid}/accept")
        assert r.status_code == 200, r.text
        with pytest.raises(WebSocketDisconnect) as e:
            while True:
                msg = ws.receive_json()
                assert all("match" not in c for c in msg.get("out", ())), msg
        assert e.value.code == 4401


def test_a_notice_socket_closes_once_its_session_ends(client: TestClient) -> None:
    bob = Player(client, "Bob")
    bob._use()
    with client.websocket_connect("/api/me/ws") as ws:
        ws.send_json({"type": "auth", "session": True})
        assert ws.receive_json()["type"] == "notices"
        r = client.delete("/api/session?all=1", headers={"X-CSRF-Token": bob.csrf})
        assert r.json()["ended"] == 1
        client.portal.call(site(client).notices.close_stale)  # the periodic pass
        with pytest.raises(WebSocketDisconnect) as e:
            while True:
                ws.receive_json()
        assert e.value.code == 4401 and e.value.reason == "You are logged out."
