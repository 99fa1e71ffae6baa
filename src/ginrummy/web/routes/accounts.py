"""Accounts and sessions: signing up, logging in and out, who is logged in, and claiming
a guest's matches into the account (docs/web-api.md, "Accounts")."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ...i18n import LANGUAGES, N_, t
from ..accounts.accounts import COOKIE, SESSION_DAYS
from ..errors import TableError
from ..guard import cross_site
from ..language import language_cookie
from ..online.browsers import browser_hash, browser_of
from ..site import Site
from ..store import hash_token
from ..store.accounts import Account
from .common import account_of, api_bearer, client_address, is_tls, json_body

__all__ = ["register"]


def _with_cookie(request: Request, body: dict[str, Any], token: str,
                 status: int, lang: str | None = None) -> JSONResponse:
    """The answer, setting the session cookie (HttpOnly, SameSite=Lax, Secure over TLS)
    and, for an account that chose a language, the language cookie: its pages speak it on
    any device it logs in on."""
    out = JSONResponse(body, status_code=status)
    out.set_cookie(COOKIE, token, max_age=int(SESSION_DAYS * 86400), httponly=True,
                   samesite="lax", secure=is_tls(request), path="/")
    if lang in LANGUAGES:
        language_cookie(out, str(lang), is_tls(request))
    return out


def _own_site_json(request: Request, site: Site) -> None:
    """Signing in and up set the session cookie, so another site's page must not be able
    to do either (login CSRF: an auto-submitted form would sign the visitor's browser into
    the attacker's account): the body must be ``application/json`` (which no form can
    send, and which a script on another site can send only after a CORS preflight this
    server never grants), and a browser's ``Origin`` or ``Sec-Fetch-Site`` must not name
    another site. A request with neither header (not a browser's) is allowed."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise TableError(415, N_("Send the username and password as JSON "
                                 "(Content-Type: application/json)."))
    if cross_site(request.headers.get("origin"), request.headers.get("sec-fetch-site"),
                  request.headers.get("host"), "https" if is_tls(request) else "http",
                  site.settings.allowed_origins):
        raise TableError(403, N_("Signing in or up from another site's page is refused: "
                                 "use this site's own page."))


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of accounts and sessions."""

    @app.post("/api/accounts")
    async def sign_up(request: Request) -> JSONResponse:
        _own_site_json(request, site)
        body = await json_body(request)
        bot = False
        if isinstance(body, Mapping) and "bot" in body:  # a BOT account (docs/web-api.md)
            bot = body["bot"]
            if not isinstance(bot, bool):
                raise TableError(400, t("{field} is true or false.", field="'bot'"))
            body = {k: v for k, v in body.items() if k != "bot"}
        account, token = await site.accounts.sign_up(body, client_address(request))
        if bot:
            try:
                await site.db.run(site.db.store.tokens.set_bot, account.id)
            except BaseException:
                with contextlib.suppress(Exception):  # not a BOT: not an account at all
                    await site.db.run(site.db.store.tokens.delete_account, account.id)
                raise
        await site.seeks.note_browser(account, browser_of(request))  # a known device
        return _with_cookie(request, site.accounts.me(account, token) | {"bot": bot}, token,
                            201)

    @app.post("/api/session")
    async def log_in(request: Request) -> JSONResponse:
        _own_site_json(request, site)
        browser = browser_of(request)
        account, token = await site.accounts.log_in(
            await json_body(request), client_address(request),
            browser_hash(browser) if browser is not None else None)
        # this browser is now a known device of the account: a log-in flood never
        # refuses it first (and quick match never pairs it with another account's)
        await site.seeks.note_browser(account, browser)
        return _with_cookie(request, site.accounts.me(account, token), token, 200,
                            account.lang)

    @app.delete("/api/session")
    async def log_out(request: Request, all: int = 0) -> JSONResponse:  # noqa: A002
        token = request.cookies.get(COOKIE)
        ended = 0
        acct = await account_of(site, request, change=True) if token else None
        if token and acct is not None:
            ended = await site.accounts.log_out(token, everywhere=bool(all))
            await site.logged_out(acct.id, None if all else hash_token(token))
        out = JSONResponse({"ended": ended})
        out.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                          secure=is_tls(request))
        return out

    @app.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        if acct is None:
            raise TableError(401, N_("You are not logged in."))
        if await api_bearer(site, request) is not None:  # a program: no session, no CSRF
            return (site.accounts.me(acct, "") | {"bot": acct.bot, "csrf": None}
                    | await site.puzzles.rating_of(acct))
        await site.seeks.note_browser(acct, browser_of(request))  # fair pairing
        return (site.accounts.me(acct, request.cookies[COOKIE]) | {"bot": acct.bot}
                | await site.puzzles.rating_of(acct))  # kept apart from play's rating

    async def own_session(request: Request) -> tuple[Account, str]:
        """The account of the request's session (with its CSRF token or a same-origin
        Origin), for a change to the account itself: never through an API token."""
        if await api_bearer(site, request) is not None:
            raise TableError(403, N_("An API token cannot change its account: use the "
                                     "account's own page, signed in."))
        acct = await account_of(site, request, change=True)
        if acct is None:
            raise TableError(401, N_("You are not logged in."))
        return acct, request.cookies[COOKIE]

    @app.post("/api/me/password")
    async def change_password(request: Request) -> JSONResponse:
        acct, _ = await own_session(request)
        token = await site.accounts.change_password(acct, await json_body(request),
                                                    client_address(request))
        await site.logged_out(acct.id, None)  # every device's sockets: log in again
        return _with_cookie(request, {"changed": True} | site.accounts.me(acct, token)
                            | {"bot": acct.bot}, token, 200)

    @app.post("/api/me/close")
    async def close_account(request: Request) -> JSONResponse:
        acct, _ = await own_session(request)
        await site.accounts.close(acct, await json_body(request), client_address(request))
        await site.logged_out(acct.id, None)
        out = JSONResponse({"closed": True, "username": acct.username})
        out.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                          secure=is_tls(request))
        return out

    @app.post("/api/me/matches")
    async def claim(request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        if acct is None:
            raise TableError(401, N_("Log in to keep these matches in an account."))
        return await site.accounts.claim(acct, await json_body(request))
