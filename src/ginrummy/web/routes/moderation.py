"""Reports and the moderators' API (docs/web-api.md, "Fair play"; INTERFACES section 13):
``POST /api/reports`` for any account, and ``/api/mod/...`` for moderators only (403 for
everyone else). Changes made with the session cookie follow the CSRF rule."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..site import Site
from .common import account_of, json_body

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of reports and moderators."""
    mod = site.moderation

    @app.post("/api/reports")
    async def report(request: Request) -> JSONResponse:
        acct = await account_of(site, request, change=True)
        out = await mod.report(acct, await json_body(request))
        return JSONResponse(out, status_code=201)

    @app.get("/api/mod")
    async def counts(request: Request) -> dict[str, Any]:
        return dict(await mod.counts(await account_of(site, request)))

    @app.get("/api/mod/flags")
    async def flags(request: Request) -> dict[str, Any]:
        return await mod.flags(await account_of(site, request))

    @app.get("/api/mod/reports")
    async def reports(request: Request) -> dict[str, Any]:
        return await mod.reports(await account_of(site, request))

    @app.get("/api/mod/accounts/{username}")
    async def account(username: str, request: Request) -> dict[str, Any]:
        return await mod.account(await account_of(site, request), username)

    @app.post("/api/mod/accounts/{username}/mark")
    async def mark(username: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        return await mod.mark(mod.require(acct), username, await json_body(request))

    @app.post("/api/mod/accounts/{username}/note")
    async def note(username: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        return await mod.note(mod.require(acct), username, await json_body(request))

    @app.post("/api/mod/accounts/{username}/clear")
    async def clear(username: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        return await mod.clear(mod.require(acct), username, await json_body(request))

    @app.post("/api/mod/reports/{report_id}/close")
    async def close(report_id: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        return await mod.close_report(mod.require(acct), report_id, await json_body(request))
