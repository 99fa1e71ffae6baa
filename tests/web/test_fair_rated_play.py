"""Fair rated play however a rated match is made, and people kept apart from programs
(issue 44, items 6 and 7; docs/web-api.md "What is rated", "Arena tournaments" and "BOT
accounts"), on SQLite through the TestClient (every request comes from one address):

* a rated challenge or a rated arena match between two players from one address moves
  each rating by at most CAP, like two seeks from one address; accounts that have used one
  browser are rated the same way;
* the waits after aborting or leaving rated matches keep an account from making or
  accepting rated challenges (open links and the computer's levels too) and from joining
  or being paired in a rated arena;
* an arena cannot be farmed: a win by a quick resignation scores nothing, an abort ends
  the aborter's streak (and is an offence in a rated arena), withdrawing ends the streak;
* a seat played through an API token is a program's: shown as a bot; the account is
  paired like a BOT (never with a person's seek or in a person's arena); a BOT account
  neither joins a person's arena nor plays the daily deal; a token revokes no tokens.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import delete, func, insert, select, update

from ginrummy.ratings import DEFAULT, Rating, match_update
from ginrummy.web.accounts.accounts import COOKIE
from ginrummy.web.accounts.tokens import BY_SESSION
from ginrummy.web.online.arenas import FOR_PEOPLE
from ginrummy.web.online.daily import BOT_DAILY
from ginrummy.web.online.fairplay import CAP, WAITS, rated_result, wait_sentence
from ginrummy.web.online.ratings import PLAY_RATED
from ginrummy.web.store.schema import (
    accounts_table,
    daily_plays_table,
    matches_table,
    rated_offences_table,
)

from .arena_play import both_pass, both_play, read_arena, wait_arena
from .conftest import site
from .test_challenges import Player, count

SETTLED = 100.0
"""A deviation at which a rating is settled (at most 110) but still moves 25 points for a
win between equals: a capped result is plain to see."""


def _settle_ratings(c: TestClient, *names: str) -> None:
    """Make these accounts' ratings settled (1500 ± 100), as after many rated matches."""
    a = accounts_table
    with site(c).store.engine.begin() as conn:
        conn.execute(update(a).where(a.c.username_key.in_([n.casefold() for n in names]))
                     .values(deviation=SETTLED))


def _rating(c: TestClient, name: str) -> float:
    r = c.get(f"/api/players/{name}")
    assert r.status_code == 200, r.text
    return float(r.json()["rating"])


def _settled(c: TestClient) -> None:
    """Wait for the ratings the last commits settle."""
    c.portal.call(site(c).ratings.settled)  # type: ignore[union-attr]


def _offend(c: TestClient, who: Player, n: int = 3) -> None:
    """Record ``n`` rated offences (aborts) of ``who`` in the last minute: from the third
    on, the account must wait (fairplay.WAITS)."""
    acct = site(c).store.tokens.by_name(who.name.casefold())
    assert acct is not None
    now = time.time()
    with site(c).store.engine.begin() as conn:
        for i in range(n):
            conn.execute(insert(rated_offences_table).values(
                account_id=acct.id, match_id=f"gone{i}", kind="aborted", at=now - 30 + i))


def _forgive(c: TestClient, who: Player) -> None:
    acct = site(c).store.tokens.by_name(who.name.casefold())
    assert acct is not None
    with site(c).store.engine.begin() as conn:
        conn.execute(delete(rated_offences_table)
                     .where(rated_offences_table.c.account_id == acct.id))


def _token(p: Player) -> str:
    r = p.post("/api/tokens", {"name": "script"})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _bot(c: TestClient, name: str) -> tuple[Player, str]:
    """A BOT account (its browser, for the session's own pages) and an API token of it."""
    c.cookies.clear()
    r = c.post("/api/accounts", json={"username": name, "password": "correct horse",
                                      "bot": True})
    assert r.status_code == 201, r.text
    p = Player.__new__(Player)
    p.c, p.name, p.csrf, p.cookie = c, name, r.json()["csrf"], c.cookies[COOKIE]
    return p, _token(p)


