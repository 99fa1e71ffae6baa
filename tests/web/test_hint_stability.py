"""A hint depends on the position alone (docs/review.md): asked again (a reload) and asked
of another server process on the same database, the same position gets the same
suggestion, word for word."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .cluster import Serve

pytest.importorskip("redis")
pytestmark = pytest.mark.postgres

OPEN = ["--rate-create", "100000/minute", "--rate-join", "100000/minute",
        "--rate-lookup", "100000/minute", "--rate-actions", "100000/minute",
        "--rate-messages", "100000/minute"]


@pytest.fixture()
def two(postgres_url: str, redis_url: str) -> Iterator[tuple[Serve, Serve]]:
    """Two processes on one PostgreSQL database and one Redis broker."""
    args = ["--db", postgres_url, "--broker", redis_url, "--bot-delay", "0", *OPEN]
    env = {KEY_ENV: new_key_text(), "GINRUMMY_REVIEW_SAMPLES": "16"}  # (a hint's samples)
    started = [Serve(*args, env=env), Serve(*args, env=env)]
    try:
        yield started[0], started[1]
    finally:
        for s in started:
            s.stop()
            s.log.close()


def test_the_same_position_gets_the_same_hint_in_any_process(
        two: tuple[Serve, Serve]) -> None:
    a, b = two
    ha, hb = httpx.Client(base_url=a.base, timeout=60), httpx.Client(base_url=b.base,
                                                                      timeout=60)
    m = ha.post("/api/matches", json={"opponent": "computer", "bot": "easy",
                                      "name": "Ann"}).json()
    mid, head = m["id"], {"Authorization": f"Bearer {m['token']}"}
    asked = 0
    for _ in range(600):
        s: dict[str, Any] = ha.get(f"/api/matches/{mid}", headers=head).json()
        if s["hand_over"] is not None or asked >= 3:
            break
        if not s["my_turn"]:
            time.sleep(0.05)
            continue
        if len(s["legal"]) >= 2:
            first = ha.post(f"/api/matches/{mid}/hint", headers=head).json()
            again = ha.post(f"/api/matches/{mid}/hint", headers=head).json()  # a reload
            other = hb.post(f"/api/matches/{mid}/hint", headers=head).json()  # elsewhere
            assert first["text"].startswith(("Suggestion:", "Either is fine:")), first
            assert first == again == other
            asked += 1
            move = first["best"]
        else:
            move = s["legal"][0]
        r = ha.post(f"/api/matches/{mid}/actions", headers=head,
                    json={"action": move, "version": s["version"]})
        assert r.status_code == 200, r.text
    assert asked >= 1
