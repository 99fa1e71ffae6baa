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
(rated, and then public), and both seeks are marked paired, all only while the take is
still this pairing's: a process that stalled past the take's life finds the seeks taken by
another and aborts the match it made (one seek, one match). A seek's seat token is a random
secret made with the seek, stored as its hash (the match is created with it) and encrypted
with the site's key (as a challenger's is), never derived from anything: a copy of the
database seats nobody. A seek not polled for :data:`SEEK_TTL` seconds expires.

**Only the seeker.** A seek's id is a handle, not a secret: it is in the URL polled every
second, so it is in access logs. ``GET`` and ``DELETE /api/seeks/{id}`` answer only the
seeker: the account that made it (session or API token), or whoever holds the seeker's
secret, a random ``gr_seeker`` cookie (HttpOnly, SameSite=Strict, sent only to
``/api/seeks``) that ``POST /api/seeks`` sets when the request has none, or sent as the
``X-Seeker`` header by a program without cookies, or the browser whose cookie made it (two
clicks sent at once from a new browser each get a seeker cookie, and only one seek is
stored). Anyone else is told there is no such seek.

**Fair pairing** (issue 36). A browser is never paired with itself, accounts that share a
browser are never paired with each other, and a second identical seek from a browser is
answered with its first (:mod:`.browsers`; a double click makes one seek and one seat).
Both seeks from one address make a rated result move little (:mod:`.fairplay`). An
account that keeps aborting or leaving rated matches waits before its next rated seek
(429 with the wait in minutes and ``"wait"`` in seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ...i18n import N_
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
from ..tables.table import Table
from .browsers import browser_hash
from .browsers import seek_id as browser_seek_id
from .ratings import check_wait

__all__ = ["BASE_WINDOW", "QUICK_CLOCK", "SEEKER_COOKIE", "SEEK_TTL", "WIDEN_PER_SECOND",
           "Seeks", "new_seeker", "window"]

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

SEEK_RATED = "seek a rated match"
"""What a waiting player may not do yet, in a refused seek's sentence."""
_FIELDS = {"target", "gin_only", "oklahoma", "rated", "clock", "bots", "name"}

SEEKER_COOKIE = "gr_seeker"
"""The cookie holding the seeker's secret (also accepted as the ``X-Seeker`` header)."""
NOT_FOUND = N_("No such seek: it was cancelled or has expired.")
_SEEKER = re.compile(r"^[A-Za-z0-9_-]{20,64}$")


def new_seeker() -> str:
    """A new seeker's secret."""
    return secrets.token_urlsafe(24)


def seeker_hash(seeker: str | None) -> str | None:
    """What a seek keeps of its seeker's secret (None for a missing or malformed one)."""
    if seeker is None or not _SEEKER.match(seeker):
        return None
    return hash_token("seeker:" + seeker)


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


def _seal(db: Database, token: str, id_hash: str) -> str:
    """A seek's seat token as stored: encrypted with the site's key (bound to the seek)
    when the site has one, else as it is."""
    cipher = db.store.cipher
    if cipher is None:
        return "plain:" + token
    return cipher.encrypt_text(token, f"seek:{id_hash}")


def _unseal(db: Database, row: SeekRow) -> str:
    """A seek's seat token back; TableError 410 when this site's key cannot open it."""
    text = row.token_enc or ""
    if text.startswith("plain:"):
        return text.removeprefix("plain:")
    cipher = db.store.cipher
    if cipher is not None and text:
        try:
            return cipher.decrypt_text(text, f"seek:{row.id_hash}")
        except ValueError:
            pass
    raise TableError(410, N_("This seek's seat cannot be opened here any more: seek again."))


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
        self.abort: Callable[[Table], Awaitable[Any]] | None = None
        """Ends a match a stale pairing made (set by the site: :meth:`Play.abort` of
        seat 0, before anyone has moved, so nothing is rated)."""

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
                   address: str | None = None, seeker: str | None = None) -> dict[str, Any]:
        """``POST /api/seeks``: pair at once (``{"match": ...}``) or wait (``{"seek": ID}``).
        ``browser``: the request's browser cookie (:mod:`.browsers`); ``address``: its
        client address; ``seeker``: the seeker's secret (the route makes one for a request
        without), which with the account is who may read the seek."""
        options, rated, bots = self._parse(body)
        # a BOT, or an account that plays through API tokens, is paired like a BOT
        bot = account is not None and (account.bot or account.program)
        if rated and account is None:
            raise TableError(401, N_("Rated matches need an account: sign up or log in "
                                     "first."))
        if rated and account is not None:
            await self.check_wait(account)
        # an account plays under its username; a guest under its nickname or "Guest 4821"
        chosen = clean_name(body.get("name") if isinstance(body, Mapping) else None, "")
        now = time.time()
        nonce = secrets.token_urlsafe(12) if browser is not None else None
        seek_id = (browser_seek_id(browser, nonce) if browser is not None and nonce
                   else secrets.token_urlsafe(18))
        id_hash = hash_token(seek_id)
        token = secrets.token_urlsafe(32)  # the seat it will hold: a secret of its own
        me = SeekRow(id_hash, account.id if account else None,
                     account.username if account else guest_name(chosen),
                     Accounts.rating_of(account).rating, options, rated, "new", now,
                     now + SEEK_TTL, hash_token(token), bot=bot,
                     bots=bots or bot,
                     browser_hash=browser_hash(browser) if browser is not None else None,
                     nonce=nonce,
                     address_hash=hash_token("address:" + address) if address else None,
                     seeker_hash=seeker_hash(seeker),
                     token_enc=_seal(self.db, token, id_hash))
        same = await self.db.run(self.db.store.seeks.add, me, now - SAME_SEEK_SECONDS)
        if same is not None and browser is not None and same.nonce is not None:
            return self._again(same, browser_seek_id(browser, same.nonce))
        paired = await self._pair(me, token)
        if paired is not None:
            return {"match": paired}
        return {"seek": seek_id, "status": "waiting"}

    def _again(self, row: SeekRow, seek_id: str) -> dict[str, Any]:
        """The answer to a browser's second identical seek: its first one."""
        if row.status == "paired" and row.match_id is not None and row.seat is not None:
            return {"match": match_object(row.match_id, row.seat, _unseal(self.db, row))}
        return {"seek": seek_id, "status": "waiting"}

    async def check_wait(self, account: Account) -> None:
        """429 with the wait when ``account`` must still wait before a rated seek (the
        one rule of :func:`.ratings.check_wait`, in a seek's words)."""
        await check_wait(self.db, account, SEEK_RATED)

    async def note_browser(self, account: Account, browser: str | None) -> None:
        """Note that ``account`` uses this browser (``GET /api/me`` from a page)."""
        if browser is not None:
            await self.db.run(self.db.store.seeks.note_browser, browser_hash(browser),
                              account.id)

    async def status(self, seek_id: str, account: Account | None = None,
                     seeker: str | None = None, browser: str | None = None
                     ) -> dict[str, Any]:
        """``GET /api/seeks/{id}``, for its seeker only (``account`` or ``seeker``: see
        the module docstring): ``{"status": "waiting"}`` (the seek kept alive, and tried
        again against the seeks there are now) or ``{"status": "paired", "match": ...}``."""
        row = await self._row(seek_id, account, seeker, browser)
        if row.status == "paired" and row.match_id is not None and row.seat is not None:
            return {"status": "paired",
                    "match": match_object(row.match_id, row.seat, _unseal(self.db, row))}
        if row.status == "waiting":
            await self.db.run(self.db.store.seeks.touch, row.id_hash,
                              min(time.time() + SEEK_TTL, row.created_at + MAX_WAIT))
            paired = await self._pair(row, _unseal(self.db, row))
            if paired is not None:
                return {"status": "paired", "match": paired}
        return {"status": "waiting"}

    async def cancel(self, seek_id: str, account: Account | None = None,
                     seeker: str | None = None, browser: str | None = None
                     ) -> dict[str, Any]:
        """``DELETE /api/seeks/{id}``, by its seeker only: the seek is withdrawn (409
        once it is paired)."""
        row = await self._row(seek_id, account, seeker, browser)
        res = await self.db.run(self.db.store.seeks.cancel, row.id_hash)
        if res is None:
            raise TableError(404, NOT_FOUND)
        if res != "cancelled":
            raise TableError(409, N_("This seek has already been paired: GET it for the "
                                     "match."))
        return {"status": "cancelled"}

    async def _row(self, seek_id: str, account: Account | None, seeker: str | None,
                   browser: str | None) -> SeekRow:
        """The seek, if the request is its seeker's (404 otherwise, as for no seek: a
        handle seen in a log tells nobody whether it exists)."""
        if not 0 < len(seek_id) <= 64:
            raise TableError(404, NOT_FOUND)
        row = await self.db.read(self.db.store.seeks.get, hash_token(seek_id))
        if row is None:
            raise TableError(404, NOT_FOUND)
        mine = ((row.seeker_hash is not None and seeker_hash(seeker) == row.seeker_hash)
                or (account is not None and row.account_id == account.id)
                or (browser is not None and row.browser_hash == browser_hash(browser)))
        if not mine or row.token_enc is None:
            raise TableError(404, NOT_FOUND)
        return row

    async def _pair(self, me: SeekRow, my_token: str) -> dict[str, Any] | None:
        """Pair the stored seek ``me`` (whose seat token is ``my_token``) with the best
        waiting seek, if one is acceptable now; this seat's match object, or None (nothing
        acceptable, or every try lost a race)."""
        store = self.db.store.seeks
        cands = await self.db.read(store.candidates, me.options, me.rated, me.id_hash,
                                   me.account_id, me.bot, me.bots, me.browser_hash)
        now = time.time()
        ok = [c for c in cands
              if abs(c.rating - me.rating) <= window(now - min(c.created_at, me.created_at))]
        ok.sort(key=lambda c: (abs(c.rating - me.rating), c.created_at))
        for other in ok[:3]:
            ids = [other.id_hash, me.id_hash]
            pairing = secrets.token_urlsafe(12)
            if not await self.db.run(store.take, ids, pairing):
                continue
            try:
                made = await self._create(other, me, my_token, pairing)
            except BaseException:
                await self.db.run(store.release, ids, pairing)
                raise
            if made is not None:
                return made
        return None

    async def _create(self, other: SeekRow, me: SeekRow, my_token: str, pairing: str
                      ) -> dict[str, Any] | None:
        """Create the match of two seeks taken by ``pairing`` (seat 0 the one that waited,
        seat 1 this caller's, each with its seek's seat token), mark both seeks paired,
        then link it to the accounts; this caller's match object, or None when the take
        went stale meanwhile (another process took a seek: the match made here, linked to
        no account, is aborted, so one seek never makes two matches)."""
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
            invite=False, token_hash0=other.seat_token_hash, bot_seats=(other.bot, me.bot),
            no_coach=me.rated)
        mid = str(created["id"])
        t = await self.registry.get(mid)
        await self.lobby.claim_seat(t, name1, token=my_token)
        if not await self.db.run(self.db.store.seeks.paired,
                                 [(other.id_hash, 0), (me.id_hash, 1)], mid, PAIRED_KEEP,
                                 pairing):
            # linked to nobody yet: its abort rates nothing and counts against nobody
            log.warning("a pairing of match %s went stale; the match is given up", mid)
            if self.abort is not None:
                with contextlib.suppress(TableError):
                    await self.abort(t)
            return None
        same_address = other.address_hash is not None and other.address_hash == me.address_hash
        await self.db.run(self.db.store.accounts.link, mid, (other.account_id, me.account_id),
                          me.rated, me.rated, same_address)
        return match_object(mid, 1, my_token)