def _as_program(c: TestClient, token: str, method: str, path: str,
                body: Any = None) -> Any:
    """A request made with an API token only (no cookie): as a program makes it."""
    c.cookies.clear()
    return c.request(method, path, json=body, headers=_bearer(token))


def _in_play(p: Player, aid: str, made: int) -> dict[str, Any]:
    """The arena once its ``made``-th match is made and in play."""
    return wait_arena(p, aid, lambda x: len(x["matches"]) == made and x["in_play"] == 1)


def _make_arena(p: Player, **body: Any) -> str:
    r = p.post("/api/tournaments", {"name": "Fair arena", "minutes": 30} | body)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


# ----------------------------------------------------------------------------- 6a


def test_a_rated_challenge_from_one_address_moves_each_rating_by_at_most_cap(
        client: TestClient) -> None:
    """Issue 44: from one address, a rated challenge gave +175.1 where a seek gives +5.
    Both accounts settled (their results are not capped for being provisional): the
    challenger's and the acceptor's address are the same, so the result moves each by
    CAP at most."""
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    _settle_ratings(client, "Ann", "Bob")
    cid = ann.post("/api/challenges", {"to": "Bob", "rated": True}).json()["challenge"]
    mid = bob.post(f"/api/challenges/{cid}/accept").json()["match"]["id"]
    both_play((ann, bob), mid)
    assert bob.post(f"/api/matches/{mid}/resign").json()["end"] == "resigned"
    _settled(client)
    full = match_update(Rating(DEFAULT.rating, SETTLED), Rating(DEFAULT.rating, SETTLED), 1.0)
    assert full[0].rating - DEFAULT.rating > 5 * CAP  # what one address gave before
    assert _rating(client, "Ann") == DEFAULT.rating + CAP
    assert _rating(client, "Bob") == DEFAULT.rating - CAP


