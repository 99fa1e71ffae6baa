"""Playing strangers and watching: quick-match seeks, the leaderboard, players'
profiles, the live list and the spectator's view (docs/web-api.md, "Online play")."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..online.browsers import browser_of
from ..online.seeks import SEEKER_COOKIE, new_seeker
from ..site import Site
from .common import account_of, client_address, is_tls, json_body, playing_account

__all__ = ["register", "seeker_of"]


def seeker_of(request: Request) -> str | None:
    """The seeker's secret of a seek request: its ``gr_seeker`` cookie, or the
    ``X-Seeker`` header of a program without cookies."""
    return request.cookies.get(SEEKER_COOKIE) or request.headers.get("x-seeker")


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of seeks, ratings and watching."""

    @app.post("/api/seeks")
    async def seek(request: Request) -> JSONResponse:
        raw = await request.body()
        body = await json_body(request) if raw.strip() else None
        acct = await playing_account(site, request)
        seeker = seeker_of(request)
        fresh = seeker is None
        if seeker is None:
            seeker = new_seeker()
        out = await site.seeks.seek(body, acct, browser_of(request), client_address(request),
                                    seeker)
        answer = JSONResponse(out, status_code=201 if "seek" in out else 200)
        if fresh:  # who may read the seek: this secret, never in a URL
            answer.set_cookie(SEEKER_COOKIE, seeker, max_age=86400, path="/api/seeks",
                              httponly=True, samesite="strict", secure=is_tls(request))
        return answer

    @app.get("/api/seeks/{seek_id}")
    async def seek_status(seek_id: str, request: Request) -> dict[str, Any]:
        return await site.seeks.status(seek_id, await account_of(site, request),
                                       seeker_of(request), browser_of(request))

    @app.delete("/api/seeks/{seek_id}")
    async def cancel_seek(seek_id: str, request: Request) -> dict[str, Any]:
        return await site.seeks.cancel(seek_id, await account_of(site, request),
                                       seeker_of(request), browser_of(request))

    @app.get("/api/leaderboard")
    async def leaderboard() -> dict[str, Any]:
        return await site.ratings.leaderboard()

    @app.get("/api/leaderboard/bots")
    async def bot_ladder() -> dict[str, Any]:
        return await site.ratings.bot_ladder()

    @app.get("/api/players/{username}")
    async def player(username: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        out = await site.ratings.profile(username, acct.id if acct else None)
        return out | await site.people.about(acct, username)

    @app.get("/api/live")
    async def live() -> dict[str, Any]:
        return await site.spectators.live()

    @app.get("/api/matches/{match_id}/watch")
    async def watch(match_id: str) -> dict[str, Any]:
        return await site.spectators.watch(match_id)
