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
player; a player has at most :data:`MAX_INCOMING` open challenges from everyone together,
and one challenger may challenge one player at most :data:`PAIR_PER_MINUTE` times a minute
(cancelled challenges count), so no crowd and no create-and-cancel loop floods a player's
notices.

**Fair rated play** (:mod:`.fairplay`), as for seeks: an account that must wait after
aborting or leaving rated matches can neither make nor accept a rated challenge (nor be
the challenger of one accepted meanwhile); the challenger's address is kept (hashed) so
that a rated result between a challenger and an acceptor from one address moves each
rating by little; and a program's seat (a BOT account, or an account that plays through
an API token) is marked a bot seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ...i18n import N_, t, tn
from ..accounts.accounts import check_username
from ..backends.database import Database
from ..checks import flag, json_object
from ..errors import TableError
from ..store import hash_token
from ..store.accounts import Account
from ..store.challenges import ChallengeRow
from ..tables.lobby import Lobby
from ..tables.registry import TableRegistry
from ..tables.table import Table
from .browsers import address_hash, browser_hash
from .fairplay import OFFENCE_WINDOW, wait_seconds
from .ladder import level_of
from .ratings import check_wait
from .seeks import QUICK_CLOCK, match_object

__all__ = ["DECLINE_REASONS", "DIRECT_TTL", "KEEP", "MAX_INCOMING", "MAX_OPEN", "OPEN_TTL",
           "PAIR_PER_MINUTE", "Challenges"]

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
MAX_INCOMING = 10
"""Open challenges a player may be sent at once, from all challengers together."""
PAIR_PER_MINUTE = 3
"""Challenges one account may send one player in a minute (cancelled ones count)."""
"""Open challenges an account may have at once."""
GUEST_NAME = "Guest"

DECLINE_REASONS: dict[str, str] = {
    "generic": N_("I'm not accepting challenges at the moment."),
    "later": N_("This is not the right time for me: please ask again later."),
    "too_fast": N_("This clock is too fast for me: please challenge again with a slower "
                   "one."),
    "too_slow": N_("This clock is too slow for me: please challenge again with a faster "
                   "one."),
    "rated": N_("Please send me a rated challenge instead."),
    "casual": N_("Please send me a casual challenge instead."),
    "options": N_("I'm not accepting challenges with these options (target, gin only, "
                  "Oklahoma)."),
    "no_bot": N_("I'm not accepting challenges from bots."),
    "only_bot": N_("I'm only accepting challenges from bots."),
}
"""Why a challenge was declined: the key sent and stored, and the sentence shown (as
lichess's reasons; in English here, said in the reader's language)."""

_FIELDS = {"to", "target", "gin_only", "oklahoma", "rated", "clock"}
NEED_ACCOUNT = N_("Rated matches need an account: sign up or log in first.")
ACCEPTED = N_("This challenge has already been accepted.")
BEING_ACCEPTED = N_("This challenge is being accepted.")
NOT_FOUND = N_("No challenge has this id.")


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


def _program(account: Account | None) -> bool:
    """Whether an account's seat is a program's (a BOT account, or an account that plays
    through an API token): its seat is marked a bot seat."""
    return account is not None and (account.bot or account.program)


