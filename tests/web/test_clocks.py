"""Resign, abort and turn clocks on the web table (docs/web-api.md; INTERFACES section 9):
the endings stored before they are acknowledged and shown to both seats, the clock
option's refusals, STATE's ``clock``, and the server playing the safe move for a seat whose
time is out (marked in the history and the record), three in a row losing the match."""

from __future__ import annotations

import random
import time
from typing import Any

from fastapi.testclient import TestClient

from ginrummy.actions import PASS
from ginrummy.match import TIMEOUT_LIMIT, Match
from ginrummy.record import match_from_record
from ginrummy.web.tables.play import played_for

from .conftest import LeakChecker, auth, create, invite_token, site, state


def _friend(c: TestClient, **body: Any) -> tuple[str, list[str]]:
    m = create(c, opponent="friend", name="Ann", **body)
    return m["id"], [m["token"], invite_token(c, m)]


def _post(c: TestClient, mid: str, token: str, what: str, **body: Any) -> Any:
    return c.post(f"/api/matches/{mid}/{what}", headers=auth(token), json=body or None)


def _act(c: TestClient, mid: str, token: str, action: dict[str, Any]) -> dict[str, Any]:
    s = state(c, mid, token)
    r = c.post(f"/api/matches/{mid}/actions", headers=auth(token),
               json={"action": action, "version": s["version"]})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _record(c: TestClient, mid: str, token: str) -> dict[str, Any]:
    r = c.get(f"/api/matches/{mid}/record", headers=auth(token))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


# ----------------------------------------------------------------------------- resign


def _both_move(c: TestClient, mid: str, tokens: list[str]) -> None:
    """Both seats make a move of their own (each passes the up-card)."""
    first = state(c, mid, tokens[0])["view"]["to_play"]
    _act(c, mid, tokens[first], {"act": "pass"})
    _act(c, mid, tokens[1 - first], {"act": "pass"})


def test_resign_gives_the_match_to_the_opponent_for_both_seats(client: TestClient) -> None:
    mid, tokens = _friend(client)
    _both_move(client, mid, tokens)
    ended: list[tuple[str, str | None, int | None, int | None]] = []
    site(client).committer.match_over.append(
        lambda t: ended.append((t.id, t.stored.end_reason, t.stored.winner, t.stored.ended_by)))
    r = _post(client, mid, tokens[0], "resign")
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["status"] == "finished" and s["winner"] == 1  # R10: the other seat wins
    assert s["end"] == "resigned" and s["ended_by"] == 0 and s["end_reason"] == "resigned"
    other = state(client, mid, tokens[1])
    assert other["status"] == "finished" and other["end"] == "resigned"
    r = _post(client, mid, tokens[1], "resign")
    assert r.status_code == 409 and r.json()["error"] == "The match is over."
    assert ended == [(mid, "resigned", 1, 0)]  # told once, for ratings (part B)
    rec = _record(client, mid, tokens[0])
    assert rec["end"] == "resigned" and rec["resigned_by"] == 0
    assert match_from_record(rec).winner == 1
    # a match over in the middle of a hand still replays, to its last action
    r = client.get(f"/api/matches/{mid}/replay?step=0")
    assert r.status_code == 200, r.text
    steps = r.json()["steps"]
    last = client.get(f"/api/matches/{mid}/replay?step={steps}").json()
    assert (last["end"], last["ended_by"], last["winner"]) == ("resigned", 0, 1)
    # the ending is stored: a table rebuilt from the database shows it
    t = site(client).registry.peek(mid)
    assert t is not None
    site(client).registry.evict(t, "test")
    assert state(client, mid, tokens[1])["end"] == "resigned"


def test_resign_and_abort_need_the_seat_token(client: TestClient) -> None:
    mid, tokens = _friend(client)
    v = state(client, mid, tokens[0])["version"]
    for what in ("resign", "abort"):
        assert client.post(f"/api/matches/{mid}/{what}").status_code == 401
        r = _post(client, mid, "not-a-token", what)
        assert r.status_code == 403 and "does not belong" in r.json()["error"]
    assert client.post("/api/matches/nope/resign", headers=auth("x")).status_code == 404
    assert state(client, mid, tokens[0])["version"] == v  # nothing changed


