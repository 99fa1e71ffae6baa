"""The pages: the lobby, the table, the review, How to play, Your record, Learn to play,
the pages of online play (``/account``, ``/quick``, ``/leaderboard``, ``/player/NAME``,
``/live``, ``/watch/ID``, ``/challenge`` and ``/challenge/ID``: all drawn by
``static/js/online.js``), a finished match's replay (``/replay/ID``:
``static/js/replay.js``), arenas and the daily deal (``/tournaments``,
``/tournament/ID``, ``/daily``: ``static/js/events.js``), training with the coach
(``/puzzles``, ``/puzzles/ID`` and ``/puzzles/mine``: ``static/js/puzzles.js``; the
analysis board ``/analysis``: ``static/js/analysis.js``), the not-found page, and what
installs the site as an app; and their static files. A page about one player or match
that does not exist is the not-found page (404), as a mistyped address is.

* ``GET /learn``: the guided first hand, and ``/learn?lesson=NAME`` the lessons after it.
  It is the table page (``play.html``) run on a fixed, prepared deal
  (``static/learn/lesson.json`` and ``static/learn/NAME.json``, built from the core by
  ``scripts/learn_lesson.py`` and ``scripts/learn_lessons.py``); it talks to no match on
  the server.
* ``GET /manifest.webmanifest`` and ``GET /sw.js`` (the service worker must be served
  from the root to look after every page; it only shows ``static/offline.html`` when a
  page cannot be loaded, and never stores a match).
* A request for a page that does not exist (a ``GET`` or ``HEAD`` outside ``/api/`` from
  a browser, which asks for ``text/html``) gets a 404 *page* with the site's header;
  everything else keeps the JSON ``{"error": ...}`` answer (docs/web-api.md).
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...i18n import LANGUAGES, js_messages, language, plural_rule, translations
from ...i18n.html import translate as translate_html
from ..errors import TableError
from ..site import Site

__all__ = ["STATIC_DIR", "page", "register", "render", "wants_page"]

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

Handler = Callable[[Request, Any], Response | Awaitable[Response]]

_PLACEHOLDER = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Gin Rummy</title></head><body><h1>Gin Rummy</h1>
<p>The {what} page is not installed. The JSON API is at <code>/api/</code>.</p>
</body></html>"""

