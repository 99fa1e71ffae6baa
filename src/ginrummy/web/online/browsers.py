"""Which browser a request comes from: a long-lived random cookie, given with every page.

A browser (every tab of it) holds one ``gr_browser`` cookie, set by :class:`BrowserCookie`
on the first page it is shown (HttpOnly, SameSite=Lax, Secure over TLS; a program calling
the JSON API gets none and is simply no browser). The database keeps only its hash, with
the accounts that have sought a match from it (:mod:`ginrummy.web.store.seeks`). Quick
match uses it three ways: a browser is never paired with itself (two tabs of one guest),
accounts that share a browser are never paired with each other, and the browser's second
identical seek is answered with its first (a double click makes one seek): a seek's id is
derived from the cookie and a stored nonce (:func:`seek_id`), so only that browser can
recompute it.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import HTTPConnection

from ..store import hash_token

__all__ = ["COOKIE", "MAX_AGE", "BrowserCookie", "address_hash", "browser_hash", "browser_of",
           "seek_id"]

COOKIE = "gr_browser"
"""The browser cookie's name."""
MAX_AGE = 2 * 365 * 86400
"""How long a browser keeps its cookie (seconds)."""
_WELL_FORMED = re.compile(r"^[A-Za-z0-9_-]{20,64}$")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def browser_of(conn: HTTPConnection) -> str | None:
    """The request's browser cookie, if it holds a well-formed one."""
    token = conn.cookies.get(COOKIE)
    return token if token is not None and _WELL_FORMED.match(token) else None


def browser_hash(token: str) -> str:
    """What the database keeps of a browser cookie."""
    return hash_token("browser:" + token)


def address_hash(address: str | None) -> str | None:
    """What the database keeps of a client's address (None for none): two players from
    one address (a seek's, a challenger's, an arena player's) make a rated result move
    little (:mod:`.fairplay`)."""
    return hash_token("address:" + address) if address else None


def seek_id(token: str, nonce: str) -> str:
    """The id of a seek made from the browser holding ``token``, with its stored nonce."""
    digest = hashlib.sha256(f"ginrummy-seek:{token}:{nonce}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


class BrowserCookie:
    """ASGI middleware: a page (a ``text/html`` answer) shown to a request without a browser
    cookie sets a new one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or browser_of(HTTPConnection(scope)) is not None:
            await self.app(scope, receive, send)
            return
        secure = scope.get("scheme") == "https"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if kind.startswith(b"text/html"):
                    cookie = (f"{COOKIE}={secrets.token_urlsafe(24)}; Max-Age={MAX_AGE}; "
                              f"Path=/; HttpOnly; SameSite=Lax{'; Secure' if secure else ''}")
                    headers.append((b"set-cookie", cookie.encode()))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookie)