def test_a_resignation_before_both_players_moved_is_an_abort(client: TestClient) -> None:
    """A match that ends before both players have made a move of their own has no result
    (issue 36: resigning at once farmed ratings): the resignation is stored as an abort by
    that seat, in STATE, the record and a rebuilt table."""
    mid, tokens = _friend(client)
    first = state(client, mid, tokens[0])["view"]["to_play"]
    _act(client, mid, tokens[first], {"act": "pass"})  # one seat has moved, not the other
    r = _post(client, mid, tokens[first], "resign")
    assert r.status_code == 200, r.text
    s = r.json()
    assert (s["status"], s["winner"], s["end"], s["ended_by"]) == (
        "finished", None, "aborted", first)
    rec = _record(client, mid, tokens[0])
    assert rec["end"] == "aborted" and "resigned_by" not in rec
    assert match_from_record(rec).outcome().end == "aborted"  # type: ignore[union-attr]
    t = site(client).registry.peek(mid)
    assert t is not None
    site(client).registry.evict(t, "test")
    s = state(client, mid, tokens[1])
    assert (s["end"], s["ended_by"]) == ("aborted", first)


# ----------------------------------------------------------------------------- abort


def test_abort_before_your_own_first_move_has_no_result(client: TestClient) -> None:
    mid, tokens = _friend(client)
    s = state(client, mid, tokens[0])
    assert s["can_abort"] is True
    seat = s["view"]["to_play"]
    s = _act(client, mid, tokens[seat], {"act": "pass"})  # a pass is a move
    assert s["can_abort"] is False
    assert state(client, mid, tokens[1 - seat])["can_abort"] is True  # not moved yet
    r = _post(client, mid, tokens[seat], "abort")
    assert r.status_code == 409 and r.json()["error"] == (
        "You have already made a move in this match: resign instead.")
    r = _post(client, mid, tokens[1 - seat], "abort")
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["status"] == "finished" and s["winner"] is None and s["end"] == "aborted"
    assert s["ended_by"] == 1 - seat
    assert s["can_abort"] is False and state(client, mid, tokens[seat])["end"] == "aborted"
    assert _record(client, mid, tokens[0])["end"] == "aborted"
    r = _post(client, mid, tokens[0], "abort")
    assert r.status_code == 409


def test_abort_after_your_own_first_move_is_refused_and_changes_nothing(
        client: TestClient) -> None:
    """Issue 36: a player looked at the hand, drew from the stock with 11 cards held, and
    aborted. A pass or a draw is a move: after it, abort is refused (resign instead)."""
    mid, tokens = _friend(client)
    s = state(client, mid, tokens[0])
    first = s["view"]["to_play"]
    _act(client, mid, tokens[first], {"act": "pass"})
    _act(client, mid, tokens[1 - first], {"act": "pass"})
    s = _act(client, mid, tokens[first], {"act": "draw", "from": "stock"})
    assert s["can_abort"] is False and len(s["view"]["hand"]) == 11
    for seat in (first, 1 - first):
        r = _post(client, mid, tokens[seat], "abort")
        assert r.status_code == 409
        assert r.json()["error"] == "You have already made a move in this match: resign instead."
    after = state(client, mid, tokens[0])
    assert after["version"] == s["version"] and after["status"] == "playing"


# ----------------------------------------------------------------------------- clocks


def test_clock_option_refusals_are_clear_and_create_nothing(client: TestClient) -> None:
    cases: list[tuple[Any, str]] = [
        (5, "The clock must be an object"),
        ({"bank": 10}, "The clock needs 'move'"),
        ({"move": 0, "bank": 10}, "'move' must be a whole number of seconds from 1 to 600"),
        ({"move": 20.5}, "'move' must be a whole number"),
        ({"move": "20"}, "'move' must be a whole number"),
        ({"move": True}, "'move' must be a whole number"),
        ({"move": 20, "bank": -1}, "'bank' must be a whole number of seconds from 0 to 3600"),
        ({"move": 20, "bank": 99999}, "'bank' must be"),
        ({"move": 20, "increment": 2}, "Unknown clock field 'increment'"),
    ]
    before = len(site(client).registry.tables)
    for clock, words in cases:
        r = client.post("/api/matches", json={"opponent": "friend", "clock": clock})
        assert r.status_code == 400, clock
        assert words in r.json()["error"], (clock, r.json())
    assert len(site(client).registry.tables) == before


