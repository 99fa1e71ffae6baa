"""What a public server needs beyond the game: settings, rate limits, headers, origins, logs.

* :class:`Settings`: every limit and timeout, each with a sane default (``ginrummy serve``
  flags set them).
* :class:`RateLimits`: per-client limits on create, join, lookup and actions, with the
  ``limits`` library (moving windows; in memory, or in Redis when processes share one, so
  the limit holds across them).
* :class:`SecurityHeaders`: a Content-Security-Policy with ``frame-ancestors 'none'``,
  ``X-Content-Type-Options``, ``Referrer-Policy`` on every answer, ``Cache-Control:
  no-store`` on the API.
* :func:`origin_allowed`: the WebSocket ``Origin`` check.
* :class:`RedactTokens`: a logging filter that keeps seat tokens out of every log line.
* :func:`parse_json`: JSON with a nesting limit (a 400, not a 500 and a traceback).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "MAX_DEPTH",
    "RateLimits",
    "RedactTokens",
    "SecurityHeaders",
    "Settings",
    "origin_allowed",
    "parse_json",
]

MAX_DEPTH = 32
"""Deepest JSON nesting accepted; no valid request comes close (a STATE is 4 deep)."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


@dataclass
class Settings:
    """The public server's limits (see docs/deploy.md); each default suits one machine."""

    rate_create: str = "20/minute"
    """New matches per client address."""
    rate_join: str = "30/minute"
    """Invite uses per client address."""
    rate_lookup: str = "60/minute"
    """Lobby look-ups per client address."""
    rate_actions: str = "600/minute"
    """Moves, ``next`` and state requests per client address (a person makes ~20)."""
    allowed_origins: tuple[str, ...] = ()
    """WebSocket origins accepted besides the server's own (e.g. https://gin.example)."""
    ws_auth_seconds: float = 10.0
    """Time a WebSocket has to send its ``auth`` message."""
    ws_idle_seconds: float = 900.0
    """A WebSocket that sends nothing for this long is closed (the page pings)."""
    header_seconds: float = 10.0
    """Time a connection has to send a complete request head (stops header trickling)."""
    extra: dict[str, Any] = field(default_factory=dict)


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class RateLimits:
    """Per-client moving-window limits by kind (``create``, ``join``, ``lookup``,
    ``actions``), counted in this process's memory, or in Redis (``storage_uri`` a
    ``redis://`` URL) so that they hold across processes."""

    def __init__(self, settings: Settings, storage_uri: str = "memory://") -> None:
        from limits import parse
        from limits.aio.storage import MemoryStorage, RedisStorage, Storage
        from limits.aio.strategies import MovingWindowRateLimiter

        self.storage: Storage
        if storage_uri.startswith(("redis://", "rediss://")):
            self.storage = RedisStorage(
                "async+" + storage_uri, implementation="redispy", key_prefix="ginrummy-limits"
            )
        else:
            self.storage = swept_memory_storage(MemoryStorage)()
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.items = {
            "create": parse(settings.rate_create),
            "join": parse(settings.rate_join),
            "lookup": parse(settings.rate_lookup),
            "actions": parse(settings.rate_actions),
        }

    async def hit(self, kind: str, client: str) -> bool:
        """Count one request; False when the client is over its limit for ``kind``. A
        limiter that fails (Redis away) lets the request through rather than lock out
        everyone."""
        try:
            return bool(await self.limiter.hit(self.items[kind], kind, client))
        except Exception:  # noqa: BLE001 - never refuse play because the counter is away
            logging.getLogger("ginrummy.web").warning("rate limiter unavailable")
            return True

    def describe(self, kind: str) -> str:
        """The limit in words, for the 429 message (e.g. ``20 per 1 minute``)."""
        return str(self.items[kind])


SWEEP_SECONDS = 10.0
"""How often the in-memory rate counters drop their expired entries."""