_NOT_FOUND = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Page not found · Gin Rummy</title></head><body><h1>Page not found</h1>
<p>There is no page at this address. <a href="/">Go to the lobby</a>.</p></body></html>"""


_INCLUDE = re.compile(r"^[ \t]*<!--#include (?P<part>[a-z]+) -->\n", re.M)
"""Where a page takes a shared part of ``static/parts/``: the head's common lines
(``head``), the site's name and mark (``brand``) and the top bar with the site's menu
(``topbar``, which takes ``brand``), written once. Pages with tools of their own in the
top bar (the table, the review, the replay) take ``head`` and ``brand``; the offline
page is the one page without parts (the service worker keeps it as it is on disk)."""

_PART_DEPTH = 3
"""How deep parts may take parts (``topbar`` takes ``brand``: 2)."""

_rendered: dict[Path, tuple[float, str]] = {}


def render(path: Path, here: str | None = None) -> str:
    """A page's HTML with its shared parts put in (:data:`_INCLUDE`; read again when a
    file changes); ``here`` marks the menu's link to this page (``aria-current``).

    >>> html = render(STATIC_DIR / "leaderboard.html", "/leaderboard")
    >>> html.count('aria-current="page"'), "<!--#include" in html
    (1, False)
    """
    stamp = max([path.stat().st_mtime] + [p.stat().st_mtime
                                           for p in (path.parent / "parts").glob("*.html")])
    cached = _rendered.get(path)
    if cached is None or cached[0] != stamp:
        def part(m: re.Match[str]) -> str:
            return (path.parent / "parts" / f"{m.group('part')}.html").read_text(
                encoding="utf-8")

        text = path.read_text(encoding="utf-8")
        for _ in range(_PART_DEPTH):  # parts may take parts
            text = _INCLUDE.sub(part, text)
        cached = (stamp, text)
        _rendered[path] = cached
    html = in_language(path, cached, language())
    if here is not None:
        link = f'small" href="{here}" '
        html = html.replace(link, f'{link}aria-current="page" ', 1)
    return html


_translated: dict[tuple[Path, str], tuple[float, str]] = {}


def in_language(path: Path, page: tuple[float, str], lang: str) -> str:
    """A rendered page in ``lang`` (cached while its files are unchanged): its marked
    sentences translated (:mod:`ginrummy.i18n.html`), ``<html lang>`` set, the language
    picker's options put in with ``lang`` chosen, and the browser's sentences in that
    language sent with it (a JSON block ``static/js/i18n.js`` reads)."""
    stamp, text = page
    cached = _translated.get((path, lang))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    gettext = translations(lang).gettext
    text = translate_html(text, lambda m: gettext(m) or None)
    text = text.replace('<html lang="en">', f'<html lang="{lang}">', 1)
    options = "".join(
        f'<option value="{code}" lang="{code}"{" selected" if code == lang else ""}>'
        f"{name}</option>" for code, name in LANGUAGES.items())
    text = text.replace("<!--#languages-->", options)
    data = json.dumps({"lang": lang, "plural": plural_rule(lang),
                       "messages": js_messages(lang)}, ensure_ascii=False)
    data = data.replace("<", "\\u003c")  # (JSON's own escape: nothing ends the block)
    text = text.replace("</head>", f'<script type="application/json" id="i18n">{data}'
                        "</script>\n</head>", 1)
    _translated[(path, lang)] = (stamp, text)
    return text


def page(name: str, what: str, static_dir: Path = STATIC_DIR, here: str | None = None
         ) -> Response:
    """A page of the static folder with its shared parts (never cached stale), or a
    placeholder saying it is not installed."""
    path = static_dir / name
    if path.is_file():
        return HTMLResponse(render(path, here), headers={"Cache-Control": "no-cache"})
    return HTMLResponse(_PLACEHOLDER.format(what=what))


_MENU = {"/quick": "/quick", "/leaderboard": "/leaderboard",
         "/leaderboard/bots": "/leaderboard", "/live": "/live",
         "/tournaments": "/tournaments", "/tournament": "/tournaments", "/daily": "/daily",
         "/puzzles": "/puzzles", "/analysis": "/analysis"}
"""The menu link of each page of :func:`register`'s list (by its path up to a parameter)."""


def wants_page(request: Request) -> bool:
    """Whether a not-found answer should be a page: a browser (``Accept: text/html``)
    asking with ``GET`` or ``HEAD`` for something outside the JSON API."""
    return (
        request.method in ("GET", "HEAD")
        and not request.url.path.startswith("/api/")
        and "text/html" in request.headers.get("accept", "")
    )


