"""The pages around the table (ginrummy.web.pages): a 404 page for browsers (the API keeps
its JSON refusals), Learn to play, the web app manifest with its icons, the service
worker and its offline page; and the lobby's ``next_hand`` flag."""

from __future__ import annotations

import json
import struct
from typing import Any

from fastapi.testclient import TestClient

from ginrummy.web.app import STATIC_DIR

from .conftest import auth, create, invite_token, state
from .online import play_to_end, sign_up

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_a_mistyped_address_gets_a_page_and_the_api_keeps_json(client: TestClient) -> None:
    for path in ("/nope", "/play", "/rulez", "/static/nope.html"):
        r = client.get(path, headers=HTML)
        assert r.status_code == 404, path
        assert r.headers["content-type"].startswith("text/html"), path
        assert "This page does not exist" in r.text
        for link in ('href="/"', 'href="/rules"', 'href="/record"', 'href="/learn"'):
            assert link in r.text, link
    assert client.head("/nope", headers=HTML).status_code == 404
    # Not a browser page: the JSON refusal of docs/web-api.md, exactly as before.
    assert client.get("/nope").json() == {"error": "Not found."}
    r = client.get("/api/no-such-route", headers=HTML)
    assert r.status_code == 404 and r.json() == {"error": "Not found."}
    r = client.post("/nope", headers=HTML)
    assert r.status_code == 404 and r.json() == {"error": "Not found."}
    r = client.get("/api/matches/nope", headers={**HTML, **auth("x")})
    assert r.status_code == 404 and "error" in r.json()
    r = client.delete("/rules", headers=HTML)
    assert r.status_code == 405 and r.json() == {"error": "That method is not allowed here."}


def test_learn_to_play_is_the_table_page_on_the_prepared_lesson(client: TestClient) -> None:
    r = client.get("/learn")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '/static/js/play.js' in r.text and 'id="lesson"' in r.text
    lesson = client.get("/static/learn/lesson.json").json()
    assert lesson["format"] == "ginrummy-lesson/1"
    assert len(lesson["steps"]) >= 10


BRAND = '<a class="brand" href="/"'


