"""People's routes (docs/web-api.md, "People"; INTERFACES section 14): the players' and
the spectators' chat, following, blocking, player search, an account's settings, and the
moderators' mute. Changes made with the session cookie follow the CSRF rule."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..site import Site
from .common import account_of, json_body, seat_table

__all__ = ["register"]


def register(app: FastAPI, site: Site) -> None:
    """Add the routes of chat, friends, blocks and settings."""
    people, chat = site.people, site.chat

    # ------------------------------------------------------------------ chat

    @app.post("/api/matches/{match_id}/chat")
    async def say(match_id: str, request: Request) -> JSONResponse:
        t, seat = await seat_table(site, match_id, request)
        out = await chat.post(t, seat, await json_body(request))
        return JSONResponse(out, status_code=201)

    @app.get("/api/matches/{match_id}/chat")
    async def players_chat(match_id: str, request: Request) -> dict[str, Any]:
        t, _ = await seat_table(site, match_id, request)
        return await chat.players_room(t, request.query_params.get("after"))

    @app.post("/api/matches/{match_id}/watch/chat")
    async def say_watching(match_id: str, request: Request) -> JSONResponse:
        acct = await account_of(site, request, change=True)
        t = await site.registry.get(match_id)
        out = await chat.post_spectator(t, acct, await json_body(request))
        return JSONResponse(out, status_code=201)

    @app.get("/api/matches/{match_id}/watch/chat")
    async def spectators_chat(match_id: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request)
        t = await site.registry.get(match_id)
        return await chat.spectators_room(t, acct, request.query_params.get("after"))

    # ------------------------------------------------------------------ friends, blocks

    @app.post("/api/follow/{username}")
    async def follow(username: str, request: Request) -> dict[str, Any]:
        return await people.follow(await account_of(site, request, change=True), username)

    @app.delete("/api/follow/{username}")
    async def unfollow(username: str, request: Request) -> dict[str, Any]:
        return await people.unfollow(await account_of(site, request, change=True), username)

    @app.get("/api/me/following")
    async def following(request: Request) -> dict[str, Any]:
        return await people.following(await account_of(site, request))

    @app.post("/api/block/{username}")
    async def block(username: str, request: Request) -> dict[str, Any]:
        return await people.block(await account_of(site, request, change=True), username)

    @app.delete("/api/block/{username}")
    async def unblock(username: str, request: Request) -> dict[str, Any]:
        return await people.unblock(await account_of(site, request, change=True), username)

    @app.get("/api/me/blocks")
    async def blocks(request: Request) -> dict[str, Any]:
        return await people.blocks(await account_of(site, request))

    @app.get("/api/players")
    async def search(request: Request) -> dict[str, Any]:
        return await people.search(request.query_params.get("search"))

    # ------------------------------------------------------------------ settings, mutes

    @app.get("/api/me/settings")
    async def settings(request: Request) -> dict[str, Any]:
        return await people.settings(await account_of(site, request))

    @app.post("/api/me/settings")
    async def set_settings(request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        return await people.set_settings(acct, await json_body(request))

    @app.post("/api/mod/accounts/{username}/mute")
    async def mute(username: str, request: Request) -> dict[str, Any]:
        acct = await account_of(site, request, change=True)
        moderator = site.moderation.require(acct)
        return await people.mute(moderator, username, await json_body(request))
