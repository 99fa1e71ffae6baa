"""Training: puzzles, a player's own mistakes as puzzles, and the analysis board
(docs/web-api.md, "Training"; INTERFACES section 12). A logged-in player's answers count
for its puzzle rating (its session cookie; an answer is a change, so it carries the CSRF
token); a guest may ask for puzzles and answer them too."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request

from ...i18n import N_
from ..errors import TableError
from ..site import Site
from ..training.puzzles import puzzle_payload
from .common import account_of, coach_asker, coach_budget, json_body

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the training routes (the fixed paths before ``/api/puzzles/{id}``)."""

    @app.post("/api/analysis")
    async def analysis(request: Request) -> dict[str, Any]:
        body = await json_body(request)
        accounts, browser = await coach_asker(site, request)
        site.analysis.admit(body, guest=not accounts)  # a guests' flood: refused first
        why = await site.coaching.in_play(accounts, browser)
        if why is not None:  # no engine beside a rated seat (coaching)
            raise TableError(409, why)
        await coach_budget(site, request, accounts)
        # a guest: fewer deals at most, and the guests' lane of the coach (a fair share)
        return await site.analysis.analyze(body, guest=not accounts)

    @app.get("/api/puzzles/next")
    async def next_puzzle(request: Request, rating: str | None = None,
                          theme: str | None = None) -> dict[str, Any]:
        return await site.puzzles.next(await account_of(site, request), rating, theme)

    @app.get("/api/puzzles/themes")
    async def themes() -> dict[str, Any]:
        return site.puzzles.themes()

    @app.get("/api/puzzles/mine")
    async def mine(request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        if acct is None:
            raise TableError(401, N_("Log in to practise the decisions your reviews "
                                     "marked."))
        return await site.mistakes.mine(acct)

    @app.get("/api/puzzles/history")
    async def history(request: Request) -> dict[str, Any]:
        return await site.puzzles.history(await account_of(site, request))

    @app.get("/api/puzzles/{puzzle_id}")
    async def puzzle(puzzle_id: str, request: Request) -> dict[str, Any]:
        row = await site.puzzles.puzzle(puzzle_id, await account_of(site, request))
        return puzzle_payload(row)

    @app.post("/api/puzzles/{puzzle_id}/solve")
    async def solve(puzzle_id: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        return await site.puzzles.solve(puzzle_id, acct, await json_body(request))