def test_every_page_takes_the_head_and_the_brand_from_the_shared_parts(
        client: TestClient) -> None:
    """One concept, one place: the head's common lines and the site's mark are written once
    (``static/parts``); every page but the offline one (kept by the service worker as it is
    on disk) takes them, and every served page has each once, with nothing left unfilled."""
    head = (STATIC_DIR / "parts" / "head.html").read_text(encoding="utf-8")
    pages = sorted(p.name for p in STATIC_DIR.glob("*.html") if p.name != "offline.html")
    assert {"play.html", "review.html", "replay.html", "record.html", "rules.html"} <= set(pages)
    for name in pages:
        text = (STATIC_DIR / name).read_text(encoding="utf-8")
        assert BRAND not in text and "<!--#include head -->" in text, name
        assert "#include topbar" in text or "#include brand" in text, name
    r = create(client, opponent="computer", bot="easy", name="Ann")
    for path in ("/", "/learn", "/rules", "/record", f"/play/{r['id']}",
                 f"/review/{r['id']}", f"/replay/{r['id']}", "/quick", "/analysis"):
        got = client.get(path, headers=HTML)
        assert got.status_code == 200, path
        assert got.text.count(BRAND) == 1 and head in got.text, path
        assert "<!--#include" not in got.text, path


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_the_manifest_makes_the_site_installable(client: TestClient) -> None:
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/manifest+json")
    m: dict[str, Any] = json.loads(r.text)
    assert m["name"] == "Gin Rummy" and m["short_name"]
    assert m["start_url"] == "/" and m["scope"] == "/" and m["display"] == "standalone"
    sizes = set()
    for icon in m["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200, icon["src"]
        if icon["type"] == "image/png":
            w, h = _png_size(got.content)
            assert f"{w}x{h}" == icon["sizes"], icon
            sizes.add((icon["sizes"], icon.get("purpose", "any")))
        else:
            assert icon["type"] == "image/svg+xml" and got.text.lstrip().startswith("<svg")
    # Chromium installs with a 192 and a 512 icon; phones crop a maskable one.
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for page in ("/", "/play/x", "/learn", "/rules", "/record"):
        assert 'rel="manifest" href="/manifest.webmanifest"' in client.get(page).text, page


def test_the_service_worker_keeps_no_match_and_says_when_offline(client: TestClient) -> None:
    r = client.get("/sw.js")
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    assert r.headers["cache-control"] == "no-cache"
    assert "/static/offline.html" in r.text
    assert "/api/" not in r.text  # it never stores an answer of the API
    page = client.get("/static/offline.html")
    assert page.status_code == 200 and "You are offline" in page.text
    assert (STATIC_DIR / "js" / "install.js").read_text("utf-8").count('register("/sw.js")') == 1


def _knock_or_draw(s: dict[str, Any]) -> dict[str, Any]:
    """Knock when allowed, else draw from the stock, else throw the first legal card."""
    legal: list[dict[str, Any]] = s["legal"]
    for pick in (lambda a: a.get("knock"), lambda a: a["act"] == "draw" and a["from"] == "stock",
                 lambda a: a["act"] == "discard"):
        found = [a for a in legal if pick(a)]
        if found:
            return found[0]
    return legal[0]


def test_the_lobby_says_whose_move_the_next_hand_is(client: TestClient) -> None:
    # To 250 (R10): no single hand can end the match.
    m = create(client, opponent="friend", name="Ann", options={"target": 250})
    tokens = [m["token"], invite_token(client, m)]

    def summaries() -> list[dict[str, Any]]:
        r = client.post("/api/matches/lookup", json={"tokens": tokens})
        got: list[dict[str, Any]] = sorted(r.json()["matches"], key=lambda x: x["seat"])
        return got

    assert [x["next_hand"] for x in summaries()] == [False, False]
    for _ in range(400):
        s = state(client, m["id"], tokens[0])
        if s["hand_over"] is not None:
            break
        seat = s["view"]["to_play"]
        me = state(client, m["id"], tokens[seat])
        r = client.post(f"/api/matches/{m['id']}/actions", headers=auth(tokens[seat]),
                        json={"action": _knock_or_draw(me), "version": me["version"]})
        assert r.status_code == 200, r.text
    else:
        raise AssertionError("the hand did not end")
    assert s["status"] == "playing"
    both = summaries()
    assert [x["next_hand"] for x in both] == [True, True]
    assert [x["my_turn"] for x in both] == [False, False]
    r = client.post(f"/api/matches/{m['id']}/next", headers=auth(tokens[0]),
                    json={"version": s["version"]})
    assert r.status_code == 200, r.text
    assert [x["next_hand"] for x in summaries()] == [False, True]


def test_online_pages_are_served(client: TestClient) -> None:
    """The pages of online play: each served, each loading its script."""
    sign_up(client, "ann")
    watched = create(client, opponent="friend", public=True)["id"]
    for path in ("/account", "/quick", "/leaderboard", "/player/ann", "/live",
                 f"/watch/{watched}"):
        r = client.get(path)
        assert r.status_code == 200 and "/static/js/online.js" in r.text, path
    assert 'data-testid="seek-button"' in client.get("/quick").text
    assert client.get("/static/js/online.js").status_code == 200
    assert 'id="account-bar"' in client.get("/").text


def test_a_page_about_nothing_is_the_not_found_page(client: TestClient) -> None:
    """Issue 36: /player/nobody and /watch/NoSuchMatch answered 200. A page about a player
    or match that does not exist (or, for watching, is not public) is the 404 page; the
    pages of those that exist are served."""
    sign_up(client, "Quinn")
    pub = create(client, opponent="friend", public=True)
    tokens = [pub["token"], invite_token(client, pub)]
    priv = create(client, opponent="friend")
    for path in ("/player/nobody", "/player/" + "x" * 50, "/watch/NoSuchMatch",
                 f"/watch/{priv['id']}", "/replay/NoSuchMatch"):
        r = client.get(path, headers=HTML)
        assert r.status_code == 404, path
        assert "This page does not exist" in r.text, path
    for path in ("/player/Quinn", "/player/quinn", f"/watch/{pub['id']}",
                 f"/replay/{priv['id']}"):
        r = client.get(path, headers=HTML)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), path
    play_to_end([client, client], pub["id"], tokens)
    r = client.get(f"/replay/{pub['id']}", headers=HTML)
    assert r.status_code == 200 and "/static/js/replay.js" in r.text


def test_the_training_pages_are_served_and_linked(client: TestClient) -> None:
    """Issue 38: the puzzle page (one puzzle, the player's own), the analysis board, each
    loading its script; the lobby's top bar links them."""
    for path, script in (("/puzzles", "puzzles.js"), ("/puzzles/abc123", "puzzles.js"),
                         ("/puzzles/mine", "puzzles.js"), ("/analysis", "analysis.js")):
        r = client.get(path, headers=HTML)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), path
        assert f"/static/js/{script}" in r.text and "/static/js/online.js" in r.text, path
        assert 'rel="manifest" href="/manifest.webmanifest"' in r.text, path
    for name in ("puzzles.js", "analysis.js", "training.js"):
        assert client.get(f"/static/js/{name}").status_code == 200, name
    assert client.get("/static/css/training.css").status_code == 200
    lobby = client.get("/").text
    assert 'href="/puzzles"' in lobby and 'href="/analysis"' in lobby
    assert 'data-testid="practise-link"' in client.get("/static/review.html").text
