"""Screening, reports and moderators on SQLite (issue 44 items 2 and 3; INTERFACES section
13): a finished rated match is screened in the background (its people's seats only), the
rule flags an account whose figures are beyond honest play, players report accounts, and
only moderators see flags and reports and mark accounts: a marked account leaves the
leaderboard, its profile says so, and its rated opponents get back what they lost to it,
once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import insert

from ginrummy.review.screening import Figures, verdict
from ginrummy.web.commands.accounts import main as accounts_main
from ginrummy.web.store.schema import screenings_table

from .conftest import site
from .online import both_move, quick_move
from .test_challenges import Player, guest


def _rated_match(c: TestClient, winner: Player, loser: Player) -> str:
    """A rated challenge between two accounts that ``loser`` resigns once both moved."""
    cid = winner.post("/api/challenges", {"to": loser.name, "rated": True}).json()["challenge"]
    mine = loser.post(f"/api/challenges/{cid}/accept").json()["match"]
    theirs = winner.get(f"/api/challenges/{cid}").json()["match"]
    guest(c)
    both_move(c, mine["id"], [theirs["token"], mine["token"]])
    assert loser.post(f"/api/matches/{mine['id']}/resign").status_code == 200
    _run(c, site(c).ratings.settled)
    return str(mine["id"])


def _run(c: TestClient, fn: Any, *args: Any) -> Any:
    """``await fn(*args)`` on the app's event loop."""
    return c.portal.call(fn, *args)  # type: ignore[attr-defined]


def _moderator(c: TestClient, tmp_path: Path, name: str) -> Player:
    mo = Player(c, name)
    assert accounts_main(["moderator", name, "--db", str(tmp_path / "web.sqlite3")]) == 0
    return mo


def test_a_finished_rated_match_is_screened_for_its_people_only(client: TestClient) -> None:
    ann = Player(client, "Ann")
    r = ann.post("/api/challenges", {"to": "easy", "rated": True})
    m = r.json()["match"]
    deadline = time.monotonic() + 60
    while True:  # Ann plays; the computer answers
        s = ann.get(f"/api/matches/{m['id']}").json()
        if s["status"] == "finished":
            break
        assert time.monotonic() < deadline
        if s["hand_over"] is not None and not s["hand_over"]["ready"][0]:
            ann.post(f"/api/matches/{m['id']}/next", {"version": s["version"]})
        elif s["legal"]:
            ann.post(f"/api/matches/{m['id']}/actions",
                     {"action": quick_move(s), "version": s["version"]})
        else:
            time.sleep(0.01)
    fp = site(client).store.fairplay
    deadline = time.monotonic() + 120
    while fp.job_status(m["id"]) != "done":  # queued when it ended, screened in the back
        assert time.monotonic() < deadline, fp.job_status(m["id"])
        time.sleep(0.2)
    acct = site(client).store.tokens.by_name("ann")
    assert acct is not None
    rows = fp.screenings(acct.id)
    assert [r.match_id for r in rows] == [m["id"]] and rows[0].seat == 0
    assert rows[0].figures["decisions"] > 10
    easy = site(client).store.tokens.by_name("easy")
    assert easy is not None and fp.screenings(easy.id) == []  # a BOT is not screened
    # a casual match is not screened
    casual = ann.post("/api/challenges", {"to": "easy"}).json()["match"]
    assert ann.post(f"/api/matches/{casual['id']}/abort").status_code == 200
    _run(client, site(client).screening.scan)
    assert fp.job_status(casual["id"]) is None


def _screened(c: TestClient, account_id: str, figures: Figures, n: int) -> None:
    """Store ``n`` screened matches with these figures for the account."""
    with site(c).store.engine.begin() as conn:
        for i in range(n):
            conn.execute(insert(screenings_table).values(
                match_id=f"m{i}-{account_id[:6]}", account_id=account_id, seat=0,
                at=time.time() - 100 + i, **figures.to_json()))


def test_the_rule_flags_copiers_and_not_strong_play(client: TestClient, tmp_path: Path
                                                    ) -> None:
    # figures per 100 decisions like the calibration's (256 samples): expert's, and strong's
    engine = Figures(100, 82, 0.11, 55, 52)
    strong = Figures(100, 66, 0.54, 55, 43)
    assert verdict(engine + engine + engine) is not None
    assert verdict(strong + strong + strong + strong + strong + strong) is None
    cheat, fair = Player(client, "Cheat"), Player(client, "Fair")
    ids = {p.name: site(client).store.tokens.by_name(p.name.casefold()) for p in (cheat, fair)}
    _screened(client, ids["Cheat"].id, engine, 3)  # type: ignore[union-attr]
    _screened(client, ids["Fair"].id, strong, 6)  # type: ignore[union-attr]
    for acct in ids.values():
        _run(client, site(client).screening.judge, acct.id)  # type: ignore[union-attr]
    mo = _moderator(client, tmp_path, "Moe")
    flags = mo.get("/api/mod/flags").json()["flags"]
    assert [f["username"] for f in flags] == ["Cheat"]
    f = flags[0]
    assert set(f) >= {"username", "decisions", "error_rate", "agreement", "reason"}
    assert f["decisions"] == 300 and f["agreement"] == 0.82 and len(f["matches"]) == 3
    # cleared: flagged again only by play after it
    r = mo.post("/api/mod/accounts/Cheat/clear", {"text": "a strong player, known to us"})
    assert r.status_code == 200
    assert mo.get("/api/mod/flags").json()["flags"] == []
    _run(client, site(client).screening.judge, ids["Cheat"].id)  # type: ignore[union-attr]
    assert mo.get("/api/mod/flags").json()["flags"] == []


