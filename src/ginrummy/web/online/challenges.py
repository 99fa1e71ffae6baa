"""Challenges: a player challenges another by username, or makes an open link anyone may
accept, with the table's options (target, gin-only, Oklahoma, rated or casual, clock).

``POST /api/challenges`` stores an open challenge (the challenged player's pages and bots
are told at once: :attr:`Challenges.on_change`), which its player accepts or declines with
a reason from :data:`DECLINE_REASONS`, and its maker may cancel; an unanswered challenge
expires (:data:`DIRECT_TTL`, :data:`OPEN_TTL`). The computer's levels (:mod:`.ladder`)
accept every challenge at once. Accepting creates the match exactly as a quick match does
(:meth:`~.lobby.Lobby.create` as a friend table whose seat 1 the acceptor takes, linked to
both accounts, rated and public when the challenge is rated), so every rule of rated play
(ratings, aborts, clocks) applies the same. The challenger sits at seat 0 with the seat
token it was given when it made the challenge: the database keeps that token's hash (the
match is created with it) and the token sealed with the seed key, so the challenger can
read it again (``GET /api/challenges/{id}``) while a copy of the database seats nobody.

Guests may make and take casual open links, and challenge the computer's levels casually;
a challenge to a player needs an account, and a rated one needs accounts on both sides.
An account has at most :data:`MAX_OPEN` open challenges, and one at a time to the same
player.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..accounts.accounts import check_username
from ..backends.database import Database
from ..checks import flag, json_object
from ..errors import TableError
from ..store import hash_token
from ..store.accounts import Account
from ..store.challenges import ChallengeRow
from ..tables.lobby import Lobby
from ..tables.registry import TableRegistry
from .ladder import level_of
from .seeks import QUICK_CLOCK, match_object

__all__ = ["DECLINE_REASONS", "DIRECT_TTL", "KEEP", "MAX_OPEN", "OPEN_TTL", "Challenges"]

log = logging.getLogger("ginrummy.web")

DIRECT_TTL = 600.0
"""A challenge to a player expires after this many seconds unanswered."""
OPEN_TTL = 86400.0
"""An open link expires after this many seconds unaccepted."""
KEEP = 600.0
"""A challenge answered (or expired) stays in its maker's list this long."""
SWEEP_KEEP = 86400.0
"""Challenges over for longer than this are deleted."""
MAX_OPEN = 10
"""Open challenges an account may have at once."""
GUEST_NAME = "Guest"

DECLINE_REASONS: dict[str, str] = {
    "generic": "I'm not accepting challenges at the moment.",
    "later": "This is not the right time for me: please ask again later.",
    "too_fast": "This clock is too fast for me: please challenge again with a slower one.",
    "too_slow": "This clock is too slow for me: please challenge again with a faster one.",
    "rated": "Please send me a rated challenge instead.",
    "casual": "Please send me a casual challenge instead.",
    "options": "I'm not accepting challenges with these options (target, gin only, "
               "Oklahoma).",
    "no_bot": "I'm not accepting challenges from bots.",
    "only_bot": "I'm only accepting challenges from bots.",
}
"""Why a challenge was declined: the key sent and stored, and the sentence shown (as
lichess's reasons)."""

_FIELDS = {"to", "target", "gin_only", "oklahoma", "rated", "clock"}
NOT_FOUND = "No challenge has this id."


def _seal(db: Database, token: str, challenge_id: str) -> str:
    """The challenger's seat token as stored: encrypted with the seed key when the site
    has one (bound to the challenge), else as it is."""
    cipher = db.store.cipher
    if cipher is None:
        return "plain:" + token
    return cipher.encrypt_text(token, f"challenge:{challenge_id}")


def _unseal(db: Database, text: str, challenge_id: str) -> str | None:
    """The challenger's seat token back (None when this site's key cannot open it)."""
    if text.startswith("plain:"):
        return text.removeprefix("plain:")
    cipher = db.store.cipher
    if cipher is None:
        return None
    try:
        return cipher.decrypt_text(text, f"challenge:{challenge_id}")
    except ValueError:
        return None


