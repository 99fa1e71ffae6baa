"""Helpers for the online-play tests: accounts, and playing a two-person match to its end
quickly over HTTP (a TestClient or an httpx client against a server process alike)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ginrummy.web.online.seeks import SEEKER_COOKIE

Client = Any
"""A TestClient or an httpx.Client (the same calls)."""


def sign_up(c: Client, username: str, password: str = "correct horse") -> dict[str, Any]:
    """Create an account on ``c`` (its cookie jar now holds the session); the answer."""
    r = c.post("/api/accounts", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def quick_move(s: dict[str, Any]) -> dict[str, Any]:
    """A move that ends hands soon: knock (or gin) whenever allowed, else draw from the
    stock and discard the card leaving the least deadwood."""
    legal = s["legal"]
    knocks = [a for a in legal if a.get("knock")]
    if knocks:
        return dict(knocks[0])
    opts = s.get("discard_options")
    if opts:
        best = min((o for o in opts if o["legal"]), key=lambda o: o["leaves"])
        return {"act": "discard", "card": best["card"], "knock": False}
    for a in legal:
        if a["act"] == "draw" and a.get("from") == "stock":
            return dict(a)
    return dict(legal[0])


def play_to_end(seats: list[Client], mid: str, tokens: list[str],
                sink: Callable[[int, dict[str, Any]], None] | None = None,
                after_move: Callable[[], None] | None = None,
                max_steps: int = 3000) -> dict[str, Any]:
    """Both seats play :func:`quick_move` (seat ``i`` through ``seats[i]``) until the match
    is over; every STATE received goes to ``sink``; ``after_move`` runs after each move.
    Returns seat 0's final STATE."""
    def get(seat: int) -> dict[str, Any]:
        r = seats[seat].get(f"/api/matches/{mid}",
                            headers={"Authorization": f"Bearer {tokens[seat]}"})
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        if sink is not None:
            sink(seat, out)
        return out

    for _ in range(max_steps):
        s = get(0)
        if s["status"] == "finished":
            return s
        if s["hand_over"] is not None:
            for seat in (0, 1):
                st = get(seat)
                if st["hand_over"] is not None and not st["hand_over"]["ready"][seat]:
                    r = seats[seat].post(f"/api/matches/{mid}/next",
                                         headers={"Authorization": f"Bearer {tokens[seat]}"},
                                         json={"version": st["version"]})
                    assert r.status_code in (200, 409), r.text
            continue
        seat = s["view"]["to_play"]
        me = get(seat) if seat != 0 else s
        if not me["legal"]:  # that seat's process has not caught up yet
            time.sleep(0.005)
            continue
        r = seats[seat].post(f"/api/matches/{mid}/actions",
                             headers={"Authorization": f"Bearer {tokens[seat]}"},
                             json={"action": quick_move(me), "version": me["version"]})
        assert r.status_code in (200, 409), r.text  # 409: raced another process's push
        if r.status_code == 200 and sink is not None:
            sink(seat, r.json())
        if after_move is not None:
            after_move()
    raise AssertionError("the match did not end")


def friend_match(host: Client, joiner: Client | None = None,
                 **body: Any) -> tuple[str, list[str]]:
    """A friend match (``body``: more of ``POST /api/matches``, e.g. a clock) made through
    ``host`` and joined with its invite through ``joiner`` (default: the host): its id
    and both seat tokens."""
    r = host.post("/api/matches", json={"opponent": "friend", **body})
    assert r.status_code == 201, r.text
    made = r.json()
    code = made["invite_url"].split("#invite=", 1)[1]
    r = (joiner or host).post(f"/api/matches/{made['id']}/join", json={"invite": code})
    assert r.status_code == 200, r.text
    return made["id"], [made["token"], r.json()["token"]]


def both_move(c: Client, mid: str, tokens: list[str]) -> None:
    """Both seats make a move of their own (each passes the up-card): the match has been
    played, so a resignation now is one (before it, any ending is an abort)."""
    first = c.get(f"/api/matches/{mid}",
                  headers={"Authorization": f"Bearer {tokens[0]}"}).json()["view"]["to_play"]
    for seat in (first, 1 - first):
        s = c.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {tokens[seat]}"})
        r = c.post(f"/api/matches/{mid}/actions",
                   headers={"Authorization": f"Bearer {tokens[seat]}"},
                   json={"action": {"act": "pass"}, "version": s.json()["version"]})
        assert r.status_code == 200, r.text


def keep_seeker(c: Client, clear: Callable[[], None]) -> None:
    """Run ``clear`` (which empties ``c``'s cookie jar to switch accounts) but keep the
    seeker's cookie: one browser that logs in as another account is still the seeker of
    its seeks."""
    seeker = next((k.value for k in c.cookies.jar if k.name == SEEKER_COOKIE), None)
    clear()
    if seeker is not None:
        c.cookies.set(SEEKER_COOKIE, seeker, path="/api/seeks")


def wait_paired(c: Client, seek: str, timeout: float = 20.0,
                headers: dict[str, str] | None = None) -> dict[str, Any]:
    """Poll a seek until it is paired (as its seeker: ``c``'s cookies, or ``headers``);
    its match object."""
    deadline = time.monotonic() + timeout
    while True:
        r = c.get(f"/api/seeks/{seek}", headers=headers)
        assert r.status_code == 200, r.text
        if r.json()["status"] == "paired":
            out: dict[str, Any] = r.json()["match"]
            return out
        assert time.monotonic() < deadline, "the seek was not paired"
        time.sleep(0.1)


__all__ = ["both_move", "friend_match", "keep_seeker", "play_to_end", "quick_move", "sign_up",
           "wait_paired"]
