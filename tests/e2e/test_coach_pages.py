"""No coach in rated play, in a real browser (issue 44 item 1): at a rated table against a
computer level the Hint toggle is not there and the analysis board says why it is closed;
at a casual table it is there and gives a hint."""

from __future__ import annotations

from typing import Any

import pytest
from test_fair_rated import SESSION, Account
from test_web_table import DESKTOP, PHONE, new_page

pytestmark = pytest.mark.e2e


def _table(account: Account, rated: bool) -> dict[str, Any]:
    r = account.http.post("/api/challenges", json={"to": "easy", "rated": rated},
                          headers={"X-CSRF-Token": account.csrf})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()["match"]
    return out


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_hint_toggle_at_a_rated_table(server: str, browser: Any,
                                         viewport: dict[str, int]) -> None:
    ann = Account(server, "Ann" + str(viewport["width"]))
    errors: list[str] = []
    page = new_page(browser, errors, viewport)
    page.context.add_cookies([{"name": SESSION, "value": ann.http.cookies[SESSION],
                               "url": server}])
    casual = _table(ann, rated=False)
    page.goto(server + casual["url"])
    page.get_by_test_id("hint-toggle").wait_for(state="visible")
    rated = _table(ann, rated=True)
    page.goto(server + rated["url"])
    page.wait_for_function("() => document.body.dataset.myTurn !== undefined")
    page.get_by_test_id("fairness").wait_for()
    assert page.get_by_test_id("hint-toggle").is_hidden()
    # the analysis board, asked while the rated match is in play, says why it is closed
    page.goto(server + "/analysis")
    page.evaluate("""() => fetch('/api/analysis', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: '{}'})
        .then(r => r.json()).then(j => { document.body.dataset.said = j.error; })""")
    page.wait_for_function("() => document.body.dataset.said")
    said = page.evaluate("() => document.body.dataset.said")
    assert said.startswith("The coach is closed to you while you play a rated"), said
    page.context.close()
    assert errors == []
