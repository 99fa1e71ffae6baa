"""The table's comforts: exact hints in STATE from the core (R2, R6, R11;
web/tables/views.py), a friend's name (web/tables/lobby.py), "Play again" for the computer
and between friends (web/tables/rematches.py), and the player's record over finished
matches (web/records/records.py)."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import text

from ginrummy import fairness
from ginrummy.cards import Card, parse_cards, to_mask
from ginrummy.melds import deadwood_by_discard, deadwood_mask
from ginrummy.web.records.records import summarize

from .conftest import auth, create, human_can_act, invite_code, site, state, wait_for


def _act(c: TestClient, mid: str, token: str, s: dict[str, Any], action: Any) -> dict[str, Any]:
    r = c.post(f"/api/matches/{mid}/actions", headers=auth(token),
               json={"action": action, "version": s["version"]})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _greedy(s: dict[str, Any]) -> dict[str, Any]:
    """Knock when allowed (R6), draw from the stock, discard the least-deadwood card."""
    legal: list[dict[str, Any]] = s["legal"]
    knocks = [a for a in legal if a.get("knock")]
    if knocks:
        return knocks[0]
    discards = [a for a in legal if a["act"] == "discard"]
    if discards:
        hand = to_mask(parse_cards(s["view"]["hand"]))
        return min(discards, key=lambda a: deadwood_mask(hand & ~Card.parse(a["card"]).mask))
    draws = [a for a in legal if a["act"] == "draw" and a["from"] == "stock"]
    return draws[0] if draws else legal[0]


CREATED: dict[str, dict[str, Any]] = {}


def _friend(c: TestClient, name: str = "Bea") -> tuple[str, list[str]]:
    m = create(c, opponent="friend", name="Ann")
    CREATED[m["id"]] = m
    r = c.post(f"/api/matches/{m['id']}/join", json={"invite": invite_code(m), "name": name})
    assert r.status_code == 200, r.text
    return m["id"], [m["token"], r.json()["token"]]


def _finish_friend_match(c: TestClient, mid: str, tokens: list[str]) -> dict[str, Any]:
    for _ in range(5000):
        s = state(c, mid, tokens[0])
        if s["status"] == "finished":
            return s
        if s["hand_over"] is not None:
            for t in tokens:
                c.post(f"/api/matches/{mid}/next", headers=auth(t), json={"version": s["version"]})
            continue
        seat = s["view"]["to_play"]
        me = state(c, mid, tokens[seat])
        _act(c, mid, tokens[seat], me, _greedy(me))
    raise AssertionError("the match did not end")


def test_state_carries_the_cores_exact_discard_figures(client: TestClient) -> None:
    """R2/R6: for each of the 11 cards, what discarding it leaves is the solver's figure;
    legal, knock and gin flags are the legal actions'; R11: the opponent's known cards are
    what the seat's own view tells (Knowledge)."""
    # a fixed deal: with a random one a quick knock could end the hand before five discards
    site(client).lobby.seed_source = lambda: (11, 0)
    mid, tokens = _friend(client)
    rng = random.Random(5)
    checked = 0
    for _ in range(60):
        s = state(client, mid, tokens[0])
        if s["hand_over"] is not None:
            break
        seat = s["view"]["to_play"]
        me = state(client, mid, tokens[seat])
        other = state(client, mid, tokens[1 - seat])
        if me["view"]["phase"] == "discard":
            opts = {o["card"]: o for o in me["discard_options"]}
            exact = {str(c): v for c, v in deadwood_by_discard(me["view"]["hand"]).items()}
            assert {c: o["leaves"] for c, o in opts.items()} == exact
            legal = {a["card"] for a in me["legal"] if a["act"] == "discard"}
            knocks = {a["card"] for a in me["legal"] if a.get("knock")}
            assert {c for c, o in opts.items() if o["legal"]} == legal
            assert {c for c, o in opts.items() if o["knock"]} == knocks
            assert {c for c, o in opts.items() if o["gin"]} == {
                c for c in knocks if exact[c] == 0}
            assert me["best_discard"] in legal
            assert exact[me["best_discard"]] == min(exact[c] for c in legal)
            assert other["discard_options"] is None and other["best_discard"] is None
            checked += 1
        else:
            assert me["discard_options"] is None
        action = rng.choice(me["legal"]) if rng.random() < 0.5 else _greedy(me)
        _act(client, mid, tokens[seat], me, action)
    assert checked >= 5


