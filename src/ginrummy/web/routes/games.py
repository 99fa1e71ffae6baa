"""A player's games, streamed as NDJSON (INTERFACES section 15; docs/web-api.md, "A
player's games"): ``GET /api/games/user/{username}``."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from ..records.games import ACCOUNT_RATE, GUEST_RATE, OWN_RATE, parse_filters
from ..site import Site
from .common import account_of, client_address

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the games' export."""

    @app.get("/api/games/user/{username}")
    async def games(username: str, request: Request) -> StreamingResponse:
        filters = parse_filters(request.query_params)
        player = await site.games.account(username)
        viewer = await account_of(site, request)
        address = client_address(request)
        site.games.admit(address)
        rate = (GUEST_RATE if viewer is None
                else OWN_RATE if viewer.id == player.id else ACCOUNT_RATE)
        return StreamingResponse(site.games.stream(player.id, filters, address, rate),
                                 media_type="application/x-ndjson",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})  # no proxy buffering
