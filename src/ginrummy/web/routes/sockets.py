"""The seat's live connection: ``WS /api/matches/{id}/ws`` (docs/web-api.md).

The socket authenticates with its first message, is counted against the caps (per seat and
per address, across processes), gets its seat's STATE at once and after every change
wherever it was made, beats while nothing happens, and is closed with a code and a reason
whenever it cannot be kept in step, so the page reconnects. Messages: ``action``, ``next``,
``state``, ``ping`` (answered ``pong``; with ``"version"``, a page behind also gets the
state), ``auth``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

from ...i18n import N_, t
from ..accounts.accounts import COOKIE
from ..accounts.tokens import REVOKED, is_api_token
from ..errors import TableError
from ..guard import JSONError, origin_allowed, parse_json
from ..site import Site
from ..store import hash_token
from ..store.accounts import Account
from ..tables.sockets import LOGGED_OUT, LOGGED_OUT_CODE, RECONNECT, Subscriber
from ..tables.table import Table
from .common import (
    BOT_SESSION,
    MAX_BODY,
    account_seat,
    client_address,
    program_seat,
    seat_with_token,
)

__all__ = ["TOKEN_IN_URL", "message_kind", "register", "within_budget"]

REVOKED_CODE = 4401
"""Close code of a socket whose API token was revoked (4000 + 401, as refusals)."""

TOKEN_IN_URL = N_("A token is never taken from a URL (access logs keep URLs): send it in "
                  'the socket\'s first message, {"type": "auth", "token": TOKEN}.')
IDLE = N_("Nothing was sent for a long time: reconnect.")
"""Why a socket that sent nothing for ``ws_idle_seconds`` is closed."""
SEND_AUTH = N_('Send {"type": "auth", "token": "..."} first.')

log = logging.getLogger("ginrummy.web")


def _scheme(websocket: WebSocket) -> str:
    """The page's scheme as this request came in (``https`` for ``wss``; behind a trusted
    proxy, uvicorn has applied X-Forwarded-Proto)."""
    return "https" if websocket.url.scheme in ("wss", "https") else "http"


def register(app: FastAPI, site: Site) -> None:
    """Add the WebSocket route."""
    settings = site.settings

    @app.websocket("/api/matches/{match_id}/ws")
    async def ws(websocket: WebSocket, match_id: str) -> None:
        address = await _open(site, websocket)
        if address is None:
            return
        try:
            t = await site.registry.get(match_id)
            if "token" in websocket.query_params:  # access logs keep URLs: never a secret
                raise TableError(400, TOKEN_IN_URL)
            token = await _first_auth(websocket, settings.ws_auth_seconds)
            token_id: str | None = None
            account: Account | None = None
            if token is SESSION:
                seat, account = await _session_seat(site, t, websocket)
            elif is_api_token(token):  # an API token: its account's seat
                key = await site.tokens.resolve(token, address)
                seat, token_id = await account_seat(site, t, key.account), key.token_id
                await program_seat(site, t, seat, key.account)  # a program's seat
            else:
                seat = await seat_with_token(site, t, token, address)
        except TableError as e:
            await _refuse(websocket, e)
            return
        except WebSocketDisconnect:
            return

        sub = _subscriber(websocket, t.id, seat, address, token_id)
        if account is not None:
            sub.account = account.id
            sub.session = hash_token(websocket.cookies.get(COOKIE, ""))
        try:
            await site.hub.admit(sub)
        except TableError as e:
            await _refuse(websocket, e)
            return
        writer = asyncio.get_running_loop().create_task(sub.run())
        try:
            await _serve(site, websocket, t, sub)
        except Exception as e:  # noqa: BLE001 - a surprise closes with a reason, never drops
            log.error("socket closed after an unexpected error: %s: %s", type(e).__name__,
                      str(e).splitlines()[0][:200] if str(e) else "")
            sub.close(1011, N_("Something went wrong on the server: reconnect."))
        finally:
            await site.hub.remove(sub)  # closes it: the writer closes the socket
            await writer


async def _open(site: Site, websocket: WebSocket) -> str | None:
    """Open a socket: its Origin must be the server's own or an allowed one (refused at
    the handshake: a 403), then it is accepted and counted against its address's rate.
    The client address, or None when refused (the socket is closed, with the reason)."""
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, websocket.headers.get("host"), _scheme(websocket),
                          site.settings.allowed_origins):
        log.warning("refused a WebSocket from origin %r", origin)
        await websocket.close(code=4403)  # before accept: the handshake gets a 403
        return None
    address = client_address(websocket)
    await websocket.accept()
    if not await site.rates.hit("sockets", address):
        await _refuse(websocket, TableError(429, t(
            "Too many connections: at most {limit} from one address.",
            limit=site.rates.describe("sockets"))))
        return None
    return address


def _subscriber(websocket: WebSocket, key: str, seat: int, address: str,
                token_id: str | None) -> Subscriber:
    """The socket's send queue and writer (``token_id``: the API token it authenticated
    with, so it is closed at once should the token be revoked)."""

    async def close_socket(code: int, reason: str) -> None:
        await websocket.close(code=code, reason=reason)

    sub = Subscriber(key, seat, address, websocket.send_text, close_socket)
    sub.token_id = token_id
    return sub


async def _refuse(websocket: WebSocket, e: TableError) -> None:
    """One error message, then close with 4000 + status."""
    with contextlib.suppress(Exception):
        await websocket.send_json({"type": "error", "status": e.status, "message": e.said})
        await websocket.close(code=4000 + e.status)


async def _serve(site: Site, websocket: WebSocket, t: Table, sub: Subscriber) -> None:
    """Push the seat's state, then answer messages until the socket closes or is closed.
    A socket the server closes (its writer sends the close frame with a reason) ends here
    when the page answers the close, or when a dead peer misses its protocol pings."""
    settings = site.settings
    try:
        await site.play.seat_state(t, sub.seat)  # the friend's first visit joins
    except TableError as e:
        if e.status != 503:  # database away: the last state, with moves paused
            sub.push({"type": "error", "status": e.status, "message": e.said})
    async with t.lock:  # never mid-commit: a change is shown once stored
        site.hub.send_state(t, sub)
    try:  # the players' chat is pushed from now on (the page reads what came before)
        await site.chat.watching(t.id)
    except TableError as e:  # database away: caught up by the chat's periodic pass
        log.debug("chat of %s not followed now: %s", t.id, e.message)
    idle = settings.ws_idle_seconds
    try:
        while not sub.closed:
            try:
                async with asyncio.timeout(idle):
                    msg = await websocket.receive()
            except TimeoutError:  # idle: the page reconnects when it comes back
                sub.close(RECONNECT, IDLE)
                break
            if msg["type"] == "websocket.disconnect" or sub.closed:
                break
            text = msg.get("text")
            if text is None:
                try:
                    text = (msg.get("bytes") or b"").decode("utf-8")
                except UnicodeDecodeError:
                    text = "\ufffd"
            if not await within_budget(site, sub):
                break
            try:
                await _message(site, t, sub, text)
            except TableError as e:
                sub.push(_error(e))
    except WebSocketDisconnect:
        pass


MESSAGE_WAIT = 5.0
"""Longest a socket's next message waits, unread, for its seat and its address to be back
within their message budgets; a socket that would wait longer is closed (4429)."""


def message_kind(sub: Subscriber) -> str:
    """The message budget a socket counts against: ``bot_messages`` for one opened with an
    API token (a program, such as a BOT account's ``ginrummy connect``, which must keep up
    with fast clocks), else ``messages`` (a page sends a few a minute)."""
    return "bot_messages" if sub.token_id is not None else "messages"


async def within_budget(site: Site, sub: Subscriber, key: str | None = None,
                        per: str = "per seat") -> bool:
    """Count one message against the budget of the socket's seat (``key``: another
    holder, such as an account's notice sockets, said ``per`` in the refusal;
    :func:`message_kind` says which budget, all the holder's sockets together, across
    processes) and the address's (``rate_actions``, with its requests). Over either, the
    message waits and nothing more is read from this socket (so a flood fills the
    sender's own buffers and costs the server nothing); past :data:`MESSAGE_WAIT` the
    socket is closed with 4429 and a reason (False)."""
    rates = site.rates
    seat = key if key is not None else f"{sub.match_id}:{sub.seat}"
    budget = message_kind(sub)
    waited = 0.0
    while not sub.closed:
        wait = max(rates.retry_after(budget, seat), rates.retry_after("actions", sub.address))
        if wait <= 0:
            if await rates.hit(budget, seat) and await rates.hit("actions", sub.address):
                return True
            wait = 0.25  # another socket took the last room meanwhile
        if waited + wait > MESSAGE_WAIT:
            kind = budget if rates.retry_after(budget, seat) > 0 else "actions"
            sub.close(4429, _too_many(rates.describe(kind), per if kind == budget
                                      else "from one address"))
            return False
        await asyncio.sleep(wait)
        waited += wait
    return False


def _too_large() -> TableError:
    """The refusal of a message over :data:`MAX_BODY` (413)."""
    return TableError(413, t("The message is too large: at most {kib} KiB.",
                             kib=str(MAX_BODY // 1024)))


def _unknown_type(kind: Any) -> TableError:
    """The refusal of a message of no known type (400)."""
    return TableError(400, t("Unknown message type {kind}: use 'action' or 'next'.",
                             kind=repr(kind)))


def _too_many(limit: str, who: str) -> str:
    """The reason of a socket closed for its messages: over ``limit`` ``who`` (``per
    seat``, ``per account`` or ``from one address``), a whole sentence for each."""
    if who == "per seat":
        return t("Too many messages: at most {limit} per seat. Reconnect in a moment.",
                 limit=limit)
    if who == "per account":
        return t("Too many messages: at most {limit} per account. Reconnect in a moment.",
                 limit=limit)
    if who == "from one address":
        return t("Too many messages: at most {limit} from one address. Reconnect in a "
                 "moment.", limit=limit)
    return f"Too many messages: at most {limit} {who}. Reconnect in a moment."


def _error(e: TableError) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "status": e.status, "message": e.said}
    if e.state is not None:
        out["state"] = e.state
    return out


SESSION = "\x00session"
"""What :func:`_first_auth` returns for ``{"type": "auth", "session": true}``: the seat is
the logged-in account's (its session cookie, sent with the handshake)."""


async def _session_seat(site: Site, t: Table, websocket: WebSocket) -> tuple[int, Account]:
    """The seat of the account whose session cookie came with the handshake (the Origin
    was checked before the socket was accepted), and the account; 401 without a live
    session."""
    cookie = websocket.cookies.get(COOKIE)
    acct = await site.accounts.account_of(cookie) if cookie else None
    if acct is None:
        raise TableError(401, N_("You are not logged in: log in, or open the table's own "
                                 "link."))
    if acct.bot:
        raise TableError(403, BOT_SESSION)
    return await account_seat(site, t, acct), acct


async def _session_ended(site: Site, sub: Subscriber) -> bool:
    """Whether the session a socket was opened with has ended (logged out, expired):
    then the socket is closed (4401) before it may move or read the seat's hand again,
    even if the broker's notice of the logout never came."""
    if sub.session is None:
        return False
    acct = await site.accounts.account_of_session(sub.session)
    if acct is not None and acct.id == sub.account:
        return False
    sub.close(LOGGED_OUT_CODE, LOGGED_OUT)
    return True


async def _token_revoked(site: Site, sub: Subscriber) -> bool:
    """Whether the API token a socket was opened with has been revoked (or its account
    closed): then the socket is closed (4401) before it may move or read the seat again,
    on every process, even while the broker that carries the news is away (the token is
    read again at each move then; while the broker is there, a reading a second old is
    trusted)."""
    if sub.token_id is None:
        return False
    if await site.tokens.live(sub.token_id, cached=site.broker.healthy):
        return False
    sub.close(REVOKED_CODE, REVOKED)
    return True


async def _first_auth(websocket: WebSocket, timeout: float) -> str:
    """The token of the socket's first message, ``{"type": "auth", "token": T}`` (kept
    out of the URL, so no access log ever shows it), or :data:`SESSION` for ``{"type":
    "auth", "session": true}``; 401 when it does not come in time."""
    try:
        msg = await asyncio.wait_for(websocket.receive(), timeout)
    except TimeoutError:
        raise TableError(401, SEND_AUTH) from None
    if msg["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(int(msg.get("code") or 1000))
    text = msg.get("text") or ""
    if len(text) > MAX_BODY:
        raise _too_large()
    try:
        body = parse_json(text, "message")
    except JSONError as e:
        raise TableError(400, str(e)) from None
    if isinstance(body, dict) and body.get("type") == "auth" and body.get("session") is True:
        return SESSION
    if not (isinstance(body, dict) and body.get("type") == "auth"
            and isinstance(body.get("token"), str)):
        raise TableError(401, SEND_AUTH)
    return str(body["token"])


async def _message(site: Site, t: Table, sub: Subscriber, text: str) -> None:
    """Handle one message; a refusal is raised (the caller answers this socket only).
    Accepted changes reach every socket through the pushes."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BODY:
        raise _too_large()
    try:
        msg = parse_json(text, "message")
    except JSONError as e:
        raise TableError(400, str(e)) from None
    if not isinstance(msg, dict):
        raise TableError(400, N_("A message must be a JSON object."))
    kind = msg.get("type")
    if kind in ("action", "next", "state") and (await _session_ended(site, sub)
                                                 or await _token_revoked(site, sub)):
        return
    if kind == "action":
        await site.play.act(t, sub.seat, msg, want_state=False)
    elif kind == "next":
        await site.play.next_hand(t, sub.seat, msg)
    elif kind == "state":
        await site.play.seat_state(t, sub.seat)
        async with t.lock:  # (a STATE is built under the lock: never mid-commit)
            site.hub.send_state(t, sub, force=True)
    elif kind == "ping":
        sub.push({"type": "pong"})
        v = msg.get("version")
        if isinstance(v, int) and not isinstance(v, bool) and v < t.version:
            if await _session_ended(site, sub) or await _token_revoked(site, sub):
                return  # the hand is never shown to a socket whose right to it ended
            async with t.lock:  # the page missed a change: here it is
                site.hub.send_state(t, sub, force=True)
    elif kind == "auth":
        return  # already authenticated (e.g. with the deprecated URL token)
    else:
        raise _unknown_type(kind)