def test_state_clock_fields(client: TestClient) -> None:
    plain = create(client, opponent="friend")
    assert state(client, plain["id"], plain["token"])["clock"] is None  # no clock: null
    m = create(client, opponent="friend", clock={"move": 20, "bank": 60})
    c = state(client, m["id"], m["token"])["clock"]
    # the friend has not joined: nothing is timed yet
    assert c == {"move": 20, "bank": [60, 60], "deadline": None, "timeouts": [0, 0]}
    before = time.time()
    tok1 = invite_token(client, m)
    s = state(client, m["id"], tok1)
    c = s["clock"]
    assert c["move"] == 20 and c["bank"] == [60, 60] and c["timeouts"] == [0, 0]
    assert before + 80 - 1 <= c["deadline"] <= time.time() + 80 + 1  # move + bank
    seat = s["view"]["to_play"]
    tokens = [m["token"], tok1]
    s = _act(client, m["id"], tokens[seat], {"act": "pass"})  # well within the move time
    c = s["clock"]
    assert c["bank"] == [60, 60] and c["deadline"] >= time.time() + 79


def test_short_clock_runs_out_the_server_moves_and_three_in_a_row_lose(
        client: TestClient) -> None:
    """A 1 s + 1 s clock: the seat first offered the up-card passes, then never moves
    again; its opponent plays at once. The table plays the idle seat's turns (2 s: move
    and bank, then 1 s each, the bank spent): draw from the stock, discard without
    knocking; the third turn in a row on timeout loses the match (TIMEOUT_LIMIT)."""
    mid, tokens = _friend(client, clock={"move": 1, "bank": 1})
    s = state(client, mid, tokens[0])
    idle = s["view"]["to_play"]
    busy = 1 - idle
    _act(client, mid, tokens[idle], {"act": "pass"})  # its own move: it has played
    end = time.monotonic() + 20
    seen_timeout_mark = False
    sink: list[tuple[int, dict[str, Any]]] = []
    while time.monotonic() < end:
        s = state(client, mid, tokens[busy])
        sink += [(busy, s), (idle, state(client, mid, tokens[idle]))]
        if s["status"] == "finished":
            break
        if s["view"]["to_play"] == busy:  # the busy seat plays itself, at once
            legal = s["legal"]
            if {"act": "pass"} in legal:
                _act(client, mid, tokens[busy], {"act": "pass"})
            elif {"act": "draw", "from": "stock"} in legal:
                _act(client, mid, tokens[busy], {"act": "draw", "from": "stock"})
            else:
                _act(client, mid, tokens[busy], {"act": "discard", "card": s["best_discard"]})
            continue
        seen_timeout_mark |= any(e.get("timeout") for e in s["view"]["history"])
        time.sleep(0.05)
    s = state(client, mid, tokens[idle])
    assert s["status"] == "finished", s
    assert s["end"] == "timeout" and s["ended_by"] == idle and s["winner"] == busy
    assert s["clock"]["timeouts"][idle] == TIMEOUT_LIMIT and s["clock"]["deadline"] is None
    assert s["clock"]["bank"][idle] == 0 and s["clock"]["bank"][busy] == 1
    assert seen_timeout_mark or any(e.get("timeout") for e in s["view"]["history"])
    rec = _record(client, mid, tokens[busy])
    assert rec["end"] == "timeout"
    marked = [a for h in rec["hands"] for a in h["actions"] if a.get("timeout")]
    assert marked and {a["seat"] for a in marked} == {idle}
    assert not any(a.get("knock") for a in marked)  # the table never knocks
    assert marked[0]["act"] == "draw" and marked[0]["from"] == "stock"
    assert any(a["act"] == "discard" for a in marked)
    back = match_from_record(rec)
    assert back.outcome() is not None and back.outcome().end == "timeout"  # type: ignore[union-attr]
    # the replay marks the table's moves and ends as the match did
    first = client.get(f"/api/matches/{mid}/replay?step=0").json()
    frames = [client.get(f"/api/matches/{mid}/replay?step={k}").json()
              for k in range(first["steps"] + 1)]
    late = [f for f in frames if f["last_action"] and f["last_action"].get("timeout")]
    assert len(late) == len(marked)
    end = frames[-1]
    assert all(f["end"] is None for f in frames[:-1])  # told at the last step only
    assert (end["end"], end["ended_by"], end["winner"]) == ("timeout", idle, busy)
    # R11: the moves the table played (a draw from the stock among them) showed the other
    # seat nothing hidden, in any payload
    checker = LeakChecker(rec)
    assert sum(checker.check(seat, p) for seat, p in sink) > 0


