"""The FastAPI application of the web table (docs/web-api.md): pages, JSON API, WebSockets.

Every refusal is a JSON ``{"error": "..."}`` with the status the contract names; no
request ever gets a traceback. Bodies over 16 KiB are refused with 413 before they are
read further.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import extras, extras_app, pages, reviews_app
from .broker import make_broker
from .computer import ComputerDriver
from .guard import (
    JSONError,
    RateLimits,
    SecurityHeaders,
    Settings,
    origin_allowed,
    parse_json,
)
from .seeds import SeedCipher, load_key
from .service import Limits, Service, Subscriber, Table, TableError, level_list
from .store import DEFAULT_DB_URL, Store, sqlite_path

__all__ = ["MAX_BODY", "STATIC_DIR", "create_app"]

log = logging.getLogger("ginrummy.web")

MAX_BODY = 16 * 1024
STATIC_DIR = Path(__file__).resolve().parent / "static"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_PLACEHOLDER = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Gin Rummy</title></head><body><h1>Gin Rummy</h1>
<p>The {what} page is not installed. The JSON API is at <code>/api/</code>.</p>
</body></html>"""


class BodyLimit:
    """ASGI middleware: refuse HTTP request bodies over ``limit`` bytes with 413 (by the
    Content-Length header, or while reading a body sent without one)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {"error": f"The request is too large: at most {self.limit // 1024} KiB."}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    too_big = int(v) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await self._refuse(send)
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":
                break  # disconnect: let the app see an empty body
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(send)
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


def _error(status: int, message: str, extra: dict[str, Any] | None = None) -> JSONResponse:
    body: dict[str, Any] = {"error": message}
    if extra:
        body.update(extra)
    return JSONResponse(body, status_code=status)


async def _json_body(request: Request) -> Any:
    """The parsed JSON body; TableError 400 with the parser's reason if it is not JSON
    (or nests deeper than any request needs)."""
    raw = await request.body()
    if not raw.strip():
        raise TableError(400, "The request needs a JSON body.")
    try:
        return parse_json(raw)
    except UnicodeDecodeError:
        raise TableError(400, "The request body is not valid JSON: it is not UTF-8 text.") from None
    except JSONError as e:
        raise TableError(400, str(e)) from None


def _client(conn: Request | WebSocket) -> str:
    """The client's address for rate limits (behind a trusted proxy, uvicorn has already
    put the forwarded address here)."""
    return conn.client.host if conn.client else "unknown"


def _bearer(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _page(name: str, what: str) -> Response:
    path = STATIC_DIR / name
    if path.is_file():
        return FileResponse(path, media_type="text/html", headers={"Cache-Control": "no-cache"})
    return HTMLResponse(_PLACEHOLDER.format(what=what))


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
    service = Service(store, bot_delay=bot_delay, resume=resume, idle_seconds=idle_seconds,
                      broker=broker, driver=driver, limits=limits)
    rate = RateLimits(settings, broker_url if broker.distributed and broker_url else "memory://")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            reviewer.close()
            await service.stop()

    app = FastAPI(
        title="Gin Rummy", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None
    )
    app.state.service = service
    app.state.settings = settings
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(SecurityHeaders)

    # ---------------------------------------------------------------- errors

    @app.exception_handler(TableError)
    async def table_error(_: Request, e: TableError) -> JSONResponse:
        return JSONResponse(e.to_json(), status_code=e.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, e: RequestValidationError) -> JSONResponse:
        errs = e.errors()
        where = ""
        msg = "The request is malformed."
        if errs:
            first = errs[0]
            loc = [str(x) for x in first.get("loc", ()) if x not in ("body", "query", "path")]
            where = f" ({'.'.join(loc)})" if loc else ""
            msg = f"The request is malformed{where}: {first.get('msg', 'invalid value')}."
        return _error(400, msg)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        text = {404: "Not found.", 405: "That method is not allowed here."}.get(
            e.status_code, str(e.detail)
        )
        return _error(e.status_code, text)

    @app.exception_handler(Exception)
    async def server_error(_: Request, e: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return _error(500, "Something went wrong on the server; nothing was changed.")

    # ---------------------------------------------------------------- pages

    @app.get("/", include_in_schema=False)
    async def lobby() -> Response:
        return _page("index.html", "lobby")

    @app.get("/play/{match_id}", include_in_schema=False)
    async def play_page(match_id: str) -> Response:
        return _page("play.html", "table")

    extras_app.register(app, service, STATIC_DIR)
    pages.register(app, STATIC_DIR)  # Learn to play, the 404 page, manifest, offline
    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # ---------------------------------------------------------------- API

    async def limit(kind: str, conn: Request | WebSocket) -> None:
        """429 when this client is over its rate limit for ``kind``."""
        if not await rate.hit(kind, _client(conn)):
            raise TableError(
                429, f"Too many requests: at most {rate.describe(kind)} from one address. "
                "Wait a moment and try again."
            )

    reviewer = reviews_app.register(app, service, STATIC_DIR, limit)

    async def seat_table(match_id: str, request: Request) -> tuple[Table, int]:
        await limit("actions", request)
        t = await service.table(match_id)
        return t, await service.authenticate_fresh(t, _bearer(request))

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        return {"bots": level_list()}

    @app.post("/api/matches")
    async def create(request: Request) -> JSONResponse:
        await limit("create", request)
        made = await extras.seal_new(service, await service.create(await _json_body(request)))
        return JSONResponse(made, status_code=201)

    @app.post("/api/matches/lookup")
    async def lookup(request: Request) -> dict[str, Any]:
        await limit("lookup", request)
        return await service.lookup(await _json_body(request))

    @app.post("/api/matches/{match_id}/join")
    async def join(match_id: str, request: Request) -> dict[str, Any]:
        await limit("join", request)
        t = await service.table(match_id)
        return await extras.join(service, t, await _json_body(request))

    @app.get("/api/matches/{match_id}")
    async def get_state(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(match_id, request)
        return await service.join_and_state(t, seat)

    @app.post("/api/matches/{match_id}/actions")
    async def act(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(match_id, request)
        state = await service.act(t, seat, await _json_body(request))
        assert state is not None
        return state

    @app.post("/api/matches/{match_id}/next")
    async def next_hand(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(match_id, request)
        return await service.next_hand(t, seat, await _json_body(request))

    @app.get("/api/matches/{match_id}/record")
    async def record(match_id: str) -> JSONResponse:
        t = await service.table(match_id)
        return JSONResponse(
            await extras.seal_record(service, t, await service.record(t)),
            headers={"Content-Disposition": f'attachment; filename="ginrummy-{t.id}.json"'},
        )

    @app.get("/api/matches/{match_id}/replay")
    async def replay(match_id: str, step: int | None = None) -> dict[str, Any]:
        t = await service.table(match_id)
        return await service.replay(t, step)

    # ---------------------------------------------------------------- WebSocket

    @app.websocket("/api/matches/{match_id}/ws")
    async def ws(websocket: WebSocket, match_id: str) -> None:
        origin = websocket.headers.get("origin")
        if not origin_allowed(origin, websocket.headers.get("host"), settings.allowed_origins):
            log.warning("refused a WebSocket from origin %r", origin)
            await websocket.close(code=4403)  # before accept: the handshake gets a 403
            return
        await websocket.accept()
        try:
            t = await service.table(match_id)
            token = websocket.query_params.get("token")  # deprecated: logs would show it
            if token is None:
                token = await _ws_auth(websocket, settings.ws_auth_seconds)
            seat = await service.authenticate_fresh(t, token)
        except TableError as e:
            await websocket.send_json({"type": "error", "status": e.status, "message": e.message})
            await websocket.close(code=4000 + e.status)
            return
        except WebSocketDisconnect:
            return
        sub = Subscriber(seat, websocket.send_text)
        writer = asyncio.create_task(sub.run())
        try:
            await service.subscribe(t, sub)
            while not sub.closed:
                try:
                    msg = await asyncio.wait_for(websocket.receive(), settings.ws_idle_seconds)
                except TimeoutError:
                    sub.close()  # idle: the page reconnects when it comes back
                    break
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                if text is None:
                    try:
                        text = (msg.get("bytes") or b"").decode("utf-8")
                    except UnicodeDecodeError:
                        text = "\ufffd"
                try:
                    await limit("actions", websocket)
                    reply = await _ws_message(service, t, seat, text)
                except TableError as e:
                    reply = {"type": "error", "status": e.status, "message": e.message}
                if reply is not None:
                    sub.push(reply)
        except WebSocketDisconnect:
            pass
        except TableError as e:
            sub.push({"type": "error", "status": e.status, "message": e.message})
            if e.status == 429:
                sub.close()
                await writer
                with contextlib.suppress(Exception):
                    await websocket.close(code=4429)
                return
        finally:
            reconnect = sub.closed
            service.unsubscribe(t, sub)
            await writer
            if reconnect:  # dropped (too far behind, idle, or the table was reloaded)
                with contextlib.suppress(Exception):
                    await websocket.close(code=1012)

    return app


async def _ws_auth(websocket: WebSocket, timeout: float) -> str:
    """The token of the socket's first message, ``{"type": "auth", "token": T}`` (kept
    out of the URL, so no access log ever shows it); 401 when it does not come in time."""
    try:
        msg = await asyncio.wait_for(websocket.receive(), timeout)
    except TimeoutError:
        raise TableError(401, "Send {\"type\": \"auth\", \"token\": \"...\"} first.") from None
    if msg["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(int(msg.get("code") or 1000))
    text = msg.get("text") or ""
    if len(text) > MAX_BODY:
        raise TableError(413, f"The message is too large: at most {MAX_BODY // 1024} KiB.")
    try:
        body = parse_json(text, "message")
    except JSONError as e:
        raise TableError(400, str(e)) from None
    if not (isinstance(body, dict) and body.get("type") == "auth"
            and isinstance(body.get("token"), str)):
        raise TableError(401, "Send {\"type\": \"auth\", \"token\": \"...\"} first.")
    return str(body["token"])


async def _ws_message(service: Service, t: Table, seat: int, text: str) -> dict[str, Any] | None:
    """Handle one WebSocket message; the reply for this socket only (an error), if any.
    Accepted changes reach every socket through the service's broadcast."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BODY:
        return {"type": "error", "status": 413,
                "message": f"The message is too large: at most {MAX_BODY // 1024} KiB."}
    try:
        try:
            msg = parse_json(text, "message")
        except JSONError as e:
            raise TableError(400, str(e)) from None
        if not isinstance(msg, dict):
            raise TableError(400, "A message must be a JSON object.")
        kind = msg.get("type")
        if kind == "action":
            await service.act(t, seat, msg, want_state=False)
        elif kind == "next":
            await service.next_hand(t, seat, msg)
        elif kind == "state":
            return {"type": "state", "state": await service.join_and_state(t, seat)}
        elif kind == "ping":
            return {"type": "pong"}
        elif kind == "auth":
            return None  # already authenticated (e.g. with the deprecated URL token)
        else:
            raise TableError(400, f"Unknown message type {kind!r}: use 'action' or 'next'.")
    except TableError as e:
        out: dict[str, Any] = {"type": "error", "status": e.status, "message": e.message}
        if e.state is not None:
            out["state"] = e.state
        return out
    return None
