"""What a public server needs beyond the game: settings, caps, headers, origins, logs.

* :class:`Settings`: every rate limit and timeout, and :class:`Limits`, every cap, each
  with a sane default (``ginrummy serve`` flags set them); the rate limits themselves are
  counted by :mod:`.rates`.
* :class:`SecurityHeaders`: a Content-Security-Policy with ``frame-ancestors 'none'``,
  ``X-Content-Type-Options``, ``Referrer-Policy`` on every answer, ``Cache-Control:
  no-store`` on the API.
* :func:`origin_allowed`: the WebSocket ``Origin`` check; :func:`cross_site`: whether a
  request came from another site's page (signing in and up refuse those).
* :class:`RedactTokens`: a logging filter that keeps seat tokens out of every log line.
* :func:`parse_json`: JSON with a nesting limit, and without NUL characters, lone
  surrogates or integers past 4300 digits (a 400, not a 500 and a traceback);
  :class:`RefuseNul` refuses a NUL in a request's address.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..i18n import N_, t

__all__ = [
    "Limits",
    "MAX_DEPTH",
    "RedactTokens",
    "RefuseNul",
    "SecurityHeaders",
    "Settings",
    "close_reason",
    "cross_site",
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
    """The public server's rate limits and timeouts (see docs/deploy.md); each default
    suits one machine. Rates are per client address, ``N/minute`` or ``N/second``."""

    rate_create: str = "20/minute"
    """New matches."""
    rate_join: str = "30/minute"
    """Invite uses."""
    rate_lookup: str = "60/minute"
    """Lobby look-ups and player records (each may name 200 matches)."""
    rate_actions: str = "600/minute"
    """Moves, ``next``, state requests, socket messages, rematches, reviews and hints (a
    person makes about 20 a minute)."""
    rate_reads: str = "120/minute"
    """Public reads of a match: its record, replay steps and fairness proof."""
    rate_pages: str = "600/minute"
    """Pages and their files (a page load fetches about fifteen)."""
    rate_sockets: str = "60/minute"
    """WebSocket connections opened."""
    rate_messages: str = "120/minute"
    """Socket messages per seat, all its sockets together (a page sends about 6 a minute;
    they count against ``rate_actions`` for the address too): past it a socket is read no
    further until the seat is back within it, and one that would wait longer than a few
    seconds is closed (4429). An account's notice sockets (``/api/me/ws``) share a budget
    of the same size."""
    rate_bot_messages: str = "600/minute"
    """The same budget for a seat's sockets opened with an API token (a program: a BOT
    account's ``ginrummy connect``), large enough for fast clocks; they count against
    ``rate_actions`` for the address too."""
    rate_coach: str = "60/minute"
    """The coach's costly work (analysis-board requests, hints, reviews started), per
    account, or per address for guests."""
    rate_chat: str = "5/10 seconds"
    """Chat messages per seat (and per spectating account in a spectators' chat): a
    person types about one every few seconds at most."""
    rate_chat_account: str = "60/10 minutes"
    """Chat messages per account, all its tables and spectators' chats together."""
    rate_auth: str = "30/minute"
    """Refused seat tokens (wrong or missing), on sockets and requests alike: past it,
    an address's authentications are refused without being tried."""
    rate_login: str = "10/minute"
    """Log-in attempts, counted per address and per username apart."""
    rate_signup: str = "20/hour"
    """Sign-ups per address, and apart per username."""
    rate_login_site: str = "300/minute"
    """Log-in attempts across the whole site (each costs a password hash)."""
    rate_signup_site: str = "60/minute"
    """Sign-ups across the whole site."""
    allowed_origins: tuple[str, ...] = ()
    """WebSocket origins accepted besides the server's own (e.g. https://gin.example)."""
    ws_auth_seconds: float = 10.0
    """Time a WebSocket has to send its ``auth`` message."""
    ws_idle_seconds: float = 900.0
    """A WebSocket that sends nothing for this long is closed (the page pings)."""
    ws_heartbeat_seconds: float = 15.0
    """A socket sent nothing for this long gets a beat carrying the table's version."""
    header_seconds: float = 10.0
    """Time a connection has to send a complete request head (stops header trickling)."""
    body_seconds: float = 10.0
    """Time a request has to send its whole body once its head is in (stops trickling)."""
    metrics: str = "local"
    """Who may read ``GET /metrics``: ``local`` (clients on this machine), ``open`` or
    ``off``; a scraper elsewhere may also send the metrics token."""
    metrics_token: str | None = None
    """``Authorization: Bearer`` token that reads ``/metrics`` from anywhere (from the
    environment variable ``GINRUMMY_METRICS_TOKEN``)."""
    daily_min_days: float = 7.0
    """How old an account must be (days) to play the daily deal: a fresh account made to
    learn the day's deals for another is refused (0: any age)."""
    daily_min_rated: int = 10
    """Finished rated matches an account needs to play the daily deal (0: none)."""
    open_data: str | None = None
    """The folder of ``ginrummy export``'s monthly files that ``/open-data`` lists and
    serves (docs/research.md); None: the page says none are published."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Limits:
    """Caps that keep one client or one burst from exhausting the server; each is a
    setting of ``ginrummy serve`` with this default."""

    max_tables: int = 5000
    """Tables held in memory at once (idle ones are evicted first; then 503)."""
    max_sockets_per_seat: int = 4
    """Open WebSockets per seat, across processes (a fifth is refused with 4429)."""
    max_sockets_per_address: int = 32
    """Open WebSockets per client address, across processes (then 4429)."""
    max_connections_per_address: int = 64
    """Open TCP connections per client address, per process (more are closed at once);
    not applied to a trusted proxy's own address."""
    abandoned_days: float = 30.0
    """Unfinished matches untouched this long are deleted (0: never)."""
    password_workers: int = 1
    """Threads hashing passwords at once, at a lower priority than the tables."""
    password_queue: int = 8
    """Password checks in the pool at once (running or waiting); more are refused (503)."""


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


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


NUL_IN_ADDRESS = N_("The address holds a NUL character, which no address here accepts.")


def close_reason(text: str, limit: int = 120) -> str:
    """``text`` as a WebSocket close frame may carry it: at most ``limit`` bytes of UTF-8
    (the frame holds 123), never cut inside a character."""
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


class RefuseNul:
    """ASGI middleware: a request whose path or query string holds a NUL character (``%00``)
    is refused before any route sees it (400; a WebSocket is refused at its handshake): no
    name, id or token has one, and PostgreSQL cannot even compare text holding one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and (
                "\x00" in str(scope.get("path", ""))
                or b"%00" in bytes(scope.get("query_string", b"")).lower()):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 4400,
                            "reason": close_reason(t(NUL_IN_ADDRESS))})
                return
            raw = json.dumps({"error": t(NUL_IN_ADDRESS)}).encode()
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(raw)).encode())]})
            await send({"type": "http.response.body", "body": raw})
            return
        await self.app(scope, receive, send)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_key(scheme: str, netloc: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a web origin, the default port made explicit."""
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        port = parts.port
    except ValueError:
        return None
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS[scheme]


def origin_allowed(origin: str | None, host: str | None, scheme: str,
                   allowed: tuple[str, ...]) -> bool:
    """Whether a WebSocket from ``origin`` may connect: no Origin (not a browser), the
    server's own origin (``scheme``, ``http`` or ``https``, as the request came in, and
    the ``host`` it named: scheme, host and port must all match), or one of ``allowed``
    (``*`` allows any).

    >>> origin_allowed("https://gin.example", "gin.example", "https", ())
    True
    >>> origin_allowed("http://gin.example", "gin.example", "https", ())
    False
    >>> origin_allowed("https://evil.example", "gin.example", "https", ())
    False
    >>> origin_allowed("https://app.example", "gin.example", "https", ("https://app.example",))
    True
    """
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    try:
        o = urlsplit(origin)
    except ValueError:
        return False
    mine = _origin_key(scheme, host or "")
    theirs = _origin_key(o.scheme.lower(), o.netloc)
    return mine is not None and theirs == mine


def cross_site(origin: str | None, fetch_site: str | None, host: str | None, scheme: str,
               allowed: tuple[str, ...]) -> bool:
    """Whether a request came from another site's page: its ``Origin`` is neither the
    server's own nor one of ``allowed`` (``*`` does not count here), or the browser says so
    in ``Sec-Fetch-Site`` (``cross-site``, or ``same-site``: a sibling host is another
    site's page too). A request with neither header (not a browser's) is not.

    >>> cross_site("https://evil.example", None, "gin.example", "https", ())
    True
    >>> cross_site(None, "same-site", "gin.example", "https", ())
    True
    >>> cross_site("https://gin.example", "same-origin", "gin.example", "https", ())
    False
    >>> cross_site(None, None, "gin.example", "https", ())
    False
    """
    if origin is not None and origin in allowed and origin != "*":
        return False
    if fetch_site is not None and fetch_site.strip().lower() in ("cross-site", "same-site"):
        return True
    named = tuple(a for a in allowed if a != "*")
    return origin is not None and not origin_allowed(origin, host, scheme, named)


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


_JSON_REFUSALS = {
    "request body": {
        "deep": N_("The request body is nested too deeply (at most {levels} levels)."),
        "invalid": N_("The request body is not valid JSON: {detail}."),
        "digits": N_("The request body holds a number of more than 4300 digits."),
        "a NUL character": N_("The request body holds a NUL character, which no field "
                              "accepts."),
        "a lone surrogate": N_("The request body holds a lone surrogate, which no field "
                               "accepts."),
    },
    "message": {
        "deep": N_("The message is nested too deeply (at most {levels} levels)."),
        "invalid": N_("The message is not valid JSON: {detail}."),
        "digits": N_("The message holds a number of more than 4300 digits."),
        "a NUL character": N_("The message holds a NUL character, which no field accepts."),
        "a lone surrogate": N_("The message holds a lone surrogate, which no field "
                               "accepts."),
    },
}
"""The sentences of :func:`parse_json`'s refusals, whole, for each thing it reads (a
request's body, a socket's message)."""


def _json_refusal(what: str, problem: str, english: str, **params: object) -> JSONError:
    """The refusal of ``what`` for ``problem`` in the language of the moment (``english``:
    the sentence for a ``what`` without sentences of its own)."""
    sentence = _JSON_REFUSALS.get(what, {}).get(problem)
    return JSONError(t(sentence, **params) if sentence is not None else english)


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
    # nesting is never deeper than the brackets there are (counted in C): most messages
    # skip the character-by-character scan
    if text.count("[") + text.count("{") > MAX_DEPTH and _too_deep(text, MAX_DEPTH):
        raise _json_refusal(what, "deep", f"The {what} is nested too deeply (at most "
                            f"{MAX_DEPTH} levels).", levels=str(MAX_DEPTH))
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise _json_refusal(what, "invalid", f"The {what} is not valid JSON: {e}.",
                            detail=str(e)) from None
    except ValueError:  # Python reads integers of at most 4300 digits (CVE-2020-10735)
        raise _json_refusal(what, "digits", f"The {what} holds a number of more than 4300 "
                            "digits.") from None
    if "\\u" in text:  # NUL and lone surrogates only ever come as escapes
        bad = _bad_text(value)
        if bad is not None:
            raise _json_refusal(what, bad, f"The {what} holds {bad}, which no field accepts.")
    return value


def _bad_text(value: Any) -> str | None:
    """What makes a parsed JSON value unfit for any field (a NUL character, which
    PostgreSQL cannot store, or a lone surrogate, which is not text: neither can be
    hashed, stored or shown), or None.

    >>> _bad_text({"a": ["x", "\\ud800"]})
    'a lone surrogate'
    >>> _bad_text({"a\\x00": 1}) is None
    False
    """
    if isinstance(value, str):
        if "\x00" in value:
            return "a NUL character"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "a lone surrogate"
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            bad = _bad_text(k) or _bad_text(v)
            if bad is not None:
                return bad
    elif isinstance(value, list):
        for v in value:
            bad = _bad_text(v)
            if bad is not None:
                return bad
    return None
