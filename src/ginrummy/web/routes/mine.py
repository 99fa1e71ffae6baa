"""What a browser asks about its own player (docs/web-api.md, "Accounts"): who is signed
in, answered without a refusal for a guest (``GET /api/session``: a guest's pages log no
error), and a signed-in account's matches and record on any device (``GET
/api/me/matches``; ``POST /api/me/record``, with this browser's seat tokens too: the lobby
and "Your record" read them besides the seats this browser keeps)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request

from ..accounts.accounts import COOKIE
from ..errors import TableError
from ..online.browsers import browser_of
from ..site import Site
from ..store.accounts import Account
from .common import account_of, json_body

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of the browser's own player."""

    async def signed_in(request: Request) -> Account:
        acct = await account_of(site, request)
        if acct is None:
            raise TableError(401, "You are not logged in.")
        return acct

    @app.get("/api/session")
    async def session(request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        if acct is None:
            return {"account": None}
        await site.seeks.note_browser(acct, browser_of(request))  # fair pairing, as /api/me
        return {"account": site.accounts.me(acct, request.cookies[COOKIE]) | {"bot": acct.bot}
                | await site.puzzles.rating_of(acct)}  # the same object as GET /api/me

    @app.get("/api/me/matches")
    async def my_matches(request: Request) -> dict[str, Any]:
        return await site.lobby.account_matches((await signed_in(request)).id)

    @app.post("/api/me/record")
    async def my_record(request: Request) -> dict[str, Any]:
        acct = await signed_in(request)
        raw = await request.body()
        body = await json_body(request) if raw.strip() else None
        return await site.records.account_record(acct.id, body)