def test_a_rated_arena_match_from_one_address_moves_each_rating_by_at_most_cap(
        client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    _settle_ratings(client, "Ann", "Bob")
    aid = _make_arena(ann, rated=True)
    assert bob.post(f"/api/tournaments/{aid}/join").status_code == 200
    assert ann.post(f"/api/tournaments/{aid}/start").status_code == 200
    mid = read_arena(ann, aid)["me"]["match"]["id"]
    both_play((ann, bob), mid)
    assert ann.post(f"/api/matches/{mid}/resign").json()["end"] == "resigned"
    _settled(client)
    assert _rating(client, "Ann") == DEFAULT.rating - CAP
    assert _rating(client, "Bob") == DEFAULT.rating + CAP


def test_accounts_that_used_one_browser_are_rated_as_from_one_address(
        client: TestClient) -> None:
    """Whatever made the match (here a link stored as from two addresses), two accounts
    that have used one browser move each other by CAP at most; others as Glicko-2 says."""
    store = site(client).store
    ann, bob, cat = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Cat")
    _settle_ratings(client, "Ann", "Bob", "Cat")
    ids = {p.name: store.tokens.by_name(p.name.casefold()).id  # type: ignore[union-attr]
           for p in (ann, bob, cat)}
    store.seeks.note_browser("browser-of-the-house", ids["Ann"])
    store.seeks.note_browser("browser-of-the-house", ids["Bob"])
    for mid, pair in (("m-shared", ("Ann", "Bob")), ("m-apart", ("Cat", "Bob"))):
        store.accounts.link(mid, (ids[pair[0]], ids[pair[1]]), True, True,
                            same_address=False)
    assert store.accounts.settle("m-shared", 1.0, rated_result, 0.0)
    assert _rating(client, "Ann") == DEFAULT.rating + CAP
    assert store.accounts.settle("m-apart", 1.0, rated_result, 0.0)
    assert _rating(client, "Cat") - DEFAULT.rating > 4 * CAP  # never shared a browser


# ----------------------------------------------------------------------------- 6b


def test_a_player_who_must_wait_is_refused_rated_challenges_and_open_links(
        client: TestClient) -> None:
    """Issue 44: the waits after aborting applied to seeks only. Now making or accepting
    a rated challenge (to a player, an open link, a computer level) is refused during the
    wait, with the sentence and the seconds; casual ones are open; nothing is stored."""
    dodger, other = Player(client, "Dodger"), Player(client, "Other")
    invite = other.post("/api/challenges", {"to": "Dodger", "rated": True}).json()
    _offend(client, dodger)
    before = count(client, matches_table)
    for body in ({"to": "Other", "rated": True}, {"to": None, "rated": True},
                 {"to": "hard", "rated": True}):
        r = dodger.post("/api/challenges", body)
        assert r.status_code == 429, (body, r.text)
        assert r.json()["error"] == wait_sentence(3, WAITS[0], PLAY_RATED)
        assert WAITS[0] - 40 <= r.json()["wait"] <= WAITS[0]
    r = dodger.post(f"/api/challenges/{invite['challenge']}/accept")
    assert r.status_code == 429 and r.json()["error"].startswith(
        "You aborted or left 3 rated matches in the last 24 hours: you can play a rated "
        "match again in ")
    assert count(client, matches_table) == before
    assert other.get(f"/api/challenges/{invite['challenge']}").json()["status"] == "open"
    # casual challenges are open, made and accepted
    assert dodger.post("/api/challenges", {"to": "Other"}).status_code == 201
    made = dodger.post("/api/challenges", {"to": None}).json()
    assert other.post(f"/api/challenges/{made['challenge']}/accept").status_code == 200
    # a rated challenge made before the wait: nobody may accept it while its maker waits
    _forgive(client, dodger)
    link = dodger.post("/api/challenges", {"to": None, "rated": True}).json()
    _offend(client, dodger)
    r = other.post(f"/api/challenges/{link['challenge']}/accept")
    assert r.status_code == 409 and r.json()["error"] == (
        "Dodger aborted or left too many rated matches and cannot play a rated match for "
        "5 more minutes: ask for a casual one instead.")


def test_a_player_who_must_wait_cannot_join_or_be_paired_in_a_rated_arena(
        client: TestClient) -> None:
    ann, bob, cat = Player(client, "Ann"), Player(client, "Bob"), Player(client, "Cat")
    aid = _make_arena(ann, rated=True)
    assert bob.post(f"/api/tournaments/{aid}/join").status_code == 200
    _offend(client, cat)
    r = cat.post(f"/api/tournaments/{aid}/join")
    assert r.status_code == 429
    assert r.json()["error"] == wait_sentence(3, WAITS[0], PLAY_RATED)
    assert cat.post("/api/tournaments", {"name": "Mine", "minutes": 5,
                                         "rated": True}).status_code == 429
    casual = _make_arena(ann)
    assert cat.post(f"/api/tournaments/{casual}/join").status_code == 200
    # Bob joined before his wait began: he is not paired while it lasts
    _offend(client, bob)
    assert ann.post(f"/api/tournaments/{aid}/start").status_code == 200
    time.sleep(2.5)  # a scan or more
    a = read_arena(bob, aid)
    assert a["matches"] == [] and a["me"]["state"] == "waiting"
    assert WAITS[0] - 40 <= a["me"]["wait"] <= WAITS[0]
    _forgive(client, bob)  # the wait is over: the next scan pairs him
    a = wait_arena(bob, aid, lambda x: len(x["matches"]) == 1)
    assert a["me"]["state"] == "playing" and "wait" not in a["me"]


# ----------------------------------------------------------------------------- 6c, 6d


def test_a_friend_resigning_at_once_gives_no_arena_points(client: TestClient) -> None:
    """Issue 44: a friend who passed once and resigned every match gave 13 straight wins
    (48 points) in 3 minutes. Now such a win scores nothing; the friend's losses count."""
    farmer, friend = Player(client, "Farmer"), Player(client, "Friend")
    aid = _make_arena(farmer)
    friend.post(f"/api/tournaments/{aid}/join")
    farmer.post(f"/api/tournaments/{aid}/start")
    for n in range(3):
        a = _in_play(farmer, aid, n + 1)
        mid = a["me"]["match"]["id"]
        both_pass((farmer, friend), mid)
        assert friend.post(f"/api/matches/{mid}/resign").json()["end"] == "resigned"
    a = wait_arena(farmer, aid, lambda x: len(x["matches"]) == 4)
    lines = {x["username"]: x for x in a["standings"]}
    assert (lines["Farmer"]["score"], lines["Farmer"]["sheet"]) == (0, "")
    assert (lines["Friend"]["score"], lines["Friend"]["sheet"]) == (0, "LLL")


def _two_wins(ann: Player, bob: Player, aid: str) -> dict[str, Any]:
    """Ann wins two played matches in a row over Bob (he resigns): she is on a streak."""
    for n in range(2):
        a = _in_play(ann, aid, n + 1)
        mid = a["me"]["match"]["id"]
        both_play((ann, bob), mid)
        assert bob.post(f"/api/matches/{mid}/resign").status_code == 200
    a = _in_play(ann, aid, 3)
    top = a["standings"][0]
    assert (top["username"], top["score"], top["fire"]) == ("Ann", 4, True)
    return a


def test_an_abort_ends_the_aborters_streak_and_is_an_offence_in_a_rated_arena(
        client: TestClient) -> None:
    """Issue 44: on a streak, aborting new pairings after seeing a bad hand kept the
    streak and its double points."""
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    aid = _make_arena(ann, rated=True)
    bob.post(f"/api/tournaments/{aid}/join")
    ann.post(f"/api/tournaments/{aid}/start")
    a = _two_wins(ann, bob, aid)
    r = ann.post(f"/api/matches/{a['me']['match']['id']}/abort")
    assert r.status_code == 200 and r.json()["end"] == "aborted"
    a = wait_arena(ann, aid, lambda x: len(x["matches"]) == 4)
    top = {x["username"]: x for x in a["standings"]}["Ann"]
    assert (top["score"], top["streak"], top["fire"]) == (4, 0, False)
    _settled(client)
    ann_id = site(client).store.tokens.by_name("ann").id  # type: ignore[union-attr]
    with site(client).store.engine.connect() as conn:
        kinds = conn.execute(select(rated_offences_table.c.kind)
                             .where(rated_offences_table.c.account_id == ann_id)).all()
    assert [k for (k,) in kinds] == ["aborted"]


def test_withdrawing_ends_the_streak(client: TestClient) -> None:
    """Issue 44: withdrawing and joining again kept the streak."""
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    aid = _make_arena(ann)
    bob.post(f"/api/tournaments/{aid}/join")
    ann.post(f"/api/tournaments/{aid}/start")
    a = _two_wins(ann, bob, aid)
    mid = a["me"]["match"]["id"]
    assert ann.post(f"/api/tournaments/{aid}/withdraw").json() == {"status": "withdrawn"}
    line = {x["username"]: x for x in read_arena(ann, aid)["standings"]}["Ann"]
    assert (line["score"], line["streak"], line["fire"]) == (4, 0, False)
    assert bob.post(f"/api/matches/{mid}/abort").status_code == 200  # (Bob's streak only)
    assert ann.post(f"/api/tournaments/{aid}/join").json() == {"status": "joined"}
    a = wait_arena(ann, aid, lambda x: len(x["matches"]) == 4 and x["in_play"] == 1)
    line = {x["username"]: x for x in a["standings"]}["Ann"]
    assert (line["score"], line["streak"], line["fire"]) == (4, 0, False)


# ----------------------------------------------------------------------------- 7


def test_a_seat_played_through_an_api_token_is_shown_as_a_bot(client: TestClient) -> None:
    """Issue 44: a person's API token ran a bot, accepted a rated challenge, and the
    opponent saw a person. Accepting with a token, moving with one, or opening the seat's
    socket with one marks the seat a bot's: STATE, the spectators, the live list and the
    profiles show it; the account is a program player from then on."""
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    bob_token = _token(bob)
    cid = ann.post("/api/challenges", {"to": "Bob", "rated": True}).json()["challenge"]
    mine = _as_program(client, bob_token, "POST", f"/api/challenges/{cid}/accept")
    mid = mine.json()["match"]["id"]
    assert ann.get(f"/api/matches/{mid}").json()["bots"] == [False, True]
    assert client.get(f"/api/matches/{mid}/watch").json()["bots"] == [False, True]
    live = {m["id"]: m for m in client.get("/api/live").json()["matches"]}
    assert live[mid]["bots"] == [False, True]
    recent = ann.get("/api/players/Ann").json()["recent"][0]
    assert recent["id"] == mid and recent["opponent_bot"] is True
    assert ann.get("/api/players/Bob").json()["program"] is True
    assert ann.get("/api/players/Ann").json()["program"] is False

    # accepted in the browser, then played through a token: marked at its first move
    cat, dan = Player(client, "Cat"), Player(client, "Dan")
    dan_token = _token(dan)
    cid = cat.post("/api/challenges", {"to": "Dan"}).json()["challenge"]
    mid = dan.post(f"/api/challenges/{cid}/accept").json()["match"]["id"]
    assert cat.get(f"/api/matches/{mid}").json()["bots"] == [False, False]
    assert dan.get(f"/api/matches/{mid}").json()["bots"] == [False, False]
    s = cat.get(f"/api/matches/{mid}").json()
    if s["view"]["to_play"] == s["seat"]:
        cat.post(f"/api/matches/{mid}/actions", {"action": {"act": "pass"},
                                                 "version": s["version"]})
    s = dan.get(f"/api/matches/{mid}").json()
    r = _as_program(client, dan_token, "POST", f"/api/matches/{mid}/actions",
                    {"action": {"act": "pass"}, "version": s["version"]})
    assert r.status_code == 200, r.text
    assert r.json()["bots"] == [False, True]
    assert cat.get(f"/api/matches/{mid}").json()["bots"] == [False, True]

    # the seat's socket opened with a token marks it at once (and pushes the opponent)
    eve, fay = Player(client, "Eve"), Player(client, "Fay")
    fay_token = _token(fay)
    cid = eve.post("/api/challenges", {"to": "Fay"}).json()["challenge"]
    mid = fay.post(f"/api/challenges/{cid}/accept").json()["match"]["id"]
    assert eve.get(f"/api/matches/{mid}").json()["bots"] == [False, False]
    client.cookies.clear()
    with client.websocket_connect(f"/api/matches/{mid}/ws") as ws:
        ws.send_json({"type": "auth", "token": fay_token})
        first = ws.receive_json()
        assert first["type"] == "state" and first["state"]["bots"] == [False, True]
    assert eve.get(f"/api/matches/{mid}").json()["bots"] == [False, True]


def _seek(c: TestClient, token: str | None = None, p: Player | None = None,
          **body: Any) -> dict[str, Any]:
    """A rated seek with a token (a program) or a player's session."""
    if token is not None:
        r = _as_program(c, token, "POST", "/api/seeks", {"rated": True} | body)
    else:
        assert p is not None
        r = p.post("/api/seeks", {"rated": True} | body)
    assert r.status_code in (200, 201), r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_program_is_paired_with_a_persons_seek_only_when_asked(client: TestClient) -> None:
    """A seek made with an API token is a program's: a person's rated seek never meets it
    unless the person asked for BOTs; the account stays a program player in the browser."""
    prog, ann, bob = Player(client, "Prog"), Player(client, "Ann"), Player(client, "Bob")
    token = _token(prog)
    waiting = _seek(client, token)
    assert "seek" in waiting
    assert "seek" in _seek(client, p=ann)  # a person's seek: not paired with the program
    paired = _seek(client, p=bob, bots=True)  # asked for BOTs: paired with the program
    mid = paired["match"]["id"]
    assert bob.get(f"/api/matches/{mid}").json()["bots"] == [True, False]
    # the program's account seeking from its browser is still a program's seek
    cat = Player(client, "Cat")
    assert "seek" in _seek(client, p=prog, target=150)
    assert "seek" in _seek(client, p=cat, target=150)


def test_bots_and_programs_join_only_an_arena_that_admits_them(client: TestClient) -> None:
    """Issue 44: BOT accounts joined a person's rated arena. A person's arena admits no
    BOT and no program (403, nothing stored); a BOT's arena, or one made with
    ``"bots": true``, admits them; a player who became a program is not paired in a
    person's arena."""
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    _, robo = _bot(client, "robo")
    aid = _make_arena(ann, rated=True)
    shown = read_arena(ann, aid)
    assert shown["bots"] is False
    r = _as_program(client, robo, "POST", f"/api/tournaments/{aid}/join")
    assert (r.status_code, r.json()) == (403, {"error": FOR_PEOPLE})
    assert len(read_arena(ann, aid)["standings"]) == 1
    # a person's arena for BOTs, and a BOT's own arena, admit them
    open_ = _make_arena(ann, bots=True)
    assert read_arena(ann, open_)["bots"] is True
    r = _as_program(client, robo, "POST", f"/api/tournaments/{open_}/join")
    assert r.status_code == 200, r.text
    theirs = _as_program(client, robo, "POST", "/api/tournaments",
                         {"name": "Bots only", "minutes": 5}).json()["id"]
    assert read_arena(ann, theirs)["bots"] is True
    assert bob.post(f"/api/tournaments/{theirs}/join").status_code == 200
    # Bob joins Ann's arena, then plays through a token: a program, never paired there
    assert bob.post(f"/api/tournaments/{aid}/join").status_code == 200
    _seek(client, _token(bob), target=250)
    assert ann.post(f"/api/tournaments/{aid}/start").status_code == 200
    time.sleep(2.5)
    a = read_arena(ann, aid)
    assert a["matches"] == []
    assert {x["username"]: x["bot"] for x in a["standings"]} == {"Ann": False, "Bob": True}
    r = bob.post(f"/api/tournaments/{aid}/withdraw")
    assert r.status_code == 200
    r = bob.post(f"/api/tournaments/{aid}/join")
    assert (r.status_code, r.json()) == (403, {"error": FOR_PEOPLE})


def test_a_bot_account_cannot_play_the_daily_deal(client: TestClient) -> None:
    _, robo = _bot(client, "robo")
    r = _as_program(client, robo, "POST", "/api/daily/play")
    assert (r.status_code, r.json()) == (403, {"error": BOT_DAILY})
    assert count(client, daily_plays_table) == 0
    with site(client).store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(matches_table)).scalar() == 0


def test_a_token_cannot_revoke_the_accounts_tokens(client: TestClient) -> None:
    """Issue 44: a token revoked the account's other tokens; the docs say a session."""
    ann = Player(client, "Ann")
    first = ann.post("/api/tokens", {"name": "one"}).json()
    second = ann.post("/api/tokens", {"name": "two"}).json()
    r = _as_program(client, first["token"], "DELETE", f"/api/tokens/{second['id']}")
    assert (r.status_code, r.json()) == (403, {"error": BY_SESSION})
    r = _as_program(client, second["token"], "GET", "/api/me")
    assert r.status_code == 200 and r.json()["username"] == "Ann"
    assert ann.delete(f"/api/tokens/{second['id']}").json() == {"revoked": second["id"]}
