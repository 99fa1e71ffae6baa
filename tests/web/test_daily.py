"""The daily deal on SQLite (docs/web-api.md, "The daily deal"): one commitment a day,
the same deals for everyone in the same seat against ``hard``, once per account; a match
of three hands (``end``: ``hand-cap``); a leaderboard by points margin (a resignation
below every match played out); nothing that would tell the deals (record, replay, seed,
hints) before the day is over; then, with "today" moved on, the day's seed opens and
every daily record verifies (``ginrummy verify``) against the commitment published the day
before. Bad requests are one sentence and change nothing."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ginrummy.cli import main
from ginrummy.fairness import commitment, verify_record
from ginrummy.web.app import create_app
from ginrummy.web.computer.driver import ComputerDriver
from ginrummy.web.online.coaching import NO_HINTS
from ginrummy.web.online.daily import HANDS, WITHHELD, Entry, leaderboard, utc_today
from ginrummy.web.store.daily import DailyResult
from ginrummy.web.store.schema import daily_plays_table, daily_seeds_table, matches_table

from .conftest import NO_RATE_LIMITS, site
from .online import quick_move
from .test_challenges import Player, count, guest

OPEN = Entry(0, 0)
"""The daily deal open to any account (the tests' new accounts are neither old nor rated;
the rule itself is tested in tests/web/test_daily_fair.py)."""


def open_entry(c: TestClient) -> TestClient:
    """Let any account of ``c``'s site play the daily deal; ``c``."""
    site(c).daily.entry = OPEN
    return c


@pytest.fixture
def fast(tmp_path: Path) -> Iterator[TestClient]:
    """The app with every ``hard`` decision made at once by the driver's fallback bot (a
    saturated pool), so that whole daily matches take seconds; any account may play."""
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0,
                     settings=NO_RATE_LIMITS, driver=ComputerDriver(queue_per_worker=0))
    with TestClient(app) as c:
        yield open_entry(c)


def _play(p: Player, mid: str, resign_after: int | None = None) -> dict[str, Any]:
    """Play the person's seat with :func:`quick_move` (the computer answers) to the end,
    or resign after ``resign_after`` moves; the last STATE."""
    moves = 0
    deadline = time.monotonic() + 60
    while True:
        s = p.get(f"/api/matches/{mid}").json()
        if s["status"] == "finished":
            return dict(s)
        assert time.monotonic() < deadline, s
        if resign_after is not None and moves >= resign_after:
            assert p.post(f"/api/matches/{mid}/resign").status_code == 200
            continue
        if s["hand_over"] is not None and not s["hand_over"]["ready"][0]:
            p.post(f"/api/matches/{mid}/next", {"version": s["version"]})
        elif s["legal"]:
            r = p.post(f"/api/matches/{mid}/actions",
                       {"action": quick_move(s), "version": s["version"]})
            moves += r.status_code == 200
        else:
            time.sleep(0.01)


