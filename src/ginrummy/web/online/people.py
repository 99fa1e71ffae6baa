"""Friends, blocks, privacy and mutes (docs/web-api.md, "People"; INTERFACES section 14).

**Following** is one-way, as on lichess: an account follows up to :data:`MOST_FOLLOWS`
players, and its friends panel lists them with whether each is online (a notice socket
open on any process: :mod:`.presence`) and the public match each is playing. A player
who hides their online status is never shown online, to anyone.

**Blocking**: a blocked account cannot challenge, chat to or follow the blocker, and is
never paired with them (quick match, arena); blocking ends the follows between the two.
The blocked account is told only that it is refused, in the same words a privacy setting
would use, never that it is blocked.

**Privacy**: an account chooses whether to show its online status, whom it accepts
challenges from (``everyone``, ``friends``: the players it follows, or ``nobody``) and its
chat (``on``, ``phrases``: quick phrases only, ``off``).

**Mutes**: a moderator mutes an account for some minutes (logged on the account with the
reason); its chat is refused with a sentence saying until when.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ...i18n import N_, t
from ..backends.database import Database
from ..checks import json_object
from ..errors import TableError
from ..store.accounts import Account
from .presence import Presence

__all__ = ["CHALLENGES", "CHATS", "MOST_BLOCKS", "MOST_FOLLOWS", "People", "muted_text"]

MOST_FOLLOWS = 500
"""Players one account may follow."""
MOST_BLOCKS = 1000
"""Players one account may block."""
CHATS = ("on", "phrases", "off")
"""An account's chat choices."""
CHALLENGES = ("everyone", "friends", "nobody")
"""From whom an account accepts challenges."""
ARENA_DAYS = 86400.0
"""How far back the notices look for followed players' arenas (seconds)."""
MOST_MUTE_MINUTES = 60 * 24 * 365
"""The longest mute (a year)."""
NO_PLAYER = N_("No player has that username.")
NOT_ACCEPTING = N_("{name} is not accepting challenges from you.")
"""The refusal of a challenge a privacy setting or a block keeps out (the same words)."""


