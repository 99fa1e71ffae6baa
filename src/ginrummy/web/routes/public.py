"""What anyone may read: the computer levels, a match's record, replay and fairness proof,
and a browser's own record of finished matches. A private match's record is its players'
alone until the match is over (its replay and review open only then anyway)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ...i18n import N_
from ..errors import TableError
from ..site import Site
from ..tables.levels import level_list
from ..tables.table import Table
from .common import json_body, request_seat

__all__ = ["PRIVATE_WHILE_PLAYED", "register"]

PRIVATE_WHILE_PLAYED = N_("This match is private while it is played: only its players "
                          "can read it until it is over.")


def register(app: FastAPI, site: Site) -> None:
    """Add the public read routes."""

    async def _players_only_while_private(t: Table, request: Request) -> None:
        """A private match (not public: not listed, not watchable) being played is read
        only by its players (their seat token or session); once over, by anyone."""
        if t.match.is_over() or await site.spectators.is_public(t.id):
            return
        try:
            await request_seat(site, t, request)
        except TableError as e:
            if e.status not in (401, 403):
                raise
            raise TableError(403, PRIVATE_WHILE_PLAYED) from None

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        return {"bots": level_list()}

    @app.get("/api/matches/{match_id}/record")
    async def record(match_id: str, request: Request) -> JSONResponse:
        t = await site.registry.get(match_id)
        await _players_only_while_private(t, request)
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
