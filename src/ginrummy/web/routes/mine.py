"""What a browser asks about its own player (docs/web-api.md, "Accounts"): who is signed
in, answered without a refusal for a guest (``GET /api/session``: a guest's pages log no
error), and a signed-in account's matches and record on any device (``GET
/api/me/matches``; ``POST /api/me/record``, with this browser's seat tokens too: the lobby
and "Your record" read them besides the seats this browser keeps)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ...i18n import LANGUAGES, N_, t
from ..accounts.accounts import COOKIE
from ..checks import json_object
from ..errors import TableError
from ..language import language_cookie
from ..online.browsers import browser_of
from ..site import Site
from ..store.accounts import Account
from .common import account_of, is_tls, json_body

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of the browser's own player."""

    async def signed_in(request: Request) -> Account:
        acct = await account_of(site, request)
        if acct is None:
            raise TableError(401, N_("You are not logged in."))
        return acct

    @app.get("/api/session")
    async def session(request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        if acct is None:
            return {"account": None}
        await site.seeks.note_browser(acct, browser_of(request))  # fair pairing, as /api/me
        return {"account": site.accounts.me(acct, request.cookies[COOKIE]) | {"bot": acct.bot}
                | await site.puzzles.rating_of(acct)}  # the same object as GET /api/me

    @app.post("/api/me/language")
    async def choose_language(request: Request) -> JSONResponse:
        """The language picker: ``{"lang": TAG}`` (one of the site's languages) kept in
        the language cookie and, for a signed-in account, in the account."""
        body = json_object(await json_body(request), {"lang"})
        lang = body.get("lang")
        if not isinstance(lang, str) or lang not in LANGUAGES:
            raise TableError(400, t("'lang' is one of {langs}.",
                                    langs=", ".join(LANGUAGES)))
        acct = await account_of(site, request, change=True)
        if acct is not None:
            await site.db.run(site.db.store.accounts.set_language, acct.id, lang)
        out = JSONResponse({"lang": lang})
        language_cookie(out, lang, is_tls(request))
        return out

    @app.get("/api/me/matches")
    async def my_matches(request: Request) -> dict[str, Any]:
        return await site.lobby.account_matches((await signed_in(request)).id)

    @app.post("/api/me/record")
    async def my_record(request: Request) -> dict[str, Any]:
        acct = await signed_in(request)
        raw = await request.body()
        body = await json_body(request) if raw.strip() else None
        return await site.records.account_record(acct.id, body)
