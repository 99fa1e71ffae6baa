"""The routes of the table's comforts (see :mod:`ginrummy.web.extras`): the How to play
and Your record pages, ``POST /api/record``, and ``GET``/``POST .../rematch``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse, HTMLResponse

from .extras import fair_deal, player_record, rematch, rematch_status
from .service import Service

__all__ = ["register"]



def register(app: FastAPI, service: Service, static_dir: Path) -> None:
    """Add the pages and endpoints of this module to the app."""
    from .app import _bearer, _json_body

    def page(name: str) -> Response:
        path = static_dir / name
        if path.is_file():
            return FileResponse(path, media_type="text/html",
                                headers={"Cache-Control": "no-cache"})
        return HTMLResponse("<!doctype html><title>Gin Rummy</title><p>Not installed.</p>")

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> Response:
        return page("rules.html")

    @app.get("/record", include_in_schema=False)
    async def record_page() -> Response:
        return page("record.html")

    @app.post("/api/record")
    async def record(request: Request) -> dict[str, Any]:
        return await player_record(service, await _json_body(request))

    @app.get("/api/matches/{match_id}/fairness")
    async def fairness(match_id: str) -> dict[str, Any]:
        return await fair_deal(service, await service.table(match_id))

    @app.get("/api/matches/{match_id}/rematch")
    async def get_rematch(match_id: str, request: Request) -> dict[str, Any]:
        t = await service.table(match_id)
        seat = await service.authenticate_fresh(t, _bearer(request))
        return await rematch_status(service, t, seat)

    @app.post("/api/matches/{match_id}/rematch")
    async def post_rematch(match_id: str, request: Request) -> dict[str, Any]:
        t = await service.table(match_id)
        seat = await service.authenticate_fresh(t, _bearer(request))
        return await rematch(service, t, seat)

