"""Reviews and hints of a seat (docs/web-api.md, "Reviews and hints"): ``POST`` starts the
review the seat may see and reports, ``GET`` only reports (the page polls with ``POST``
until ``done``), and ``POST .../hint`` gives the suggestion for the decision at hand."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..site import Site
from .common import seat_table

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the review and hint routes."""

    @app.post("/api/matches/{match_id}/review")
    async def start_review(match_id: str, request: Request) -> JSONResponse:
        t, seat = await seat_table(site, match_id, request)
        status, body = await site.reviews.review(t, seat, start=True)
        return JSONResponse(body, status_code=status)

    @app.get("/api/matches/{match_id}/review")
    async def get_review(match_id: str, request: Request) -> JSONResponse:
        t, seat = await seat_table(site, match_id, request)
        _, body = await site.reviews.review(t, seat, start=False)
        return JSONResponse(body)

    @app.post("/api/matches/{match_id}/hint")
    async def hint(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        return await site.reviews.hint(t, seat)
