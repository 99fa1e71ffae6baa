"""The daily deal: every UTC day one secret seed, the same deals for everyone in the same
seat, played once per account against the ``hard`` level for :data:`HANDS` hands, ranked
by points margin (scores then compare like duplicate bridge).

**Provably fair.** The day's seed and salt are made by :mod:`ginrummy.fairness` (the one
dealer) the first time anyone asks for the day (``GET /api/daily`` shows the SHA-256
commitment from the first minute of the day), stored once for every process, and every
daily match of that day is dealt from them: each match's own commitment *is* the day's.
The seed and salt open the next day (``GET /api/daily/{date}``), and from then on each
daily record is sealed with them, so ``ginrummy verify`` passes every one against the
commitment published the day before. Until then nothing that would tell the deals is
shown: a daily match's record, replay and seed are withheld (:meth:`Daily.withheld`),
no hint is given, and the matches are not public.

**The match.** The player sits at seat 0 against the ``hard`` level (the server's
computer seat, linked to the level's BOT account like a challenge; casual: a fixed deal
is no rating test), to a target of :data:`TARGET` so that the match is its
:data:`HANDS` hands (``Options.hands``; the record's ``end`` is ``hand-cap``; dead hands
count, and after one the same dealer deals again, R7). Everyone gets hand ``i`` of the
day's seed as hand ``i``, in the same seat.

**The leaderboard** ranks the day's finished daily matches by the player's points minus
the computer's (``margin``); a match the player resigned or lost on time ranks below
every match played out (``forfeit``), and an aborted one is not ranked, nor one still in
play at 00:00 UTC (the seed opens then). Each account plays
once a day, whatever the result: an abort spends the day's play too.

**Today.** :attr:`Daily.today` gives the UTC date; tests move it to open a day's seed.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections.abc import Callable
from typing import Any

from ...fairness import DEAL_SCHEME, commitment, new_salt, new_seed
from ..backends.database import Database
from ..errors import TableError
from ..store.accounts import Account
from ..store.daily import DailyResult, DailySeed
from ..tables.lobby import Lobby
from .ladder import level_id
from .seeks import match_object

__all__ = ["HANDS", "LEVEL", "TARGET", "Daily", "utc_today"]

HANDS = 3
"""Hands in a daily match."""
LEVEL = "hard"
"""The computer level everyone plays."""
TARGET = 250
"""The daily match's target: high enough that its hands, not a score, end it."""

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
WITHHELD = ("The daily deal's records, replays and seed open at 00:00 UTC after its day, "
            "when its seed is published.")


def utc_today() -> dt.date:
    """Today's date in UTC."""
    return dt.datetime.now(dt.UTC).date()


def _opens_at(day: dt.date) -> float:
    """When a day's seed opens: the next midnight, UTC (Unix seconds)."""
    nxt = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.UTC)
    return nxt.timestamp()


def margin_of(r: DailyResult) -> int:
    """The player's points minus the computer's."""
    return r.scores[0] - r.scores[1]