def test_one_commitment_a_day_and_the_same_deals_for_everyone(client: TestClient) -> None:
    open_entry(client)
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    day = guest(client).get("/api/daily").json()
    assert day["date"] == utc_today().isoformat() and day["hands"] == HANDS == 3
    assert len(day["commitment"]) == 64 and day["level"] == "hard"
    assert (day["seed"], day["salt"], day["open"], day["leaderboard"]) == (None, None,
                                                                         False, [])
    assert "me" not in day
    assert client.get("/api/daily").json()["commitment"] == day["commitment"]
    assert count(client, daily_seeds_table) == 1
    assert ann.get("/api/daily").json()["me"] == {"played": False, "match": None,
                                                  "refused": None}

    r = ann.post("/api/daily/play")
    assert r.status_code == 201, r.text
    mine = r.json()
    assert mine["match"] == {k: mine[k] for k in ("id", "seat", "token", "url")}
    assert mine["seat"] == 0 and mine["commitment"] == day["commitment"]
    theirs = bob.post("/api/daily/play").json()
    sa = ann.get(f"/api/matches/{mine['id']}").json()
    sb = bob.get(f"/api/matches/{theirs['id']}").json()
    # the same deal, in the same seat, against the same computer
    for s in (sa, sb):
        assert s["seat"] == 0 and s["bot"] == "hard" and s["bots"] == [False, True]
        assert s["options"] == {"target": 250, "gin_only": False, "oklahoma": False,
                                "hands": 3}
    assert sa["players"] == ["Ann", "Hard computer"]
    assert sorted(sa["view"]["hand"]) == sorted(sb["view"]["hand"])
    assert (sa["view"]["upcard"], sa["view"]["dealer"]) == (sb["view"]["upcard"],
                                                            sb["view"]["dealer"])
    for mid, player in ((mine["id"], ann), (theirs["id"], bob)):
        f = client.get(f"/api/matches/{mid}/fairness").json()
        assert f["commitment"] == day["commitment"] and f["seed"] is None
        assert f["withheld"] == WITHHELD
        # nothing that tells the day's deals before the day is over, even to its player
        # (a stranger is refused before that: the match is private while it is played)
        for path in ("record", "replay"):
            r = player.get(f"/api/matches/{mid}/{path}")
            assert (r.status_code, r.json()) == (409, {"error": WITHHELD})
        assert guest(client).get(f"/api/matches/{mid}/record").status_code == 403
        assert client.get(f"/api/matches/{mid}/watch").status_code == 404
    r = ann.post(f"/api/matches/{mine['id']}/hint")
    assert r.status_code == 409
    assert r.json()["error"] == NO_HINTS
    me = ann.get("/api/daily").json()["me"]
    assert me == {"played": True, "match": {"id": mine["id"], "seat": 0,
                                            "url": f"/play/{mine['id']}"}, "refused": None}
    # once a day, whatever happens
    before = (count(client, daily_plays_table), count(client, matches_table))
    r = ann.post("/api/daily/play")
    assert (r.status_code, r.json()) == (409, {"error": (
        "You have already played today's daily deal: the next one is dealt at 00:00 UTC.")})
    assert (count(client, daily_plays_table), count(client, matches_table)) == before
    # linked to the level's BOT account, casual, private
    level = client.get("/api/players/hard").json()
    assert mine["id"] in [m["id"] for m in level["recent"]]
    assert all(not m["rated"] for m in level["recent"])


