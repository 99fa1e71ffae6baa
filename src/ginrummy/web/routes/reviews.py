"""Reviews and hints of a seat (docs/web-api.md, "Reviews and hints"): ``POST`` starts the
review the seat may see and reports, ``GET`` only reports (the page polls with ``POST``
until ``done``), and ``POST .../hint`` gives the suggestion for the decision at hand.

Who may read a review: the seat (its token, or the account that holds it: its session is
the seat, :func:`.common.request_seat`), and, once a *public* match is over, anyone (its
replay and record are public then too): a reader with no seat there gets the review of
both seats, which a finished match's review is. The coach stays away from rated play
(:mod:`ginrummy.web.online.coaching`): no hint at a rated, arena or daily match, its review
only once it is over, and nothing at all for a player while it plays one (409)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..accounts.accounts import COOKIE
from ..errors import TableError
from ..site import Site
from ..tables.table import Table
from .common import (
    account_of,
    account_seat,
    bearer,
    coach_asker,
    coach_budget,
    request_seat,
    seat_table,
)

__all__ = ["open_review", "register", "review_reader"]


async def review_reader(site: Site, match_id: str, request: Request) -> tuple[Table, int | None]:
    """The table and the seat a review request reads as: a seat token is checked as
    everywhere; without one, a finished public match is open to anyone (None: a reader
    with no seat, or the seat of the logged-in account that played it), else the
    session's seat as :func:`.common.request_seat` says (401/403 otherwise)."""
    t = await site.registry.get(match_id)
    if bearer(request) is None and t.match.is_over() and await site.spectators.is_public(t.id):
        acct = await account_of(site, request) if request.cookies.get(COOKIE) else None
        if acct is not None:
            try:
                return t, await account_seat(site, t, acct)
            except TableError:
                pass  # an account with no seat there reads it as anyone does
        return t, None
    return t, await request_seat(site, t, request)


async def open_review(site: Site, match_id: str, request: Request) -> tuple[Table, int | None]:
    """:func:`review_reader`, refused (409) while the coach stays away from this match
    or from its reader (rated play: :mod:`ginrummy.web.online.coaching`)."""
    t, seat = await review_reader(site, match_id, request)
    accounts, browser = await coach_asker(site, request)
    why = await site.coaching.review_refusal(t, seat, t.match.is_over(), accounts, browser)
    if why is not None:
        raise TableError(409, why)
    return t, seat


def register(app: FastAPI, site: Site) -> None:
    """Add the review and hint routes."""

    @app.post("/api/matches/{match_id}/review")
    async def start_review(match_id: str, request: Request) -> JSONResponse:
        t, seat = await open_review(site, match_id, request)
        accounts, _ = await coach_asker(site, request)

        async def admit() -> None:  # a job started (not a poll) counts against the coach
            await coach_budget(site, request, accounts)

        status, body = await site.reviews.review(t, seat, start=True, guest=not accounts,
                                                 admit=admit)
        return JSONResponse(body, status_code=status)

    @app.get("/api/matches/{match_id}/review")
    async def get_review(match_id: str, request: Request) -> JSONResponse:
        t, seat = await open_review(site, match_id, request)
        _, body = await site.reviews.review(t, seat, start=False)
        return JSONResponse(body)

    @app.post("/api/matches/{match_id}/hint")
    async def hint(match_id: str, request: Request) -> dict[str, Any]:
        t, seat = await seat_table(site, match_id, request)
        accounts, browser = await coach_asker(site, request)
        why = await site.coaching.hint_refusal(t, seat, accounts, browser)
        if why is not None:
            raise TableError(409, why)
        await coach_budget(site, request, accounts)
        return await site.reviews.hint(t, seat, guest=not accounts)