def test_a_seat_that_never_moves_aborts_the_match_on_its_clock(client: TestClient) -> None:
    """The seat first offered the up-card never moves: the table passes for it, then plays
    its turns; where the third turn in a row would lose it the match, the match is aborted
    instead (neither player had both moved: no result), by that seat."""
    mid, tokens = _friend(client, clock={"move": 1, "bank": 1})
    idle = state(client, mid, tokens[0])["view"]["to_play"]
    busy = 1 - idle
    end = time.monotonic() + 20
    while time.monotonic() < end:
        s = state(client, mid, tokens[busy])
        if s["status"] == "finished":
            break
        if s["view"]["to_play"] == busy:
            legal = s["legal"]
            move = ({"act": "pass"} if {"act": "pass"} in legal else
                    {"act": "draw", "from": "stock"} if {"act": "draw", "from": "stock"} in legal
                    else {"act": "discard", "card": s["best_discard"]})
            _act(client, mid, tokens[busy], move)
            continue
        time.sleep(0.05)
    s = state(client, mid, tokens[idle])
    assert (s["status"], s["end"], s["ended_by"], s["winner"]) == (
        "finished", "aborted", idle, None), s
    assert s["clock"]["timeouts"][idle] == TIMEOUT_LIMIT - 1
    rec = _record(client, mid, tokens[busy])
    assert rec["end"] == "aborted"
    assert match_from_record(rec).outcome().end == "aborted"  # type: ignore[union-attr]


def test_between_hands_the_next_hand_is_dealt_when_the_wait_runs_out(
        client: TestClient) -> None:
    """Nobody is to play between hands (clock.deadline null); hand_over.deal_at says when
    the table deals anyway. One seat presses "Next hand", the other never does: the next
    hand is dealt at deal_at, and no timeout is counted (nothing of the game was decided)."""
    mid, tokens = _friend(client, clock={"move": 3, "bank": 0})
    rng = random.Random(4)
    while True:  # both seats play at once: random legal moves, well within the clock
        s = state(client, mid, tokens[0])
        if s["hand_over"] is not None:
            break
        me = state(client, mid, tokens[s["view"]["to_play"]])
        _act(client, mid, tokens[me["seat"]], rng.choice(me["legal"]))
    assert s["status"] == "playing" and s["clock"]["deadline"] is None
    deal_at = s["hand_over"]["deal_at"]
    assert time.time() < deal_at <= time.time() + 3.5
    r = client.post(f"/api/matches/{mid}/next", headers=auth(tokens[0]),
                    json={"version": s["version"]})
    assert r.status_code == 200 and r.json()["hand_over"]["deal_at"] == deal_at
    end = time.monotonic() + 10
    while time.monotonic() < end and state(client, mid, tokens[1])["hand_over"] is not None:
        time.sleep(0.05)
    s = state(client, mid, tokens[1])
    assert s["hand_over"] is None and s["view"]["hand_index"] == 1
    assert time.time() >= deal_at and s["clock"]["timeouts"] == [0, 0]
    assert s["clock"]["deadline"] is not None  # the new hand's first decision is timed


def test_a_computer_table_times_both_seats(client: TestClient) -> None:
    m = create(client, opponent="computer", bot="easy", clock={"move": 30, "bank": 30})
    s = wait_for_turn(client, m["id"], m["token"])
    c = s["clock"]
    assert c["move"] == 30 and c["deadline"] is not None
    assert c["deadline"] <= time.time() + 60.5 and c["timeouts"] == [0, 0]


def wait_for_turn(c: TestClient, mid: str, token: str) -> dict[str, Any]:
    end = time.monotonic() + 10
    while True:
        s = state(c, mid, token)
        if s["my_turn"] or time.monotonic() > end:
            return s
        time.sleep(0.02)


def test_a_late_request_after_the_tables_safe_move_is_told_its_time_ran_out() -> None:
    """A late request that reaches a process whose copy learns, on checking, that the clock
    has already played the safe move for its seat (another process's scan got there first)
    is told its time ran out, not that it is not its turn: ``played_for`` is that check."""
    m = Match(seed=3)
    first = m.to_play
    assert not played_for(m, first) and not played_for(m, 1 - first)
    m.play(PASS, first, timeout=True)  # the table passed for the late seat
    assert played_for(m, first) and not played_for(m, 1 - first)
    m.play(PASS, 1 - first)  # the other seat then moved: no longer the last
    assert not played_for(m, first) and not played_for(m, 1 - first)
