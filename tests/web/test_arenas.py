"""Arena tournaments on SQLite (docs/web-api.md, "Arena tournaments"): made, joined and
started by their creator; every player paired at once with a free player, never the
opponent just met while another is free; scored with lichess's streaks from the matches'
endings (an abort scores nothing); rated arenas move ratings; a player lost on time is
paused until it joins again; when time is up no new pairing starts, the matches in play
finish and count, and the winner is shown; bad requests are one sentence and change
nothing."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from ginrummy.web.online.arenas import MAX_OPEN
from ginrummy.web.store.schema import (
    matches_table,
    tournament_matches_table,
    tournament_players_table,
    tournaments_table,
)

from .arena_play import both_pass, both_play, play_until, read_arena, wait_arena
from .conftest import site
from .test_challenges import Player, count, guest

CLOCK = {"move": 20, "bank": 120}


def _make(p: Player, **body: Any) -> str:
    body = {"name": "Friday arena", "minutes": 30, "clock": CLOCK} | body
    r = p.post("/api/tournaments", body)
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["url"] == f"/tournament/{out['id']}" and out["status"] == "created"
    return str(out["id"])


def _opponents(arena: dict[str, Any], c: TestClient) -> list[frozenset[str]]:
    """The pairs of every arena match, in order (from the matches' players)."""
    pairs = []
    for mid in arena["matches"]:
        with site(c).store.engine.connect() as conn:
            row = conn.execute(select(matches_table.c.players)
                               .where(matches_table.c.id == mid)).first()
        assert row is not None
        pairs.append(frozenset(json.loads(row[0])))
    return pairs


def test_four_players_are_paired_scored_and_the_winner_shown(client: TestClient) -> None:
    arenas = site(client).arenas
    arenas.rematch_wait = 1000.0  # two who just met wait for the others here
    names = ["Ann", "Bob", "Cat", "Dan"]
    players = {n: Player(client, n) for n in names}
    ann = players["Ann"]
    aid = _make(ann, target=100, rated=False)
    for n in names[1:]:
        r = players[n].post(f"/api/tournaments/{aid}/join")
        assert r.status_code == 200 and r.json() == {"status": "joined"}
    before = read_arena(ann, aid)
    assert before["status"] == "created" and before["players"] == 4
    assert before["me"] == {"joined": True, "active": True, "state": "waiting",
                            "creator": True, "score": 0, "match": None}
    assert ann.post(f"/api/tournaments/{aid}/start").json() == {"status": "started"}
    now = read_arena(ann, aid)
    assert now["status"] == "started" and now["in_play"] == 2 and len(now["matches"]) == 2
    assert 1790 < now["seconds_left"] <= 1800
    me = now["me"]
    assert me["state"] == "playing" and me["match"]["url"] == f"/play/{me['match']['id']}"
    s = ann.get(f"/api/matches/{me['match']['id']}").json()  # the account's seat
    assert s["seat"] == me["match"]["seat"] and s["clock"]["move"] == 20
    assert s["options"] == {"target": 100, "gin_only": False, "oklahoma": False}
    first = _opponents(now, client)
    assert set().union(*first) == set(names)

    # the first two matches end: the second round pairs each player with someone new
    after = play_until(lambda: read_arena(ann, aid), dict(players),
                       lambda a: len(a["matches"]) == 4 and a["in_play"] == 2, timeout=120)
    second = _opponents(after, client)[2:4]
    assert not set(first) & set(second), (first, second)
    for x in after["standings"]:
        assert x["matches"] == 1 and x["sheet"] in ("W", "L")
        assert x["score"] == (2 if x["sheet"] == "W" else 0) and x["wins"] == (x["sheet"] == "W")
    assert [x["score"] for x in after["standings"]] == [2, 2, 0, 0]

    # time is up: the two matches in play finish and count, nothing new starts
    started = time.time()
    arenas.clock = lambda: time.time() - started + (after["ends_at"] or 0) + 1
    ending = read_arena(ann, aid)
    assert ending["status"] == "started" and ending["seconds_left"] == 0
    final = play_until(lambda: read_arena(ann, aid), dict(players),
                       lambda a: a["status"] == "finished", timeout=120,
                       between=lambda a: _no_new_matches(a, 4))
    assert len(final["matches"]) == 4 and final["in_play"] == 0
    assert [x["matches"] for x in final["standings"]] == [2, 2, 2, 2]
    for x in final["standings"]:
        assert x["score"] == sum({"W": 2, "D": 1, "L": 0}[r] for r in x["sheet"])
    scores = [x["score"] for x in final["standings"]]
    assert scores == sorted(scores, reverse=True)
    top = final["standings"][0]
    assert final["winner"] == top["username"] and top["score"] > 0
    assert final["me"]["match"] is None
    # the scan stores the ending
    deadline = time.monotonic() + 10
    while site(client).store.arenas.get(aid).status != "finished":  # type: ignore[union-attr]
        assert time.monotonic() < deadline
        time.sleep(0.1)
    listed = client.get("/api/tournaments").json()["tournaments"]
    assert [(t["id"], t["status"], t["winner"]) for t in listed] == [
        (aid, "finished", top["username"])]
    r = players["Bob"].post(f"/api/tournaments/{aid}/join")
    assert r.status_code == 409
    assert r.json()["error"] == "This arena is over: it takes no more players."


def _no_new_matches(arena: dict[str, Any], most: int) -> None:
    assert len(arena["matches"]) <= most, "a pairing started after the arena's time was up"


def test_two_players_meet_again_an_abort_scores_nothing_and_rated_counts(
        client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    aid = _make(ann, rated=True)
    assert bob.post(f"/api/tournaments/{aid}/join").status_code == 200
    ann.post(f"/api/tournaments/{aid}/start")
    m1 = read_arena(ann, aid)["me"]["match"]
    # an abort before the first discard: no score, no match counted, paired again at once
    r = bob.post(f"/api/matches/{m1['id']}/abort")
    assert r.status_code == 200, r.text
    a = wait_arena(ann, aid, lambda x: len(x["matches"]) == 2)  # nobody else: they meet again
    assert [(x["score"], x["matches"]) for x in a["standings"]] == [(0, 0), (0, 0)]
    assert a["in_play"] == 1
    m2 = a["me"]["match"]
    assert m2["id"] != m1["id"]
    # once both have played, a resignation is a loss like any other (before both moved,
    # any ending is an abort: issue 36; a quick one scores the winner nothing: issue 44);
    # the whole play is the four players' test
    both_play((ann, bob), m2["id"])
    r = bob.post(f"/api/matches/{m2['id']}/resign")
    assert r.status_code == 200, r.text
    done = wait_arena(ann, aid, lambda x: len(x["matches"]) == 3)
    scores = [(x["username"], x["score"], x["sheet"]) for x in done["standings"]]
    assert scores == [("Ann", 2, "W"), ("Bob", 0, "L")]
    # rated like any rated match: both players' ratings moved, once
    deadline = time.monotonic() + 10
    for name in ("Ann", "Bob"):
        while not (p := client.get(f"/api/players/{name}").json())["history"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert [h["match"] for h in p["history"]] == [m2["id"]]
    assert m1["id"] not in [h["match"] for h in p["history"]]


def test_withdraw_stops_pairings_and_join_comes_back(client: TestClient) -> None:
    ann, bob, cat = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Cat")
    aid = _make(ann)
    bob.post(f"/api/tournaments/{aid}/join")
    assert cat.post(f"/api/tournaments/{aid}/withdraw").json()["error"] == (
        "You have not joined this arena.")
    cat.post(f"/api/tournaments/{aid}/join")
    ann.post(f"/api/tournaments/{aid}/start")
    a = read_arena(ann, aid)
    waiting = next(x for x in a["standings"] if x["playing"] is None)
    out = {"Ann": ann, "Bob": bob, "Cat": cat}[waiting["username"]]
    assert out.post(f"/api/tournaments/{aid}/withdraw").json() == {"status": "withdrawn"}
    r = out.post(f"/api/tournaments/{aid}/withdraw")
    assert r.status_code == 409
    assert r.json()["error"] == "You have already withdrawn from this arena."
    assert read_arena(out, aid)["me"]["state"] == "withdrawn"
    playing = next(x for x in a["standings"] if x["playing"] is not None)
    loser = {"Ann": ann, "Bob": bob, "Cat": cat}[playing["username"]]
    assert loser.post(f"/api/matches/{playing['playing']}/resign").status_code == 200
    a = wait_arena(ann, aid, lambda x: len(x["matches"]) == 2)
    assert a["in_play"] == 1  # the two who played meet again: the third is out
    line = next(x for x in a["standings"] if x["username"] == waiting["username"])
    assert line["active"] is False and line["matches"] == 0 and line["playing"] is None
    assert out.post(f"/api/tournaments/{aid}/join").json() == {"status": "joined"}
    assert read_arena(out, aid)["me"]["state"] in ("waiting", "playing")


def test_a_player_lost_on_time_is_paused_until_it_joins_again(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    aid = _make(ann, clock={"move": 1, "bank": 0})
    bob.post(f"/api/tournaments/{aid}/join")
    ann.post(f"/api/tournaments/{aid}/start")
    # both pass the up-card, then only Ann plays: Bob loses three turns in a row to the
    # clock, and the match (before both had moved it would be aborted instead)
    both_pass((ann, bob), read_arena(ann, aid)["me"]["match"]["id"])
    a = play_until(lambda: read_arena(ann, aid), {"Ann": ann},
                   lambda x: x["in_play"] == 0, timeout=60)
    # a loss for Bob; nothing for Ann, as Bob left after one move (issue 44)
    assert sorted(x["sheet"] for x in a["standings"]) == ["", "L"]
    bob_line = next(x for x in a["standings"] if x["username"] == "Bob")
    assert bob_line["paused"] is True and bob_line["active"] is True
    assert read_arena(bob, aid)["me"]["state"] == "paused"
    time.sleep(2.5)  # a scan or two: Ann stays unpaired, Bob is away
    assert len(read_arena(ann, aid)["matches"]) == 1
    assert bob.post(f"/api/tournaments/{aid}/join").json() == {"status": "joined"}
    a = read_arena(ann, aid)
    assert len(a["matches"]) == 2 and a["in_play"] == 1
    assert read_arena(bob, aid)["me"]["state"] == "playing"


def _rows(c: TestClient) -> tuple[int, int, int]:
    return (count(c, tournaments_table), count(c, tournament_players_table),
            count(c, tournament_matches_table))


@pytest.mark.parametrize(("body", "error"), [
    ({"minutes": 30}, "An arena needs a name: 'name' is 1 to 40 printable characters."),
    ({"name": " ", "minutes": 30},
     "An arena needs a name: 'name' is 1 to 40 printable characters."),
    ({"name": "x" * 41, "minutes": 30},
     "An arena needs a name: 'name' is 1 to 40 printable characters."),
    ({"name": "A"}, "'minutes' is how long the arena runs: a number from 0.5 to 1440."),
    ({"name": "A", "minutes": 0},
     "'minutes' is how long the arena runs: a number from 0.5 to 1440."),
    ({"name": "A", "minutes": True},
     "'minutes' is how long the arena runs: a number from 0.5 to 1440."),
    ({"name": "A", "minutes": 2000},
     "'minutes' is how long the arena runs: a number from 0.5 to 1440."),
    ({"name": "A", "minutes": 30, "target": 120},
     "The target must be 100, 150, 200 or 250, not 120."),
    ({"name": "A", "minutes": 30, "clock": {"move": 0}},
     "The clock's 'move' must be a whole number of seconds from 1 to 600, not 0."),
    ({"name": "A", "minutes": 30, "rated": "yes"}, "'rated' is true or false."),
    ({"name": "A", "minutes": 30, "hands": 3}, "Unknown field 'hands'."),
    ([], "The request body must be a JSON object."),
])
def test_impossible_options_are_refused(client: TestClient, body: Any, error: str) -> None:
    ann = Player(client, "Ann")
    before = _rows(client)
    r = ann.post("/api/tournaments", body)
    assert r.status_code == 400 and r.json() == {"error": error}
    assert _rows(client) == before


def test_bad_requests_are_one_sentence_and_change_nothing(client: TestClient) -> None:
    ann, bob, cat = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Cat")
    aid = _make(ann)
    before = _rows(client)

    def refused(r: Any, status: int, error: str) -> None:
        assert (r.status_code, r.json()) == (status, {"error": error})
        assert _rows(client) == before

    r = guest(client).post("/api/tournaments", json={"name": "A", "minutes": 5})
    refused(r, 401, "Making an arena needs an account: sign up or log in first.")
    r = guest(client).post(f"/api/tournaments/{aid}/join")
    refused(r, 401, "Playing in an arena needs an account: sign up or log in first.")
    bob._use()
    r = client.post(f"/api/tournaments/{aid}/join")  # the cookie without the CSRF token
    assert r.status_code == 403 and _rows(client) == before
    refused(ann.post(f"/api/tournaments/{aid}/start"), 409,
            "An arena needs at least two players to start: 1 has joined. Wait for more, "
            "then start it.")
    refused(ann.post(f"/api/tournaments/{aid}/join"), 409,
            "You are already playing in this arena.")
    refused(bob.post("/api/tournaments/nope/join"), 404, "No arena has this id.")
    refused(bob.get("/api/tournaments/" + "x" * 40), 404, "No arena has this id.")
    bob.post(f"/api/tournaments/{aid}/join")
    before = _rows(client)
    refused(bob.post(f"/api/tournaments/{aid}/start"), 403,
            "Only the arena's creator may start it.")
    refused(cat.post(f"/api/tournaments/{aid}/withdraw"), 409,
            "You have not joined this arena.")
    r = ann.post(f"/api/tournaments/{aid}/start")
    assert r.status_code == 200, r.text
    before = _rows(client)
    refused(ann.post(f"/api/tournaments/{aid}/start"), 409, "This arena has already started.")
    # an account has at most MAX_OPEN arenas not finished
    for i in range(MAX_OPEN):
        _make(cat, name=f"Cat's {i}")
    before = _rows(client)
    refused(cat.post("/api/tournaments", {"name": "one more", "minutes": 5}), 429,
            f"You have {MAX_OPEN} arenas not finished yet: start or finish one before "
            "making another.")
    # arenas never started stop counting (and being listed) after a day
    site(client).arenas.clock = lambda: time.time() + 2 * 86400
    r = cat.post("/api/tournaments", {"name": "one more", "minutes": 5})
    assert r.status_code == 201, r.text
    listed = client.get("/api/tournaments").json()["tournaments"]
    assert [t["name"] for t in listed] == ["one more", "Friday arena"]  # newest first


def test_the_pages_and_the_list(client: TestClient) -> None:
    ann = Player(client, "Ann")
    aid = _make(ann, name="Night owls", rated=True, target=150)
    listed = guest(client).get("/api/tournaments").json()["tournaments"]
    assert len(listed) == 1
    t = listed[0]
    assert (t["name"], t["creator"], t["status"], t["players"], t["rated"], t["target"],
            t["clock"]) == ("Night owls", "Ann", "created", 1, True, 150, CLOCK)
    shown = client.get(f"/api/tournaments/{aid}").json()
    assert "me" not in shown and shown["standings"][0]["username"] == "Ann"
    for path in ("/tournaments", f"/tournament/{aid}", "/daily"):
        r = client.get(path)
        assert r.status_code == 200 and "text/html" in r.headers["content-type"]
