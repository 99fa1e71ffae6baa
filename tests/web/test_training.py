"""Training at the web table (INTERFACES section 12; docs/web-api.md, "Training"): puzzles
by rating and theme, answers that move Glicko-2 ratings the right way (a puzzle solved
loses rating, its solver gains), guests who solve without ratings, bad answers refused
with nothing changed, the analysis board's answer equal to the command line's, and a
player's own reviewed mistakes as private puzzles that show only what the seat saw (R11).
"""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ginrummy.cards import Card, parse_cards, to_mask
from ginrummy.cli import main
from ginrummy.melds import deadwood_mask
from ginrummy.ratings import match_update
from ginrummy.training.analysis import analyze_position
from ginrummy.training.puzzles import Puzzle, find_puzzles
from ginrummy.training.sources import self_play
from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.store import Store
from ginrummy.web.training.puzzles import new_puzzle

from .conftest import LeakChecker, auth, card_strings, create, site, state
from .online import quick_move, sign_up
from .test_migrations import pg_fresh  # noqa: F401 - a fixture: an empty database


@pytest.fixture(scope="module")
def made() -> list[Puzzle]:
    """A few quick puzzles from one self-play match (512 deals: the tests' own rule)."""
    matches = self_play(1, seed=5, bot="simple")
    return find_puzzles(matches, samples=512, screen=64, seed=2, limit=4)


@pytest.fixture
def cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap reviews and private puzzles (read from the environment when the app starts)."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "16")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "none")
    monkeypatch.setenv("GINRUMMY_PUZZLE_SAMPLES", "256")


@pytest.fixture
def tclient(cheap: None, client: TestClient, made: list[Puzzle]) -> TestClient:
    """The app of ``client`` made cheap, with the made puzzles stored."""
    assert site(client).store.puzzles.add(new_puzzle(p) for p in made) == len(made)
    return client


def _csrf(c: TestClient) -> dict[str, str]:
    return {"X-CSRF-Token": c.get("/api/me").json()["csrf"]}


def _login_as(c: TestClient, cookie: str) -> None:
    c.cookies.clear()
    c.cookies.set(COOKIE, cookie)


def _best(c: TestClient, pid: str, guest_answer: dict[str, Any]) -> dict[str, Any]:
    """A puzzle's best move, learnt as a guest would (a guest's answer changes nothing)."""
    saved = dict(c.cookies)
    c.cookies.clear()
    r = c.post(f"/api/puzzles/{pid}/solve", json={"action": guest_answer})
    for k, v in saved.items():
        c.cookies.set(k, v)
    assert r.status_code == 200, r.text
    best: dict[str, Any] = r.json()["best"]
    return best


def test_next_shows_the_position_never_the_answer(tclient: TestClient,
                                                  made: list[Puzzle]) -> None:
    r = tclient.get("/api/puzzles/next")
    assert r.status_code == 200, r.text
    p = r.json()
    assert {"id", "view", "legal", "rating", "themes", "context"} <= set(p)
    assert not {"best", "values", "margin", "why"} & set(p)
    assert p["rating"] == 1500 and p["legal"]
    c = p["context"]
    assert c["pile"] == p["view"]["discards"] and c["stock"] == p["view"]["stock_count"]
    puzzle = next(x for x in made if new_puzzle(x).id == p["id"])
    assert puzzle.view.to_json() == p["view"]  # the seat's own view, nothing more (R11)


def test_a_guest_solves_and_nothing_is_rated(tclient: TestClient) -> None:
    p = tclient.get("/api/puzzles/next").json()
    best = _best(tclient, p["id"], p["legal"][0])
    r = tclient.post(f"/api/puzzles/{p['id']}/solve", json={"action": best})
    out = r.json()
    assert r.status_code == 200 and out["correct"] is True
    assert out["rating"] is None and out["rated"] is False and out["puzzle_rating"] == 1500
    wins = [v["win"] for v in out["values"]]
    assert wins == sorted(wins, reverse=True) and len(wins) == len(p["legal"])
    assert out["values"][0]["action"] == out["best"] == best
    assert out["margin"] > 3 * out["margin_se"] and out["samples"] == 512
    assert out["why"] and out["why"].endswith(".")
    assert tclient.get(f"/api/puzzles/{p['id']}").json()["rating"] == 1500


