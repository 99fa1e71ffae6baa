"""Scouting the daily deal is worthless (issue 44, item 5; docs/web-api.md, "The daily
deal"): nothing tells the day's deals before the day is over (no review, no puzzles from
one, no profile or live listing of the match, no STATE for anyone but its player); the
``hard`` computer draws its choices per match, so a second account replaying a first
one's moves does not meet the same table, while a process taking a turn over decides it
as the first would have; only established accounts play it, and a refusal says what the
account still needs; a result far beyond the account's rating is flagged for the
moderators."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from ginrummy.bots import make_bot
from ginrummy.fairness import deal_for
from ginrummy.hand import Action
from ginrummy.match import Match
from ginrummy.options import Options
from ginrummy.web import server
from ginrummy.web.app import create_app
from ginrummy.web.computer.driver import ComputerDriver, decide_once
from ginrummy.web.computer.turns import bot_seed, position_seed
from ginrummy.web.guard import Settings
from ginrummy.web.online.daily import (
    BOT_DAILY,
    ENTRY_DAYS,
    ENTRY_RATED,
    HANDS,
    LEVEL,
    REVIEW_CLOSED,
    TARGET,
    Entry,
    leaderboard,
    suspicion,
)
from ginrummy.web.online.ladder import level_id
from ginrummy.web.store.accounts import Account
from ginrummy.web.store.daily import DailyResult
from ginrummy.web.store.schema import (
    accounts_table,
    daily_plays_table,
    daily_seeds_table,
    matches_table,
)
from ginrummy.web.tables.levels import resolve_bot

from .conftest import NO_RATE_LIMITS, site
from .test_challenges import Player, count
from .test_daily import _play, open_entry

DAY = 86400.0


@pytest.fixture
def fast(tmp_path: Path) -> Iterator[TestClient]:
    """The app with every ``hard`` decision made at once by the driver's fallback bot (a
    saturated pool), so that whole daily matches take seconds; the entry rule as it is
    by default (the tests open it where they need)."""
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0,
                     settings=NO_RATE_LIMITS, driver=ComputerDriver(queue_per_worker=0))
    with TestClient(app) as c:
        yield c


def _set_account(c: TestClient, name: str, **values: Any) -> None:
    """Change an account's row (its age, rated matches, rating, role) as time and play
    would have."""
    a = accounts_table
    with site(c).store.engine.begin() as conn:
        conn.execute(update(a).where(a.c.username_key == name.casefold()).values(**values))


def _account(c: TestClient, name: str) -> Account:
    acct = site(c).store.tokens.by_name(name.casefold())
    assert acct is not None
    return acct


# ---------------------------------------------------------------- (1) nothing tells the deals


def test_nothing_tells_the_days_deals_before_the_day_is_over(fast: TestClient) -> None:
    c = open_entry(fast)
    ann, bob = Player(c, "Ann"), Player(c, "Bob")
    mid = ann.post("/api/daily/play").json()["id"]
    assert ann.get("/api/live").json()["matches"] == []  # not listed while played
    end = _play(ann, mid)
    assert end["status"] == "finished" and len(end["score_sheet"]) == HANDS
    # its player: no record, replay or review, so no puzzles made from one
    for path in ("record", "replay"):
        assert ann.get(f"/api/matches/{mid}/{path}").status_code == 409
    r = ann.post(f"/api/matches/{mid}/review")
    assert (r.status_code, r.json()) == (409, {"error": REVIEW_CLOSED})
    mine = ann.get("/api/puzzles/mine").json()
    assert (mine["puzzles"], mine["pending"]) == ([], 0)
    # anyone else: no STATE, review, spectator's view, nor the match in a profile
    for path in ("", "/review"):
        assert bob.get(f"/api/matches/{mid}{path}").status_code in (401, 403)
    assert bob.get(f"/api/matches/{mid}/watch").status_code == 404
    for name in ("ann", LEVEL):
        recent = bob.get(f"/api/players/{name}").json()["recent"]
        assert mid not in [m["id"] for m in recent]
    # the leaderboard names the result, never a card
    entry = bob.get("/api/daily").json()["leaderboard"][0]
    assert set(entry) == {"rank", "username", "bot", "margin", "match", "scores", "end",
                          "forfeit"}


# ---------------------------------------------------------------- (2) a computer per match


def _daily_line(seed: int, first_dealer: int, match_id: str) -> list[tuple[int, Action]]:
    """The daily match of the day whose secret seed is ``seed`` played to its end, the
    person's seat by a fixed policy (``strong`` with one seed: the same move at the same
    table, as a player replaying another's line would make), the computer's by the
    ``hard`` level's bot seeded as the server seeds it in match ``match_id``; each
    action with its seat."""
    m = Match(Options(target=TARGET, hands=HANDS), seed=seed, first_dealer=first_dealer,
              auto_deal=False)
    name = resolve_bot(LEVEL)
    line: list[tuple[int, Action]] = []
    while not m.is_over():
        if not m.hands or m.awaiting_deal():
            m.start_hand(deal_for(seed, len(m.hands)))
            continue
        seat = m.to_play
        assert seat is not None
        view = m.view(seat)
        if seat == 0:
            person = make_bot("strong", 1)
            person.new_match(0)
            action = person.decide(view)
        else:
            action = decide_once(name, position_seed(seed, match_id, len(line)), 1, view)
        m.play(action, seat)
        line.append((seat, action))
    return line


def test_the_same_moves_meet_a_computer_drawn_for_each_daily_match() -> None:
    """Before, the computer's seed came from the match's seed alone, and every daily match
    of a day shares the day's: a second account replaying the first's moves met the same
    table all the way. Now two matches of one day (the same deals) part ways, and one
    match decided again (a process taking its turn over) plays the very same line."""
    # the first search in a process also loads the evaluator, on the CPU time its budget
    # counts: loaded before, so that every decision here searches as far as planned
    _daily_line(4, 0, "warm-up")
    for seed in (1, 2, 3):
        a = _daily_line(seed, 1, "daily-match-a")
        b = _daily_line(seed, 1, "daily-match-b")
        assert a != b, seed
        first = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
        assert a[first][0] == 1  # they part where the computer chose, not the person
    assert _daily_line(3, 1, "daily-match-a") == a


def test_a_daily_computer_turn_taken_over_elsewhere_keeps_its_seed(fast: TestClient) -> None:
    c = open_entry(fast)
    ann, bob = Player(c, "Ann"), Player(c, "Bob")
    mid_a = ann.post("/api/daily/play").json()["id"]
    mid_b = bob.post("/api/daily/play").json()["id"]
    reg = site(c).registry
    ta, tb = reg.peek(mid_a), reg.peek(mid_b)
    assert ta is not None and tb is not None
    # the same deals (one secret seed), a computer of its own in each match
    assert ta.stored.seed == tb.stored.seed
    assert all(position_seed(ta.stored.seed, mid_a, k) != position_seed(tb.stored.seed,
                                                                        mid_b, k)
               for k in range(40))
    # the table read afresh from the database (as another process reads it) has the seed
    # this process had at the same position
    deadline = time.monotonic() + 20
    while not ann.get(f"/api/matches/{mid_a}").json()["legal"]:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    before = (ta.next_seq, bot_seed(ta))
    c.portal.call(reg.evict, ta, "test")  # type: ignore[union-attr]
    assert reg.peek(mid_a) is None
    assert ann.get(f"/api/matches/{mid_a}").status_code == 200
    again = reg.peek(mid_a)
    assert again is not None and again is not ta
    assert (again.next_seq, bot_seed(again)) == before


# ---------------------------------------------------------------- (3) established accounts


def test_only_established_accounts_play_and_a_refusal_says_what_they_need(
        client: TestClient) -> None:
    assert (ENTRY_DAYS, ENTRY_RATED) == (7.0, 10)
    ann = Player(client, "Ann")
    day = ann.get("/api/daily").json()
    assert day["entry"] == {"days": 7.0, "rated_matches": 10}
    fresh = ("The daily deal is for established accounts (at least 7 days old, with at least "
             "10 finished rated matches): yours needs 7 more days and 10 more finished "
             "rated matches.")
    assert day["me"] == {"played": False, "match": None, "refused": fresh}
    before = (count(client, daily_plays_table), count(client, matches_table),
              count(client, daily_seeds_table))

    def refused(sentence: str) -> None:
        r = ann.post("/api/daily/play")
        assert (r.status_code, r.json()) == (403, {"error": sentence})
        assert (count(client, daily_plays_table), count(client, matches_table),
                count(client, daily_seeds_table)) == before

    refused(fresh)
    now = time.time()
    _set_account(client, "Ann", created_at=now - 6.5 * DAY, rated_matches=3)
    refused("The daily deal is for established accounts (at least 7 days old, with at least "
            "10 finished rated matches): yours needs 1 more day and 7 more finished rated "
            "matches.")
    _set_account(client, "Ann", created_at=now - 8 * DAY, rated_matches=9)
    refused("The daily deal is for established accounts (at least 7 days old, with at least "
            "10 finished rated matches): yours needs 1 more finished rated match.")
    _set_account(client, "Ann", rated_matches=10)
    assert ann.get("/api/daily").json()["me"]["refused"] is None
    assert ann.post("/api/daily/play").status_code == 201


def test_the_entry_rule_and_its_sentences() -> None:
    acct = Account("id", "ann", _rating(1500), 1, created_at=0.0)
    assert Entry(1, 1).refusal(acct, DAY) is None
    assert Entry(0, 0).refusal(acct, 0.0) is None
    assert Entry(2, 2).refusal(acct, 0.5 * DAY) == (
        "The daily deal is for established accounts (at least 2 days old, with at least 2 "
        "finished rated matches): yours needs 2 more days and 1 more finished rated match.")
    assert Entry(1.5, 0).refusal(acct, DAY) == (
        "The daily deal is for established accounts (at least 1.5 days old, with at least "
        "0 finished rated matches): yours needs 1 more day.")


def test_the_serve_options_set_the_entry_rule(capsys: pytest.CaptureFixture[str]) -> None:
    d = Settings()
    assert (d.daily_min_days, d.daily_min_rated) == (ENTRY_DAYS, ENTRY_RATED)
    args = server.build_parser().parse_args(["--daily-min-days", "0",
                                             "--daily-min-rated", "3"])
    assert (args.daily_min_days, args.daily_min_rated) == (0.0, 3)
    for bad in (["--daily-min-days", "-1"], ["--daily-min-rated", "-2"],
                ["--daily-min-days", "nan"]):
        assert server.main(bad) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("ginrummy serve: --daily-min-") and "0 or more" in err
        assert len(err.splitlines()) == 1


def test_a_bot_account_is_refused_before_the_entry_rule(client: TestClient) -> None:
    from .test_fair_rated_play import _as_program, _bot

    _, robo = _bot(client, "robo")
    _set_account(client, "robo", created_at=time.time() - 30 * DAY, rated_matches=50)
    r = _as_program(client, robo, "POST", "/api/daily/play")
    assert (r.status_code, r.json()) == (403, {"error": BOT_DAILY})


# ---------------------------------------------------------------- (4) suspicious results


def _rating(value: float) -> Any:
    from ginrummy.ratings import Rating

    return Rating(value, 80.0)


def _result(name: str, margin: int, at: float, end: str = "hand-cap") -> DailyResult:
    return DailyResult(name, False, f"m-{name}", "finished", (max(margin, 0),
                                                              max(-margin, 0)), end, at)


def test_the_flag_rule_a_best_of_the_day_far_beyond_the_rating() -> None:
    day = "2030-01-02"
    board = leaderboard([_result("a", -58, 1.0), _result("b", -45, 2.0),
                         _result("c", -40, 3.0), _result("main", -30, 4.0),
                         _result("quitter", 90, 5.0, "resigned")], closes_at=100.0)
    why = suspicion(day, "m-main", "main", board, rating=1400.0, hard=1680.0)
    assert why == ("Daily deal: main's margin of -30 on 2030-01-02 is the day's best, ahead "
                   "of 3 other players, from an account rated 1400, 280 points below the Hard "
                   "computer (1680): far beyond what its rated play predicts, as playing "
                   "deals learned beforehand (on another account) would give.")
    # a player rated near the computer may top the day; so may anyone among few players
    assert suspicion(day, "m-main", "main", board, rating=1500.0, hard=1680.0) is None
    assert suspicion(day, "m-main", "main", board[1:], rating=1400.0, hard=1680.0) is None
    # only the day's best is judged (a forfeit ranks below every match played out)
    assert suspicion(day, "m-c", "c", board, rating=1000.0, hard=1680.0) is None
    assert suspicion(day, "m-quitter", "quitter", board, rating=1000.0, hard=1680.0) is None


def _flag_of_match(c: TestClient, account_id: str, mid: str) -> Any:
    """The account's flag once it names ``mid`` (the judge runs after the match ends)."""
    fp = site(c).store.fairplay
    deadline = time.monotonic() + 20
    while True:
        flag = fp.flag_of(account_id)
        if flag is not None and mid in flag.matches:
            return flag
        assert time.monotonic() < deadline, flag
        time.sleep(0.05)


