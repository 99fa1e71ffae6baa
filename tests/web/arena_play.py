"""Playing an arena's matches from its players' accounts as a fast bot would, over HTTP
(a TestClient's players and server processes alike): each player reads its match and
makes :func:`~.online.quick_move`, or asks for the next hand."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from typing import Any, Protocol

from ginrummy.web.online.standings import MIN_MOVES

from .online import quick_move


class Response(Protocol):
    """What a player's request returns (an httpx or TestClient response)."""

    status_code: int
    text: str

    def json(self) -> Any: ...


class Seat(Protocol):
    """A player's browser: requests made as its account (cookie and CSRF token)."""

    def get(self, path: str) -> Response: ...

    def post(self, path: str, body: Any = None) -> Response: ...


def both_pass(players: tuple[Seat, Seat], mid: str) -> None:
    """Each player passes the up-card in turn: both have moved, so the match has been played
    (before that, a resignation or a loss on time ends it as aborted: issue 36)."""
    for _ in range(2):
        for p in players:
            s = p.get(f"/api/matches/{mid}").json()
            if s["view"]["to_play"] == s["seat"]:
                r = p.post(f"/api/matches/{mid}/actions",
                           {"action": {"act": "pass"}, "version": s["version"]})
                assert r.status_code == 200, r.text
                break


def both_play(players: tuple[Seat, Seat], mid: str, moves: int = MIN_MOVES) -> None:
    """Both players move in turn (:func:`~.online.quick_move`, and "next" between hands)
    until each has made ``moves`` moves of its own: a win by resigning after that is
    played for and scores (issue 44: one after a quick resignation scores nothing)."""
    made = [0, 0]
    for _ in range(20 * moves):
        if min(made) >= moves:
            return
        for i, p in enumerate(players):
            s = p.get(f"/api/matches/{mid}").json()
            assert s["status"] != "finished", s
            if s["hand_over"] is not None:
                if not s["hand_over"]["ready"][s["seat"]]:
                    p.post(f"/api/matches/{mid}/next", {"version": s["version"]})
            elif s["view"]["to_play"] == s["seat"] and s["legal"]:
                r = p.post(f"/api/matches/{mid}/actions",
                           {"action": quick_move(s), "version": s["version"]})
                assert r.status_code == 200, r.text
                made[i] += 1
    raise AssertionError(f"the players made {made} moves, not {moves} each")


def _turn(p: Seat, mid: str) -> int:
    """The player's moves in its match while it is its turn (a draw and its discard), or
    its "next hand"; how many requests made a change."""
    sent = 0
    r = p.get(f"/api/matches/{mid}")
    for _ in range(4):
        if r.status_code != 200:
            break  # (a process restarting, a move raced: the next round tries again)
        s = r.json()
        if s["status"] == "finished":
            break
        if s["hand_over"] is not None:
            if not s["hand_over"]["ready"][s["seat"]]:
                p.post(f"/api/matches/{mid}/next", {"version": s["version"]})
                sent += 1
            break
        if not s["legal"]:
            break
        r = p.post(f"/api/matches/{mid}/actions",
                   {"action": quick_move(s), "version": s["version"]})
        sent += 1
    return sent


def advance(players: dict[str, Seat], arena: dict[str, Any],
            pool: ThreadPoolExecutor | None = None) -> int:
    """Every player whose arena match awaits it moves or asks for the next hand (with
    ``pool``, all at once, as separate browsers would), as the arena's standings name
    the matches in play; how many requests made a change."""
    turns = [(players[x["username"]], x["playing"]) for x in arena["standings"]
             if x["playing"] is not None and x["username"] in players]
    if pool is None:
        return sum(_turn(p, mid) for p, mid in turns)
    return sum(pool.map(lambda t: _turn(*t), turns))


def play_until(read: Callable[[], dict[str, Any]], players: dict[str, Seat],
               done: Callable[[dict[str, Any]], bool], timeout: float = 60.0,
               between: Callable[[dict[str, Any]], None] | None = None,
               parallel: bool = False) -> dict[str, Any]:
    """Play every arena match in turn (:func:`advance`; ``parallel``: each player on a
    thread of its own) until ``done(arena)``; the arena then. ``between`` sees each
    arena read (a test's checks)."""
    deadline = time.monotonic() + timeout
    with ThreadPoolExecutor(len(players)) if parallel else nullcontext() as pool:
        while True:
            arena = read()
            if between is not None:
                between(arena)
            if done(arena):
                return arena
            assert time.monotonic() < deadline, f"the arena did not get there: {arena}"
            if not advance(players, arena, pool):
                time.sleep(0.05)


def wait_until(read: Callable[[], dict[str, Any]], pred: Callable[[dict[str, Any]], bool],
               timeout: float = 15.0) -> dict[str, Any]:
    """``read()`` again until ``pred`` holds of it (a pairing follows a match's end at
    once, but off the request that ended it); what was read last."""
    deadline = time.monotonic() + timeout
    while not pred(got := read()):
        assert time.monotonic() < deadline, got
        time.sleep(0.05)
    return got


def read_arena(p: Seat, arena_id: str) -> dict[str, Any]:
    """``GET /api/tournaments/{id}`` as this player (200 expected)."""
    r = p.get(f"/api/tournaments/{arena_id}")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def wait_arena(p: Seat, arena_id: str, pred: Callable[[dict[str, Any]], bool],
               timeout: float = 15.0) -> dict[str, Any]:
    """The arena as this player reads it, once ``pred`` holds (:func:`wait_until`)."""
    return wait_until(lambda: read_arena(p, arena_id), pred, timeout)
