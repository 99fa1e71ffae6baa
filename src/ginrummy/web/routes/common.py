"""What every route shares: reading a JSON body, the caller's address and seat token, and
checking a seat token with the limit on refused ones."""

from __future__ import annotations

from typing import Any

from fastapi import Request, WebSocket
from fastapi.responses import JSONResponse

from ...i18n import N_, t
from ..accounts.accounts import COOKIE, CSRF_REFUSED
from ..accounts.tokens import Bearer, is_api_token
from ..errors import TableError
from ..guard import JSONError, parse_json
from ..online.browsers import browser_of
from ..site import Site
from ..store.accounts import Account
from ..tables.table import Table

__all__ = ["BOT_SESSION", "MAX_BODY", "account_of", "account_seat", "api_bearer", "bearer",
           "client_address", "coach_asker", "coach_budget", "error", "is_tls", "json_body",
           "playing_account", "program_seat", "request_seat", "seat_table", "seat_with_token"]

MAX_BODY = 16 * 1024
"""Largest request body or socket message accepted (413 beyond)."""


def error(status: int, message: str, extra: dict[str, Any] | None = None) -> JSONResponse:
    """A refusal: ``{"error": SENTENCE, ...}`` with its status."""
    body: dict[str, Any] = {"error": message}
    if extra:
        body.update(extra)
    return JSONResponse(body, status_code=status)


async def json_body(request: Request) -> Any:
    """The parsed JSON body; TableError 400 with the parser's reason if it is not JSON
    (or nests deeper than any request needs)."""
    raw = await request.body()
    if not raw.strip():
        raise TableError(400, N_("The request needs a JSON body."))
    try:
        return parse_json(raw)
    except UnicodeDecodeError:
        raise TableError(400, N_("The request body is not valid JSON: it is not UTF-8 "
                                 "text.")) from None
    except JSONError as e:
        raise TableError(400, str(e)) from None


def client_address(conn: Request | WebSocket) -> str:
    """The client's address for limits (behind a trusted proxy, uvicorn has already put
    the forwarded address here)."""
    return conn.client.host if conn.client else "unknown"


def bearer(request: Request) -> str | None:
    """The seat token of ``Authorization: Bearer TOKEN``, if any."""
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _refused_tokens(limit: str) -> TableError:
    """The refusal of an address past its limit of refused seat tokens (429)."""
    return TableError(429, t("Too many refused seat tokens: at most {limit} from one "
                             "address. Wait a moment and try again.", limit=limit))


async def seat_with_token(site: Site, t: Table, token: str | None, address: str) -> int:
    """The seat of ``t`` this token holds. Refused tokens are counted per address
    (``rate_auth``); past the limit the address's tokens are refused (429) untried."""
    rates = site.rates
    if not rates.allowed("auth", address):
        raise _refused_tokens(rates.describe("auth"))
    try:
        return await site.registry.seat_of(t, token)
    except TableError as e:
        if e.status in (401, 403):
            await rates.hit("auth", address)
        raise


async def request_seat(site: Site, t: Table, request: Request) -> int:
    """Which seat of ``t`` this request is: THE one place every seat-authenticated route
    asks (moves, ``next``, resign, abort, rematch, the seat's state). The seat token
    (``Authorization: Bearer TOKEN``) when the request carries one; else a logged-in
    account's seat at this match (its session cookie, and for a change its CSRF token or
    a same-origin ``Origin``), so an account plays its matches from any browser. A change
    through an API token marks the seat a program's (:func:`program_seat`)."""
    token = bearer(request)
    if is_api_token(token):  # an API token: its account's seat
        key = await api_bearer(site, request)
        assert key is not None
        seat = await account_seat(site, t, key.account)
        if request.method not in ("GET", "HEAD"):
            await program_seat(site, t, seat, key.account)
        return seat
    if token is None and request.cookies.get(COOKIE):
        acct = await account_of(site, request, change=request.method not in ("GET", "HEAD"))
        if acct is not None:
            if acct.bot:
                raise TableError(403, BOT_SESSION)
            return await account_seat(site, t, acct)
    return await seat_with_token(site, t, token, client_address(request))


async def program_seat(site: Site, t: Table, seat: int, acct: Account) -> None:
    """A seat played through an API token (a change, or its socket opened with one) is a
    program's (INTERFACES 13): the seat is marked a bot seat in the stored match (STATE's
    ``bots``, the spectators' and the profiles' marks) and the account a program player
    (paired like a BOT from then on). Each is stored once."""
    await site.play.mark_bot_seat(t, seat)
    await site.tokens.played(acct)