class Challenges:
    """Challenges and open links (see the module docstring)."""

    def __init__(self, db: Database, lobby: Lobby, registry: TableRegistry) -> None:
        self.db = db
        self.lobby = lobby
        self.registry = registry
        self.on_change: list[Callable[[list[str]], None]] = []
        """Told the accounts whose challenges just changed (made, answered, accepted):
        their notice sockets push the new lists."""
        self.may_challenge: Callable[[Account | None, Account], Awaitable[None]] | None = None
        """Refuses a challenge its target does not take from this challenger (a block,
        their privacy setting: :meth:`~.people.People.may_challenge`)."""
        self.blocked_between: Callable[[str | None, str | None],
                                       Awaitable[bool]] | None = None
        """Whether a block stands between two accounts (an open link is not for them)."""
        self.abort: Callable[[Table], Awaitable[Any]] | None = None
        """Ends a match a stale acceptance made (set by the site: :meth:`Play.abort` of
        seat 0, before anyone has moved and linked to nobody, so nothing is rated)."""

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
                raise TableError(400, N_("'to' is a username, or null for an open link."))
            check_username(to)
        rated = flag(body, "rated")
        options = self.lobby.check_options(
            {k: v for k, v in body.items() if k not in ("to", "rated")},
            default_clock=QUICK_CLOCK)
        return to, options, rated

    async def _note(self, account: Account | None, browser: str | None) -> None:
        """Note that ``account`` uses this browser (two accounts that share one are rated
        as if from one address, and never paired by quick match)."""
        if account is not None and browser is not None:
            await self.db.run(self.db.store.seeks.note_browser, browser_hash(browser),
                              account.id)

    async def create(self, body: Any, account: Account | None, address: str | None = None,
                     browser: str | None = None) -> dict[str, Any]:
        """``POST /api/challenges``: an open challenge (201 ``{"challenge", "url",
        "status": "open", "token", "expires_at"}``), or, to a computer level, the match at
        once (``"status": "accepted"`` and ``"match"``). Nothing is stored when refused.
        ``address`` and ``browser``: the request's client address and browser cookie."""
        to, options, rated = self._parse(body)
        if rated and account is None:
            raise TableError(401, NEED_ACCOUNT)
        if rated and account is not None:
            await check_wait(self.db, account)
        target: Account | None = None
        if to is not None:
            target = await self.db.read(self.db.store.tokens.by_name, to.casefold())
            if target is None:
                raise TableError(404, N_("No player has that username."))
            if target.closed:
                raise TableError(410, N_("That account is closed: it takes no challenges."))
            if account is not None and target.id == account.id:
                raise TableError(400, N_("You cannot challenge yourself."))
            if account is None and level_of(target.id) is None:
                raise TableError(401, N_("Challenging a player needs an account: sign up "
                                         "or log in first."))
            if self.may_challenge is not None and level_of(target.id) is None:
                await self.may_challenge(account, target)
        cid = secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(32)
        now = time.time()
        row = ChallengeRow(
            cid, account.id if account else None,
            account.username if account else GUEST_NAME, target.id if target else None,
            options, rated, "open", now, now + (DIRECT_TTL if target else OPEN_TTL),
            hash_token(token), _seal(self.db, token, cid), address_hash=address_hash(address))
        await self._note(account, browser)
        out: dict[str, Any] = {"challenge": cid, "url": f"/challenge/{cid}", "token": token,
                               "expires_at": row.expires_at}
        if target is not None and level_of(target.id) is not None:
            match = await self._against_level(row, account, target, token)
            return out | {"status": "accepted", "match": match}
        why = await self.db.run(self.db.store.challenges.add, row, MAX_OPEN, MAX_INCOMING,
                                PAIR_PER_MINUTE)
        if why == "crowded" and target is not None:
            raise TableError(429, t("{name} has {n} open challenges waiting already: try "
                                    "again once they have answered some.",
                                    name=target.username, n=str(MAX_INCOMING)))
        if why == "often" and target is not None:
            raise TableError(429, t("You have challenged {name} {n} times in the last "
                                    "minute: wait a minute before challenging them again.",
                                    name=target.username, n=str(PAIR_PER_MINUTE)))
        if why == "limit":
            raise TableError(429, t("You have {n} open challenges: cancel one, or wait for "
                                    "an answer, before making another.", n=str(MAX_OPEN)))
        if why == "again" and target is not None:
            raise TableError(409, t("You have already challenged {name}: wait for an "
                                    "answer, or cancel that challenge first.",
                                    name=target.username))
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
            bot_seats=(_program(account), True), no_coach=row.rated)
        mid = str(created["id"])
        await self.db.run(self.db.store.accounts.link, mid, (row.from_account, level.id),
                          row.rated, row.rated)
        done = ChallengeRow(row.id, row.from_account, row.from_name, row.to_account,
                            row.options, row.rated, "accepted", row.created_at,
                            row.expires_at, row.seat_token_hash, row.seat_token_enc,
                            answered_at=time.time(), accepted_by=level.id, match_id=mid,
                            address_hash=row.address_hash)
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
            return TableError(410, N_("This challenge has expired."))
        if state == "cancelled":
            return TableError(410, N_("The challenger cancelled this challenge."))
        if state == "declined":
            return TableError(409, N_("This challenge was declined."))
        if state == "accepted":
            return TableError(409, ACCEPTED)
        return None

    async def _challenger_free(self, row: ChallengeRow) -> None:
        """409 when the challenger of a rated challenge must now wait after aborting or
        leaving rated matches (it may have made the challenge before): nothing is
        accepted."""
        if row.from_account is None:
            return
        now = time.time()
        times = await self.db.read(self.db.store.accounts.offences, row.from_account,
                                   now - OFFENCE_WINDOW)
        wait = wait_seconds(times, now)
        if wait > 0:
            minutes = max(1, int(-(-wait // 60)))
            raise TableError(409, tn("{name} aborted or left too many rated matches and "
                                     "cannot play a rated match for {n} more minute: ask "
                                     "for a casual one instead.",
                                     "{name} aborted or left too many rated matches and "
                                     "cannot play a rated match for {n} more minutes: ask "
                                     "for a casual one instead.", minutes,
                                     name=row.from_name))

    async def accept(self, challenge_id: str, account: Account | None,
                     address: str | None = None, browser: str | None = None
                     ) -> dict[str, Any]:
        """``POST /api/challenges/{id}/accept``: the match, this player at seat 1
        (``{"match": {"id", "seat", "token", "url"}}``); accepted once. ``address`` and
        ``browser``: the acceptor's client address and browser cookie."""
        row = await self._row(challenge_id)
        if row.to_account is not None and (account is None or account.id != row.to_account):
            if account is None:
                raise TableError(401, N_("This challenge is for a player: log in as that "
                                         "player to accept it."))
            raise TableError(403, N_("This challenge is for another player."))
        if account is not None and row.from_account == account.id:
            raise TableError(400, N_("You cannot accept your own challenge."))
        if account is not None and row.from_account is not None and \
                self.blocked_between is not None and \
                await self.blocked_between(account.id, row.from_account):
            raise TableError(403, N_("This challenge is not open to you."))
        refusal = self._closed(row, time.time())
        if refusal is not None:
            raise refusal
        if row.rated and account is None:
            raise TableError(401, NEED_ACCOUNT)
        if row.rated and account is not None:
            await check_wait(self.db, account)
            await self._challenger_free(row)
        await self._note(account, browser)
        store = self.db.store.challenges
        taking = secrets.token_urlsafe(12)  # this acceptance's name on the take
        if not await self.db.run(store.take, row.id, taking):
            raise self._closed(await self._row(row.id), time.time()) or TableError(
                409, N_("Someone else is accepting this challenge: try again in a moment."))
        try:
            match = await self._start(row, account, address_hash(address), taking)
        except BaseException:
            await self.db.run(store.release, row.id, taking)
            raise
        self._changed(row.from_account, row.to_account)
        return {"match": match}

    async def _start(self, row: ChallengeRow, account: Account | None,
                     address: str | None, taking: str = "") -> dict[str, Any]:
        """Create the match of a challenge taken by ``taking`` (the challenger at seat 0
        with its token, the acceptor taking seat 1, from ``address``, hashed), mark the
        challenge accepted, then link the match to the accounts; the acceptor's match
        object. When the take went stale meanwhile (this process stalled and another
        accepted the challenge), the match made here, linked to nobody, is aborted and 409
        is raised: one challenge never makes two matches."""
        options = dict(row.options)
        clock = options.pop("clock", None)
        makers = await self.db.read(self.db.store.accounts.by_ids,
                                    [row.from_account] if row.from_account else [])
        maker = makers.get(row.from_account or "")
        created = await self.lobby.create(
            {"opponent": "friend", "name": row.from_name, "options": options,
             "clock": clock}, invite=False, token_hash0=row.seat_token_hash,
            bot_seats=(_program(maker), _program(account)), no_coach=row.rated)
        mid = str(created["id"])
        t = await self.registry.get(mid)
        seat = await self.lobby.claim_seat(t, account.username if account else GUEST_NAME)
        if not await self.db.run(self.db.store.challenges.accepted, row.id, mid,
                                 account.id if account else None, taking):
            log.warning("an acceptance of challenge %s went stale; match %s is given up",
                        row.id, mid)
            if self.abort is not None:
                with contextlib.suppress(TableError):
                    await self.abort(t)
            raise TableError(409, ACCEPTED)
        same_address = address is not None and address == row.address_hash
        await self.db.run(self.db.store.accounts.link, mid,
                          (row.from_account, account.id if account else None),
                          row.rated, row.rated, same_address)
        return match_object(mid, 1, str(seat["token"]))

    async def decline(self, challenge_id: str, account: Account | None,
                      body: Any) -> dict[str, Any]:
        """``POST /api/challenges/{id}/decline`` ``{"reason": KEY}`` (optional; one of
        :data:`DECLINE_REASONS`, by default ``generic``): only the challenged player."""
        reason = "generic"
        if body is not None:
            if not isinstance(body, Mapping) or set(body) - {"reason"}:
                raise TableError(400, N_('Send {"reason": KEY}, or nothing.'))
            reason = body.get("reason", "generic")
            if not isinstance(reason, str) or reason not in DECLINE_REASONS:
                keys = ", ".join(DECLINE_REASONS)
                if isinstance(reason, str) and len(reason) <= 40:
                    raise TableError(400, t("Unknown reason {reason}: choose one of {keys}.",
                                            reason=repr(reason), keys=keys))
                # a list, an object or a long text is not repeated back
                raise TableError(400, t("Unknown reason: choose one of {keys}.", keys=keys))
        row = await self._row(challenge_id)
        if row.to_account is None:
            raise TableError(400, N_("An open link cannot be declined: just leave it (its "
                                     "maker may cancel it)."))
        if account is None or account.id != row.to_account:
            raise TableError(403, N_("Only the challenged player may decline this "
                                     "challenge."))
        refusal = self._closed(row, time.time())
        if refusal is not None:
            raise refusal
        if not await self.db.run(self.db.store.challenges.answer, row.id, "declined",
                                 reason):
            raise self._closed(await self._row(row.id), time.time()) or TableError(
                409, BEING_ACCEPTED)
        self._changed(row.from_account, row.to_account)
        return {"status": "declined", "reason": reason, "text": t(DECLINE_REASONS[reason])}

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
            raise TableError(403, N_("Only the challenger may cancel this challenge."))
        refusal = self._closed(row, time.time())
        if refusal is not None:
            raise refusal
        if not await self.db.run(self.db.store.challenges.answer, row.id, "cancelled", None):
            raise self._closed(await self._row(row.id), time.time()) or TableError(
                409, BEING_ACCEPTED)
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
                "reason_text": (t(DECLINE_REASONS[r.reason]) if r.reason in DECLINE_REASONS
                                else None),
                "created_at": r.created_at, "expires_at": r.expires_at,
            }
            if maker and r.status == "accepted" and r.match_id is not None:
                token = _unseal(self.db, r.seat_token_enc, r.id)
                if token is not None:
                    e["match"] = match_object(r.match_id, 0, token)
            out.append(e)
        return out