def test_a_daily_result_far_beyond_the_rating_is_flagged_for_the_moderators(
        fast: TestClient) -> None:
    c = open_entry(fast)
    daily = site(c).daily
    daily.flag_field = 0  # one player a day here: the rule's field is tested above
    today = daily.today()
    fp = site(c).store.fairplay
    hard = site(c).store.accounts.by_ids([level_id(LEVEL)])[level_id(LEVEL)].rating.rating
    ann, bob, cy = Player(c, "Ann"), Player(c, "Bob"), Player(c, "Cyd")
    for name in ("Ann", "Cyd"):
        _set_account(c, name, rating=hard - 300)
    _set_account(c, "Bob", moderator=True)
    ann_id, cy_id = _account(c, "Ann").id, _account(c, "Cyd").id

    # the day's best from an account rated far below the computer: flagged, with the
    # screening's figures at zero (the daily grades no decision) and the match
    cid = cy.post("/api/daily/play").json()["id"]
    assert _play(cy, cid)["end"] == "hand-cap"
    flag = _flag_of_match(c, cy_id, cid)
    assert flag.status == "open" and flag.reason.startswith("Daily deal: Cyd's margin of ")
    assert flag.figures == {"decisions": 0, "agree": 0, "loss": 0.0, "contested": 0,
                            "contested_agree": 0}
    assert flag.matches == [cid]
    flags = bob.get("/api/mod/flags").json()["flags"]
    assert [(f["username"], f["reason"], f["decisions"]) for f in flags] == [
        ("Cyd", flag.reason, 0)]
    # judged again (nothing new): the flag stays as it is
    assert c.portal.call(daily.judge, cid) == flag.reason  # type: ignore[union-attr]
    assert fp.flag_of(cy_id) == flag

    # the next day: an open flag of the screening's keeps its figures and matches, the
    # daily's reason first
    daily.today = lambda: today + dt.timedelta(days=1)
    screened = {"decisions": 300, "agree": 290, "loss": 1.5, "contested": 40,
                "contested_agree": 39}
    fp.flag(ann_id, "The screening's reason.", screened, ["m-old"], time.time())
    mid = ann.post("/api/daily/play").json()["id"]
    assert _play(ann, mid)["end"] == "hand-cap"
    flag = _flag_of_match(c, ann_id, mid)
    assert flag.reason.startswith("Daily deal: Ann's margin of ")
    assert flag.reason.endswith(" Also open: The screening's reason.")
    assert flag.figures == screened and flag.matches == [mid, "m-old"]

    # an account rated like the computer may top the day: not flagged
    daily.today = lambda: today + dt.timedelta(days=2)
    _set_account(c, "Bob", rating=hard)
    bid = bob.post("/api/daily/play").json()["id"]
    assert _play(bob, bid)["end"] == "hand-cap"
    assert c.portal.call(daily.judge, bid) is None  # type: ignore[union-attr]
    assert fp.flag_of(_account(c, "Bob").id) is None