def register(app: FastAPI, site: Site, static_dir: Path = STATIC_DIR) -> None:
    """Add the pages, mount the static files, and answer a browser's request for a page
    that does not exist with the not-found page (the app's own handler for HTTP errors,
    registered before, still answers everything else)."""

    def static(name: str, media_type: str, **headers: str) -> Response:
        path = static_dir / name
        if not path.is_file():
            return Response(status_code=404)
        return FileResponse(path, media_type=media_type,
                            headers={"Cache-Control": "no-cache", **headers})

    @app.get("/", include_in_schema=False)
    async def lobby() -> Response:
        return page("index.html", "lobby", static_dir, "/")

    @app.get("/play/{match_id}", include_in_schema=False)
    async def play_page(match_id: str) -> Response:
        return page("play.html", "table", static_dir)

    @app.get("/review/{match_id}", include_in_schema=False)
    async def review_page(match_id: str) -> Response:
        return page("review.html", "review", static_dir)

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> Response:
        return page("rules.html", "How to play", static_dir, "/rules")

    @app.get("/record", include_in_schema=False)
    async def record_page() -> Response:
        return page("record.html", "Your record", static_dir, "/record")

    for path, name, what in (("/account", "account.html", "account"),
                             ("/quick", "quick.html", "Play someone"),
                             ("/leaderboard", "leaderboard.html", "leaderboard"),
                             ("/leaderboard/bots", "bots.html", "the bots' ladder"),
                             ("/live", "live.html", "live matches"),
                             ("/challenge", "challenge.html", "challenge"),
                             ("/challenge/{challenge_id}", "challenge.html", "challenge"),
                             # arenas and the daily deal: drawn by static/js/events.js
                             ("/tournaments", "tournament.html", "arenas"),
                             ("/tournament/{arena_id}", "tournament.html", "arena"),
                             ("/daily", "daily.html", "daily deal"),
                             # training: drawn by static/js/puzzles.js and analysis.js
                             ("/puzzles", "puzzles.html", "puzzles"),
                             ("/puzzles/{puzzle_id}", "puzzles.html", "puzzle"),
                             ("/analysis", "analysis.html", "analysis board"),
                             # the monthly exports (static/js/opendata.js)
                             ("/open-data", "open-data.html", "open data"),
                             # moderators (the page asks the API, which refuses others)
                             ("/mod", "mod.html", "moderators")):
        def online_page(name: str = name, what: str = what,
                        here: str = _MENU.get(path.split("/{")[0], "")) -> Response:
            return page(name, what, static_dir, here or None)

        app.add_api_route(path, online_page, methods=["GET"], include_in_schema=False)

    # Pages about one thing: the not-found page when there is no such thing, as for any
    # mistyped address (a database that cannot answer now does not make it "not found":
    # the page is served and says what its requests are told)
    async def page_of(found: Awaitable[bool], name: str, what: str) -> Response:
        try:
            there = await found
        except TableError as e:
            there = e.status != 404
        if not there:
            raise StarletteHTTPException(404)
        return page(name, what, static_dir)

    async def player_exists(username: str) -> bool:
        if not 0 < len(username) <= 40:
            return False
        acct = await site.db.read(site.db.store.accounts.by_key, username.casefold())
        return acct is not None

    async def public_match(match_id: str) -> bool:
        return 0 < len(match_id) <= 32 and await site.spectators.is_public(match_id)

    async def match_exists(match_id: str) -> bool:
        await site.registry.get(match_id)  # 404 when there is no such match
        return True

    @app.get("/player/{username}", include_in_schema=False)
    async def player_page(username: str) -> Response:
        return await page_of(player_exists(username), "player.html", "player")

    @app.get("/watch/{match_id}", include_in_schema=False)
    async def watch_page(match_id: str) -> Response:
        return await page_of(public_match(match_id), "watch.html", "spectator")

    @app.get("/replay/{match_id}", include_in_schema=False)
    async def replay_page(match_id: str) -> Response:
        return await page_of(match_exists(match_id), "replay.html", "replay")

    @app.get("/learn", include_in_schema=False)
    async def learn() -> Response:
        return page("play.html", "Learn to play", static_dir)

    @app.get("/manifest.webmanifest", include_in_schema=False)
    async def manifest() -> Response:
        return static("manifest.webmanifest", "application/manifest+json")

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        return static("sw.js", "text/javascript")

    if static_dir.is_dir():
        app.mount("/static", StaticFiles(directory=static_dir), name="static")

    previous: Handler | None = app.exception_handlers.get(StarletteHTTPException)

    async def not_found_page(request: Request, e: Exception) -> Response:
        if (isinstance(e, StarletteHTTPException) and e.status_code == 404
                and wants_page(request)):
            path = static_dir / "404.html"
            body = render(path) if path.is_file() else _NOT_FOUND
            return HTMLResponse(body, status_code=404, headers={"Cache-Control": "no-cache"})
        if previous is None:
            raise e
        answer = previous(request, e)
        return await answer if inspect.isawaitable(answer) else answer

    app.add_exception_handler(StarletteHTTPException, not_found_page)