def test_only_moderators_see_flags_and_reports(client: TestClient, tmp_path: Path) -> None:
    ann = Player(client, "Ann")
    for path in ("/api/mod", "/api/mod/flags", "/api/mod/reports", "/api/mod/accounts/Ann"):
        r = ann.get(path)
        assert r.status_code == 403 and r.json()["error"] == "Only moderators may see or do this."
        assert guest(client).get(path).status_code == 401
    r = ann.post("/api/mod/accounts/Ann/mark", {"mark": "engine", "reason": "me"})
    assert r.status_code == 403
    assert accounts_main(["moderator", "nobody", "--db", str(tmp_path / "web.sqlite3")]) == 1
    mo = _moderator(client, tmp_path, "Moe")
    assert mo.get("/api/mod").json() == {"flags": 0, "reports": 0}
    assert accounts_main(["moderator", "Moe", "--revoke", "--db",
                          str(tmp_path / "web.sqlite3")]) == 0
    assert mo.get("/api/mod/flags").status_code == 403


def test_reports_and_a_mark_with_its_refunds(client: TestClient, tmp_path: Path) -> None:
    ann, bob, cy = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Cyd")
    lost = _rated_match(client, ann, bob)  # Bob resigns: he loses points to Ann
    _rated_match(client, cy, ann)  # Ann loses to Cy: nothing to give back for that
    before = client.get("/api/players/Bob").json()
    assert before["history"][-1]["score"] == 0.0
    bob_lost = 1500.0 - before["rating"]
    assert bob_lost > 0
    # reports
    r = bob.post("/api/reports", {"username": "Ann", "reason": "engine",
                                  "text": "every move instant", "match": lost})
    assert r.status_code == 201 and set(r.json()) == {"id"}
    for body, status in (({"username": "Bob", "reason": "engine"}, 400),
                         ({"username": "Nobody", "reason": "engine"}, 404),
                         ({"username": "Ann", "reason": "cheating"}, 400),
                         ({"username": "Ann", "reason": "other", "text": "x" * 501}, 400),
                         ({"username": "Ann", "reason": "other", "match": "nope"}, 400),
                         ({"username": "Ann", "reason": "other", "extra": 1}, 400),
                         ({"username": "Ann", "reason": "engine", "match": lost}, 429)):
        r = bob.post("/api/reports", body)
        assert r.status_code == status and isinstance(r.json()["error"], str), (body, r.text)
    assert guest(client).post("/api/reports", json={"username": "Ann",
                                                    "reason": "engine"}).status_code == 401
    mo = _moderator(client, tmp_path, "Moe")
    reports = mo.get("/api/mod/reports").json()["reports"]
    assert len(reports) == 1
    rep = reports[0]
    assert {k: rep[k] for k in ("username", "by", "reason", "text")} == {
        "username": "Ann", "by": "Bob", "reason": "engine", "text": "every move instant"}
    assert set(rep) >= {"id", "username", "by", "reason", "text", "created_at"}
    # the mark: off the leaderboard, the profile says so, Bob gets his points back
    r = mo.post("/api/mod/accounts/Ann/mark", {"mark": "cheater", "reason": "x"})
    assert r.status_code == 400
    r = mo.post("/api/mod/accounts/Ann/mark", {"mark": "engine"})
    assert r.status_code == 400 and "reason" in r.json()["error"]
    r = mo.post("/api/mod/accounts/Ann/mark", {"mark": "engine",
                                               "reason": "agrees with the engine throughout"})
    assert r.status_code == 200, r.text
    refunds = r.json()["refunds"]
    assert [(x["username"], x["match"]) for x in refunds] == [("Bob", lost)]
    assert refunds[0]["points"] == round(bob_lost, 1)
    assert client.get("/api/players/Ann").json()["mark"] == "engine"
    assert client.get("/api/players/Bob").json()["rating"] == round(
        before["rating"] + refunds[0]["points"], 1)
    assert "Ann" not in [p["username"] for p in client.get("/api/leaderboard").json()["players"]]
    # marked again (a second moderator's click): nothing is given back twice
    r = mo.post("/api/mod/accounts/Ann/mark", {"mark": "engine", "reason": "again"})
    assert r.json()["refunds"] == []
    # taken away: the mark goes, the refund stays
    r = mo.post("/api/mod/accounts/Ann/mark", {"mark": None, "reason": "appeal upheld"})
    assert r.status_code == 200 and client.get("/api/players/Ann").json()["mark"] is None
    view = mo.get("/api/mod/accounts/Ann").json()
    assert [(e["action"], e["mark"]) for e in view["log"]] == [
        ("mark", "engine"), ("mark", "engine"), ("mark", None)]
    assert view["log"][0]["moderator"] == "Moe" and view["refunds"][0]["username"] == "Bob"
    # the report is closed and a note left; both are on the account's history
    assert mo.post(f"/api/mod/reports/{rep['id']}/close", {"text": "marked"}).status_code == 200
    assert mo.post(f"/api/mod/reports/{rep['id']}/close", {"text": "x"}).status_code == 404
    assert mo.post("/api/mod/accounts/Ann/note", {"text": "watch her"}).status_code == 200
    assert mo.get("/api/mod/reports").json()["reports"] == []
    log = mo.get("/api/mod/accounts/Ann").json()["log"]
    assert [e["action"] for e in log][-2:] == ["close", "note"]


