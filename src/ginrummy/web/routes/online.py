"""Playing strangers and watching: quick-match seeks, the leaderboard, players'
profiles, the live list and the spectator's view (docs/web-api.md, "Online play")."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..online.browsers import browser_of
from ..site import Site
from .common import account_of, client_address, json_body, playing_account

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of seeks, ratings and watching."""

    @app.post("/api/seeks")
    async def seek(request: Request) -> JSONResponse:
        raw = await request.body()
        body = await json_body(request) if raw.strip() else None
        acct = await playing_account(site, request)
        out = await site.seeks.seek(body, acct, browser_of(request), client_address(request))
        return JSONResponse(out, status_code=201 if "seek" in out else 200)

    @app.get("/api/seeks/{seek_id}")
    async def seek_status(seek_id: str) -> dict[str, Any]:
        return await site.seeks.status(seek_id)

    @app.delete("/api/seeks/{seek_id}")
    async def cancel_seek(seek_id: str) -> dict[str, Any]:
        return await site.seeks.cancel(seek_id)

    @app.get("/api/leaderboard")
    async def leaderboard() -> dict[str, Any]:
        return await site.ratings.leaderboard()

    @app.get("/api/players/{username}")
    async def player(username: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        return await site.ratings.profile(username, acct.id if acct else None)

    @app.get("/api/live")
    async def live() -> dict[str, Any]:
        return await site.spectators.live()

    @app.get("/api/matches/{match_id}/watch")
    async def watch(match_id: str) -> dict[str, Any]:
        return await site.spectators.watch(match_id)