def test_the_seed_opens_the_next_day_and_every_record_verifies(
        fast: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c = fast
    daily = site(c).daily
    today = utc_today()
    daily.today = lambda: today
    ann, bob = Player(c, "Ann"), Player(c, "Bob")
    published = guest(c).get("/api/daily").json()["commitment"]
    mid_a = ann.post("/api/daily/play").json()["id"]
    mid_b = bob.post("/api/daily/play").json()["id"]
    end_b = _play(bob, mid_b)  # three hands against the computer
    end_a = _play(ann, mid_a, resign_after=3)
    assert end_b["end"] == "hand-cap" and len(end_b["score_sheet"]) == HANDS
    assert end_a["end"] == "resigned"
    r = bob.post(f"/api/matches/{mid_b}/rematch")
    assert (r.status_code, r.json()) == (409, {"error": "The daily deal has no rematch: the "
                                               "next deal is dealt at 00:00 UTC."})
    board = c.get("/api/daily").json()["leaderboard"]
    margin = end_b["scores"][0] - end_b["scores"][1]
    assert [(e["username"], e["margin"], e["match"], e["forfeit"]) for e in board] == [
        ("Bob", margin, mid_b, False),
        ("Ann", end_a["scores"][0] - end_a["scores"][1], mid_a, True)]
    assert c.get(f"/api/matches/{mid_b}/record").status_code == 409

    # the next day: the seed opens, and every record is sealed with it
    daily.today = lambda: today + dt.timedelta(days=1)
    old = c.get(f"/api/daily/{today.isoformat()}").json()
    assert old["open"] is True and old["commitment"] == published
    assert commitment(old["seed"], old["salt"]) == published
    assert old["leaderboard"] == board
    new = c.get("/api/daily").json()
    assert new["date"] == (today + dt.timedelta(days=1)).isoformat()
    assert new["commitment"] != published and new["seed"] is None
    for mid in (mid_a, mid_b):
        rec = c.get(f"/api/matches/{mid}/record").json()
        assert rec["commitment"] == published and rec["seed"] == old["seed"]
        assert rec["salt"] == old["salt"] and verify_record(rec).ok
        path = tmp_path / f"{mid}.json"
        path.write_text(json.dumps(rec))
        assert main(["verify", str(path)]) == 0
        assert capsys.readouterr().out.splitlines()[-1].startswith("Verified:")
        assert c.get(f"/api/matches/{mid}/replay").status_code == 200
        f = c.get(f"/api/matches/{mid}/fairness").json()
        assert f["seed"] == old["seed"] and "withheld" not in f
    rec = c.get(f"/api/matches/{mid_b}/record").json()
    assert rec["end"] == "hand-cap" and rec["options"]["hands"] == HANDS
    assert len(rec["hands"]) == HANDS
    # both records start from the same deal
    rec_a = c.get(f"/api/matches/{mid_a}/record").json()
    assert rec_a["hands"][0]["deal"] == rec["hands"][0]["deal"]
    # and yesterday's play does not count for today
    assert ann.post("/api/daily/play").status_code == 201


def test_bad_requests_are_one_sentence_and_change_nothing(client: TestClient) -> None:
    Player(client, "Ann")
    bot = client.post("/api/accounts", json={"username": "robo", "password": "correct horse",
                                             "bot": True})
    assert bot.status_code == 201
    csrf = bot.json()["csrf"]
    client.get("/api/daily")
    before = (count(client, daily_plays_table), count(client, matches_table),
              count(client, daily_seeds_table))

    def refused(r: Any, status: int, error: str) -> None:
        assert (r.status_code, r.json()) == (status, {"error": error})
        assert (count(client, daily_plays_table), count(client, matches_table),
                count(client, daily_seeds_table)) == before

    refused(client.post("/api/daily/play", headers={"X-CSRF-Token": csrf}), 403,
            "A BOT account plays only through an API token (Authorization: Bearer TOKEN), "
            "not with a session.")
    refused(guest(client).post("/api/daily/play"), 401,
            "The daily deal needs an account: sign up or log in first.")
    refused(guest(client).post("/api/daily/play", json={"hands": 5}), 400,
            "Unknown field 'hands'.")
    yesterday = (utc_today() - dt.timedelta(days=1)).isoformat()
    tomorrow = (utc_today() + dt.timedelta(days=1)).isoformat()
    refused(client.get(f"/api/daily/{yesterday}"), 404,
            f"No daily deal was dealt on {yesterday}.")
    refused(client.get(f"/api/daily/{tomorrow}"), 404,
            f"The daily deal of {tomorrow} is not dealt yet: each day's opens at 00:00 UTC.")
    for bad in ("2024-13-01", "yesterday", "2024-1-1", "x" * 300):
        refused(client.get(f"/api/daily/{bad}"), 404,
                "A daily deal is named by its date, YYYY-MM-DD (UTC).")
    # a table's options never carry 'hands': only the daily deal plays a fixed number
    r = client.post("/api/matches", json={"options": {"hands": 2}})
    refused(r, 400, "Unknown option: 'hands' (a fixed number of hands is only played in "
                    "the daily deal).")


def test_one_play_per_account_in_the_store(client: TestClient) -> None:
    store = site(client).store.daily
    now = time.time()
    assert store.claim("2030-01-01", "acct", now) is True
    assert store.claim("2030-01-01", "acct", now) is False
    assert store.claim("2030-01-01", "acct", now + 30) is False
    # a claim whose process died before naming its match may be claimed again
    assert store.claim("2030-01-01", "acct", now + 61) is True
    store.started("2030-01-01", "acct", "m1")
    assert store.claim("2030-01-01", "acct", now + 1000) is False
    assert store.day_of("m1") == "2030-01-01" and store.play_of("2030-01-01", "acct") == "m1"


def test_the_leaderboard_ranks_by_margin_then_forfeits_and_closes_at_midnight() -> None:
    def result(name: str, s0: int, s1: int, end: str, at: float) -> DailyResult:
        return DailyResult(name, False, f"m-{name}", "finished", (s0, s1), end, at)

    board = leaderboard([
        result("a", 10, 30, "hand-cap", 1.0), result("b", 40, 5, "hand-cap", 2.0),
        result("c", 50, 0, "resigned", 3.0), result("d", 0, 0, "aborted", 4.0),
        result("e", 90, 0, "hand-cap", 100.0),  # ended after midnight: not ranked
        result("f", 40, 5, "target", 1.5), result("g", 5, 20, "timeout", 5.0),
    ], closes_at=50.0)
    assert [(e["rank"], e["username"], e["margin"], e["forfeit"]) for e in board] == [
        (1, "f", 35, False), (2, "b", 35, False), (3, "a", -20, False),
        (4, "c", 50, True), (5, "g", -15, True)]