WRONG = [None, True, 0, -1, 1.5, 10 ** 40, "", "\u0000", "x" * 5000, [], ["engine"], {},
         {"a": 1}]
"""Values of every wrong type a field may be sent."""


def test_report_and_mark_fields_of_any_wrong_type_are_one_sentence(client: TestClient,
                                                                    tmp_path: Path) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mo = _moderator(client, tmp_path, "Moe")
    for field in ("username", "reason", "text", "match"):
        for value in WRONG:
            body = {"username": "Ann", "reason": "other", field: value}
            if field in ("text", "match") and value in ("", None):
                continue  # no words and no match are fine
            r = bob.post("/api/reports", body)
            assert 400 <= r.status_code < 500, (field, value, r.status_code, r.text[:200])
            assert isinstance(r.json()["error"], str)
    for body in ([], "x", 5, None):
        r = bob.post("/api/reports", body)
        assert r.status_code == 400, (body, r.text)
    for field in ("mark", "reason"):
        for value in WRONG:
            body = {"mark": "engine", "reason": "why", field: value}
            if field == "mark" and value is None:
                continue  # null takes a mark away
            r = mo.post("/api/mod/accounts/Ann/mark", body)
            assert 400 <= r.status_code < 500, (field, value, r.status_code, r.text[:200])
    for path in ("/api/mod/accounts/Ann/note", "/api/mod/accounts/Ann/clear",
                 "/api/mod/reports/xyz/close"):
        for value in WRONG:
            r = mo.post(path, {"text": value})
            assert 400 <= r.status_code < 500, (path, value, r.status_code, r.text[:200])
    assert mo.get("/api/mod/accounts/" + "x" * 50).status_code == 404
    assert mo.get("/api/mod").json() == {"flags": 0, "reports": 0}  # nothing was stored
    assert client.get("/api/players/Ann").json()["mark"] is None
    assert ann.get("/api/mod").status_code == 403


def test_a_marked_account_meets_only_marked_accounts_in_rated_play(client: TestClient,
                                                                   tmp_path: Path) -> None:
    """As on lichess: after a mark, the account's rated seeks pair only with other marked
    accounts, and honest players' rated seeks never with it; casual play is open."""
    cheat, honest, other = Player(client, "Cheat"), Player(client, "Honest"), Player(
        client, "Other")
    mo = _moderator(client, tmp_path, "Moe")
    for name in ("Cheat", "Other"):
        r = mo.post(f"/api/mod/accounts/{name}/mark", {"mark": "engine", "reason": "test"})
        assert r.status_code == 200
    body = {"rated": True, "target": 150}
    waiting = cheat.post("/api/seeks", body).json()
    assert "seek" in waiting
    assert "seek" in honest.post("/api/seeks", body).json()  # not paired with Cheat
    paired = other.post("/api/seeks", body).json()
    assert "match" in paired  # two marked accounts meet each other
    assert cheat.get(f"/api/seeks/{waiting['seek']}").json()["match"]["id"] == \
        paired["match"]["id"]
    casual = {"target": 150}
    assert "seek" in cheat.post("/api/seeks", casual).json()
    assert "match" in honest.post("/api/seeks", casual).json()  # casual: open to all


def test_the_screening_keeps_an_open_daily_flag_s_reason(client: TestClient) -> None:
    cheat = Player(client, "Cheat")
    acct = site(client).store.tokens.by_name("cheat")
    assert acct is not None
    fp = site(client).store.fairplay
    daily = "Daily deal: Cheat's margin of +90 on 2026-12-07 is the day's best."
    fp.flag(acct.id, daily, Figures().to_json(), ["d1"], time.time())
    _screened(client, acct.id, Figures(100, 84, 0.09, 60, 57), 3)
    reason = _run(client, site(client).screening.judge, acct.id)
    assert reason is not None
    flag = fp.flag_of(acct.id)
    assert flag is not None and flag.reason.startswith(reason) and daily in flag.reason
    assert "d1" in flag.matches and cheat.name == "Cheat"
