"""Quick match ("Play someone"): seeks stored in the database and paired across processes.

``POST /api/seeks`` with table options (``target``, ``gin_only``, ``oklahoma``, ``clock``:
the same ``options`` object ``POST /api/matches`` takes, and its ``clock``, by default
:data:`QUICK_CLOCK`) and ``rated``. If a compatible seek
is waiting (same options, both rated or both casual, not the seeker's own account), the
two are paired at once and the answer is the new match's seat; otherwise the seek waits
and its holder polls ``GET /api/seeks/{id}``, which also tries to pair it (so seeks on
different processes meet whichever process polls next). Rated seeks need an account.
A player is shown at the table under its username, or a guest under the ``name`` its
seek chose, else ``Guest 4821`` (four random digits); the two seats never share a name.

**Nearest rating first.** Among compatible seeks the one nearest in rating is chosen, but
only within a window that widens with the waiting seek's age (:data:`BASE_WINDOW` rating
points, plus :data:`WIDEN_PER_SECOND` for each second it has waited): a seek waits a few
seconds longer for a closer opponent, then takes anyone. Guests seek at 1500.

**BOT accounts.** A BOT's seek pairs only with seeks that accept BOTs (``"bots": true``,
false by default), so a quick match never gives a person a BOT unasked; a BOT's own seek
accepts BOTs. The match marks the seats BOT accounts play.

**Once.** Pairing takes both seeks with conditional updates in one transaction
(:meth:`~.store.seeks.SeekStore.take`): however many processes try, a seek is taken once.
The match is then created through the :class:`~.lobby.Lobby` (a friend table whose seat 1
is claimed at once, both through the committer like any table), linked to both accounts
(rated, and then public), and each waiting seek is marked paired. A seek's seat token is
derived from the seek's id (:func:`seat_token`), which only its holder knows: the seek
stores only that token's hash, which the match is created with, so the holder reads its
seat with its id and the database never holds a usable token. A seek not polled for
:data:`SEEK_TTL` seconds expires.

**Fair pairing** (issue 36). A browser is never paired with itself, accounts that share a
browser are never paired with each other, and a second identical seek from a browser is
answered with its first (:mod:`.browsers`; a double click makes one seek and one seat).
Both seeks from one address make a rated result move little (:mod:`.fairplay`). An
account that keeps aborting or leaving rated matches waits before its next rated seek
(429 with the wait in minutes and ``"wait"`` in seconds).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import secrets
import time
from collections.abc import Mapping
from typing import Any

from ..accounts.accounts import Accounts
from ..backends.database import Database
from ..checks import MAX_NAME, clean_name, flag, json_object
from ..errors import TableError
from ..store import hash_token
from ..store.accounts import Account
from ..store.seeks import SeekRow
from ..tables.clock import ClockSettings
from ..tables.lobby import Lobby
from ..tables.registry import TableRegistry
from .browsers import browser_hash
from .browsers import seek_id as browser_seek_id
from .fairplay import OFFENCE_WINDOW, wait_seconds, wait_sentence

__all__ = ["BASE_WINDOW", "QUICK_CLOCK", "SEEK_TTL", "WIDEN_PER_SECOND", "Seeks", "seat_token",
           "window"]

log = logging.getLogger("ginrummy.web")

SEEK_TTL = 30.0
"""A waiting seek not polled for this long expires."""
MAX_WAIT = 600.0
"""No seek waits longer than this, polled or not."""
PAIRED_KEEP = 600.0
"""How long a paired seek keeps its match for its holder to read."""
BASE_WINDOW = 150.0
"""Rating difference accepted at once."""
WIDEN_PER_SECOND = 100.0
"""How much the accepted difference widens per second the older seek has waited."""
GUEST_NAME = "Guest"
"""What a guest is called when it chose no name: ``Guest 4821`` (four digits drawn per
seek), so two guests at one table never share a name."""
SAME_SEEK_SECONDS = 5.0
"""A browser's identical seek sent this soon after one that was paired gets that match
(a double click), unless the match is over already."""

QUICK_CLOCK = ClockSettings(move=20, bank=120)
"""A quick match always has a clock: 20 s a decision and a 120 s bank unless the seek asks
for another (strangers must not be able to stall each other)."""

_FIELDS = {"target", "gin_only", "oklahoma", "rated", "clock", "bots", "name"}


def window(waited: float) -> float:
    """The rating difference accepted after a seek has waited ``waited`` seconds.

    >>> window(0), window(3)
    (150.0, 450.0)
    """
    return BASE_WINDOW + WIDEN_PER_SECOND * max(0.0, waited)


def guest_name(chosen: str | None = None) -> str:
    """A guest's name at a quick match: its chosen nickname, else ``Guest`` and four
    random digits.

    >>> guest_name("Ann"), guest_name()[:6], len(guest_name())
    ('Ann', 'Guest ', 10)
    """
    return chosen or f"{GUEST_NAME} {secrets.randbelow(9000) + 1000}"


def distinct(name: str, other: str) -> str:
    """``name``, told apart from the other seat's ``other`` when the two are the same
    (without regard to case): ``Ann (2)``, or for a guest another four digits.

    >>> distinct("Ann", "Bob"), distinct("Ann", "ann")
    ('Ann', 'Ann (2)')
    """
    if name.casefold() != other.casefold():
        return name
    if name.startswith(GUEST_NAME + " "):
        while name.casefold() == other.casefold():
            name = guest_name()
        return name
    return f"{name[:MAX_NAME - 4]} (2)"


def seat_token(seek_id: str) -> str:
    """The seat token a seek's holder gets in the match it is paired into: derived from
    the seek's secret id (as long as a seat token the lobby issues)."""
    digest = hashlib.sha256(b"ginrummy-seek-seat:" + seek_id.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def match_object(match_id: str, seat: int, token: str) -> dict[str, Any]:
    """The ``match`` object of a paired seek (as ``POST /api/matches`` answers)."""
    return {"id": match_id, "seat": seat, "token": token,
            "url": f"/play/{match_id}#token={token}"}


class Seeks:
    """Quick-match seeks (see the module docstring)."""

    def __init__(self, db: Database, lobby: Lobby, registry: TableRegistry) -> None:
        self.db = db
        self.lobby = lobby
        self.registry = registry

    async def sweep_forever(self, seconds: float = 60.0) -> None:
        """Delete expired seeks every ``seconds`` (any process may: it is one statement)."""
        while True:
            await asyncio.sleep(seconds)
            try:
                await self.db.read(self.db.store.seeks.sweep)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the next sweep tries again
                log.warning("expired seeks not swept yet")

    def _parse(self, body: Any) -> tuple[dict[str, Any], bool, bool]:
        """(the match options, rated, whether BOT opponents are welcome) of a seek
        request (its ``name`` is checked apart); TableError 400 otherwise."""
        body = json_object(body, _FIELDS)
        rated, bots = flag(body, "rated"), flag(body, "bots")
        options = self.lobby.check_options(
            {k: v for k, v in body.items() if k not in ("rated", "bots", "name")},
            default_clock=QUICK_CLOCK)
        return options, rated, bots

    async def seek(self, body: Any, account: Account | None, browser: str | None = None,
                   address: str | None = None) -> dict[str, Any]:
        """``POST /api/seeks``: pair at once (``{"match": ...}``) or wait (``{"seek": ID}``).
        ``browser``: the request's browser cookie (:mod:`.browsers`); ``address``: its
        client address."""
        options, rated, bots = self._parse(body)
        bot = account is not None and account.bot  # a BOT welcomes BOTs
        if rated and account is None:
            raise TableError(401, "Rated matches need an account: sign up or log in first.")
        if rated and account is not None:
            await self.check_wait(account)
        # an account plays under its username; a guest under its nickname or "Guest 4821"
        chosen = clean_name(body.get("name") if isinstance(body, Mapping) else None, "")
        now = time.time()
        nonce = secrets.token_urlsafe(12) if browser is not None else None
        seek_id = (browser_seek_id(browser, nonce) if browser is not None and nonce
                   else secrets.token_urlsafe(18))
        me = SeekRow(hash_token(seek_id), account.id if account else None,
                     account.username if account else guest_name(chosen),
                     Accounts.rating_of(account).rating, options, rated, "new", now,
                     now + SEEK_TTL, hash_token(seat_token(seek_id)), bot=bot,
                     bots=bots or bot,
                     browser_hash=browser_hash(browser) if browser is not None else None,
                     nonce=nonce,
                     address_hash=hash_token("address:" + address) if address else None)
        same = await self.db.run(self.db.store.seeks.add, me, now - SAME_SEEK_SECONDS)
        if same is not None and browser is not None and same.nonce is not None:
            return self._again(same, browser_seek_id(browser, same.nonce))
        paired = await self._pair(me, seek_id, stored=True)
        if paired is not None:
            return {"match": paired}
        return {"seek": seek_id, "status": "waiting"}

    @staticmethod
    def _again(row: SeekRow, seek_id: str) -> dict[str, Any]:
        """The answer to a browser's second identical seek: its first one."""
        if row.status == "paired" and row.match_id is not None and row.seat is not None:
            return {"match": match_object(row.match_id, row.seat, seat_token(seek_id))}
        return {"seek": seek_id, "status": "waiting"}

    async def check_wait(self, account: Account) -> None:
        """429 with the wait when ``account`` must still wait before a rated seek."""
        now = time.time()
        times = await self.db.read(self.db.store.accounts.offences, account.id,
                                   now - OFFENCE_WINDOW)
        wait = wait_seconds(times, now)
        if wait > 0:
            e = TableError(429, wait_sentence(len(times), wait))
            e.extra["wait"] = round(wait)
            raise e

    async def note_browser(self, account: Account, browser: str | None) -> None:
        """Note that ``account`` uses this browser (``GET /api/me`` from a page)."""
        if browser is not None:
            await self.db.run(self.db.store.seeks.note_browser, browser_hash(browser),
                              account.id)

    async def status(self, seek_id: str) -> dict[str, Any]:
        """``GET /api/seeks/{id}``: ``{"status": "waiting"}`` (the seek kept alive, and
        tried again against the seeks there are now) or ``{"status": "paired", "match":
        ...}``."""
        row = await self._row(seek_id)
        if row.status == "paired" and row.match_id is not None and row.seat is not None:
            return {"status": "paired",
                    "match": match_object(row.match_id, row.seat, seat_token(seek_id))}
        if row.status == "waiting":
            await self.db.run(self.db.store.seeks.touch, row.id_hash,
                              min(time.time() + SEEK_TTL, row.created_at + MAX_WAIT))
            paired = await self._pair(row, seek_id, stored=True)
            if paired is not None:
                return {"status": "paired", "match": paired}
        return {"status": "waiting"}

    async def cancel(self, seek_id: str) -> dict[str, Any]:
        """``DELETE /api/seeks/{id}``: the seek is withdrawn (409 once it is paired)."""
        if not 0 < len(seek_id) <= 64:
            raise TableError(404, "No such seek: it was cancelled or has expired.")
        res = await self.db.run(self.db.store.seeks.cancel, hash_token(seek_id))
        if res is None:
            raise TableError(404, "No such seek: it was cancelled or has expired.")
        if res != "cancelled":
            raise TableError(409, "This seek has already been paired: GET it for the match.")
        return {"status": "cancelled"}

    async def _row(self, seek_id: str) -> SeekRow:
        if not 0 < len(seek_id) <= 64:
            raise TableError(404, "No such seek: it was cancelled or has expired.")
        row = await self.db.read(self.db.store.seeks.get, hash_token(seek_id))
        if row is None:
            raise TableError(404, "No such seek: it was cancelled or has expired.")
        return row

    async def _pair(self, me: SeekRow, seek_id: str, stored: bool
                    ) -> dict[str, Any] | None:
        """Pair ``me`` with the best waiting seek, if one is acceptable now; this seat's
        match object, or None (nothing acceptable, or every try lost a race)."""
        store = self.db.store.seeks
        cands = await self.db.read(store.candidates, me.options, me.rated, me.id_hash,
                                   me.account_id, me.bot, me.bots, me.browser_hash)
        now = time.time()
        ok = [c for c in cands
              if abs(c.rating - me.rating) <= window(now - min(c.created_at, me.created_at))]
        ok.sort(key=lambda c: (abs(c.rating - me.rating), c.created_at))
        for other in ok[:3]:
            ids = [other.id_hash] + ([me.id_hash] if stored else [])
            if not await self.db.run(store.take, ids):
                continue
            try:
                return await self._create(other, me, seek_id, stored)
            except BaseException:
                await self.db.run(store.release, ids)
                raise
        return None

    async def _create(self, other: SeekRow, me: SeekRow, seek_id: str, stored: bool
                      ) -> dict[str, Any]:
        """Create the match of two taken seeks (seat 0 the one that waited, with the seat
        token its seek derives; seat 1 this caller's), link it to the accounts, and mark
        the seeks paired; this caller's match object."""
        options = dict(me.options)
        clock = options.pop("clock", None)
        # two players never share a name at the table: a guest's gives way (an account
        # keeps its username, and usernames are unique)
        name0, name1 = other.name, me.name
        if me.account_id is None:
            name1 = distinct(name1, name0)
        elif other.account_id is None:
            name0 = distinct(name0, name1)
        created = await self.lobby.create(
            {"opponent": "friend", "name": name0, "options": options, "clock": clock},
            invite=False, token_hash0=other.seat_token_hash, bot_seats=(other.bot, me.bot))
        mid = str(created["id"])
        same_address = other.address_hash is not None and other.address_hash == me.address_hash
        await self.db.run(self.db.store.accounts.link, mid, (other.account_id, me.account_id),
                          me.rated, me.rated, same_address)
        t = await self.registry.get(mid)
        token = seat_token(seek_id)
        await self.lobby.claim_seat(t, name1, token=token)
        await self.db.run(self.db.store.seeks.paired, other.id_hash, mid, 0, PAIRED_KEEP)
        if stored:
            await self.db.run(self.db.store.seeks.paired, me.id_hash, mid, 1, PAIRED_KEEP)
        return match_object(mid, 1, token)
