"""The bots' ladder (issue 47 item 5; docs/web-api.md, "The bots' ladder"): ``GET
/api/leaderboard/bots`` lists the BOT accounts that played rated matches, best first,
with their records, and the computer's levels beside them; people are not on it."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from .test_challenges import Player
from .test_fair_rated_play import _as_program, _bot


def _rated_game_with(c: TestClient, token: str, level: str) -> str:
    """A program (by its API token) challenges a computer level to a rated match and
    resigns it once both sides have moved: a loss on its record."""
    r = _as_program(c, token, "POST", "/api/challenges", {"to": level, "rated": True})
    assert r.status_code == 201, r.text
    m = r.json()["match"]
    moved = 0
    deadline = time.monotonic() + 30
    while moved < 2:
        s = _as_program(c, token, "GET", f"/api/matches/{m['id']}").json()
        assert time.monotonic() < deadline, s
        if s["legal"]:
            act = next(a for a in s["legal"] if not a.get("knock"))
            _as_program(c, token, "POST", f"/api/matches/{m['id']}/actions",
                        {"action": act, "version": s["version"]})
            moved += 1
        else:
            time.sleep(0.01)
    r = _as_program(c, token, "POST", f"/api/matches/{m['id']}/resign")
    assert r.status_code == 200, r.text
    return str(m["id"])


def test_the_bots_ladder_lists_programs_with_their_records(client: TestClient) -> None:
    empty = client.get("/api/leaderboard/bots").json()
    assert empty["bots"] == [] and set(empty["levels"]) == {"easy", "medium", "hard"}
    Player(client, "Ann")  # a person: never on the bots' ladder
    _, one = _bot(client, "OneBot")
    _, two = _bot(client, "TwoBot")
    _bot(client, "IdleBot")  # no rated match yet: not listed
    _rated_game_with(client, one, "easy")
    _rated_game_with(client, one, "medium")  # (a level twice in a row moves no rating)
    _rated_game_with(client, two, "easy")
    deadline = time.monotonic() + 10
    while True:
        got = client.get("/api/leaderboard/bots").json()
        if sum(b["matches"] for b in got["bots"]) == 3:
            break
        assert time.monotonic() < deadline, got
        time.sleep(0.05)
    names = [b["username"] for b in got["bots"]]
    assert sorted(names) == ["OneBot", "TwoBot"]
    ratings = [b["rating"] for b in got["bots"]]
    assert ratings == sorted(ratings, reverse=True) and [b["rank"] for b in got["bots"]] == [1, 2]
    by = {b["username"]: b for b in got["bots"]}
    assert (by["OneBot"]["wins"], by["OneBot"]["ties"], by["OneBot"]["losses"]) == (0, 0, 2)
    assert (by["TwoBot"]["matches"], by["TwoBot"]["losses"]) == (1, 1)
    assert by["OneBot"]["provisional"] and by["OneBot"]["last"] > time.time() - 60
    assert got["levels"]["easy"] == client.get("/api/leaderboard").json()["bots"]["easy"]
    page = client.get("/leaderboard/bots", headers={"Accept": "text/html"})
    assert page.status_code == 200 and 'data-page="bots"' in page.text
