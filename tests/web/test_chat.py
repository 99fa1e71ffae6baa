"""The players' and the spectators' chat on SQLite (issue 45 items 1 and 2; INTERFACES
section 14): a message is stored before it is acknowledged, pushed to both seats' sockets,
read back with ``GET .../chat``; quick phrases; no chat at computer tables; the filter, the
budgets, a moderator's mute, blocks and chat settings refuse with one sentence; a report
of a line carries the conversation to the moderators."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from ginrummy.web.commands.accounts import main as accounts_main
from ginrummy.web.online.seeks import SEEKER_COOKIE

from .conftest import auth, seat_socket
from .online import wait_paired
from .test_challenges import Player, guest


def _match(c: TestClient, a: Player, b: Player, **options: Any) -> tuple[str, str, str]:
    """A casual challenge ``a`` made and ``b`` accepted: (match id, a's token, b's)."""
    cid = a.post("/api/challenges", {"to": b.name, **options}).json()["challenge"]
    mine = b.post(f"/api/challenges/{cid}/accept").json()["match"]
    theirs = a.get(f"/api/challenges/{cid}").json()["match"]
    return str(mine["id"]), str(theirs["token"]), str(mine["token"])


def _say(c: TestClient, mid: str, token: str, **body: Any) -> Any:
    return guest(c).post(f"/api/matches/{mid}/chat", json=body, headers=auth(token))


def test_the_players_chat_is_stored_pushed_and_read_back(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mid, ta, tb = _match(client, ann, bob)
    with seat_socket(guest(client), f"/api/matches/{mid}/ws?token={tb}") as ws:
        assert ws.receive_json()["type"] == "state"  # the socket is served: chat follows
        r = _say(client, mid, ta, text="  good luck, <b>Bob</b>  ")
        assert r.status_code == 201, r.text
        m = r.json()["message"]
        assert m["text"] == "good luck, <b>Bob</b>" and m["from"] == "Ann" and m["seat"] == 0
        while True:  # the other seat's socket is pushed it
            got = ws.receive_json()
            if got.get("type") == "chat":
                break
        assert got["id"] == m["id"] and got["text"] == m["text"] and got["from"] == "Ann"
    r = _say(client, mid, tb, phrase="gg")
    assert r.status_code == 201 and r.json()["message"]["text"] == "Good game"
    assert r.json()["message"]["phrase"] == "gg"
    both = guest(client).get(f"/api/matches/{mid}/chat", headers=auth(ta)).json()
    assert both["chat"] is True and [x["from"] for x in both["messages"]] == ["Ann", "Bob"]
    later = guest(client).get(f"/api/matches/{mid}/chat?after={m['id']}", headers=auth(tb))
    assert [x["phrase"] for x in later.json()["messages"]] == ["gg"]
    # the session of the seat's account works as well as the token
    assert bob.post(f"/api/matches/{mid}/chat", {"text": "thanks"}).status_code == 201


def test_bad_chat_input_is_one_sentence_and_stores_nothing(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mid, ta, _ = _match(client, ann, bob)
    bad: list[Any] = [{}, {"text": ""}, {"text": "   "}, {"text": 5}, {"text": None},
                      {"text": "x" * 141}, {"text": "a\x00b"}, {"text": "line\nbreak"},
                      {"phrase": "hello"}, {"phrase": ["gg"]},
                      {"text": "hi", "phrase": "gg"}, {"text": "hi", "extra": 1},
                      [], "hi", {"text": "y" * 100_000}]
    for body in bad:
        r = _say(client, mid, ta, **body) if isinstance(body, dict) else guest(client).post(
            f"/api/matches/{mid}/chat", json=body, headers=auth(ta))
        assert 400 <= r.status_code < 500, (body, r.status_code)
        assert isinstance(r.json()["error"], str) and r.json()["error"], body
    raw = guest(client).post(f"/api/matches/{mid}/chat", content=b'{"text": "\\ud800x"}',
                             headers={**auth(ta), "content-type": "application/json"})
    assert raw.status_code == 400, raw.text
    assert guest(client).post(f"/api/matches/{mid}/chat", json={"text": "hi"},
                              headers=auth("wrong")).status_code in (401, 403)
    assert guest(client).post("/api/matches/nope/chat", json={"text": "hi"},
                              headers=auth(ta)).status_code == 404
    msgs = guest(client).get(f"/api/matches/{mid}/chat", headers=auth(ta)).json()["messages"]
    assert msgs == []
    assert _say(client, mid, ta, text="x" * 140).status_code == 201  # 140 is allowed


def test_rude_words_are_masked_in_each_language(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mid, ta, _ = _match(client, ann, bob)
    for text, word in (("what a sh1t hand", "sh1t"), ("mierda de mano", "mierda"),
                       ("so eine Scheiße", "Scheiße"), ("putain de gin", "putain")):
        m = _say(client, mid, ta, text=text).json()["message"]
        assert word not in m["text"] and "***" in m["text"], m
    kept = _say(client, mid, ta, text="I passed on the class assignment").json()["message"]
    assert kept["text"] == "I passed on the class assignment"


def test_a_computer_table_has_no_chat(client: TestClient) -> None:
    ann = Player(client, "Ann")
    m = ann.post("/api/challenges", {"to": "easy"}).json()["match"]
    r = ann.get(f"/api/matches/{m['id']}/chat").json()
    assert r["chat"] is False and r["reason"]
    refused = ann.post(f"/api/matches/{m['id']}/chat", {"text": "hi"})
    assert refused.status_code == 409 and "chat" in refused.json()["error"]


def test_a_flood_is_refused_per_seat(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mid, ta, tb = _match(client, ann, bob)
    codes = [_say(client, mid, ta, text=f"m{i}").status_code for i in range(8)]
    assert codes[:5] == [201] * 5 and codes[5:] == [429] * 3, codes
    r = _say(client, mid, ta, text="more")
    assert r.status_code == 429 and "at most" in r.json()["error"]
    assert _say(client, mid, tb, text="I may still talk").status_code == 201


def test_chat_settings_mutes_and_blocks(client: TestClient, tmp_path: Path) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mid, ta, tb = _match(client, ann, bob)
    assert ann.post("/api/me/settings", {"chat": "phrases"}).json()["chat"] == "phrases"
    r = _say(client, mid, ta, text="hello")
    assert r.status_code == 409 and "quick phrases" in r.json()["error"]
    assert _say(client, mid, ta, phrase="gl").status_code == 201
    ann.post("/api/me/settings", {"chat": "off"})
    assert _say(client, mid, ta, phrase="gl").status_code == 409
    ann.post("/api/me/settings", {"chat": "on"})
    mo = Player(client, "Mod")
    assert accounts_main(["moderator", "Mod", "--db", str(tmp_path / "web.sqlite3")]) == 0
    assert mo.post("/api/mod/accounts/ann/mute", {"minutes": 10}).status_code == 400  # why?
    r = mo.post("/api/mod/accounts/ann/mute", {"minutes": 10, "reason": "insults"})
    assert r.status_code == 200 and r.json()["muted_until"] is not None
    refused = _say(client, mid, ta, text="hello")
    assert refused.status_code == 403 and "until" in refused.json()["error"]
    assert ann.get("/api/me/settings").json()["muted_until"] == r.json()["muted_until"]
    assert bob.post("/api/mod/accounts/ann/mute", {"minutes": 0}).status_code == 403
    log = mo.get("/api/mod/accounts/ann").json()["log"]
    assert any(e["action"] == "mute" and "insults" in e["text"] for e in log)
    assert mo.post("/api/mod/accounts/ann/mute", {"minutes": 0}).json()["muted_until"] is None
    assert _say(client, mid, ta, text="sorry").status_code == 201
    assert bob.post("/api/block/ann").json()["blocked"] is True
    for token in (ta, tb):  # neither side of a block chats, and nothing says why
        r = _say(client, mid, token, text="hi")
        assert r.status_code == 403 and "block" not in r.json()["error"].lower()


def test_a_reported_line_reaches_the_moderators_with_its_conversation(
        client: TestClient, tmp_path: Path) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mid, ta, tb = _match(client, ann, bob)
    _say(client, mid, tb, text="hi Ann")
    bad = _say(client, mid, ta, text="you are an idiot").json()["message"]
    mine = _say(client, mid, tb, text="that was rude").json()["message"]
    r = bob.post("/api/reports", {"username": "Ann", "reason": "abuse", "text": "insult",
                                  "message": bad["id"]})
    assert r.status_code == 201, r.text
    # a line that is not the reported account's, or a conversation the reporter never saw
    assert bob.post("/api/reports", {"username": "Ann", "reason": "abuse",
                                     "message": mine["id"]}).status_code == 400
    eve = Player(client, "Eve")
    assert eve.post("/api/reports", {"username": "Ann", "reason": "abuse",
                                     "message": bad["id"]}).status_code == 400
    mo = Player(client, "Mod")
    assert accounts_main(["moderator", "Mod", "--db", str(tmp_path / "web.sqlite3")]) == 0
    reports = mo.get("/api/mod/reports").json()["reports"]
    assert len(reports) == 1 and reports[0]["match"] == mid
    ctx = reports[0]["context"]
    assert ctx["message"] == bad["id"]
    assert [m["text"] for m in ctx["conversation"]] == ["hi Ann", "you are an idiot",
                                                        "that was rude"]


def public_match(c: TestClient, a: Player, b: Player) -> tuple[str, str, str]:
    """A rated quick match (public: listed live and watched) ``a`` and ``b`` were paired into:
    (match id, a's token, b's token)."""
    seek = a.post("/api/seeks", {"rated": True, "target": 100}).json()["seek"]
    seeker = c.cookies.get(SEEKER_COOKIE, path="/api/seeks")
    mine = b.post("/api/seeks", {"rated": True, "target": 100}).json()["match"]
    c.cookies.clear()
    c.cookies.set(SEEKER_COOKIE, seeker or "", path="/api/seeks")
    theirs = wait_paired(c, seek)
    c.cookies.clear()
    return str(mine["id"]), str(theirs["token"]), str(mine["token"])


def test_the_spectators_chat_is_apart_from_the_players(client: TestClient) -> None:
    ann, bob, eve = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Eve")
    mid, ta, _ = public_match(client, ann, bob)
    r = eve.post(f"/api/matches/{mid}/watch/chat", {"text": "go Ann <script>x()</script>"})
    assert r.status_code == 201, r.text
    assert eve.post(f"/api/matches/{mid}/watch/chat", {"phrase": "gg"}).status_code == 201
    # the players neither see nor write it while they play
    assert ann.post(f"/api/matches/{mid}/watch/chat", {"text": "hi"}).status_code == 403
    assert ann.get(f"/api/matches/{mid}/watch/chat").status_code == 403
    seen = guest(client).get(f"/api/matches/{mid}/watch/chat").json()["messages"]
    assert [m["text"] for m in seen] == ["go Ann <script>x()</script>", "Good game"]
    assert seen[0]["account"] == "Eve" and seen[0]["seat"] is None
    after = guest(client).get(f"/api/matches/{mid}/watch/chat?after={seen[0]['id']}")
    assert [m["phrase"] for m in after.json()["messages"]] == ["gg"]
    assert guest(client).get(f"/api/matches/{mid}/watch/chat?after=x").status_code == 400
    assert guest(client).post(f"/api/matches/{mid}/watch/chat",
                              json={"text": "hi"}).status_code == 401
    players = guest(client).get(f"/api/matches/{mid}/chat", headers=auth(ta)).json()
    assert players["messages"] == []  # the rooms are apart
    # a private match has no spectators' chat
    pid, _, _ = _match(client, ann, bob)
    assert eve.post(f"/api/matches/{pid}/watch/chat", {"text": "hi"}).status_code == 404
