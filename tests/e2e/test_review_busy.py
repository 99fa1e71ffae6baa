"""The review is the same on a busy machine (docs/review.md, "Stable grades"): a match
against the Hard computer, resigned after its first two hands, is reviewed at the server's
default settings while two busy processes hold both cores, and the review page rates Hard
in its band (the rating, or the range the match allows, says "Expert", the band of the
``expert`` bot), with no decision cut short by the time limit. Two hands, not a whole
match: a whole match's review took from about 200 s to over 300 s beside the busy cores,
depending on how many hands its random deals took."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


def _finish(http: httpx.Client, mid: str, head: dict[str, str], rng: random.Random,
            hands: int) -> None:
    """Play the human seat with random legal moves (knocking when allowed, so hands end)
    until the match is over (R10) or ``hands`` hands are, then resign."""
    for _ in range(5000):
        s: dict[str, Any] = http.get(f"/api/matches/{mid}", headers=head).json()
        if s["status"] == "finished":
            return
        if s["hand_over"] is not None and s["view"]["hand_index"] + 1 >= hands:
            r = http.post(f"/api/matches/{mid}/resign", headers=head)
            assert r.status_code == 200, r.text
            continue
        if s["hand_over"] is not None:
            r = http.post(f"/api/matches/{mid}/next", headers=head,
                          json={"version": s["version"]})
            assert r.status_code == 200, r.text
            continue
        if not s["my_turn"]:
            time.sleep(0.02)
            continue
        knocks = [a for a in s["legal"] if a.get("knock")]
        move = knocks[0] if knocks else rng.choice(s["legal"])
        r = http.post(f"/api/matches/{mid}/actions", headers=head,
                      json={"action": move, "version": s["version"]})
        assert r.status_code == 200, r.text
    pytest.fail("the match did not end")


def test_hard_is_rated_in_its_band_on_a_busy_machine(
        server: str, browser: Any, artifacts: Path) -> None:
    http = httpx.Client(base_url=server, timeout=60)
    m = http.post("/api/matches", json={"opponent": "computer", "bot": "hard",
                                        "name": "Ann"}).json()
    mid, tok = m["id"], m["token"]
    head = {"Authorization": f"Bearer {tok}"}
    _finish(http, mid, head, random.Random(5), hands=2)
    hard = 1 - int(m["seat"])
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.set_default_timeout(300_000)  # a review of two hands beside two busy cores
        page.goto(f"{server}/review/{mid}#token={tok}")
        page.get_by_test_id("review-board").wait_for(state="visible")
        line = page.get_by_test_id(f"rating-seat-{hard}")
        line.wait_for(state="visible")
        text = line.inner_text()
        page.screenshot(path=str(artifacts / "review_hard_busy.png"), animations="disabled")
        body = http.post(f"/api/matches/{mid}/review", headers=head).json()
        page.close()
    finally:
        for p in burners:
            p.kill()
            p.wait()
    seat = body["review"]["seats"][hard]
    assert seat["capped"] == 0, "the time limit cut grades short"
    assert "Expert" in text, text
    assert seat["rating"] == "Expert" or "Expert" in (seat["rating_interval"] or ""), seat