def test_ratings_move_the_right_way_and_apart_from_play(tclient: TestClient) -> None:
    ids = [p.id for p in site(tclient).store.puzzles.public()]
    sign_up(tclient, "solver")
    solver = tclient.cookies[COOKIE]
    sign_up(tclient, "failer")
    failer = tclient.cookies[COOKIE]
    body = tclient.get(f"/api/puzzles/{ids[0]}").json()
    best = _best(tclient, ids[0], body["legal"][0])
    wrong = next(a for a in body["legal"] if a != best)

    _login_as(tclient, solver)
    out = tclient.post(f"/api/puzzles/{ids[0]}/solve", json={"action": best},
                       headers=_csrf(tclient)).json()
    assert out["correct"] and out["rated"]
    assert out["rating"] > 1500 and out["puzzle_rating"] < 1500  # solver up, puzzle down
    me = tclient.get("/api/me").json()
    assert me["puzzle_rating"] == out["rating"] and me["puzzles"] == 1
    assert me["rating"] == 1500  # play's rating is another thing

    _login_as(tclient, failer)
    out2 = tclient.post(f"/api/puzzles/{ids[0]}/solve", json={"action": wrong},
                        headers=_csrf(tclient)).json()
    assert not out2["correct"] and out2["rated"]
    assert out2["rating"] < 1500 and out2["puzzle_rating"] > out["puzzle_rating"]
    assert out2["mistake"] is None or out2["mistake"]

    again = tclient.post(f"/api/puzzles/{ids[0]}/solve", json={"action": best},
                         headers=_csrf(tclient)).json()
    assert again["correct"] and not again["rated"] and again["rating"] == out2["rating"]
    assert again["puzzle_rating"] == out2["puzzle_rating"]
    history = tclient.get("/api/puzzles/history").json()
    assert [(h["id"], h["correct"]) for h in history["answers"]] == [(ids[0], False)]
    assert history["puzzle_rating"] == out2["rating"]
    nxt = tclient.get("/api/puzzles/next").json()
    assert nxt["id"] != ids[0]  # an answered puzzle is not offered again


def test_bad_answers_are_refused_and_change_nothing(tclient: TestClient) -> None:
    sign_up(tclient, "careful")
    csrf = _csrf(tclient)
    p = tclient.get("/api/puzzles/next").json()
    not_legal = {"act": "discard", "card": "AS", "knock": False}
    if not_legal in p["legal"]:
        not_legal["card"] = "AH"
    for body, status, words in [
        (b"{", 400, "not valid JSON"),
        ({"move": p["legal"][0]}, 400, 'Send {"action": {...}}'),
        ({"action": {"act": "fly"}}, 400, "The answer is not a move"),
        ({"action": {"act": "draw", "from": "sky"}}, 400, "The answer is not a move"),
        ({"action": not_legal}, 400, "is not legal in this puzzle"),
    ]:
        kw: dict[str, Any] = {"content": body} if isinstance(body, bytes) else {"json": body}
        r = tclient.post(f"/api/puzzles/{p['id']}/solve", headers=csrf, **kw)
        assert r.status_code == status, r.text
        err = r.json()["error"]
        assert words in err and err.endswith(".") and "\n" not in err
    r = tclient.post("/api/puzzles/nope/solve", json={"action": p["legal"][0]}, headers=csrf)
    assert r.status_code == 404
    assert tclient.post(f"/api/puzzles/{p['id']}/solve", json={"action": p["legal"][0]}
                        ).status_code == 403  # an account's change needs its CSRF token
    me = tclient.get("/api/me").json()
    assert me["puzzle_rating"] == 1500 and me["puzzles"] == 0
    row = site(tclient).store.puzzles.get(p["id"])
    assert row is not None and row.attempts == 0 and row.rating.rating == 1500
    assert tclient.get("/api/puzzles/history").json()["answers"] == []


