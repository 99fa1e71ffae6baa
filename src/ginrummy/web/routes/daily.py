"""The daily deal (docs/web-api.md, "The daily deal"): today's commitment and
leaderboard, an earlier day's with its seed opened, and playing today's deal (an account,
once a day)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ...i18n import N_
from ..checks import json_object
from ..site import Site
from .common import account_of
from .tournaments import optional_body, signed_in_player

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the daily deal's routes."""

    @app.get("/api/daily")
    async def today(request: Request) -> dict[str, Any]:
        out = await site.daily.show(None, await account_of(site, request))
        # yesterday's date when a deal was dealt that day, else null: the daily page asks
        # for the opened deal only when there is one (a new site's page refuses nothing)
        day = (dt.date.fromisoformat(out["date"]) - dt.timedelta(days=1)).isoformat()
        dealt = await site.db.read(site.db.store.daily.seed, day)
        return out | {"yesterday": day if dealt is not None else None}

    @app.get("/api/daily/{date}")
    async def day(date: str, request: Request) -> dict[str, Any]:
        return await site.daily.show(date, await account_of(site, request))

    @app.post("/api/daily/play")
    async def play(request: Request) -> JSONResponse:
        json_object(await optional_body(request), set())
        acct = await signed_in_player(site, request, N_(
            "The daily deal needs an account: sign up or log in first."))
        return JSONResponse(await site.daily.play(acct), status_code=201)
