"""A player's games as NDJSON (issue 47 item 1; INTERFACES section 15): finished public
matches only, newest first, each line a sealed record that verifies, with max, since,
until and rated; bad filters are one sentence; one export at a time per address."""

from __future__ import annotations

import json
import time

from fastapi.testclient import TestClient

from ginrummy.fairness import verify_record
from ginrummy.web.errors import TableError

from .conftest import site
from .test_challenges import Player, guest


def finished(p: Player, rated: bool, level: str = "easy") -> str:
    """A match against a computer level that ``p`` resigns once both have moved (a
    resignation, not an abort): a finished game, public when rated."""
    r = p.post("/api/challenges", {"to": level, "rated": rated})
    m = r.json()["match"]
    moved = 0
    deadline = time.monotonic() + 30
    while moved < 2:
        s = p.get(f"/api/matches/{m['id']}").json()
        assert time.monotonic() < deadline, s
        if s["legal"]:
            act = next(a for a in s["legal"] if not a.get("knock"))
            p.post(f"/api/matches/{m['id']}/actions", {"action": act, "version": s["version"]})
            moved += 1
        else:
            time.sleep(0.01)
    assert p.post(f"/api/matches/{m['id']}/resign").json()["end"] == "resigned"
    return str(m["id"])


def _lines(c: TestClient, path: str) -> list[dict[str, object]]:
    r = c.get(path)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in r.text.splitlines() if line]


def test_a_players_finished_public_games_newest_first(client: TestClient) -> None:
    ann = Player(client, "Ann")
    rated = [finished(ann, True) for _ in range(3)]
    finished(ann, False)  # a casual table against the computer: private
    aborted = ann.post("/api/challenges", {"to": "easy", "rated": True}).json()["match"]
    assert ann.post(f"/api/matches/{aborted['id']}/abort").status_code == 200  # no game
    in_play = ann.post("/api/challenges", {"to": "easy", "rated": True}).json()["match"]
    guest(client)
    games = _lines(client, "/api/games/user/ann")
    assert len(games) == 3 and in_play  # (the aborted and the one in play are not games)
    # newest first: each line's commitment is that of the matches in reverse order
    sealed = [client.get(f"/api/matches/{mid}/fairness").json()["commitment"]
              for mid in reversed(rated)]
    assert [g["commitment"] for g in games] == sealed
    assert [g["format"] for g in games] == ["ginrummy/1"] * 3
    for g in games:
        assert verify_record(g).ok, g  # sealed: every deal is the committed seed's
    assert _lines(client, "/api/games/user/Ann?max=2") == games[:2]
    assert _lines(client, "/api/games/user/Ann?rated=false") == []
    assert _lines(client, "/api/games/user/Ann?rated=true") == games
    # since/until on the match's end
    ends = [m.updated_at for m in (site(client).store.load(mid) for mid in rated) if m]
    cut = sorted(ends)[1]
    assert len(_lines(client, f"/api/games/user/Ann?since={cut}")) == 2
    assert len(_lines(client, f"/api/games/user/Ann?until={cut}")) == 1
    assert len(_lines(client, "/api/games/user/Ann?since=0&until=1")) == 0


def test_bad_filters_are_one_sentence_and_unknown_players_404(client: TestClient) -> None:
    Player(client, "Ann")
    guest(client)
    for query in ("max=0", "max=-1", "max=x", "max=1.5", "since=yesterday", "until=-5",
                  "rated=yes", "since=nan"):
        r = client.get(f"/api/games/user/Ann?{query}")
        assert r.status_code == 400 and r.json()["error"].endswith("."), (query, r.text)
    assert client.get("/api/games/user/nobody").status_code == 404
    assert client.get("/api/games/user/" + "x" * 50).status_code == 404


def test_one_export_at_a_time_per_address(client: TestClient) -> None:
    export = site(client).games
    export._running.add("10.0.0.1")
    try:
        export.admit("10.0.0.2")
        try:
            export.admit("10.0.0.1")
            raise AssertionError("a second export from one address was let in")
        except TableError as e:
            assert e.status == 429
    finally:
        export._running.discard("10.0.0.1")