def test_next_by_theme_and_rating(tclient: TestClient, made: list[Puzzle]) -> None:
    theme = made[0].themes[0] if made[0].themes else None
    if theme is not None:
        for _ in range(5):
            assert theme in tclient.get(f"/api/puzzles/next?theme={theme}").json()["themes"]
    missing = next(t for t in (x["name"] for x in tclient.get(
        "/api/puzzles/themes").json()["themes"]) if all(t not in p.themes for p in made))
    r = tclient.get(f"/api/puzzles/next?theme={missing}")
    assert r.status_code == 404 and missing in r.json()["error"]
    for bad, words in [("theme=chess", "Unknown theme 'chess'"),
                       ("rating=high", "The rating must be a number")]:
        r = tclient.get(f"/api/puzzles/next?{bad}")
        assert r.status_code == 400 and words in r.json()["error"]
    assert tclient.get("/api/puzzles/next?rating=2400").status_code == 200
    assert tclient.get("/api/puzzles/history").status_code == 401
    assert tclient.get("/api/puzzles/mine").status_code == 401


POSITION: dict[str, Any] = {
    "hand": "7C 8C 9C 9D 9H 9S KD QH 4S 2H 3H", "pile": "TD 5S", "opponent_took": [],
    "opponent_discarded": ["5S"], "opponent_passed": ["TD"], "stock": 29,
    "to_play": "discard", "scores": [10, 35], "samples": 128, "seed": 7,
}


