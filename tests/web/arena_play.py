"""Playing an arena's matches from its players' accounts as a fast bot would, over HTTP
(a TestClient's players and server processes alike): each player reads its match and
makes :func:`~.online.quick_move`, or asks for the next hand."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

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


def advance(players: dict[str, Seat], arena: dict[str, Any]) -> int:
    """Every player whose arena match awaits it moves (as long as it is its turn: a draw
    and its discard) or asks for the next hand, as the arena's standings name the matches
    in play; how many requests made a change."""
    sent = 0
    for line in arena["standings"]:
        mid = line["playing"]
        p = players.get(line["username"])
        if mid is None or p is None:
            continue
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


def play_until(read: Callable[[], dict[str, Any]], players: dict[str, Seat],
               done: Callable[[dict[str, Any]], bool], timeout: float = 60.0,
               between: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play every arena match in turn (:func:`advance`) until ``done(arena)``; the arena
    then. ``between`` sees each arena read (a test's checks)."""
    deadline = time.monotonic() + timeout
    while True:
        arena = read()
        if between is not None:
            between(arena)
        if done(arena):
            return arena
        assert time.monotonic() < deadline, f"the arena did not get there: {arena}"
        if not advance(players, arena):
            time.sleep(0.05)