class Challenges:
    """Challenges and open links (see the module docstring)."""

    def __init__(self, db: Database, lobby: Lobby, registry: TableRegistry) -> None:
        self.db = db
        self.lobby = lobby
        self.registry = registry
        self.on_change: list[Callable[[list[str]], None]] = []
        """Told the accounts whose challenges just changed (made, answered, accepted):
        their notice sockets push the new lists."""

    def _changed(self, *account_ids: str | None) -> None:
        ids = sorted({a for a in account_ids if a})
        for cb in list(self.on_change):
            try:
                cb(ids)
            except Exception:  # noqa: BLE001 - a listener never undoes a change
                log.exception("challenge listener failed")

    async def sweep_forever(self, seconds: float = 600.0) -> None:
        """Delete challenges long over, every ``seconds``."""
        while True:
            await asyncio.sleep(seconds)
            try:
                await self.db.run(self.db.store.challenges.sweep, SWEEP_KEEP)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the next sweep tries again
                log.warning("old challenges not swept yet")

    # ------------------------------------------------------------------ making

    def _parse(self, body: Any) -> tuple[str | None, dict[str, Any], bool]:
        """(the challenged username or None, the table options with their clock, rated);
        TableError 400 otherwise."""
        body = json_object(body, _FIELDS)
        to = body.get("to")
        if to is not None:
            if not isinstance(to, str):
                raise TableError(400, "'to' is a username, or null for an open link.")
            check_username(to)
        rated = flag(body, "rated")
        options = self.lobby.check_options(
            {k: v for k, v in body.items() if k not in ("to", "rated")},
            default_clock=QUICK_CLOCK)
        return to, options, rated

    async def create(self, body: Any, account: Account | None) -> dict[str, Any]:
        """``POST /api/challenges``: an open challenge (201 ``{"challenge", "url",
        "status": "open", "token", "expires_at"}``), or, to a computer level, the match at
        once (``"status": "accepted"`` and ``"match"``). Nothing is stored when refused."""
        to, options, rated = self._parse(body)
        if rated and account is None:
            raise TableError(401, "Rated matches need an account: sign up or log in first.")
        target: Account | None = None
        if to is not None:
            target = await self.db.read(self.db.store.tokens.by_name, to.casefold())
            if target is None:
                raise TableError(404, "No player has that username.")
            if target.closed:
                raise TableError(410, "That account is closed: it takes no challenges.")
            if account is not None and target.id == account.id:
                raise TableError(400, "You cannot challenge yourself.")
            if account is None and level_of(target.id) is None:
                raise TableError(401, "Challenging a player needs an account: sign up or "
                                 "log in first.")
        cid = secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(32)
        now = time.time()
        row = ChallengeRow(
            cid, account.id if account else None,
            account.username if account else GUEST_NAME, target.id if target else None,
            options, rated, "open", now, now + (DIRECT_TTL if target else OPEN_TTL),
            hash_token(token), _seal(self.db, token, cid))
        out: dict[str, Any] = {"challenge": cid, "url": f"/challenge/{cid}", "token": token,
                               "expires_at": row.expires_at}
        if target is not None and level_of(target.id) is not None:
            match = await self._against_level(row, account, target, token)
            return out | {"status": "accepted", "match": match}
        why = await self.db.run(self.db.store.challenges.add, row, MAX_OPEN)
        if why == "limit":
            raise TableError(429, f"You have {MAX_OPEN} open challenges: cancel one, or "
                             "wait for an answer, before making another.")
        if why == "again" and target is not None:
            raise TableError(409, f"You have already challenged {target.username}: wait "
                             "for an answer, or cancel that challenge first.")
        self._changed(row.from_account, row.to_account)
        return out | {"status": "open"}

    async def _against_level(self, row: ChallengeRow, account: Account | None,
                             level: Account, token: str) -> dict[str, Any]:
        """A computer level accepts at once: the match against the server's own computer
        seat, linked to both accounts (rated like any other when asked)."""
        options = dict(row.options)
        clock = options.pop("clock", None)
        lv = level_of(level.id)
        created = await self.lobby.create(
            {"opponent": "computer", "bot": lv, "name": row.from_name, "options": options,
             "clock": clock}, token_hash0=row.seat_token_hash,
            bot_seats=(bool(account and account.bot), True))
        mid = str(created["id"])
        await self.db.run(self.db.store.accounts.link, mid, (row.from_account, level.id),
                          row.rated, row.rated)
        done = ChallengeRow(row.id, row.from_account, row.from_name, row.to_account,
                            row.options, row.rated, "accepted", row.created_at,
                            row.expires_at, row.seat_token_hash, row.seat_token_enc,
                            answered_at=time.time(), accepted_by=level.id, match_id=mid)
        await self.db.run(self.db.store.challenges.record, done)
        self._changed(row.from_account)
        return match_object(mid, 0, token)

    # ------------------------------------------------------------------ answering

    async def _row(self, challenge_id: str) -> ChallengeRow:
        if not 0 < len(challenge_id) <= 16:
            raise TableError(404, NOT_FOUND)
        row = await self.db.read(self.db.store.challenges.get, challenge_id)
        if row is None:
            raise TableError(404, NOT_FOUND)
        return row

    @staticmethod
    def _closed(row: ChallengeRow, now: float) -> TableError | None:
        """Why a challenge can no longer be accepted, declined or cancelled (None: it
        is open)."""
        state = row.state(now)
        if state == "expired":
            return TableError(410, "This challenge has expired.")
        if state == "cancelled":
            return TableError(410, "The challenger cancelled this challenge.")
        if state == "declined":
            return TableError(409, "This challenge was declined.")
        if state == "accepted":
            return TableError(409, "This challenge has already been accepted.")
        return None

    async def accept(self, challenge_id: str, account: Account | None) -> dict[str, Any]:
        """``POST /api/challenges/{id}/accept``: the match, this player at seat 1
        (``{"match": {"id", "seat", "token", "url"}}``); accepted once."""
        row = await self._row(challenge_id)
        if row.to_account is not None and (account is None or account.id != row.to_account):
            if account is None:
                raise TableError(401, "This challenge is for a player: log in as that "
                                      "player to accept it.")
            raise TableError(403, "This challenge is for another player.")
        if account is not None and row.from_account == account.id:
            raise TableError(400, "You cannot accept your own challenge.")
        refusal = self._closed(row, time.time())
        if refusal is not None:
            raise refusal
        if row.rated and account is None:
            raise TableError(401, "Rated matches need an account: sign up or log in first.")
        store = self.db.store.challenges
        if not await self.db.run(store.take, row.id):
            raise self._closed(await self._row(row.id), time.time()) or TableError(
                409, "Someone else is accepting this challenge: try again in a moment.")
        try:
            match = await self._start(row, account)
        except BaseException:
            await self.db.run(store.release, row.id)
            raise
        self._changed(row.from_account, row.to_account)
        return {"match": match}

    async def _start(self, row: ChallengeRow, account: Account | None) -> dict[str, Any]:
        """Create the match of a taken challenge (the challenger at seat 0 with its
        token, the acceptor taking seat 1), link it and mark the challenge accepted; the
        acceptor's match object."""
        options = dict(row.options)
        clock = options.pop("clock", None)
        makers = await self.db.read(self.db.store.accounts.by_ids,
                                    [row.from_account] if row.from_account else [])
        maker = makers.get(row.from_account or "")
        created = await self.lobby.create(
            {"opponent": "friend", "name": row.from_name, "options": options,
             "clock": clock}, invite=False, token_hash0=row.seat_token_hash,
            bot_seats=(bool(maker and maker.bot), bool(account and account.bot)))
        mid = str(created["id"])
        await self.db.run(self.db.store.accounts.link, mid,
                          (row.from_account, account.id if account else None),
                          row.rated, row.rated)
        t = await self.registry.get(mid)
        seat = await self.lobby.claim_seat(t, account.username if account else GUEST_NAME)
        await self.db.run(self.db.store.challenges.accepted, row.id, mid,
                          account.id if account else None)
        return match_object(mid, 1, str(seat["token"]))

    async def decline(self, challenge_id: str, account: Account | None,
                      body: Any) -> dict[str, Any]:
        """``POST /api/challenges/{id}/decline`` ``{"reason": KEY}`` (optional; one of
        :data:`DECLINE_REASONS`, by default ``generic``): only the challenged player."""
        reason = "generic"
        if body is not None:
            if not isinstance(body, Mapping) or set(body) - {"reason"}:
                raise TableError(400, 'Send {"reason": KEY}, or nothing.')
            reason = body.get("reason", "generic")
            if reason not in DECLINE_REASONS:
                raise TableError(400, f"Unknown reason {reason!r}: choose one of "
                                 f"{', '.join(DECLINE_REASONS)}.")
        row = await self._row(challenge_id)
        if row.to_account is None:
            raise TableError(400, "An open link cannot be declined: just leave it (its "
                                  "maker may cancel it).")
        if account is None or account.id != row.to_account:
            raise TableError(403, "Only the challenged player may decline this challenge.")
        refusal = self._closed(row, time.time())
        if refusal is not None:
            raise refusal
        if not await self.db.run(self.db.store.challenges.answer, row.id, "declined",
                                 reason):
            raise self._closed(await self._row(row.id), time.time()) or TableError(
                409, "This challenge is being accepted.")
        self._changed(row.from_account, row.to_account)
        return {"status": "declined", "reason": reason, "text": DECLINE_REASONS[reason]}

    def _is_maker(self, row: ChallengeRow, account: Account | None,
                  seat_token: str | None) -> bool:
        """Whether the request is the challenger's: its account, or the seat token it
        was given (a guest's open link)."""
        if account is not None and row.from_account == account.id:
            return True
        return seat_token is not None and hmac.compare_digest(hash_token(seat_token),
                                                              row.seat_token_hash)

    async def cancel(self, challenge_id: str, account: Account | None,
                     seat_token: str | None) -> dict[str, Any]:
        """``DELETE /api/challenges/{id}``: the challenger withdraws an open challenge."""
        row = await self._row(challenge_id)
        if not self._is_maker(row, account, seat_token):
            raise TableError(403, "Only the challenger may cancel this challenge.")
        refusal = self._closed(row, time.time())
        if refusal is not None:
            raise refusal
        if not await self.db.run(self.db.store.challenges.answer, row.id, "cancelled", None):
            raise self._closed(await self._row(row.id), time.time()) or TableError(
                409, "This challenge is being accepted.")
        self._changed(row.from_account, row.to_account)
        return {"status": "cancelled"}

    # ------------------------------------------------------------------ reading

    async def show(self, challenge_id: str, account: Account | None,
                   seat_token: str | None) -> dict[str, Any]:
        """``GET /api/challenges/{id}``: the challenge; its maker also finds the match
        once accepted. A challenge to a player is shown to its two players only."""
        row = await self._row(challenge_id)
        maker = self._is_maker(row, account, seat_token)
        if not maker and row.to_account is not None and (
                account is None or account.id != row.to_account):
            raise TableError(404, NOT_FOUND)
        return (await self._entries([row], maker))[0]

    async def lists(self, account_id: str) -> dict[str, Any]:
        """``GET /api/challenges``: ``{"in": [open challenges to the account], "out":
        [its own: open, and answered or expired within :data:`KEEP` seconds]}``."""
        ins, outs = await self.db.read(self.db.store.challenges.lists, account_id, KEEP)
        return {"in": await self._entries(ins, False), "out": await self._entries(outs, True)}

    async def _entries(self, rows: list[ChallengeRow], maker: bool) -> list[dict[str, Any]]:
        """The JSON of these challenges (``maker``: for their maker, with the match)."""
        ids = {a for r in rows for a in (r.from_account, r.to_account) if a}
        accts = await self.db.read(self.db.store.accounts.by_ids, sorted(ids))
        now = time.time()
        out = []
        for r in rows:
            to = accts.get(r.to_account or "")
            frm = accts.get(r.from_account or "")
            options = {k: v for k, v in r.options.items() if k != "clock"}
            e: dict[str, Any] = {
                "id": r.id, "url": f"/challenge/{r.id}", "from": r.from_name,
                "from_bot": bool(frm and frm.bot), "to": to.username if to else None,
                "to_bot": bool(to and to.bot), "rated": r.rated, "options": options,
                "clock": r.options.get("clock"), "status": r.state(now),
                "reason": r.reason,
                "reason_text": DECLINE_REASONS.get(r.reason or "") if r.reason else None,
                "created_at": r.created_at, "expires_at": r.expires_at,
            }
            if maker and r.status == "accepted" and r.match_id is not None:
                token = _unseal(self.db, r.seat_token_enc, r.id)
                if token is not None:
                    e["match"] = match_object(r.match_id, 0, token)
            out.append(e)
        return out
