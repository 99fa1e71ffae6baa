"""Friends, blocks, privacy and presence on SQLite (issue 45 items 3 to 5; INTERFACES
section 14): following and the friends list with who is online and playing, player search
by name prefix, blocks that keep two accounts from challenging, following or meeting each
other without saying so, the settings, and bad input answered with one sentence."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from .test_challenges import Player, guest
from .test_chat import public_match


def _online_socket(c: TestClient, p: Player) -> Any:
    """``p``'s notice socket, as every page of a signed-in player opens it."""
    p._use()
    ws = c.websocket_connect("/api/me/ws", headers={"Origin": "http://testserver"})
    ws.__enter__()
    ws.send_json({"type": "auth", "session": True})
    assert ws.receive_json()["type"] == "notices"
    return ws


def _following(p: Player) -> list[dict[str, Any]]:
    r = p.get("/api/me/following")
    assert r.status_code == 200, r.text
    out: list[dict[str, Any]] = r.json()["following"]
    return out


def test_follow_a_player_and_see_them_online_and_playing(client: TestClient) -> None:
    ann, bob, cat = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Cat")
    assert ann.post("/api/follow/BOB").json() == {"username": "Bob", "following": True}
    assert ann.post("/api/follow/bob").status_code == 200  # twice: still once
    assert [f["username"] for f in _following(ann)] == ["Bob"]
    assert _following(ann)[0]["online"] is False and _following(ann)[0]["playing"] is None
    ws = _online_socket(client, bob)
    try:
        assert _following(ann)[0]["online"] is True
        assert ann.get("/api/players/bob").json()["online"] is True
        assert ann.get("/api/players/bob").json()["following"] is True
        bob.post("/api/me/settings", {"hide_online": True})  # hidden: never shown online
        assert _following(ann)[0]["online"] is False
        bob.post("/api/me/settings", {"hide_online": False})
    finally:
        ws.__exit__(None, None, None)
    deadline = time.monotonic() + 5
    while _following(ann)[0]["online"]:  # offline once the socket closed
        assert time.monotonic() < deadline
        time.sleep(0.05)
    mid, _, _ = public_match(client, bob, cat)
    assert _following(ann)[0]["playing"] == mid  # a public match: watch it
    assert ann.delete("/api/follow/bob").json()["following"] is False
    assert _following(ann) == []


def test_search_players_by_name_prefix(client: TestClient) -> None:
    for name in ("Anna", "annie", "Annabel", "Bob"):
        Player(client, name)
    r = guest(client).get("/api/players?search=ANN")
    assert r.status_code == 200
    assert [p["username"] for p in r.json()["players"]] == ["Anna", "Annabel", "annie"]
    assert all(set(p) >= {"username", "rating", "online"} for p in r.json()["players"])
    assert guest(client).get("/api/players?search=zz").json()["players"] == []
    assert guest(client).get("/api/players?search=a%25").status_code == 400  # no wildcards
    for bad in ("", "%00", "x" * 21, "a b", "%ED%A0%80"):
        r = guest(client).get(f"/api/players?search={bad}")
        assert r.status_code == 400 and r.json()["error"], bad


def test_a_block_keeps_them_apart_and_says_only_no(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    assert bob.post("/api/follow/ann").status_code == 200
    assert ann.post("/api/block/bob").json() == {"username": "Bob", "blocked": True}
    assert ann.get("/api/me/blocks").json() == {"blocks": [{"username": "Bob"}]}
    assert _following(bob) == []  # a block ends the follows between them
    r = bob.post("/api/challenges", {"to": "ann"})
    assert r.status_code == 403 and "block" not in r.json()["error"].lower()
    r = bob.post("/api/follow/ann")
    assert r.status_code == 403 and "block" not in r.json()["error"].lower()
    assert ann.post("/api/follow/bob").status_code == 409  # the blocker is told why
    # an open link of the blocker's is not for the blocked
    cid = ann.post("/api/challenges", {}).json()["challenge"]
    assert bob.post(f"/api/challenges/{cid}/accept").status_code == 403
    assert ann.get("/api/players/bob").json()["blocked"] is True
    assert ann.delete("/api/block/bob").json()["blocked"] is False
    assert bob.post("/api/challenges", {"to": "ann"}).status_code == 201


def test_blocked_accounts_are_never_paired_in_a_quick_match(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    bob.post("/api/block/ann")
    first = ann.post("/api/seeks", {"rated": True, "target": 100})
    assert "seek" in first.json()
    second = bob.post("/api/seeks", {"rated": True, "target": 100})
    assert "seek" in second.json(), second.json()  # waiting, not paired with Ann
    cat = Player(client, "Cat")
    assert "match" in cat.post("/api/seeks", {"rated": True, "target": 100}).json()


def test_privacy_of_challenges(client: TestClient) -> None:
    ann, bob, cat = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Cat")
    assert ann.get("/api/me/settings").json() == {"chat": "on", "hide_online": False,
                                                  "challenges": "everyone",
                                                  "muted_until": None}
    assert ann.post("/api/me/settings", {"challenges": "friends"}).json()["challenges"] == \
        "friends"
    ann.post("/api/follow/bob")
    assert bob.post("/api/challenges", {"to": "ann"}).status_code == 201  # a friend
    refused = cat.post("/api/challenges", {"to": "ann"})
    assert refused.status_code == 403 and "Ann" in refused.json()["error"]
    ann.post("/api/me/settings", {"challenges": "nobody"})
    assert bob.post("/api/challenges", {"to": "ann"}).status_code == 403
    assert ann.post("/api/challenges", {"to": "easy"}).status_code in (200, 201)


def test_bad_input_is_a_4xx_with_one_sentence(client: TestClient) -> None:
    ann = Player(client, "Ann")
    Player(client, "Bob")
    cases = [("post", "/api/follow/ann"), ("post", "/api/block/ann"),  # own name
             ("post", "/api/follow/nobody_here"), ("delete", "/api/block/nobody_here"),
             ("post", "/api/follow/" + "x" * 5000), ("post", "/api/follow/a%00b"),
             ("post", "/api/block/%ED%A0%80")]
    for method, path in cases:
        r = getattr(ann, method)(path)
        assert 400 <= r.status_code < 500 and r.json()["error"], (path, r.status_code)
    for body in ({"chat": "loud"}, {"hide_online": "yes"}, {"challenges": 3},
                 {"theme": "dark"}, [], "x", {"chat": "\ud800"[:0] + "x" * 10_000}):
        r = ann.post("/api/me/settings", body)
        assert r.status_code == 400 and r.json()["error"], body
    assert ann.get("/api/me/settings").json()["chat"] == "on"  # nothing changed
    for path in ("/api/me/following", "/api/me/blocks", "/api/me/settings"):
        assert guest(client).get(path).status_code == 401
    assert guest(client).post("/api/follow/bob").status_code == 401
