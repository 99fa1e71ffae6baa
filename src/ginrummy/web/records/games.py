"""A player's games as open data: ``GET /api/games/user/{username}`` (INTERFACES section
15; docs/web-api.md, "A player's games").

The account's finished public matches, newest first, one sealed ``ginrummy/1`` record a
line (NDJSON: each passes ``ginrummy verify``), with ``max``, ``since``/``until`` (Unix
seconds, on the match's end) and ``rated`` filters. They are streamed as they are read: a
page of match ids at a time from the database, each record built from its stored actions
off the event loop and sent before the next is read, so an export of any length holds one
page of ids and one record in memory. As on lichess, a stream is paced (:data:`GUEST_RATE`
records a second for a guest, :data:`ACCOUNT_RATE` for a signed-in account, :data:`OWN_RATE`
for one's own games) and an address has one export running at a time on a process.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

from ...fairness import seal
from ...i18n import N_, t
from ..backends.database import Database
from ..errors import TableError
from ..store.accounts import Account
from ..tables.table import build_match

__all__ = ["ACCOUNT_RATE", "GUEST_RATE", "OWN_RATE", "PAGE", "GameExport", "GameFilters"]

GUEST_RATE = 20.0
"""Records a second streamed to a guest."""
ACCOUNT_RATE = 30.0
"""Records a second streamed to a signed-in account."""
OWN_RATE = 60.0
"""Records a second streamed to an account exporting its own games."""
PAGE = 100
"""Match ids read from the database at a time."""
BUSY = N_("One export at a time from one address: wait until the running one has ended.")


@dataclass(frozen=True, slots=True)
class GameFilters:
    """What an export asks for."""

    max: int | None = None
    since: float | None = None
    until: float | None = None
    rated: bool | None = None


def _number(params: Mapping[str, str], key: str) -> float | None:
    raw = params.get(key)
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        raise TableError(400, t("'{key}' is a time in Unix seconds, not {raw}.", key=key,
                                raw=repr(raw[:40]))) from None
    if not 0 <= value < 1e12:
        raise TableError(400, t("'{key}' is a time in Unix seconds, not {raw}.", key=key,
                                raw=repr(raw[:40])))
    return value


def parse_filters(params: Mapping[str, str]) -> GameFilters:
    """The filters of the request's query; 400 with one sentence for a bad one."""
    most: int | None = None
    raw = params.get("max")
    if raw not in (None, ""):
        assert raw is not None
        if not raw.isdigit() or not 0 < int(raw) <= 10**9:
            raise TableError(400, t("'max' is a whole number of games from 1, not {raw}.",
                                    raw=repr(raw[:40])))
        most = int(raw)
    rated: bool | None = None
    flag = params.get("rated")
    if flag not in (None, ""):
        if flag not in ("true", "false"):
            raise TableError(400, N_("'rated' is true or false."))
        rated = flag == "true"
    since, until = _number(params, "since"), _number(params, "until")
    return GameFilters(most, since, until, rated)


class GameExport:
    """Streams of players' games (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._running: set[str] = set()
        self.paced = True
        """Whether streams are paced (benchmarks turn it off)."""

    async def account(self, username: str) -> Account:
        """The account whose games are asked for; 404 for no such player."""
        if not 0 < len(username) <= 40:
            raise TableError(404, N_("No player has that username."))
        acct = await self.db.read(self.db.store.tokens.by_name, username.casefold())
        if acct is None:
            raise TableError(404, N_("No player has that username."))
        return acct

    def admit(self, address: str) -> None:
        """One export at a time per address on this process (429 otherwise)."""
        if address in self._running:
            raise TableError(429, BUSY)

    async def stream(self, account_id: str, filters: GameFilters, address: str,
                     per_second: float) -> AsyncIterator[bytes]:
        """The NDJSON lines of the export, newest first."""
        self._running.add(address)
        try:
            sent = 0
            before: tuple[float, str] | None = None
            gap = 0.0 if not self.paced or per_second <= 0 else 1.0 / per_second
            next_at = time.monotonic()
            while filters.max is None or sent < filters.max:
                want = PAGE if filters.max is None else min(PAGE, filters.max - sent)
                page = await self.db.read(self.db.store.games.finished_public, account_id,
                                          before, filters.since, filters.until,
                                          filters.rated, want)
                if not page:
                    return
                for mid, ended in page:
                    line = await self._line(mid)
                    before = (ended, mid)
                    if line is None:
                        continue
                    if gap:
                        wait = next_at - time.monotonic()
                        if wait > 0:
                            await asyncio.sleep(wait)
                        next_at = max(next_at, time.monotonic()) + gap
                    yield line
                    sent += 1
                    if filters.max is not None and sent >= filters.max:
                        return
                if len(page) < want:
                    return
        finally:
            self._running.discard(address)

    async def _line(self, match_id: str) -> bytes | None:
        """One match's sealed record as a line (None: it cannot be read any more), built
        off the event loop."""
        store = self.db.store
        stored = await self.db.read(store.load, match_id)
        if stored is None:
            return None
        salt = await self.db.read(store.salt, match_id)

        def build() -> bytes:
            assert stored is not None
            record = build_match(stored).to_record()
            if salt is not None and "seed" in record:
                record = seal(record, salt, stored.deal_scheme)
            text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
            return (text + "\n").encode()

        return await asyncio.to_thread(build)