async def account_seat(site: Site, t: Table, acct: Account) -> int:
    """The seat ``acct`` holds at ``t`` (seat 0 first, should it hold both); 403 when it
    holds none."""
    links = await site.db.read(site.db.store.accounts.links, [t.id])
    link = links.get(t.id)
    if link is not None:
        for seat in (0, 1):
            if link.accounts[seat] == acct.id:
                return seat
    raise TableError(403, N_("Your account has no seat at this match: open the table's own "
                             "link in the browser that started or joined it."))


async def seat_table(site: Site, match_id: str, request: Request) -> tuple[Table, int]:
    """The table of ``match_id`` and the seat the request is (:func:`request_seat`)."""
    t = await site.registry.get(match_id)
    return t, await request_seat(site, t, request)


def is_tls(request: Request) -> bool:
    """Whether the request came over TLS (behind a trusted proxy, uvicorn has applied
    X-Forwarded-Proto): the session cookie is then Secure."""
    return request.url.scheme in ("https", "wss")


async def account_of(site: Site, request: Request, change: bool = False) -> Account | None:
    """The account of the request's API token (``Authorization: Bearer ginrummy.…``: no
    CSRF check, a cross-site form cannot send it; 401 for a bad one) or else of its
    session cookie (None: a guest). With ``change``, a cookie-authenticated change: it
    must carry the session's ``X-CSRF-Token`` or a same-origin ``Origin`` header, else
    403 (nothing is changed)."""
    key = await api_bearer(site, request)
    if key is not None:
        return key.account
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    acct = await site.accounts.account_of(token)
    if acct is not None and change and not site.accounts.change_allowed(
            token, request.headers.get("x-csrf-token"), request.headers.get("origin"),
            request.headers.get("host"), "https" if is_tls(request) else "http"):
        raise TableError(403, CSRF_REFUSED)
    return acct


BOT_SESSION = N_("A BOT account plays only through an API token (Authorization: Bearer "
                 "TOKEN), not with a session.")


async def api_bearer(site: Site, request: Request) -> Bearer | None:
    """The account and token of the request's API token, if it carries one (checked once
    per request; 401 with the reason for a malformed, unknown or revoked token)."""
    token = bearer(request)
    if not is_api_token(token):
        return None
    assert token is not None
    cached = getattr(request.state, "api_bearer", None)
    if isinstance(cached, Bearer):
        return cached
    key = await site.tokens.resolve(token, client_address(request))
    request.state.api_bearer = key
    return key


async def coach_asker(site: Site, request: Request) -> tuple[list[str], str | None]:
    """Who asks the coach (:mod:`ginrummy.web.online.coaching`): the request's account
    (API token or session), as a list, and its browser cookie."""
    acct = await account_of(site, request)
    return ([acct.id] if acct is not None else []), browser_of(request)


async def coach_budget(site: Site, request: Request, accounts: list[str]) -> None:
    """Count one costly request of the coach (an analysis, a hint, a review started)
    against ``rate_coach``: per account (``accounts``, from :func:`coach_asker`), or for a
    guest per address; 429 with a sentence past it. So no one client, and no crowd of
    guests behind one address, keeps the coach's workers busy for everyone else."""
    client = f"acct:{accounts[0]}" if accounts else f"ip:{client_address(request)}"
    if not await site.rates.hit("coach", client):
        limit = site.rates.describe("coach")
        if accounts:
            raise TableError(429, t("Too many requests for the coach: at most {limit} per "
                                    "account. Wait a moment and try again.", limit=limit))
        raise TableError(429, t("Too many requests for the coach: at most {limit} from one "
                                "address for guests. Wait a moment and try again.",
                                limit=limit))


async def playing_account(site: Site, request: Request) -> Account | None:
    """:func:`account_of` for a change that plays (a seek, a challenge, accepting one, an
    arena, the daily deal): a BOT account's session is refused (403), as a BOT plays only
    through a token; an account playing through an API token is marked a program player
    (:meth:`~ginrummy.web.accounts.tokens.ApiTokens.played`: paired like a BOT)."""
    acct = await account_of(site, request, change=True)
    if acct is None:
        return None
    if await api_bearer(site, request) is not None:
        return await site.tokens.played(acct)
    if acct.bot:
        raise TableError(403, BOT_SESSION)
    return acct
