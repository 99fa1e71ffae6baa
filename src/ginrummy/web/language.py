"""The language of each request (docs/translating.md): the ``gr_lang`` cookie (the
language picker's choice, kept for an account too), else the browser's
``Accept-Language``, else English. :class:`Language` sets it for the request's whole
handling (:func:`ginrummy.i18n.set_language`), so every sentence the site says, a refusal
raised deep in a part included, is in that language, and answers say which
(``Content-Language``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import HTTPConnection
from starlette.responses import Response

from ..i18n import language, negotiate, set_language

__all__ = ["COOKIE", "Language", "language_cookie", "request_language"]

COOKIE = "gr_lang"
"""The cookie holding the language chosen with the picker."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def language_cookie(response: Response, lang: str, secure: bool) -> None:
    """Keep ``lang`` in the language cookie for a year (read by the page's script too:
    not HttpOnly; it holds no secret)."""
    response.set_cookie(COOKIE, lang, max_age=365 * 86400, path="/", samesite="lax",
                        secure=secure)


def request_language(conn: HTTPConnection) -> str:
    """The language a request is answered in."""
    return negotiate(conn.headers.get("accept-language"), conn.cookies.get(COOKIE))


class Language:
    """ASGI middleware: set the request's language, and say it in the answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        set_language(request_language(HTTPConnection(scope)))
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        said = language()

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"content-language", said.encode()))
                headers.append((b"vary", b"Accept-Language, Cookie"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_language)