def test_opponent_known_cards_follow_the_public_history(client: TestClient) -> None:
    """R11: a card the opponent takes from the pile shows as known until thrown back."""
    site(client).lobby.seed_source = lambda: (11, 0)
    mid, tokens = _friend(client)
    for _ in range(40):
        s = state(client, mid, tokens[0])
        if s["hand_over"] is not None:
            break
        seat = s["view"]["to_play"]
        me = state(client, mid, tokens[seat])
        takes = [a for a in me["legal"] if a["act"] == "draw" and a["from"] == "discard"]
        action = takes[0] if takes else _greedy(me)
        _act(client, mid, tokens[seat], me, action)
        for viewer in (0, 1):
            st = state(client, mid, tokens[viewer])
            took = []
            for h in st["view"]["history"]:
                if h["seat"] != viewer and h["act"] == "draw" and h["from"] == "discard":
                    took.append(h["card"])
                if h["seat"] != viewer and h["act"] == "discard" and h["card"] in took:
                    took.remove(h["card"])
            assert sorted(st["opponent_known"]) == sorted(took)


def test_friend_gives_a_name_when_joining(client: TestClient) -> None:
    m = create(client, opponent="friend", name="Ann")
    r = client.post(f"/api/matches/{m['id']}/join",
                    json={"invite": invite_code(m), "name": "x" * 31})
    assert r.status_code == 400 and "30" in r.json()["error"]
    # The refused name changed nothing: the invitation is still good.
    r = client.post(f"/api/matches/{m['id']}/join",
                    json={"invite": invite_code(m), "name": "  Bea   Long  "})
    assert r.status_code == 200, r.text
    assert state(client, m["id"], m["token"])["players"] == ["Ann", "Bea Long"]
    assert state(client, m["id"], r.json()["token"])["players"] == ["Ann", "Bea Long"]
    # Without a name the friend stays "Friend".
    m2 = create(client, opponent="friend", name="Ann")
    r2 = client.post(f"/api/matches/{m2['id']}/join", json={"invite": invite_code(m2)})
    assert state(client, m2["id"], r2.json()["token"])["players"] == ["Ann", "Friend"]


def test_rematch_against_the_computer(client: TestClient) -> None:
    """Play again: same level and options, the other player deals first (R3); only once
    the match is over, and only once."""
    m = create(client, opponent="computer", bot="easy", name="Cy",
               options={"target": 100, "gin_only": False, "oklahoma": True})
    mid, tok = m["id"], m["token"]
    r = client.post(f"/api/matches/{mid}/rematch", headers=auth(tok), json={})
    assert r.status_code == 409 and "over" in r.json()["error"]
    rng = random.Random(3)
    while True:
        s = wait_for(client, mid, tok, human_can_act, timeout=60)
        if s["status"] == "finished":
            break
        if s["my_turn"]:
            _act(client, mid, tok, s, _greedy(s) if rng.random() < 0.8 else rng.choice(s["legal"]))
        else:
            client.post(f"/api/matches/{mid}/next", headers=auth(tok),
                        json={"version": s["version"]})
    old_dealer = client.get(f"/api/matches/{mid}/record").json()["hands"][0]["dealer"]
    r = client.post(f"/api/matches/{mid}/rematch", headers=auth(tok), json={})
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["seat"] == 0 and new["id"] != mid
    ns = state(client, new["id"], new["token"])
    assert ns["players"] == s["players"] and ns["options"] == s["options"]
    assert ns["bot"] == "easy" and ns["status"] == "playing"
    assert ns["view"]["dealer"] == 1 - old_dealer
    again = client.post(f"/api/matches/{mid}/rematch", headers=auth(tok), json={})
    assert again.status_code == 409
    assert client.post(f"/api/matches/{mid}/rematch", json={}).status_code == 401


def test_rematch_between_friends_needs_the_friend_to_accept(client: TestClient) -> None:
    """The friend (old seat 1) asks: in the new match they sit at seat 0, so the seats
    swap; Ann accepts from her old table and takes seat 1. The one who dealt first before
    deals second now."""
    mid, tokens = _friend(client)
    end = _finish_friend_match(client, mid, tokens)
    old_first = client.get(f"/api/matches/{mid}/record").json()["hands"][0]["dealer"]
    status = client.get(f"/api/matches/{mid}/rematch", headers=auth(tokens[0])).json()
    assert status == {"offered_by": None, "accepted": False}
    asked = client.post(f"/api/matches/{mid}/rematch", headers=auth(tokens[1]), json={})
    assert asked.status_code == 200, asked.text
    new_id, bea = asked.json()["id"], asked.json()["token"]
    waiting = state(client, new_id, bea)
    assert waiting["status"] == "waiting" and waiting["players"] == ["Bea", "Ann"]
    assert waiting["options"] == end["options"]
    seen = client.get(f"/api/matches/{mid}/rematch", headers=auth(tokens[0])).json()
    assert seen == {"offered_by": 1, "accepted": False}
    with site(client).store.engine.connect() as conn:  # no code that opens Ann's seat
        kept = conn.execute(text("SELECT invite, pending FROM rematches WHERE old_id = :i"),
                            {"i": mid}).one()
        seat = conn.execute(text("SELECT invite_hash, token_hash1 FROM matches WHERE "
                                 "id = :i"), {"i": new_id}).one()
    assert tuple(kept) == (None, True) and tuple(seat) == (None, "")
    dup = client.post(f"/api/matches/{mid}/rematch", headers=auth(tokens[1]), json={})
    assert dup.status_code == 409
    accepted = client.post(f"/api/matches/{mid}/rematch", headers=auth(tokens[0]), json={})
    assert accepted.status_code == 200, accepted.text
    ann = accepted.json()
    assert ann["id"] == new_id and ann["seat"] == 1
    s = state(client, new_id, ann["token"])
    assert s["status"] == "playing" and s["players"] == ["Bea", "Ann"]
    # Ann (old seat 0) is seat 1 now: whoever dealt first before deals second now.
    first_person_new_seat = 1 - old_first
    assert s["view"]["dealer"] != first_person_new_seat
    for t in tokens:
        after = client.get(f"/api/matches/{mid}/rematch", headers=auth(t)).json()
        assert after == {"offered_by": 1, "accepted": True}
    late = client.post(f"/api/matches/{mid}/rematch", headers=auth(tokens[0]), json={})
    assert late.status_code == 409 and "accepted" in late.json()["error"]
    _check_record(client, mid, tokens, end)
    _check_fair_deal(client, mid, tokens)


