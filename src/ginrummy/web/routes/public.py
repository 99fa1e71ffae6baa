"""What anyone may read: the computer levels, a match's record, replay and fairness proof,
and a browser's own record of finished matches."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..site import Site
from ..tables.levels import level_list
from .common import json_body

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the public read routes."""

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        return {"bots": level_list()}

    @app.get("/api/matches/{match_id}/record")
    async def record(match_id: str) -> JSONResponse:
        t = await site.registry.get(match_id)
        return JSONResponse(
            await site.records.record(t),
            headers={"Content-Disposition": f'attachment; filename="ginrummy-{t.id}.json"'},
        )

    @app.get("/api/matches/{match_id}/replay")
    async def replay(match_id: str, step: int | None = None) -> dict[str, Any]:
        return await site.records.replay(await site.registry.get(match_id), step)

    @app.get("/api/matches/{match_id}/fairness")
    async def fairness(match_id: str) -> dict[str, Any]:
        return await site.records.fairness(await site.registry.get(match_id))

    @app.post("/api/record")
    async def player_record(request: Request) -> dict[str, Any]:
        return await site.records.player_record(await json_body(request))
