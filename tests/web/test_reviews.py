"""Reviews and hints at the web table (issue 8 item 5): what a seat may see of a review
before and after the match ends (R11), one job per match, stored results reused, stale
jobs taken over, hints recorded, and clear refusals of bad requests.

Reviews here grade with 2 screening samples and a 3 ms cap per decision (quick)."""

from __future__ import annotations

import dataclasses
import random
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from ginrummy.cards import Card, parse_cards, to_mask
from ginrummy.match import Match
from ginrummy.melds import deadwood_mask
from ginrummy.review import review_match
from ginrummy.web import migrations
from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.app import create_app
from ginrummy.web.guard import Settings
from ginrummy.web.reviews.grading import ReviewSettings, hint_once, part_key, table_card
from ginrummy.web.store import ReviewStore

from .conftest import (
    NO_RATE_LIMITS,
    LeakChecker,
    auth,
    card_strings,
    create,
    invite_token,
    site,
    state,
)
from .online import sign_up


@pytest.fixture
def rclient(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """An app whose reviews and hints are cheap (the settings come from the environment)."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "2")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "3")
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0,
                     settings=NO_RATE_LIMITS)
    with TestClient(app) as c:
        site(c).lobby.seed_source = lambda: (4, 0)
        yield c


def _move(s: dict[str, Any], rng: random.Random, wild: float = 0.3) -> dict[str, Any]:
    """Mostly sensible (knock when allowed, draw from the stock, shed deadwood), sometimes
    (``wild``) random: hands end soon and some decisions earn marks."""
    legal: list[dict[str, Any]] = s["legal"]
    if rng.random() < wild:
        return dict(rng.choice(legal))
    knocks = [a for a in legal if a.get("knock")]
    if knocks:
        return dict(knocks[0])
    discards = [a for a in legal if a["act"] == "discard"]
    if discards:
        hand = to_mask(parse_cards(s["view"]["hand"]))
        return dict(min(discards,
                        key=lambda a: deadwood_mask(hand & ~Card.parse(a["card"]).mask)))
    draws = [a for a in legal if a["act"] == "draw" and a["from"] == "stock"]
    return dict(draws[0] if draws else legal[0])


def _friend(c: TestClient) -> tuple[str, list[str]]:
    m = create(c, opponent="friend", name="Ann")
    return m["id"], [m["token"], invite_token(c, m)]


def _play_hand(c: TestClient, mid: str, tokens: list[str], rng: random.Random,
               stop_after: int | None = None, wild: float = 0.3) -> None:
    """Both seats play until the hand is over (or ``stop_after`` actions)."""
    n = 0
    s = state(c, mid, tokens[0])
    while s["hand_over"] is None and (stop_after is None or n < stop_after):
        seat = s["view"]["to_play"]
        if seat != s["seat"]:
            s = state(c, mid, tokens[seat])
        r = c.post(f"/api/matches/{mid}/actions", headers=auth(tokens[seat]),
                   json={"action": _move(s, rng, wild), "version": s["version"]})
        assert r.status_code == 200, r.text
        s = r.json()
        n += 1


def _next(c: TestClient, mid: str, tokens: list[str]) -> None:
    for t in tokens:
        v = state(c, mid, t)["version"]
        r = c.post(f"/api/matches/{mid}/next", headers=auth(t), json={"version": v})
        assert r.status_code == 200, r.text


def _review(c: TestClient, mid: str, token: str, timeout: float = 300) -> dict[str, Any]:
    """Ask for the review and poll (POST, as the page does) until it is done; the
    deadline only catches a review that never ends (a whole match's review takes over a
    minute on a loaded 2-core machine; speed is a benchmark, docs/review.md). An empty
    ``token``: no seat token (the session cookie, or a public match's reader)."""
    deadline = time.monotonic() + timeout
    while True:
        r = c.post(f"/api/matches/{mid}/review", headers=auth(token) if token else {})
        assert r.status_code in (200, 202), r.text
        body: dict[str, Any] = r.json()
        assert body["status"] in ("done", "running"), body
        if body["status"] == "done":
            return body
        assert r.status_code == 202 and 0 <= body["progress"]["done"] <= max(
            body["progress"]["total"], 0) or body["progress"]["total"] == 0
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


def _full_record(c: TestClient, mid: str) -> dict[str, Any]:
    """The whole match as the server holds it (every deal): the test's answer key."""
    rec: dict[str, Any] = site(c).registry.tables[mid].match.to_record()
    return rec


def _check_no_leak(c: TestClient, mid: str, seat: int, body: dict[str, Any]) -> None:
    """No card of a hand's stock, and no hidden card of the opponent's (a dead hand
    shows neither hand, R7), appears in that hand's part of a mid-match review; the hand
    in play appears nowhere."""
    rec = _full_record(c, mid)
    checker = LeakChecker(rec)
    in_play = len(rec["hands"]) - 1
    reviewed = {h["index"] for h in body["review"]["hands"]} | {h["index"] for h in body["hands"]}
    m = Match.from_record(rec)
    if m.hand.result is None:
        assert in_play not in reviewed
    for part in body["review"]["hands"] + body["hands"]:
        i = part["index"]
        bad = checker.forbidden(seat, i, len(rec["hands"][i]["actions"]))
        assert not card_strings(part) & bad, (seat, i, sorted(card_strings(part) & bad))


def test_mid_match_review_is_the_seats_own_finished_hands(rclient: TestClient) -> None:
    c = rclient
    mid, tokens = _friend(c)
    rng = random.Random(7)
    # Nothing finished yet: an empty review, not an error.
    empty = _review(c, mid, tokens[0])
    assert empty["scope"] == {"seats": [0], "hands": [], "match_over": False}
    assert empty["review"]["hands"] == [] and empty["review"]["seats"][0]["decisions"] == 0

    _play_hand(c, mid, tokens, rng)
    for seat in (0, 1):
        body = _review(c, mid, tokens[seat])
        assert body["scope"] == {"seats": [seat], "hands": [0], "match_over": False}
        ds = body["review"]["hands"][0]["decisions"]
        assert ds and {d["seat"] for d in ds} == {seat}  # never the opponent's decisions
        assert all(d["loss"] >= 0 and d["equity"]["best"] >= d["equity"]["played"] - 1e-9
                   for d in ds)
        assert body["review"]["seats"][1 - seat]["decisions"] == 0
        assert body["review"]["seats"][1 - seat]["luck"] is None
        assert body["review"]["seats"][seat]["decisions"] == len(ds)
        # the frames show the seat's own cards, one frame per position
        frames = body["hands"][0]["frames"]
        assert len(frames) == len(body["hands"][0]["actions"]) + 1
        _check_no_leak(c, mid, seat, body)

    # The next hand is in play: the review still covers hand 0 only, from the store
    # (no job is started: the answer is immediate).
    _next(c, mid, tokens)
    _play_hand(c, mid, tokens, rng, stop_after=5)
    r = c.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
    assert r.status_code == 200 and r.json()["status"] == "done"
    assert r.json()["scope"]["hands"] == [0]
    _check_no_leak(c, mid, 0, r.json())


def test_finished_match_review_covers_both_seats_and_is_reused(rclient: TestClient) -> None:
    c = rclient
    mid, tokens = _friend(c)
    rng = random.Random(3)
    _play_hand(c, mid, tokens, rng)
    mine = _review(c, mid, tokens[0])  # part (0, seat 0) is stored mid-match
    while state(c, mid, tokens[0])["status"] != "finished":
        _next(c, mid, tokens)
        _play_hand(c, mid, tokens, rng, wild=0.02)
    m = Match.from_record(_full_record(c, mid))
    body = _review(c, mid, tokens[1])
    assert body["scope"] == {"seats": [0, 1], "hands": list(range(len(m.hands))),
                             "match_over": True}
    assert {d["seat"] for h in body["review"]["hands"] for d in h["decisions"]} == {0, 1}
    # the part graded mid-match is the same one, reused
    assert [d for d in body["review"]["hands"][0]["decisions"] if d["seat"] == 0] == \
        mine["review"]["hands"][0]["decisions"]
    for s in (0, 1):
        summary = body["review"]["seats"][s]
        assert summary["rating"] and summary["luck_adjusted"] is not None
    # after the end both hands are shown in every frame
    assert all("opp" in f for h in body["hands"] for f in h["frames"])
    # both seats see the same stored review; asking again starts nothing
    again = c.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
    assert again.status_code == 200 and again.json()["review"] == body["review"]
    store = site(c).store.reviews
    row = store.row(mid)
    assert row is not None and row["status"] == "idle"
    assert set(row["parts"]) == {part_key(h, s) for h in range(len(m.hands)) for s in (0, 1)}


def test_one_job_per_match_and_stale_jobs_are_taken_over(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    migrations.upgrade(engine)
    store = ReviewStore(engine)
    now = 1000.0
    first = store.claim("m1", 0, now, stale_seconds=60)
    assert first is not None
    assert store.claim("m1", 0, now + 1, stale_seconds=60) is None  # one at a time
    assert store.claim("m2", 0, now + 1, stale_seconds=60) is not None  # per match
    assert store.beat("m1", first, 3)
    # the first job's process dies: its heartbeat goes stale and the job is taken over
    second = store.claim("m1", 0, time.time() + 61, stale_seconds=60)
    assert second is not None and second != first
    assert not store.save_part("m1", first, "0:0", {"decisions": [], "luck": 0}, 1)
    assert store.save_part("m1", second, "0:0", {"decisions": [], "luck": 0}, 1)
    assert store.finish("m1", second) and not store.finish("m1", first)
    row = store.row("m1")
    assert row is not None and row["status"] == "idle" and set(row["parts"]) == {"0:0"}
    assert store.claim("m1", 0, now, stale_seconds=60) is not None  # idle: claimable


def test_a_second_request_joins_the_running_job(rclient: TestClient) -> None:
    c = rclient
    mid, tokens = _friend(c)
    _play_hand(c, mid, tokens, random.Random(11))
    r0 = c.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
    r1 = c.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
    assert r0.status_code == r1.status_code == 202
    store = site(c).store.reviews
    row = store.row(mid)
    assert row is not None and row["status"] == "running"
    job = row["job"]
    got = c.get(f"/api/matches/{mid}/review", headers=auth(tokens[1]))  # GET starts nothing
    assert got.status_code == 200 and got.json()["status"] in ("running", "none")
    assert (store.row(mid) or {}).get("job") in (job, None)
    _review(c, mid, tokens[0])
    assert _review(c, mid, tokens[1])["review"]["seats"][1]["decisions"] > 0


def _my_hand(c: TestClient, mid: str, tok: str,
             choose: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """The seat plays ``choose(STATE)`` at each of its turns until the hand is over (the
    computer plays its own in the background)."""
    for _ in range(2000):
        s = state(c, mid, tok)
        if s["hand_over"] is not None:
            return
        if not s["my_turn"]:
            time.sleep(0.01)
            continue
        r = c.post(f"/api/matches/{mid}/actions", headers=auth(tok),
                   json={"action": choose(s), "version": s["version"]})
        assert r.status_code == 200, r.text
    raise AssertionError("the hand did not end")


def _hint(c: TestClient, mid: str, tok: str) -> dict[str, Any]:
    r = c.post(f"/api/matches/{mid}/hint", headers=auth(tok))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_hint_is_the_seats_view_and_marks_the_decision(rclient: TestClient) -> None:
    c = rclient
    m = create(c, opponent="computer", bot="easy", name="Ann")
    mid, tok = m["id"], m["token"]
    rng = random.Random(2)
    hinted: tuple[int, int] | None = None

    def choose(s: dict[str, Any]) -> dict[str, Any]:
        nonlocal hinted
        if hinted is not None or len(s["legal"]) < 2:
            return _move(s, rng)
        h = _hint(c, mid, tok)
        assert h["best"] in s["legal"]
        assert h["text"].startswith(("Suggestion: ", "Either is fine: ")), h
        assert h["version"] == s["version"] and h["hand"] == 0
        hinted = (h["hand"], h["action"])
        assert h["action"] == len(s["view"]["history"])
        move: dict[str, Any] = h["best"]
        return move

    _my_hand(c, mid, tok, choose)
    assert hinted is not None
    r = c.post(f"/api/matches/{mid}/hint", headers=auth(tok))  # the hand is over
    assert r.status_code == 409 and "nothing to hint" in r.json()["error"]
    body = _review(c, mid, tok)
    flags = {(0, d["action"]): d["hinted"] for d in body["review"]["hands"][0]["decisions"]}
    assert flags[hinted] is True and sum(flags.values()) == 1
    assert body["review"]["seats"][0]["hinted"] == 1


def test_no_move_made_on_the_hint_is_marked_by_the_review(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: the coach contradicted itself (a move made on the hint marked "?!" by the
    review). Ann asks for the hint at every decision of a hand against the computer and
    plays it (the runner-up, where the hint says either is fine); the review of that
    hand marks none of them, and its best move is the hint's at every one."""
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "8")  # noisy: any other way disagrees
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "none")
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0,
                     settings=NO_RATE_LIMITS)
    with TestClient(app) as c:
        site(c).lobby.seed_source = lambda: (11, 1)
        m = create(c, opponent="computer", bot="easy", name="Ann")
        mid, tok = m["id"], m["token"]
        hints: dict[int, dict[str, Any]] = {}

        def on_the_hint(s: dict[str, Any]) -> dict[str, Any]:
            if len(s["legal"]) < 2:
                return dict(s["legal"][0])
            h = hints[len(s["view"]["history"])] = _hint(c, mid, tok)
            move: dict[str, Any] = h["next"] if h["either"] and len(hints) % 2 == 0 \
                else h["best"]
            return move

        _my_hand(c, mid, tok, on_the_hint)
        body = _review(c, mid, tok)
    decisions = {d["action"]: d for d in body["review"]["hands"][0]["decisions"]}
    assert len(hints) >= 5 and set(decisions) == set(hints)
    for k, d in decisions.items():
        assert d["hinted"] and d["mark"] is None, (d, hints[k])
        assert d["best"] == hints[k]["best"], (d, hints[k])
    assert body["review"]["seats"][0]["inaccuracies"] == 0


def test_bad_requests_are_refused_clearly(rclient: TestClient) -> None:
    c = rclient
    mid, tokens = _friend(c)
    r = c.post(f"/api/matches/{mid}/review")
    assert r.status_code == 401 and "token" in r.json()["error"]
    r = c.get(f"/api/matches/{mid}/review", headers=auth("not-a-token"))
    assert r.status_code == 403 and "token" in r.json()["error"]
    r = c.post("/api/matches/nosuchmatch/review", headers=auth(tokens[0]))
    assert r.status_code == 404 and "no match" in r.json()["error"]
    r = c.put(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
    assert r.status_code == 405 and r.json()["error"]
    r = c.post(f"/api/matches/{mid}/hint", headers=auth(tokens[0]))
    assert r.status_code == 409 and "against the computer" in r.json()["error"]
    comp = create(c, opponent="computer", bot="easy")
    r = c.post(f"/api/matches/{comp['id']}/hint")
    assert r.status_code == 401
    store = site(c).store.reviews
    assert store.row(mid) is None  # refused requests changed nothing


def test_review_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                              caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "none")
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "8")
    monkeypatch.setenv("GINRUMMY_HINT_SAMPLES", "64")
    monkeypatch.setenv("GINRUMMY_REVIEW_STALE_S", "soon")
    s = ReviewSettings.from_env()
    assert s.budget_ms is None and s.samples == 8
    assert s.stale_seconds == ReviewSettings().stale_seconds  # a bad value: the default
    assert "GINRUMMY_REVIEW_STALE_S" in caplog.text
    # a hint is the review's verdict: it has no samples of its own to set
    assert "GINRUMMY_HINT_SAMPLES is no longer read" in caplog.text


def test_a_failed_job_is_reported_then_retried(rclient: TestClient) -> None:
    """A job whose worker fails (here: its database cannot be opened) ends as ``failed``
    with a sentence, not a traceback and not "running" forever; asked again once the
    failure is no longer fresh, the review is made."""
    c = rclient
    mid, tokens = _friend(c)
    _play_hand(c, mid, tokens, random.Random(11))
    rs = site(c).reviews
    good = rs.db_url
    rs.db_url = "sqlite:////nonexistent-folder/reviews.sqlite3"
    rs.settings = dataclasses.replace(rs.settings, stale_seconds=1.0)
    assert c.post(f"/api/matches/{mid}/review", headers=auth(tokens[0])).status_code == 202
    deadline = time.monotonic() + 30
    while True:
        body = c.get(f"/api/matches/{mid}/review", headers=auth(tokens[0])).json()
        if body["status"] != "running":
            break
        assert time.monotonic() < deadline, body
        time.sleep(0.05)
    assert body["status"] == "failed" and "The review failed" in body["error"]
    again = c.post(f"/api/matches/{mid}/review", headers=auth(tokens[0])).json()
    assert again["status"] == "failed"  # a fresh failure is reported, not retried at once
    rs.db_url = good
    time.sleep(1.1)
    assert _review(c, mid, tokens[0])["review"]["seats"][0]["decisions"] > 0


def test_review_and_hint_requests_count_against_the_rate_limit(tmp_path: Path) -> None:
    settings = Settings(rate_actions="4/minute")
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0, settings=settings)
    with TestClient(app) as c:
        m = create(c, opponent="computer", bot="easy")
        codes = [c.get(f"/api/matches/{m['id']}/review", headers=auth(m["token"])).status_code
                 for _ in range(5)]
        assert codes[:4] == [200] * 4 and codes[4] == 429
        r = c.post(f"/api/matches/{m['id']}/hint", headers=auth(m["token"]))
        assert r.status_code == 429 and "Too many requests" in r.json()["error"]


