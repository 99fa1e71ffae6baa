"""What a browser asks about its own player (routes/mine.py): who is signed in, without a
refusal for a guest, and a signed-in account's matches and record on any device."""

from __future__ import annotations

from fastapi.testclient import TestClient

from ginrummy.web.accounts.accounts import COOKIE

from .conftest import create, invite_token, state
from .online import play_to_end, sign_up

SAME = {"Origin": "http://testserver"}


def test_a_guest_is_told_it_is_a_guest_without_a_refusal(client: TestClient) -> None:
    """Issue 36: every guest page logged a 401 (GET /api/me). GET /api/session answers a
    guest with 200 and no account; signed in, the account and its CSRF token."""
    r = client.get("/api/session")
    assert r.status_code == 200 and r.json() == {"account": None}
    client.cookies.set(COOKIE, "not-a-session")
    assert client.get("/api/session").json() == {"account": None}
    client.cookies.clear()
    made = sign_up(client, "Mira")
    got = client.get("/api/session").json()["account"]
    assert got["username"] == "Mira" and got["csrf"] == made["csrf"]
    assert client.get("/api/me").json() == got  # the same object as GET /api/me


def test_an_account_finds_its_matches_and_record_on_a_new_device(client: TestClient) -> None:
    """Issue 36: signed in on a new device, the lobby said "No finished matches yet" for an
    account with matches. The account's matches (open and finished) and its record come
    from its session alone, each table linked without a token (the session is the seat)."""
    sign_up(client, "Nina")
    cookie = client.cookies[COOKIE]
    done = client.post("/api/matches", json={"opponent": "friend", "name": "Nina"},
                       headers=SAME).json()
    tokens = [done["token"], invite_token(client, done)]
    play_to_end([client, client], done["id"], tokens)
    open_ = client.post("/api/matches", json={"opponent": "computer", "bot": "easy"},
                        headers=SAME).json()
    guest = create(client, opponent="computer", bot="easy")  # not in the account (no CSRF)
    # a new device: no seat token anywhere, only the session
    client.cookies.clear()
    assert client.get("/api/me/matches").status_code == 401
    client.cookies.set(COOKIE, cookie)
    ms = client.get("/api/me/matches").json()["matches"]
    assert {(m["id"], m["seat"]) for m in ms} == {(done["id"], 0), (open_["id"], 0)}
    assert ms[0]["id"] == open_["id"]  # the most recently changed first
    by_id = {m["id"]: m for m in ms}
    assert by_id[done["id"]]["status"] == "finished"
    assert by_id[open_["id"]]["url"] == f"/play/{open_['id']}"  # no token: the session
    assert all("#token" not in m["url"] for m in ms)
    assert set(ms[0]) == {"id", "seat", "url", "players", "bots", "opponent", "bot", "options",
                          "status", "scores", "winner", "end", "hands", "my_turn",
                          "next_hand", "created_at", "updated_at"}
    assert client.get(f"/api/matches/{open_['id']}").json()["seat"] == 0  # the link works
    rec = client.post("/api/me/record").json()
    assert [m["id"] for m in rec["matches"]] == [done["id"]] and rec["summary"]["played"] == 1
    # with this browser's tokens too: one record, each seat counted once
    both = client.post("/api/me/record", json={"tokens": [tokens[0], guest["token"]]}).json()
    assert [m["id"] for m in both["matches"]] == [done["id"]]
    assert client.post("/api/me/record", json={"tokens": "x"}).status_code == 400
    assert state(client, guest["id"], guest["token"])["seat"] == 0