def swept_memory_storage(base: type[Any]) -> type[Any]:
    """``limits``' in-memory storage, sweeping expired entries at most every
    :data:`SWEEP_SECONDS` instead of after every hit. Its sweep visits every client's
    counter (and hands each to a thread), so after every hit it cost the event loop work
    in proportion to the number of clients: the largest cost of a move at 1,000 tables.
    The limits themselves never read expired entries, so sweeping later only holds
    a few seconds' entries longer."""

    class Swept(base):  # type: ignore[misc]
        _next_sweep = 0.0

        async def _MemoryStorage__schedule_expiry(self) -> None:  # noqa: N802 - overrides
            now = time.monotonic()
            if now < self._next_sweep:
                return
            self._next_sweep = now + SWEEP_SECONDS
            await super()._MemoryStorage__schedule_expiry()

    Swept.__name__ = Swept.__qualname__ = f"Swept{base.__name__}"
    return Swept


class SecurityHeaders:
    """ASGI middleware adding the security headers to every HTTP answer, and
    ``Cache-Control: no-store`` to the API's (states and tokens must not be cached)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = str(scope.get("path", "")).startswith("/api/")

        async def send_with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in msg.get("headers", [])
                    if not (api and k.lower() == b"cache-control")
                ]
                headers += [
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                ]
                if api:
                    headers.append((b"cache-control", b"no-store"))
                msg["headers"] = headers
            await send(msg)

        await self.app(scope, receive, send_with_headers)


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a WebSocket from ``origin`` may connect: no Origin (not a browser), the
    server's own host, or one of ``allowed`` (``*`` allows any).

    >>> origin_allowed("https://gin.example", "gin.example", ())
    True
    >>> origin_allowed("https://evil.example", "gin.example", ())
    False
    >>> origin_allowed("https://app.example", "gin.example", ("https://app.example",))
    True
    """
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    return bool(host) and netloc.lower() == (host or "").lower()


_TOKEN_RE = re.compile(r"((?:token|invite)=)[^&\s\"']+", re.IGNORECASE)
_BEARER_RE = re.compile(r"(Bearer\s+)[A-Za-z0-9_\-\.=]+", re.IGNORECASE)
_JSON_RE = re.compile(r'("(?:token|invite)"\s*:\s*")[^"]*')


def redact(text: str) -> str:
    """``text`` with seat tokens and invite codes replaced by ``***``.

    >>> redact("GET /api/matches/x/ws?token=abc123&y=1")
    'GET /api/matches/x/ws?token=***&y=1'
    >>> redact('{"type": "auth", "token": "abc123"}')
    '{"type": "auth", "token": "***"}'
    """
    text = _JSON_RE.sub(r"\1***", text)
    return _BEARER_RE.sub(r"\1***", _TOKEN_RE.sub(r"\1***", text))


class RedactTokens(logging.Filter):
    """Removes tokens from log records (uvicorn's access log prints the query string)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "uvicorn.access" and isinstance(record.args, tuple):
            # its formatter reads the arguments one by one: redact each
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        else:
            try:
                text = record.getMessage()  # arguments of any type (websockets' frames)
            except Exception:  # noqa: BLE001 - a malformed record: leave it to logging
                return True
            record.msg = redact(text)
            record.args = None
        return True


def _too_deep(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (checked before
    parsing, so a hostile nesting never reaches the parser's recursion)."""
    depth = 0
    in_str = False
    esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


class JSONError(ValueError):
    """A body that is not acceptable JSON; the message is the player-facing sentence."""


def parse_json(raw: str | bytes, what: str = "request body") -> Any:
    """Parse JSON of at most :data:`MAX_DEPTH` levels; JSONError with a clear message.

    >>> parse_json('{"a": [1]}')
    {'a': [1]}
    >>> parse_json("[" * 100 + "]" * 100)
    Traceback (most recent call last):
    ...
    ginrummy.web.guard.JSONError: The request body is nested too deeply (at most 32 levels).
    """
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    if _too_deep(text, MAX_DEPTH):
        raise JSONError(f"The {what} is nested too deeply (at most {MAX_DEPTH} levels).")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise JSONError(f"The {what} is not valid JSON: {e}.") from None