def test_who_may_read_a_review_without_a_seat_link(rclient: TestClient) -> None:
    """Issue 36: review links on profiles and on a spectator's finished match said "This
    review link has no seat token", even for the account that played. The account's
    session is its seat (any of its matches, in play or over); once a public match is
    over its review is public (no seat: both seats, as the replay is); a private match's
    review stays its players'."""
    c = rclient
    sign_up(c, "Ola")
    ola = c.cookies[COOKIE]
    same = {"Origin": "http://testserver"}
    rng = random.Random(5)
    made = {}
    for public in (True, False):
        m = c.post("/api/matches", json={"opponent": "friend", "name": "Ola",
                                         "public": public}, headers=same).json()
        tokens = [m["token"], invite_token(c, m)]
        _play_hand(c, m["id"], tokens, rng, stop_after=6)
        made[public] = (m["id"], tokens)
    pub, priv = made[True][0], made[False][0]
    c.cookies.clear()
    # in play: only the seats (by token or session), even for a public match
    for mid in (pub, priv):
        r = c.post(f"/api/matches/{mid}/review")
        assert r.status_code == 401, r.text
    c.cookies.set(COOKIE, ola)
    r = c.get(f"/api/matches/{priv}/review")  # the session is Ola's seat, in play too
    assert r.status_code == 200 and r.json()["seat"] == 0, r.text
    for mid, tokens in made.values():
        assert c.post(f"/api/matches/{mid}/resign", headers=auth(tokens[1])).status_code == 200
    # over: the public match's review is anyone's; Ola still reads hers as her seat
    c.cookies.clear()
    body = _review(c, pub, "")
    assert body["seat"] is None and body["scope"]["seats"] == [0, 1]
    assert body["scope"]["match_over"] and all("opp" in f for f in body["hands"][0]["frames"])
    assert c.post(f"/api/matches/{priv}/review").status_code == 401  # private: not public
    c.cookies.set(COOKIE, ola)
    assert c.get(f"/api/matches/{priv}/review").json()["seat"] == 0
    assert c.get(f"/api/matches/{pub}/review").json()["seat"] == 0
    sign_up(c, "Pia")  # an account with no seat there reads a public review as anyone
    assert c.get(f"/api/matches/{pub}/review").json()["seat"] is None
    r = c.get(f"/api/matches/{priv}/review")
    assert r.status_code == 403 and "no seat at this match" in r.json()["error"]
    # a wrong seat token is still refused, public or not
    assert c.get(f"/api/matches/{pub}/review", headers=auth("nope")).status_code == 403


