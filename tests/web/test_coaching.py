"""No coach in rated play (issue 44 item 1; INTERFACES section 13): hints, reviews and the
analysis board refuse a rated, arena or daily match while it is played, and refuse its
player whatever it asks about, by session, API token, seat token or browser cookie; casual
tables keep their coach."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.app import create_app
from ginrummy.web.online.browsers import COOKIE as BROWSER
from ginrummy.web.online.coaching import IN_PLAY, NO_HINTS, REVIEW_LATER
from ginrummy.web.online.daily import REVIEW_CLOSED

from .conftest import NO_RATE_LIMITS, auth, site
from .test_challenges import Player
from .test_daily import _play, open_entry

ROOT = Path(__file__).resolve().parents[2]
POSITION = json.loads((ROOT / "docs" / "example-position.json").read_text()) | {"samples": 8}


@pytest.fixture
def cheap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The app with cheap reviews and hints."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "2")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "3")
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0,
                     settings=NO_RATE_LIMITS)
    with TestClient(app) as c:
        yield c


def _rated_vs_hard(p: Player) -> dict[str, Any]:
    r = p.post("/api/challenges", {"to": "hard", "rated": True})
    assert r.status_code == 201, r.text
    m: dict[str, Any] = r.json()["match"]
    return m


def _my_turn(p: Player, mid: str) -> dict[str, Any]:
    import time
    deadline = time.monotonic() + 20
    while True:
        s: dict[str, Any] = p.get(f"/api/matches/{mid}").json()
        if s["legal"]:
            return s
        assert time.monotonic() < deadline, s
        time.sleep(0.01)


def test_r11_a_rated_match_gets_no_hint_and_no_review_until_it_is_over(cheap: TestClient
                                                                        ) -> None:
    ann = Player(cheap, "Ann")
    m = _rated_vs_hard(ann)
    s = _my_turn(ann, m["id"])
    assert s["coach"] is False
    # the hint, by session and by seat token
    for r in (ann.post(f"/api/matches/{m['id']}/hint"),
              cheap.post(f"/api/matches/{m['id']}/hint", headers=auth(m["token"]))):
        assert r.status_code == 409 and r.json()["error"] == NO_HINTS, r.text
    r = ann.post(f"/api/matches/{m['id']}/review")
    assert r.status_code == 409 and r.json()["error"] == REVIEW_LATER
    assert ann.get(f"/api/matches/{m['id']}/review").status_code == 409
    # the analysis board, by session
    r = ann.post("/api/analysis", POSITION)
    assert r.status_code == 409 and r.json()["error"] == IN_PLAY
    # no decision was hinted: nothing was computed for the seat
    with site(cheap).store.engine.connect() as conn:
        from ginrummy.web.store.schema import hints_table
        assert conn.execute(hints_table.select()).first() is None
    # over: the review opens, the board opens
    assert ann.post(f"/api/matches/{m['id']}/resign").status_code == 200
    r = ann.post(f"/api/matches/{m['id']}/review")
    assert r.status_code in (200, 202), r.text
    assert ann.post("/api/analysis", POSITION).status_code == 200


def test_a_player_in_rated_play_gets_no_coach_anywhere(cheap: TestClient) -> None:
    ann = Player(cheap, "Ann")
    # a casual table against the computer first: hints work there
    r = ann.post("/api/challenges", {"to": "easy"})
    casual = r.json()["match"]
    s = _my_turn(ann, casual["id"])
    assert s["coach"] is True
    assert ann.post(f"/api/matches/{casual['id']}/hint").status_code == 200
    # ... until a rated match starts: then nothing, whichever match or position
    rated = _rated_vs_hard(ann)
    for r in (ann.post(f"/api/matches/{casual['id']}/hint"),
              cheap.post(f"/api/matches/{casual['id']}/hint", headers=auth(casual["token"])),
              ann.post(f"/api/matches/{casual['id']}/review"),
              ann.post("/api/analysis", POSITION)):
        assert r.status_code == 409 and r.json()["error"] == IN_PLAY, r.text
    # an API token of the account
    token = ann.post("/api/tokens", {"name": "laptop"}).json()["token"]
    cheap.cookies.clear()
    r = cheap.post("/api/analysis", json=POSITION, headers=auth(token))
    assert r.status_code == 409 and r.json()["error"] == IN_PLAY
    # logged out in the same browser: the browser cookie still says who it is
    cheap.cookies.clear()
    cheap.cookies.set(BROWSER, "b" * 32)
    cheap.cookies.set(COOKIE, ann.cookie)
    assert cheap.get("/api/me").status_code == 200  # a page's call: notes the browser
    cheap.cookies.clear()
    cheap.cookies.set(BROWSER, "b" * 32)
    r = cheap.post("/api/analysis", json=POSITION)
    assert r.status_code == 409 and r.json()["error"] == IN_PLAY
    # another browser, nobody signed in: the board is open
    cheap.cookies.clear()
    assert cheap.post("/api/analysis", json=POSITION).status_code == 200
    # the rated match over: everything opens again
    assert ann.post(f"/api/matches/{rated['id']}/resign").status_code == 200
    assert ann.post("/api/analysis", POSITION).status_code == 200
    s = _my_turn(ann, casual["id"])
    assert ann.post(f"/api/matches/{casual['id']}/hint").status_code == 200


def test_the_daily_has_no_hint_and_its_review_waits_for_the_day(cheap: TestClient) -> None:
    import datetime as dt

    from ginrummy.web.computer.driver import ComputerDriver
    site(cheap).driver = ComputerDriver(queue_per_worker=0)
    site(cheap).turns.driver = site(cheap).driver
    open_entry(cheap)  # a new account may play (the entry rule: tests/web/test_daily_fair.py)
    ann = Player(cheap, "Ann")
    m = ann.post("/api/daily/play").json()
    s = _my_turn(ann, m["id"])
    assert s["coach"] is False
    r = ann.post(f"/api/matches/{m['id']}/hint")
    assert r.status_code == 409 and r.json()["error"] == NO_HINTS
    r = ann.post("/api/analysis", POSITION)
    assert r.status_code == 409 and r.json()["error"] == IN_PLAY
    _play(ann, m["id"], resign_after=3)
    # the match is over but its day is not: the review would tell the day's deals
    r = ann.post(f"/api/matches/{m['id']}/review")
    assert r.status_code == 409 and r.json()["error"] == REVIEW_CLOSED
    assert ann.post("/api/analysis", POSITION).status_code == 200
    today = site(cheap).daily.today()
    site(cheap).daily.today = lambda: today + dt.timedelta(days=1)
    assert ann.post(f"/api/matches/{m['id']}/review").status_code in (200, 202)
