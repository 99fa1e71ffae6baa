"""Challenges, API tokens and an account's notice socket (docs/web-api.md, "Challenges,
API tokens and BOT accounts").

Every change made with the session cookie needs the CSRF token (or a same-origin
Origin); a request with an API token (``Authorization: Bearer ginrummy.…``) acts as its
account with none. A BOT account acts only through a token.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from ...i18n import N_
from ..accounts.accounts import COOKIE
from ..accounts.tokens import BY_SESSION, is_api_token
from ..errors import TableError
from ..guard import JSONError, parse_json
from ..online.browsers import browser_of
from ..site import Site
from ..store.accounts import Account
from ..tables.sockets import RECONNECT, Subscriber
from .common import (
    account_of,
    api_bearer,
    bearer,
    client_address,
    json_body,
    playing_account,
)
from .sockets import IDLE, SESSION, _first_auth, _open, _refuse, _subscriber, within_budget

__all__ = ["register"]

log = logging.getLogger("ginrummy.web")


async def _optional_body(request: Request) -> Any:
    """The JSON body, or None when there is none."""
    raw = await request.body()
    return await json_body(request) if raw.strip() else None


async def _signed_in(site: Site, request: Request, change: bool) -> Account:
    """The account of the request (token or session); 401 for a guest."""
    acct = await account_of(site, request, change=change)
    if acct is None:
        raise TableError(401, N_("You are not logged in: log in, or send an API token."))
    return acct


def _seat_token(request: Request) -> str | None:
    """A bearer that is not an API token: a guest challenger's seat token."""
    token = bearer(request)
    return None if is_api_token(token) else token


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of API tokens, challenges and the notice socket."""

    # ------------------------------------------------------------------ API tokens

    async def session_account(request: Request) -> Account:
        if await api_bearer(site, request) is not None:
            raise TableError(403, BY_SESSION)
        return await _signed_in(site, request, change=request.method != "GET")

    @app.post("/api/tokens")
    async def make_token(request: Request) -> JSONResponse:
        acct = await session_account(request)
        out = await site.tokens.create(acct, await _optional_body(request))
        return JSONResponse(out, status_code=201)

    @app.get("/api/tokens")
    async def list_tokens(request: Request) -> dict[str, Any]:
        return await site.tokens.listing(await _signed_in(site, request, change=False))

    @app.delete("/api/tokens/{token_id}")
    async def revoke_token(token_id: str, request: Request) -> dict[str, Any]:
        # the session only: a leaked token must not revoke the owner's other tokens
        acct = await session_account(request)
        return await site.tokens.revoke(acct, token_id)

    # ------------------------------------------------------------------ challenges

    @app.post("/api/challenges")
    async def challenge(request: Request) -> JSONResponse:
        body = await _optional_body(request)
        acct = await playing_account(site, request)
        out = await site.challenges.create(body, acct, client_address(request),
                                           browser_of(request))
        return JSONResponse(out, status_code=201)

    @app.get("/api/challenges")
    async def challenges(request: Request) -> dict[str, Any]:
        acct = await _signed_in(site, request, change=False)
        return await site.challenges.lists(acct.id)

    @app.get("/api/challenges/{challenge_id}")
    async def show(challenge_id: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        return await site.challenges.show(challenge_id, acct, _seat_token(request))

    @app.post("/api/challenges/{challenge_id}/accept")
    async def accept(challenge_id: str, request: Request) -> dict[str, Any]:
        acct = await playing_account(site, request)
        return await site.challenges.accept(challenge_id, acct, client_address(request),
                                            browser_of(request))

    @app.post("/api/challenges/{challenge_id}/decline")
    async def decline(challenge_id: str, request: Request) -> dict[str, Any]:
        body = await _optional_body(request)
        acct = await account_of(site, request, change=True)
        return await site.challenges.decline(challenge_id, acct, body)

    @app.delete("/api/challenges/{challenge_id}")
    async def cancel(challenge_id: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        return await site.challenges.cancel(challenge_id, acct, _seat_token(request))

    # ------------------------------------------------------------------ notices

    @app.websocket("/api/me/ws")
    async def notices(websocket: WebSocket) -> None:
        address = await _open(site, websocket)
        if address is None:
            return
        try:
            acct, token_id = await _authenticate(site, websocket, address)
        except TableError as e:
            await _refuse(websocket, e)
            return
        except WebSocketDisconnect:
            return
        sub = _subscriber(websocket, acct.id, -1, address, token_id)
        try:
            site.notices.admit(sub, websocket.cookies.get(COOKIE) if token_id is None
                               else None)
        except TableError as e:
            await _refuse(websocket, e)
            return
        writer = asyncio.get_running_loop().create_task(sub.run())
        try:
            await site.presence.opened(acct.id, sub.id)  # online while it is open
            await site.notices.refresh(acct.id)
            await _serve(site, websocket, sub)
        finally:
            site.notices.remove(sub)
            await site.presence.closed(acct.id, sub.id)
            await writer


async def _authenticate(site: Site, websocket: WebSocket,
                        address: str) -> tuple[Account, str | None]:
    """The account of a notice socket and the API token it used (None: the session),
    from its first message, as a table's socket: ``{"type": "auth", "token":
    API_TOKEN}`` or ``{"type": "auth", "session": true}`` (the cookie came with the
    handshake)."""
    token = await _first_auth(websocket, site.settings.ws_auth_seconds)
    if token is SESSION:
        cookie = websocket.cookies.get(COOKIE)
        acct = await site.accounts.account_of(cookie) if cookie else None
        if acct is None:
            raise TableError(401, N_("You are not logged in."))
        return acct, None
    key = await site.tokens.resolve(token, address)
    return key.account, key.token_id


async def _serve(site: Site, websocket: WebSocket, sub: Subscriber) -> None:
    """Answer the page's messages (``ping``: ``pong``; ``refresh``: the lists again) until
    the socket closes or is closed, each counted against the account's message budget
    (its notice sockets together, as a seat's sockets share theirs: past it 4429); pushes
    come from :class:`~.notices.Notices`."""
    idle = site.settings.ws_idle_seconds
    try:
        while not sub.closed:
            try:
                async with asyncio.timeout(idle):
                    msg = await websocket.receive()
            except TimeoutError:
                sub.close(RECONNECT, IDLE)
                break
            if msg["type"] == "websocket.disconnect" or sub.closed:
                break
            # the table sockets' budget, for all the account's notice sockets together:
            # a ping flood waits unread, then is closed (4429)
            if not await within_budget(site, sub, f"notices:{sub.match_id}", "per account"):
                break
            try:
                parsed = parse_json(msg.get("text") or "", "message")
            except JSONError:
                parsed = None
            kind = parsed.get("type") if isinstance(parsed, dict) else None
            if kind == "ping":
                sub.push({"type": "pong"})
            elif kind == "refresh" and await site.rates.hit("actions", sub.address):
                await site.notices.refresh(sub.match_id)
    except WebSocketDisconnect:
        pass