def test_the_coach_writes_cards_as_the_table_does() -> None:
    """Issue 36: the coach wrote "7D" where the table writes 7♦. The hint's sentence and
    the review's reasons and words name cards as the table's cards do (10♣, 7♦)."""
    assert [table_card(c) for c in parse_cards("7D TC AS")] == ["7♦", "10♣", "A♠"]
    m = Match(seed=21)
    r1 = re.compile(r"\b(?:10|[2-9TJQKA])[CDHS]\b")
    texts: list[str] = []
    while len(texts) < 6 and not m.is_over() and m.hand.result is None:
        assert m.to_play is not None
        v = m.view(m.to_play)
        if v.phase.value == "discard":
            h = hint_once(v, (0.0, 0.0), 4, None)
            if h["best"]["act"] == "discard":
                texts.append(h["text"])
        m.play(v.legal[-1] if v.phase.value == "discard" else v.legal[0])
    assert texts and all(not r1.search(t) for t in texts), texts
    assert all(re.search("[♣♦♥♠]", t) for t in texts), texts
    review = review_match(m, seats=(0, 1), hands=(0,), samples=4, card=table_card)
    whys = [g.why for g in review.graded if g.why]
    assert whys and all(not r1.search(w) for w in whys), whys
    assert any(re.search("[♣♦♥♠]", w) for w in whys), whys
