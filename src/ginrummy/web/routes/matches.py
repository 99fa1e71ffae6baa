"""Matches and their seats: creating, joining, looking up, the seat's state, moves,
``next``, resigning, aborting and rematches."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ...i18n import t
from ..errors import TableError
from ..site import Site
from ..store.accounts import Account
from .common import account_of, json_body, seat_table

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of matches and seats."""

    async def player(request: Request) -> Account | None:
        """The logged-in account a new seat is kept in (a request failing the CSRF check
        plays as a guest: nothing is refused, nothing is added to the account)."""
        try:
            return await account_of(site, request, change=True)
        except TableError as e:
            if e.status == 403:
                return None
            raise

    @app.post("/api/matches")
    async def create(request: Request) -> JSONResponse:
        body = await json_body(request)
        public = False
        if isinstance(body, Mapping) and "public" in body:
            public = body["public"]
            if not isinstance(public, bool):
                raise TableError(400, t("{field} is true or false.", field="'public'"))
            body = {k: v for k, v in body.items() if k != "public"}
        acct = await player(request)
        if acct is not None and isinstance(body, Mapping):
            body = {**body, "name": acct.username}  # an account plays under its username
        out = await site.lobby.create(body)
        if public or acct is not None:
            await site.spectators.publish(str(out["id"]), acct.id if acct else None, public)
        return JSONResponse(out, status_code=201)

    @app.post("/api/matches/lookup")
    async def lookup(request: Request) -> dict[str, Any]:
        return await site.lobby.lookup(await json_body(request))

    @app.post("/api/matches/{match_id}/join")
    async def join(match_id: str, request: Request) -> dict[str, Any]:
        t = await site.registry.get(match_id)
        body = await json_body(request)
        acct = await player(request)
        if acct is not None and isinstance(body, Mapping):
            body = {**body, "name": acct.username}  # an account plays under its username
        out = await site.lobby.join(t, body)
        if acct is not None:
            await site.db.run(site.db.store.accounts.claim_seats, acct.id, [(t.id, 1)])
        return out

    @app.get("/api/matches/{match_id}")
    async def get_state(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        return await site.play.seat_state(t, seat)

    @app.post("/api/matches/{match_id}/actions")
    async def act(match_id: str, request: Request) -> dict[str, Any]:
        # the clock's rule compares when the move came (stamped before any other work)
        received = float(request.scope.get("ginrummy.received") or time.time())
        t, seat = await seat_table(site, match_id, request)
        state = await site.play.act(t, seat, await json_body(request), received=received)
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