def test_analysis_answers_as_the_command_line_does(tclient: TestClient, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    r = tclient.post("/api/analysis", json=POSITION)
    assert r.status_code == 200, r.text
    f = tmp_path / "p.json"
    f.write_text(json.dumps(POSITION))
    assert main(["analyze", "--position", str(f), "--json"]) == 0
    assert r.json() == json.loads(capsys.readouterr().out) == analyze_position(POSITION)
    bad = tclient.post("/api/analysis", json=POSITION | {"hand": "7C 8C 9C 9D 9H 9S KD QH "
                                                                 "4S 2H 5S"})
    assert bad.status_code == 400
    assert bad.json()["error"] == "The card 5S is both in your hand and on the pile."
    for body in ([1, 2], {"hand": "7C"}):
        r = tclient.post("/api/analysis", json=body)
        assert r.status_code == 400 and r.json()["error"].endswith(".")


def test_guests_get_a_fair_share_of_the_coach_never_the_whole(tclient: TestClient) -> None:
    """Issue 44 item 8: guests' analyses at 16,384 deals took the coach's workers from
    signed-in players (91% of the board's requests refused). A guest may ask for at most
    GUEST_SAMPLES deals (403, the sentence), and is answered in the coach's guests' lane:
    when that is full, a guest is refused (503) while an account is answered."""
    from ginrummy.training.analysis import MAX_SAMPLES
    from ginrummy.web.training.analysis import GUEST_SAMPLES

    tclient.cookies.clear()
    r = tclient.post("/api/analysis", json=POSITION | {"samples": GUEST_SAMPLES + 1})
    assert r.status_code == 403 and r.json()["error"] == (
        f"A guest's analysis is on at most {GUEST_SAMPLES:,} deals: log in to ask for up to "
        f"{MAX_SAMPLES:,}."), r.text
    assert tclient.post("/api/analysis", json=POSITION).status_code == 200
    coach = site(tclient).coach
    coach.guest_waiting = coach.settings.guest_waiting  # as if guests filled their lane
    try:
        r = tclient.post("/api/analysis", json=POSITION)
        assert r.status_code == 503 and "guests' requests" in r.json()["error"], r.text
        sign_up(tclient, "member")
        r = tclient.post("/api/analysis", json=POSITION | {"samples": GUEST_SAMPLES * 2},
                         headers=_csrf(tclient))
        assert r.status_code == 200 and r.json()["samples"] == GUEST_SAMPLES * 2, r.text
    finally:
        coach.guest_waiting = 0


def test_the_coachs_costly_requests_are_limited_per_address_for_guests(
        cheap: None, tmp_path: Path) -> None:
    """``rate_coach`` counts analyses, hints and reviews started: per address for guests
    (a crowd behind one address shares it), per account for accounts (429, the sentence);
    a review page's polls of a job already running are not counted."""
    from ginrummy.web.app import create_app
    from ginrummy.web.guard import Settings

    from .conftest import NO_RATE_LIMITS

    settings = Settings(**{**NO_RATE_LIMITS.__dict__, "rate_coach": "3/minute"})
    app = create_app(f"sqlite:///{tmp_path / 'c.sqlite3'}", bot_delay=0, settings=settings)
    with TestClient(app) as c:
        for _ in range(3):
            assert c.post("/api/analysis", json=POSITION).status_code == 200
        r = c.post("/api/analysis", json=POSITION)
        assert r.status_code == 429 and r.json()["error"] == (
            "Too many requests for the coach: at most 3 per 1 minute from one address for "
            "guests. Wait a moment and try again."), r.text
        m = create(c, opponent="computer", bot="easy")
        r = c.post(f"/api/matches/{m['id']}/hint", headers=auth(m["token"]))
        assert r.status_code == 429, r.text
        sign_up(c, "member2")  # an account has a budget of its own
        for _ in range(3):
            r = c.post("/api/analysis", json=POSITION, headers=_csrf(c))
            assert r.status_code == 200, r.text
        r = c.post("/api/analysis", json=POSITION, headers=_csrf(c))
        assert r.status_code == 429 and "per account" in r.json()["error"]


def test_a_guests_review_runs_in_the_guests_lane(tclient: TestClient) -> None:
    """A review a guest starts runs in the guests' own worker, at most GUEST_JOBS at a
    time on a process: past it a guest's start waits (202 ``queued``, nothing started: its
    page polls on); a seat held by an account starts at once in the accounts' lane."""
    from ginrummy.web.reviews.jobs import GUEST_JOBS

    m = create(tclient, opponent="friend", name="Ann")
    mid = m["id"]
    r = tclient.post(f"/api/matches/{mid}/join", json={"invite": m["invite_url"].split(
        "#invite=", 1)[1]})
    tokens = [m["token"], r.json()["token"]]
    _play_one_hand(tclient, mid, tokens)
    reviews = site(tclient).reviews
    reviews.guest_jobs = GUEST_JOBS  # as if guests' reviews filled their lane
    try:
        r = tclient.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
        assert r.status_code == 202 and r.json()["status"] == "queued", r.text
        assert site(tclient).store.reviews.row(mid) is None  # no job was started
        sign_up(tclient, "reviewer")
        assert tclient.post("/api/me/matches", json={"tokens": [tokens[0]]},
                            headers=_csrf(tclient)).json() == {"claimed": 1}
        r = tclient.post(f"/api/matches/{mid}/review", headers=_csrf(tclient))
        assert r.status_code in (200, 202), r.text  # the account's own lane
    finally:
        reviews.guest_jobs = 0
    tclient.cookies.clear()
    deadline = time.monotonic() + 120
    while (r := tclient.post(f"/api/matches/{mid}/review", headers=auth(tokens[1]))
           ).json()["status"] != "done":
        assert r.status_code in (200, 202), r.text  # polls a running job: no refusal
        assert time.monotonic() < deadline
        time.sleep(0.1)


# ----------------------------------------------------------------------------- mine


def _worst_move(s: dict[str, Any]) -> dict[str, Any]:
    """Seat 0's bad habits: never knock, draw from the stock, throw the card that leaves
    the most deadwood (breaking melds): a review marks such decisions."""
    legal: list[dict[str, Any]] = s["legal"]
    discards = [a for a in legal if a["act"] == "discard" and not a.get("knock")]
    if discards:
        hand = to_mask(parse_cards(s["view"]["hand"]))
        return dict(max(discards, key=lambda a: (
            deadwood_mask(hand & ~Card.parse(a["card"]).mask), a["card"])))
    for a in legal:
        if a["act"] == "draw" and a["from"] == "stock" or a["act"] == "pass":
            return dict(a)
    return dict(legal[0])


def _play_one_hand(c: TestClient, mid: str, tokens: list[str]) -> None:
    s = state(c, mid, tokens[0])
    while s["hand_over"] is None:
        seat = s["view"]["to_play"]
        if seat != s["seat"]:
            s = state(c, mid, tokens[seat])
        move = _worst_move(s) if seat == 0 else quick_move(s)
        r = c.post(f"/api/matches/{mid}/actions", headers=auth(tokens[seat]),
                   json={"action": move, "version": s["version"]})
        assert r.status_code == 200, r.text
        s = r.json()


def _mine(c: TestClient, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        r = c.get("/api/puzzles/mine")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        if body["pending"] == 0:
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.1)


def test_reviewed_mistakes_become_private_puzzles_until_solved(tclient: TestClient) -> None:
    # known deals: on a random one the friend may knock on its first turn, leaving seat 0
    # one decision and nothing to mark (seed 7 does); seed 2's hand gives seat 0 29
    # decisions, 10 of them marked
    site(tclient).lobby.seed_source = lambda: (2, 0)
    m = create(tclient, opponent="friend", name="Ann")
    mid = m["id"]
    r = tclient.post(f"/api/matches/{mid}/join", json={"invite": m["invite_url"].split(
        "#invite=", 1)[1]})
    tokens = [m["token"], r.json()["token"]]
    _play_one_hand(tclient, mid, tokens)
    sign_up(tclient, "learner")
    assert tclient.post("/api/me/matches", json={"tokens": [tokens[0]]},
                        headers=_csrf(tclient)).json() == {"claimed": 1}
    assert _mine(tclient)["puzzles"] == []  # not reviewed yet: nothing marked
    deadline = time.monotonic() + 300
    while tclient.post(f"/api/matches/{mid}/review", headers=auth(tokens[0])
                       ).json()["status"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    review = tclient.get(f"/api/matches/{mid}/review", headers=auth(tokens[0])).json()
    marked = {(0, d["action"]) for h in review["review"]["hands"] for d in h["decisions"]
              if d["mark"] and d["seat"] == 0}
    assert marked, "the bad habits earned no mark"
    mine = _mine(tclient)
    shown = mine["puzzles"]
    assert {(p["hand"], p["action"]) for p in shown} <= marked
    assert len(shown) + mine["solved"] <= len(marked) and shown
    checker = LeakChecker(site(tclient).registry.tables[mid].match.to_record())
    for p in shown:
        assert p["private"] and p["match"] == mid and p["seat"] == 0 and p["played"]
        assert not card_strings(p) & checker.forbidden(0, p["hand"], p["action"])
    first = shown[0]
    out = tclient.post(f"/api/puzzles/{first['id']}/solve", json={"action": first["played"]},
                       headers=_csrf(tclient)).json()
    assert out["correct"] is False and out["match"] == mid and not out["rated"]
    assert out["rating"] is None or out["rating"] == 1500
    best = out["best"]
    out = tclient.post(f"/api/puzzles/{first['id']}/solve", json={"action": best},
                       headers=_csrf(tclient)).json()
    assert out["correct"] and out["solved"]
    after = _mine(tclient)
    assert first["id"] not in {p["id"] for p in after["puzzles"]}
    assert after["solved"] == mine["solved"] + 1
    assert tclient.get("/api/me").json()["puzzles"] == 0  # private puzzles are not rated
    # another account sees none of them
    sign_up(tclient, "stranger")
    assert tclient.get(f"/api/puzzles/{first['id']}").status_code == 404
    assert _mine(tclient)["puzzles"] == []


@pytest.mark.postgres
def test_the_store_counts_concurrent_answers_on_postgres(request: pytest.FixtureRequest,
                                                         made: list[Puzzle]) -> None:
    """Four accounts answer the same puzzle at once: every answer counts (the puzzle's row
    is locked while one is applied)."""
    store = Store(str(request.getfixturevalue("pg_fresh")))  # a database of its own
    try:
        tag = f"{random.getrandbits(40):x}"
        p = made[0]
        row = new_puzzle(p)
        row = type(row)(f"t{tag}", f"test/{tag}", None, None, row.hand, row.action, row.seat,
                        row.themes, row.body)
        assert store.puzzles.add([row]) == 1
        best = p.answer.best.to_json()
        errors: list[BaseException] = []

        def answer(who: str) -> None:
            try:
                store.puzzles.answer(row.id, who, best, True, match_update)
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=answer, args=(f"a{tag}{i}",)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        got = store.puzzles.get(row.id)
        assert got is not None and got.attempts == 4 and got.solved == 4
        assert got.rating.rating < 1500
        store.puzzles.remove([row.id])
    finally:
        store.close()