class Daily:
    """The daily deal (see the module docstring)."""

    def __init__(self, db: Database, lobby: Lobby) -> None:
        self.db = db
        self.lobby = lobby
        self.today: Callable[[], dt.date] = utc_today
        """Today's date (UTC); tests move it."""

    async def _seed(self, day: dt.date) -> DailySeed:
        """Today's seed, made now if nobody has asked for it yet (once for every
        process: the database keeps the first one stored)."""
        text = day.isoformat()
        stored = await self.db.read(self.db.store.daily.seed, text)
        if stored is not None:
            return stored
        seed, salt = new_seed(), new_salt()
        made = DailySeed(text, seed, salt, commitment(seed, salt), secrets.randbelow(2))
        return await self.db.run(self.db.store.daily.make_seed, made)

    def _day(self, text: str | None) -> dt.date:
        """The day asked for (today by default); 404 for a malformed date or one not
        dealt yet."""
        today = self.today()
        if text is None:
            return today
        try:
            if not _DATE.fullmatch(text):
                raise ValueError
            day = dt.date.fromisoformat(text)
        except ValueError:
            raise TableError(404, "A daily deal is named by its date, YYYY-MM-DD (UTC).") \
                from None
        if day > today:
            raise TableError(404, f"The daily deal of {text} is not dealt yet: each day's "
                             "opens at 00:00 UTC.")
        return day

    async def show(self, date_text: str | None, account: Account | None) -> dict[str, Any]:
        """``GET /api/daily`` (today) and ``GET /api/daily/{date}`` (an earlier day, its
        seed and salt open): the commitment, the hands, the leaderboard and, for a
        signed-in player, ``me``."""
        day = self._day(date_text)
        is_today = day == self.today()
        if is_today:
            seed = await self._seed(day)
        else:
            found = await self.db.read(self.db.store.daily.seed, day.isoformat())
            if found is None:
                raise TableError(404, f"No daily deal was dealt on {day.isoformat()}.")
            seed = found
        text = day.isoformat()
        results = await self.db.read(self.db.store.daily.results, text)
        out: dict[str, Any] = {
            "date": text, "commitment": seed.commitment, "hands": HANDS, "level": LEVEL,
            "target": TARGET, "deal_scheme": DEAL_SCHEME, "open": not is_today,
            "opens_at": _opens_at(day),
            "seed": None if is_today else seed.seed,
            "seed_text": None if is_today else str(seed.seed),
            "salt": None if is_today else seed.salt,
            "players": await self.db.read(self.db.store.daily.counts, text),
            "leaderboard": leaderboard(results, _opens_at(day)),
        }
        if account is not None:
            mid = await self.db.read(self.db.store.daily.play_of, text, account.id)
            out["me"] = {"played": mid is not None,
                         "match": {"id": mid, "seat": 0, "url": f"/play/{mid}"}
                         if mid is not None else None}
        return out

    async def play(self, account: Account) -> dict[str, Any]:
        """``POST /api/daily/play``: today's daily match for this account, once a day;
        the match object (``id``, ``seat``, ``token``, ``url``, also under ``match``)."""
        day = self.today()
        seed = await self._seed(day)
        text = day.isoformat()
        store = self.db.store.daily
        if not await self.db.run(store.claim, text, account.id, dt.datetime.now(dt.UTC)
                                 .timestamp()):
            raise TableError(409, "You have already played today's daily deal: the next "
                             "one is dealt at 00:00 UTC.")
        try:
            created = await self.lobby.create(
                {"opponent": "computer", "bot": LEVEL, "name": account.username,
                 "options": {"target": TARGET}},
                deal=(seed.seed, seed.salt, seed.first_dealer), hands=HANDS,
                bot_seats=(account.bot, True))
            mid = str(created["id"])
            await self.db.run(self.db.store.accounts.link, mid,
                              (account.id, level_id(LEVEL)), False, False)
            await self.db.run(store.started, text, account.id, mid)
        except BaseException:
            await self.db.run(store.unclaim, text, account.id)
            raise
        match = match_object(mid, 0, str(created["token"]))
        return {**match, "match": match, "date": text, "commitment": seed.commitment,
                "hands": HANDS}

    async def withheld(self, match_id: str) -> str | None:
        """Why a match's deals are withheld now: a daily match before its day is over
        (its record, replay and seed would tell everyone the day's deals); None for any
        other match."""
        day = await self.db.read(self.db.store.daily.day_of, match_id)
        if day is None or day < self.today().isoformat():
            return None
        return WITHHELD

    async def no_hints(self, match_id: str) -> str | None:
        """Why a match gets no hints: a daily match (everyone plays it alone)."""
        if await self.db.read(self.db.store.daily.day_of, match_id) is None:
            return None
        return "The daily deal is played without hints: everyone plays it alone."


def leaderboard(results: list[DailyResult], closes_at: float) -> list[dict[str, Any]]:
    """The day's finished daily matches ranked: played out by margin (best first, then
    the earlier), then forfeits (resigned or lost on time) by margin; aborted ones left
    out, and so are those that ended at ``closes_at`` or later (the day's seed was open
    by then: their players could have read the deals to come)."""
    counted = [r for r in results if r.end != "aborted" and r.updated_at < closes_at]

    def forfeit(r: DailyResult) -> bool:
        return r.end in ("resigned", "timeout")

    counted.sort(key=lambda r: (forfeit(r), -margin_of(r), r.updated_at))
    return [{"rank": i + 1, "username": r.username, "bot": r.bot, "margin": margin_of(r),
             "match": r.match_id, "scores": list(r.scores), "end": r.end,
             "forfeit": forfeit(r)}
            for i, r in enumerate(counted)]
