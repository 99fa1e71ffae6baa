"""Accounts and sessions: signing up, logging in and out, who is logged in, and claiming
a guest's matches into the account (docs/web-api.md, "Accounts")."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..accounts.accounts import COOKIE, SESSION_DAYS
from ..errors import TableError
from ..online.browsers import browser_of
from ..site import Site
from .common import account_of, client_address, is_tls, json_body

__all__ = ["register"]


def _with_cookie(request: Request, body: dict[str, Any], token: str,
                 status: int) -> JSONResponse:
    """The answer, setting the session cookie (HttpOnly, SameSite=Lax, Secure over TLS)."""
    out = JSONResponse(body, status_code=status)
    out.set_cookie(COOKIE, token, max_age=int(SESSION_DAYS * 86400), httponly=True,
                   samesite="lax", secure=is_tls(request), path="/")
    return out


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of accounts and sessions."""

    @app.post("/api/accounts")
    async def sign_up(request: Request) -> JSONResponse:
        account, token = await site.accounts.sign_up(await json_body(request),
                                                     client_address(request))
        return _with_cookie(request, site.accounts.me(account, token), token, 201)

    @app.post("/api/session")
    async def log_in(request: Request) -> JSONResponse:
        account, token = await site.accounts.log_in(await json_body(request),
                                                    client_address(request))
        return _with_cookie(request, site.accounts.me(account, token), token, 200)

    @app.delete("/api/session")
    async def log_out(request: Request, all: int = 0) -> JSONResponse:  # noqa: A002
        token = request.cookies.get(COOKIE)
        ended = 0
        if token and await account_of(site, request, change=True) is not None:
            ended = await site.accounts.log_out(token, everywhere=bool(all))
        out = JSONResponse({"ended": ended})
        out.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                          secure=is_tls(request))
        return out

    @app.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        if acct is None:
            raise TableError(401, "You are not logged in.")
        await site.seeks.note_browser(acct, browser_of(request))  # fair pairing
        return site.accounts.me(acct, request.cookies[COOKIE])

    @app.post("/api/me/matches")
    async def claim(request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        if acct is None:
            raise TableError(401, "Log in to keep these matches in an account.")
        return await site.accounts.claim(acct, await json_body(request))
