"""Shared helpers for the web table's tests: an app on a fresh SQLite file (computer moves
without delay), and helpers to create matches, act, and check payloads for leaks (R11)."""

from __future__ import annotations

import contextlib
import re
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

warnings.filterwarnings("ignore", message="Using `httpx` with")  # starlette's TestClient

from fastapi.testclient import TestClient  # noqa: E402

from ginrummy.hand import Hand  # noqa: E402
from ginrummy.match import Match  # noqa: E402
from ginrummy.web.app import create_app  # noqa: E402
from ginrummy.web.guard import Settings  # noqa: E402
from ginrummy.web.site import Site  # noqa: E402
from ginrummy.web.store.seeds import KEY_ENV, new_key_text  # noqa: E402

from .cluster import postgres_url, redis_url, serves  # noqa: E402, F401 - fixtures
from .faults import postgres, redis  # noqa: E402, F401 - fixtures: servers of a test's own

CARD_RE = re.compile(r"^(?:10|[2-9TJQKA])[CDHS]$")


@pytest.fixture(autouse=True)
def seed_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every web test runs with a fresh seed key in the environment (as a deployment
    sets it), so no key file is written beside a shared database."""
    key = new_key_text()
    monkeypatch.setenv(KEY_ENV, key)
    return key


OPEN = "1000000/minute"
NO_RATE_LIMITS = Settings(rate_create=OPEN, rate_join=OPEN, rate_lookup=OPEN, rate_actions=OPEN,
                          rate_reads=OPEN, rate_pages=OPEN, rate_sockets=OPEN, rate_auth=OPEN,
                          rate_login=OPEN, rate_signup=OPEN, rate_login_site=OPEN,
                          rate_signup_site=OPEN, rate_messages=OPEN, rate_bot_messages=OPEN,
                          rate_coach=OPEN)
"""Settings for tests that play many moves quickly (the rate-limit tests use defaults)."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A TestClient (lifespan running) over a new SQLite database; no computer delay."""
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0,
                     settings=NO_RATE_LIMITS)
    with TestClient(app) as c:
        yield c


def site(c: TestClient) -> Site:
    """The composed web layer behind a test client's app."""
    s = c.app.state.site  # type: ignore[attr-defined]
    assert isinstance(s, Site)
    return s


def auth(token: str) -> dict[str, str]:
    """The Authorization header of a seat."""
    return {"Authorization": f"Bearer {token}"}


def create(c: TestClient, **body: Any) -> dict[str, Any]:
    """Create a match; returns the creation response (id, token, url, invite_url)."""
    r = c.post("/api/matches", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def invite_code(created: dict[str, Any]) -> str:
    """The single-use invite code in a friend match's invite URL."""
    return str(created["invite_url"].split("#invite=", 1)[1])


def invite_token(c: TestClient, created: dict[str, Any]) -> str:
    """Use a friend match's invite as the friend does: seat 1's fresh token."""
    r = c.post(f"/api/matches/{created['id']}/join", json={"invite": invite_code(created)})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def state(c: TestClient, mid: str, token: str) -> dict[str, Any]:
    """GET the seat's STATE."""
    r = c.get(f"/api/matches/{mid}", headers=auth(token))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def wait_for(
    c: TestClient, mid: str, token: str, pred: Callable[[dict[str, Any]], bool],
    timeout: float = 20.0,
) -> dict[str, Any]:
    """Poll the seat's STATE until ``pred`` holds (the computer moves in the background)."""
    deadline = time.monotonic() + timeout
    while True:
        s = state(c, mid, token)
        if pred(s):
            return s
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting; last state: {s}")
        time.sleep(0.002)


def human_can_act(s: dict[str, Any]) -> bool:
    """The seat has something to do: a move, a ``next``, or the match is over."""
    ho = s["hand_over"]
    return bool(
        s["status"] == "finished" or s["my_turn"] or (ho is not None and not ho["ready"][s["seat"]])
    )


def card_strings(obj: Any) -> set[str]:
    """Every string in a JSON payload that names a card."""
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD_RE.match(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out |= card_strings(k) | card_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= card_strings(v)
    return out


class LeakChecker:
    """Checks payloads sent to a seat against the finished match's full record: no card of
    the opponent's hidden hand and no stock card may appear before the rules reveal it
    (R11: a knock shows both hands; a dead hand shows nothing; the stock never)."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        self._cache: dict[tuple[int, int], Hand] = {}

    def _hand_at(self, hi: int, k: int) -> Hand:
        key = (hi, k)
        if key not in self._cache:
            rec = dict(self.record)
            hands = [dict(h) for h in rec["hands"][: hi + 1]]
            hands[-1]["actions"] = hands[-1]["actions"][:k]
            rec["hands"] = hands
            self._cache[key] = Match.from_record(rec).hand
        return self._cache[key]

    def forbidden(self, seat: int, hi: int, k: int) -> set[str]:
        """Cards seat may not see after ``k`` actions of hand ``hi``."""
        hand = self._hand_at(hi, k)
        hidden = {str(c) for c in hand.stock}
        revealed = hand.result is not None and hand.result.result != "dead"
        if not revealed:
            public = {
                str(op.card) for op in hand.history
                if op.action.act == "draw" and op.action.source == "discard"
            }
            hidden |= {str(c) for c in hand.cards_of(1 - seat)} - public
        return hidden

    def check(self, seat: int, payload: dict[str, Any]) -> int:
        """Assert the STATE payload leaks nothing; returns how many cards were forbidden."""
        assert "seed" not in repr(payload)
        v = payload["view"]
        assert v["seat"] == seat == payload["seat"]
        bad = self.forbidden(seat, v["hand_index"], len(v["history"]))
        leaked = card_strings(payload) & bad
        assert not leaked, f"seat {seat} was shown {sorted(leaked)} at {payload['version']}"
        return len(bad)


@contextlib.contextmanager
def seat_socket(c: TestClient, url: str, **kw: Any) -> Iterator[Any]:
    """Open a socket as the table page does: a ``?token=T`` at the end of ``url`` is
    shorthand for a seat token that is sent as the socket's first message (the server
    takes no token from a URL: access logs keep URLs); any other URL opens as it is."""
    base, _, token = url.partition("?token=")
    with c.websocket_connect(base, **kw) as ws:
        if token:
            ws.send_json({"type": "auth", "token": token})
        yield ws
