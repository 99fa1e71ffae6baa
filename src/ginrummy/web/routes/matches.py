"""Matches and their seats: creating, joining, looking up, the seat's state, moves,
``next``, resigning, aborting and rematches."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..site import Site
from .common import json_body, seat_table

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of matches and seats."""

    @app.post("/api/matches")
    async def create(request: Request) -> JSONResponse:
        return JSONResponse(await site.lobby.create(await json_body(request)), status_code=201)

    @app.post("/api/matches/lookup")
    async def lookup(request: Request) -> dict[str, Any]:
        return await site.lobby.lookup(await json_body(request))

    @app.post("/api/matches/{match_id}/join")
    async def join(match_id: str, request: Request) -> dict[str, Any]:
        t = await site.registry.get(match_id)
        return await site.lobby.join(t, await json_body(request))

    @app.get("/api/matches/{match_id}")
    async def get_state(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        return await site.play.seat_state(t, seat)

    @app.post("/api/matches/{match_id}/actions")
    async def act(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        state = await site.play.act(t, seat, await json_body(request))
        assert state is not None
        return state

    @app.post("/api/matches/{match_id}/next")
    async def next_hand(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        return await site.play.next_hand(t, seat, await json_body(request))

    @app.post("/api/matches/{match_id}/resign")
    async def resign(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        return await site.play.resign(t, seat)

    @app.post("/api/matches/{match_id}/abort")
    async def abort(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        return await site.play.abort(t, seat)

    @app.get("/api/matches/{match_id}/rematch")
    async def get_rematch(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        return await site.rematches.status(t, seat)

    @app.post("/api/matches/{match_id}/rematch")
    async def post_rematch(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        return await site.rematches.rematch(t, seat)
