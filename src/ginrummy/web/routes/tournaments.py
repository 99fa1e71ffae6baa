"""Arena tournaments (docs/web-api.md, "Arena tournaments"): making one, joining,
withdrawing, starting it (its creator), its live standings and the list.

A change needs an account (its session with the CSRF token, or an API token); anyone may
read. A BOT account acts only through a token, as everywhere it plays.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ...i18n import N_
from ..errors import TableError
from ..online.browsers import browser_of
from ..site import Site
from ..store.accounts import Account
from .common import account_of, client_address, json_body, playing_account

__all__ = ["register", "signed_in_player"]


async def signed_in_player(site: Site, request: Request, refusal: str) -> Account:
    """The account making a change that plays (:func:`.common.playing_account`); 401
    for a guest, with ``refusal``: the sentence saying that the change needs an account
    (marked with ``N_``)."""
    acct = await playing_account(site, request)
    if acct is None:
        raise TableError(401, refusal)
    return acct


async def optional_body(request: Request) -> Any:
    """The JSON body, or None when there is none."""
    raw = await request.body()
    return await json_body(request) if raw.strip() else None


def register(app: FastAPI, site: Site) -> None:
    """Add the arena routes."""

    @app.post("/api/tournaments")
    async def create(request: Request) -> JSONResponse:
        body = await optional_body(request)
        acct = await signed_in_player(site, request, N_(
            "Making an arena needs an account: sign up or log in first."))
        out = await site.arenas.create(body, acct, client_address(request),
                                       browser_of(request))
        return JSONResponse(out, status_code=201)

    @app.get("/api/tournaments")
    async def listing() -> dict[str, Any]:
        return await site.arenas.listing()

    @app.get("/api/tournaments/{arena_id}")
    async def show(arena_id: str, request: Request) -> dict[str, Any]:
        return await site.arenas.show(arena_id, await account_of(site, request))

    @app.post("/api/tournaments/{arena_id}/join")
    async def join(arena_id: str, request: Request) -> dict[str, Any]:
        acct = await signed_in_player(site, request, N_(
            "Playing in an arena needs an account: sign up or log in first."))
        return await site.arenas.join(arena_id, acct, client_address(request),
                                      browser_of(request))

    @app.post("/api/tournaments/{arena_id}/withdraw")
    async def withdraw(arena_id: str, request: Request) -> dict[str, Any]:
        acct = await signed_in_player(site, request, N_(
            "Withdrawing from an arena needs an account: sign up or log in first."))
        return await site.arenas.withdraw(arena_id, acct)

    @app.post("/api/tournaments/{arena_id}/start")
    async def start(arena_id: str, request: Request) -> dict[str, Any]:
        acct = await signed_in_player(site, request, N_(
            "Starting an arena needs an account: sign up or log in first."))
        return await site.arenas.start(arena_id, acct)
