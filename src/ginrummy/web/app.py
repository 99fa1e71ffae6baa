"""The FastAPI application of the web table (docs/web-api.md): the parts composed into a
:class:`~.site.Site`, the routes of :mod:`.routes`, and what wraps every request.

Every request is limited (per client address, by kind: :class:`RequestLimits`), its body
capped at 16 KiB and given a deadline (:class:`BodyLimit`), and every answer carries the
security headers (:class:`~.guard.SecurityHeaders`). Every refusal is a JSON
``{"error": "..."}`` with the status the contract names; no request ever gets a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..i18n import N_, t
from .backends.broker import make_broker
from .backends.limits import RateLimits
from .computer.driver import ComputerDriver
from .errors import TableError
from .guard import Limits, RefuseNul, SecurityHeaders, Settings
from .language import Language
from .online.browsers import BrowserCookie
from .routes import (
    accounts,
    challenges,
    daily,
    games,
    matches,
    mine,
    moderation,
    online,
    opendata,
    ops,
    pages,
    people,
    public,
    reviews,
    sockets,
    tournaments,
    training,
)
from .routes.common import MAX_BODY, error
from .routes.pages import STATIC_DIR
from .site import Site
from .store import DEFAULT_DB_URL, Store, sqlite_path
from .store.seeds import SeedCipher, load_key

__all__ = ["MAX_BODY", "STATIC_DIR", "BodyLimit", "ReceivedAt", "RequestLimits", "create_app",
           "request_kind"]

log = logging.getLogger("ginrummy.web")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def _send_json(send: Send, status: int, body: dict[str, Any],
                     retry_after: float | None = None) -> None:
    raw = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(raw)).encode()),
        (b"connection", b"close"),
    ]
    if retry_after is not None:  # whole seconds, at least 1 (RFC 9110's Retry-After)
        headers.append((b"retry-after", str(max(1, math.ceil(retry_after))).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": raw})


class BodyLimit:
    """ASGI middleware: refuse HTTP request bodies over ``limit`` bytes with 413 (by the
    Content-Length header, or while reading a body sent without one), and bodies not
    complete within ``seconds`` of the request's head with 408 (a client trickling its
    body holds a connection and a task for nothing)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY, seconds: float = 10.0) -> None:
        self.app = app
        self.limit = limit
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = {"error": t("The request is too large: at most {kib} KiB.",
                                kib=str(self.limit // 1024))}
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    too_big = int(v) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await _send_json(send, 413, too_large)
                    return
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + self.seconds
        while True:
            try:
                msg = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                await _send_json(send, 408, {"error": t(
                    "The request body took too long: send it within {seconds} s.",
                    seconds=format(self.seconds, "g"))})
                return
            if msg["type"] != "http.request":
                break  # disconnect: let the app see an empty body
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await _send_json(send, 413, too_large)
                return
            chunks.append(chunk)
            if not msg.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


_MATCH = re.compile(r"^/api/matches/[^/]+(?:/(?P<sub>[a-z]+))?/?$")


def request_kind(method: str, path: str) -> str:
    """The rate-limit kind of an HTTP request (every request has one).

    >>> request_kind("POST", "/api/matches"), request_kind("GET", "/api/matches/x/replay")
    ('create', 'reads')
    >>> request_kind("POST", "/api/matches/x/actions"), request_kind("GET", "/static/a.js")
    ('actions', 'pages')
    >>> request_kind("POST", "/api/seeks"), request_kind("GET", "/api/seeks/x")
    ('create', 'reads')
    >>> request_kind("POST", "/api/matches/x/rematch"), request_kind("GET", "/api/matches/x")
    ('create', 'actions')
    """
    if path.startswith("/api/"):
        if path in ("/api/matches", "/api/matches/") and method == "POST":
            return "create"
        if method == "POST" and (path.rstrip("/") in ("/api/challenges", "/api/tokens")
                                 or path.endswith("/accept")):
            return "create"  # a challenge, an API token, a match from a challenge
        if path.rstrip("/") == "/api/seeks" and method == "POST":
            return "create"  # a seek makes a match: counted as one (issue 36)
        if method == "POST" and path.rstrip("/") in ("/api/tournaments", "/api/daily/play"):
            return "create"  # an arena, the daily match
        if method == "POST" and path.rstrip("/") in ("/api/me/password", "/api/me/close"):
            return "create"  # a password hashed: counted as a heavy request
        if path.rstrip("/") in ("/api/matches/lookup", "/api/record", "/api/me/record"):
            return "lookup"
        m = _MATCH.match(path)
        if m is not None:
            sub = m.group("sub")
            if sub == "join":
                return "join"
            if sub == "rematch" and method == "POST":
                return "create"  # "Play again" makes a table: counted as one (issue 44)
            if sub in ("record", "replay", "fairness", "watch"):
                return "reads"
            return "actions"  # the state, moves, next, resign, abort, rematch, review, hint
        return "reads"  # /api/bots and unknown paths
    return "pages"


class RouteTimer:
    """ASGI middleware: time every HTTP request into ``/metrics``' latency histogram, by
    method and route template (``/api/matches/{match_id}/actions``: one series per route,
    not per match); requests that matched no route are ``other``."""

    def __init__(self, app: ASGIApp, site: Site) -> None:
        self.app = app
        self.metrics = site.metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            route = scope.get("route")
            path = getattr(route, "path", None) or "other"
            self.metrics.observe("ginrummy_http_request_seconds", time.perf_counter() - start,
                                 {"method": str(scope.get("method", "GET")), "route": path})


class ReceivedAt:
    """ASGI middleware, the outermost: stamps each request with when it came (Unix
    seconds, ``scope["ginrummy.received"]``): the turn clock's rule compares a move's
    arrival with its deadline, before any other work on it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["ginrummy.received"] = time.time()
        await self.app(scope, receive, send)


class RequestLimits:
    """ASGI middleware: count every HTTP request against its kind's limit for the
    client's address (:func:`request_kind`); 429 with a sentence naming the limit and a
    ``Retry-After`` (the seconds until a request of the kind is allowed again), so a page
    waits and asks again rather than taking the refusal for an answer."""

    def __init__(self, app: ASGIApp, rates: RateLimits) -> None:
        self.app = app
        self.rates = rates

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") not in ops.OPS_PATHS:
            kind = request_kind(scope.get("method", "GET"), str(scope.get("path", "")))
            client = scope.get("client")
            address = client[0] if client else "unknown"
            if not await self.rates.hit(kind, address):
                await _send_json(send, 429, {"error": t(
                    "Too many requests: at most {limit} from one address. Wait a moment "
                    "and try again.", limit=self.rates.describe(kind))},
                    retry_after=self.rates.retry_after(kind, address))
                return
        await self.app(scope, receive, send)


def create_app(
    db_url: str = DEFAULT_DB_URL,
    bot_delay: float | tuple[float, float] = (0.6, 1.2),
    resume: bool = True,
    idle_seconds: float = 600.0,
    broker_url: str | None = None,
    settings: Settings | None = None,
    seed_key_file: str | None = None,
    driver: ComputerDriver | None = None,
    limits: Limits | None = None,
    migrate: bool = True,
) -> FastAPI:
    """The web table's ASGI app over the database at ``db_url``; computer moves wait
    ``bot_delay`` seconds (a number, or a (low, high) range drawn per move); tables idle
    for ``idle_seconds`` leave memory until their next use. With ``broker_url`` (Redis)
    any number of such apps serve the same tables (docs/deploy.md). Raises StoreError,
    BrokerError or SeedKeyError with a clear message when one cannot be used; the schema
    is upgraded first unless ``migrate`` is false (then it must be at head already)."""
    settings = settings if settings is not None else Settings()
    broker = make_broker(broker_url)
    default_key: Path | None = None
    if not broker.distributed:  # one process: a key file made beside the database
        db_file = sqlite_path(db_url)
        default_key = Path(db_file + ".key") if db_file else Path("ginrummy.key")
    cipher = SeedCipher(load_key(seed_key_file, default_key))
    store = Store(db_url, cipher, migrate=migrate)
    site = Site(store, broker=broker, driver=driver, settings=settings, limits=limits,
                bot_delay=bot_delay, resume=resume, idle_seconds=idle_seconds,
                rate_storage=broker_url if broker.distributed and broker_url else "memory://")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await site.start()
        try:
            yield
        finally:
            await site.stop()

    app = FastAPI(
        title="Gin Rummy", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None
    )
    app.state.site = site
    app.state.settings = settings
    app.add_middleware(BodyLimit, limit=MAX_BODY, seconds=settings.body_seconds)
    app.add_middleware(RefuseNul)  # no NUL in an address reaches a route
    app.add_middleware(RequestLimits, rates=site.rates)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(BrowserCookie)
    app.add_middleware(RouteTimer, site=site)
    app.add_middleware(ReceivedAt)
    app.add_middleware(Language)  # outermost: every answer, refusals too, in its language

    @app.exception_handler(TableError)
    async def table_error(_: Request, e: TableError) -> JSONResponse:
        return JSONResponse(e.to_json(), status_code=e.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, e: RequestValidationError) -> JSONResponse:
        errs = e.errors()
        msg = t("The request is malformed.")
        if errs:
            first = errs[0]
            loc = [str(x) for x in first.get("loc", ()) if x not in ("body", "query", "path")]
            detail = str(first.get("msg", "invalid value"))  # (the validator's own words)
            if loc:
                msg = t("The request is malformed ({where}): {detail}.", where=".".join(loc),
                        detail=detail)
            else:
                msg = t("The request is malformed: {detail}.", detail=detail)
        return error(400, msg)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        text = {404: N_("Not found."), 405: N_("That method is not allowed here.")}.get(
            e.status_code, str(e.detail)
        )
        return error(e.status_code, t(text))

    @app.exception_handler(Exception)
    async def server_error(_: Request, e: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return error(500, t("Something went wrong on the server; nothing was changed."))

    pages.register(app, site)
    public.register(app, site)
    matches.register(app, site)
    accounts.register(app, site)
    online.register(app, site)
    reviews.register(app, site)
    training.register(app, site)
    sockets.register(app, site)
    ops.register(app, site)
    challenges.register(app, site)
    mine.register(app, site)
    tournaments.register(app, site)
    daily.register(app, site)
    moderation.register(app, site)
    games.register(app, site)
    opendata.register(app, site)
    people.register(app, site)
    return app