def _utc(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M UTC")


def muted_text(until: float) -> str:
    """The sentence a muted account's chat is refused with."""
    return t("A moderator muted you: you cannot chat until {time}.", time=_utc(until))


class People:
    """Follows, blocks, settings, search and mutes (see the module docstring)."""

    def __init__(self, db: Database, presence: Presence) -> None:
        self.db = db
        self.presence = presence

    @property
    def _store(self) -> Any:
        return self.db.store.people

    @staticmethod
    def _signed_in(acct: Account | None) -> Account:
        if acct is None:
            raise TableError(401, N_("Log in first."))
        return acct

    async def account(self, username: Any) -> Account:
        """The open account named ``username`` (404 with a sentence otherwise)."""
        if not isinstance(username, str) or not 0 < len(username) <= 40 or "\x00" in username:
            raise TableError(404, NO_PLAYER)
        acct = await self.db.read(self.db.store.tokens.by_name, username.casefold())
        if acct is None or acct.closed:
            raise TableError(404, NO_PLAYER)
        return acct

    async def _other(self, me: Account, username: Any, own: str) -> Account:
        other = await self.account(username)
        if other.id == me.id:
            raise TableError(400, own)
        return other

    # ------------------------------------------------------------------ presence

    async def online(self, account_ids: list[str]) -> set[str]:
        """Which of these accounts are shown online: a notice socket open anywhere, and
        not hiding it."""
        live = await self.presence.online(account_ids)
        if not live:
            return live
        settings = await self.db.read(self._store.settings, sorted(live))
        return {a for a in live if not settings[a]["hide_online"]}

    # ------------------------------------------------------------------ follows

    async def follow(self, me: Account | None, username: Any) -> dict[str, Any]:
        """``POST /api/follow/{username}``."""
        me = self._signed_in(me)
        other = await self._other(me, username, N_("You cannot follow yourself."))
        if await self.db.read(self._store.has_blocked, other.id, me.id):
            raise TableError(403, t("You cannot follow {name}.", name=other.username))
        if await self.db.read(self._store.has_blocked, me.id, other.id):
            raise TableError(409, t("You blocked {name}: unblock them first.",
                                    name=other.username))
        if await self.db.run(self._store.follow, me.id, other.id, MOST_FOLLOWS) is None:
            raise TableError(409, t("You follow {n} players already: unfollow one first.",
                                    n=str(MOST_FOLLOWS)))
        return {"username": other.username, "following": True}

    async def unfollow(self, me: Account | None, username: Any) -> dict[str, Any]:
        """``DELETE /api/follow/{username}``."""
        me = self._signed_in(me)
        other = await self._other(me, username, N_("You cannot follow yourself."))
        await self.db.run(self._store.unfollow, me.id, other.id)
        return {"username": other.username, "following": False}

    async def following(self, me: Account | None) -> dict[str, Any]:
        """``GET /api/me/following``: each followed player, online and playing."""
        me = self._signed_in(me)
        ids: list[str] = await self.db.read(self._store.following, me.id)
        accounts = await self.db.read(self.db.store.accounts.by_ids, ids)
        ids = [a for a in ids if a in accounts and not accounts[a].closed]
        online = await self.online(ids)
        playing: dict[str, str] = await self.db.read(self._store.public_playing, ids)
        return {"following": [{"username": accounts[a].username, "online": a in online,
                               "playing": playing.get(a), "bot": accounts[a].bot,
                               "rating": round(accounts[a].rating.rating, 1)}
                              for a in ids]}

    async def followers_of(self, account_id: str) -> list[str]:
        """The accounts following ``account_id`` (to tell them of its arenas)."""
        found: list[str] = await self.db.read(self._store.followers, account_id)
        return found

    async def notices(self, account_id: str) -> dict[str, Any]:
        """What an account's notices add (:class:`~.notices.Notices`): the arenas to join
        or being played that a player it follows made."""
        ids = set(await self.db.read(self._store.following, account_id))
        if not ids:
            return {"arenas": []}
        rows = await self.db.read(self.db.store.arenas.listing, time.time() - ARENA_DAYS, 100)
        mine = [r for r, _ in rows if r.creator in ids and r.status in ("created", "started")]
        accounts = await self.db.read(self.db.store.accounts.by_ids,
                                      sorted({r.creator for r in mine}))
        return {"arenas": [{"id": r.id, "name": r.name, "status": r.status,
                            "by": accounts[r.creator].username, "url": f"/tournament/{r.id}"}
                           for r in mine if r.creator in accounts]}

    # ------------------------------------------------------------------ blocks

    async def block(self, me: Account | None, username: Any) -> dict[str, Any]:
        """``POST /api/block/{username}`` (the follows between the two end)."""
        me = self._signed_in(me)
        other = await self._other(me, username, N_("You cannot block yourself."))
        if not await self.db.run(self._store.block, me.id, other.id, MOST_BLOCKS):
            raise TableError(409, t("You have blocked {n} players already: unblock one "
                                    "first.", n=str(MOST_BLOCKS)))
        return {"username": other.username, "blocked": True}

    async def unblock(self, me: Account | None, username: Any) -> dict[str, Any]:
        """``DELETE /api/block/{username}``."""
        me = self._signed_in(me)
        other = await self._other(me, username, N_("You cannot block yourself."))
        await self.db.run(self._store.unblock, me.id, other.id)
        return {"username": other.username, "blocked": False}

    async def blocks(self, me: Account | None) -> dict[str, Any]:
        """``GET /api/me/blocks``."""
        me = self._signed_in(me)
        ids: list[str] = await self.db.read(self._store.blocked, me.id)
        accounts = await self.db.read(self.db.store.accounts.by_ids, ids)
        return {"blocks": [{"username": accounts[a].username} for a in ids if a in accounts]}

    async def blocked_between(self, one: str | None, other: str | None) -> bool:
        """Whether either of two accounts blocked the other (guests block nobody)."""
        if one is None or other is None or one == other:
            return False
        found: bool = await self.db.read(self._store.blocked_between, one, other)
        return found

    async def may_challenge(self, by: Account | None, to: Account) -> None:
        """Refuse (403) a challenge ``to`` does not accept from ``by``: a block either
        way, or its privacy setting (a guest's challenge is taken only by ``everyone``)."""
        settings = (await self.db.read(self._store.settings, [to.id]))[to.id]
        choice = settings["challenges"]
        blocked = by is not None and await self.blocked_between(by.id, to.id)
        friend = by is not None and await self.db.read(self._store.follows, to.id, by.id)
        if blocked or (choice == "friends" and not friend):
            choice = "nobody"
        if choice == "nobody":
            raise TableError(403, t(NOT_ACCEPTING, name=to.username))

    # ------------------------------------------------------------------ settings

    async def settings(self, me: Account | None) -> dict[str, Any]:
        """``GET /api/me/settings``."""
        me = self._signed_in(me)
        return await self._settings_json(me.id)

    async def _settings_json(self, account_id: str) -> dict[str, Any]:
        s = (await self.db.read(self._store.settings, [account_id]))[account_id]
        until = s["muted_until"]
        return {"chat": s["chat"], "hide_online": s["hide_online"],
                "challenges": s["challenges"],
                "muted_until": until if until is not None and until > time.time() else None}

    async def set_settings(self, me: Account | None, body: Any) -> dict[str, Any]:
        """``POST /api/me/settings`` with any of ``chat``, ``hide_online``,
        ``challenges``: the settings after."""
        me = self._signed_in(me)
        body = json_object(body, {"chat", "hide_online", "challenges"})
        values: dict[str, Any] = {}
        if "chat" in body:
            if body["chat"] not in CHATS:
                raise TableError(400, N_("'chat' is \"on\", \"phrases\" or \"off\"."))
            values["chat"] = body["chat"]
        if "hide_online" in body:
            if not isinstance(body["hide_online"], bool):
                raise TableError(400, N_("'hide_online' is true or false."))
            values["hide_online"] = body["hide_online"]
        if "challenges" in body:
            if body["challenges"] not in CHALLENGES:
                raise TableError(400, N_("'challenges' is \"everyone\", \"friends\" or "
                                         "\"nobody\"."))
            values["challenges"] = body["challenges"]
        if values:
            await self.db.run(self._store.set_settings, me.id, values)
        return await self._settings_json(me.id)

    async def speaking(self, account_id: str) -> tuple[str, float | None]:
        """An account's chat choice and until when a moderator muted it (None: not muted
        now), in one read (each chat message asks)."""
        s = (await self.db.read(self._store.settings, [account_id]))[account_id]
        until = s["muted_until"]
        return str(s["chat"]), (float(until) if until is not None and until > time.time()
                                else None)

    async def mute(self, moderator: Account, username: Any,
                   body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /api/mod/accounts/{username}/mute`` ``{"minutes", "reason"}``
        (``minutes`` 0 lifts the mute), logged on the account."""
        body = json_object(body, {"minutes", "reason"})
        minutes = body.get("minutes")
        if isinstance(minutes, bool) or not isinstance(minutes, int) or not (
                0 <= minutes <= MOST_MUTE_MINUTES):
            raise TableError(400, t("'minutes' is a whole number from 0 (lift the mute) to "
                                    "{n}.", n=str(MOST_MUTE_MINUTES)))
        reason = body.get("reason", "")
        if not isinstance(reason, str) or len(reason) > 500 or "\x00" in reason:
            raise TableError(400, N_("'reason' is text of at most 500 characters."))
        if minutes and not reason.strip():
            raise TableError(400, N_("Say why in 'reason': the log keeps it."))
        acct = await self.account(username)
        now = time.time()
        until = now + 60 * minutes if minutes else None
        await self.db.run(self._store.set_settings, acct.id,
                          {"muted_until": until, "mute_reason": reason.strip() or None})
        text = (f"muted until {_utc(until)}: {reason.strip()}" if until is not None
                else f"mute lifted: {reason.strip()}".rstrip(": "))
        await self.db.run(self.db.store.fairplay.note, acct.id, moderator.id, "mute", text,
                          now)
        return {"username": acct.username, "muted_until": until}

    # ------------------------------------------------------------------ finding people

    async def search(self, prefix: Any) -> dict[str, Any]:
        """``GET /api/players?search=PREFIX``: up to 20 open accounts by name prefix."""
        if not isinstance(prefix, str) or not prefix.strip():
            raise TableError(400, N_("Say which players: ?search=PREFIX (the first letters "
                                     "of a username)."))
        prefix = prefix.strip()
        if len(prefix) > 20 or not all(ch.isalnum() or ch in "_-" for ch in prefix):
            raise TableError(400, N_("A username is at most 20 letters, digits, '_' or "
                                     "'-': no player's name starts like that."))
        rows: list[tuple[str, str, float]] = await self.db.read(self._store.search,
                                                                prefix.casefold(), 20)
        online = await self.online([r[0] for r in rows])
        return {"players": [{"username": name, "rating": round(rating, 1),
                             "online": aid in online} for aid, name, rating in rows]}

    async def about(self, viewer: Account | None, username: str) -> dict[str, Any]:
        """What a profile adds for people: ``online``, and for a signed-in viewer whether
        they follow or blocked the player."""
        acct = await self.account(username)
        out: dict[str, Any] = {"online": acct.id in await self.online([acct.id])}
        if viewer is not None and viewer.id != acct.id:
            out["following"] = await self.db.read(self._store.follows, viewer.id, acct.id)
            out["blocked"] = await self.db.read(self._store.has_blocked, viewer.id, acct.id)
        return out