def _check_fair_deal(client: TestClient, mid: str, tokens: list[str]) -> None:
    """Deals people can trust: the commitment published at creation is the hash of the
    seed and salt revealed at the end, and every deal of the record is the seed's."""
    f = client.get(f"/api/matches/{mid}/fairness").json()
    assert f["over"] and f["seed_text"] == str(f["seed"])
    assert fairness.commitment(f["seed"], f["salt"]) == f["commitment"]
    assert f["commitment"] == CREATED[mid]["commitment"]  # the one published at the start
    rec = client.get(f"/api/matches/{mid}/record").json()
    assert rec["salt"] == f["salt"] and rec["commitment"] == f["commitment"]
    v = fairness.verify_record(rec)
    assert v.ok, v.to_json()
    assert len(v.hands_ok) == len(rec["hands"]) > 1


def test_commitment_at_the_start_reveals_nothing(client: TestClient) -> None:
    """The creation answer and the fairness endpoint give the commitment at once; the seed
    and salt stay secret until the match is over (they would tell the deals to come)."""
    m = create(client, opponent="computer")
    assert len(m["commitment"]) == 64
    f = client.get(f"/api/matches/{m['id']}/fairness").json()
    assert f["commitment"] == m["commitment"] and not f["over"]
    assert f["seed"] is None and f["salt"] is None and f["seed_text"] is None
    rec = client.get(f"/api/matches/{m['id']}/record").json()
    assert "salt" not in rec and "seed" not in rec


def _check_record(client: TestClient, mid: str, tokens: list[str], end: dict[str, Any]) -> None:
    """Your record: the finished match from Ann's side, summed up; open matches left out."""
    open_m = create(client, opponent="computer")  # unfinished: not counted
    r = client.post("/api/record", json={"tokens": [tokens[0], open_m["token"], "nobody"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert [row["id"] for row in body["matches"]] == [mid]
    row = body["matches"][0]
    sheet = end["score_sheet"]
    assert row["won"] == (end["winner"] == 0) and row["points"] == end["scores"][0]
    assert row["hands"] == len(sheet)
    assert row["gins"] == sum(1 for h in sheet if h["scorer"] == 0 and h["result"] == "gin")
    assert row["undercuts"] == sum(
        1 for h in sheet if h["scorer"] == 0 and h["result"] == "undercut")
    summary = body["summary"]
    assert summary["by_level"] == {"friend": {"played": 1, "won": int(row["won"]),
                                              "lost": int(not row["won"] and not row["tie"]),
                                              "tied": int(row["tie"])}}
    assert summary["points_per_hand"] == round(end["scores"][0] / len(sheet), 2)
    for bad in ({}, {"tokens": "x"}, {"tokens": [""]}, {"tokens": ["x"] * 201}):
        r = client.post("/api/record", json=bad)
        assert r.status_code == 400 and r.json()["error"]




def test_summary_streaks() -> None:
    rows = [{"level": lv, "won": w, "tie": False, "points": 10, "hands": 2, "gins": 0,
             "undercuts": 0} for lv, w in
            [("easy", True), ("easy", True), ("hard", False), ("hard", True), ("easy", True),
             ("medium", True)]]
    s = summarize(rows)
    assert s["longest_streak"] == 3 and s["current_streak"] == 3
    assert s["by_level"]["hard"] == {"played": 2, "won": 1, "lost": 1, "tied": 0}
    assert s["points_per_hand"] == 5.0 and s["won"] == 5
    assert summarize([])["points_per_hand"] is None
