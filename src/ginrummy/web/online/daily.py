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
shown: a daily match's record, replay, review and seed are withheld (:meth:`Daily.withheld`,
:meth:`Daily.review_closed`), no hint is given (:mod:`.coaching`), and the matches are not
public.

**The match.** The player sits at seat 0 against the ``hard`` level (the server's
computer seat, linked to the level's BOT account like a challenge; casual: a fixed deal
is no rating test), to a target of :data:`TARGET` so that the match is its
:data:`HANDS` hands (``Options.hands``; the record's ``end`` is ``hand-cap``; dead hands
count, and after one the same dealer deals again, R7). Everyone gets hand ``i`` of the
day's seed as hand ``i``, in the same seat.

**Who plays.** An established account (:class:`Entry`: by default at least
:data:`ENTRY_DAYS` days old with at least :data:`ENTRY_RATED` finished rated matches),
never a BOT account: a fresh account made to scout the day's deals is refused. Each
match's computer draws its choices for that match alone
(:func:`ginrummy.web.computer.turns.position_seed`: the day's secret seed with the match's
id), so a second account replaying a first one's moves does not meet the same table; the
deals stay the same for everyone.

**Suspicious results.** A result far beyond what the account's rating predicts (the
day's best margin, ahead of at least :data:`FLAG_FIELD` other players, from an account
rated at least :data:`FLAG_GAP` points below the Hard computer) is flagged for the
moderators (:func:`suspicion`): a flag is for a person to judge, never a ban.

**The leaderboard** ranks the day's finished daily matches by the player's points minus
the computer's (``margin``); a match the player resigned or lost on time ranks below
every match played out (``forfeit``), and an aborted one is not ranked, nor one still in
play at 00:00 UTC (the seed opens then). Each account plays
once a day, whatever the result: an abort spends the day's play too.

**Today.** :attr:`Daily.today` gives the UTC date; tests move it to open a day's seed.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import math
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...fairness import DEAL_SCHEME, commitment, new_salt, new_seed
from ...i18n import N_, t, tn
from ..backends.database import Database
from ..errors import TableError
from ..guard import Settings
from ..store.accounts import Account
from ..store.daily import DailyResult, DailySeed
from ..tables.lobby import Lobby
from ..tables.table import Table
from .ladder import level_id
from .seeks import match_object

__all__ = ["BOT_DAILY", "ENTRY_DAYS", "ENTRY_RATED", "FLAG_FIELD", "FLAG_GAP", "HANDS",
           "LEVEL", "TARGET", "Daily", "Entry", "suspicion", "utc_today"]

log = logging.getLogger("ginrummy.web")

HANDS = 3
"""Hands in a daily match."""
LEVEL = "hard"
"""The computer level everyone plays."""
TARGET = 250
"""The daily match's target: high enough that its hands, not a score, end it."""

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
WITHHELD = N_("The daily deal's records, replays and seed open at 00:00 UTC after its day, "
              "when its seed is published.")
REVIEW_CLOSED = N_("The daily deal's reviews open at 00:00 UTC after its day, with its "
                   "records: until then they would tell the day's deals.")
ENTRY_DAYS: float = Settings.daily_min_days
"""How old an account must be to play the daily deal (days; ``--daily-min-days``)."""
ENTRY_RATED: int = Settings.daily_min_rated
"""Finished rated matches an account needs to play the daily deal (``--daily-min-rated``)."""
FLAG_FIELD = 3
"""Other players' results of the day (played out) a result must top to be flagged."""
FLAG_GAP = 200.0
"""How far below the Hard computer's rating an account is rated for its best-of-the-day
result to be flagged: at 200 points its expected score against the computer is about 0.24,
so topping the day is far beyond what its rated play shows."""
NO_FIGURES = {"decisions": 0, "agree": 0, "loss": 0.0, "contested": 0, "contested_agree": 0}
"""The screening's figures of a flag the daily deal raises (it grades no decision)."""
DAY_SECONDS = 86400.0


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


BOT_DAILY = N_("A BOT account cannot play the daily deal: it is a contest between people, "
               "each playing the day's deal once.")
"""The refusal of a BOT account's ``POST /api/daily/play`` (with a token or a session)."""


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


@dataclass(frozen=True, slots=True)
class Entry:
    """Who may play the daily deal: an account at least ``days`` days old with at least
    ``rated`` finished rated matches (as lichess opens some events to established accounts
    only). The deals are the same for everyone all day, so a fresh account could play them
    first to learn them for another; this rule makes every such scout cost ``days`` days
    and ``rated`` rated matches. An operator may lower both (a new site has no established
    accounts yet)."""

    days: float = ENTRY_DAYS
    rated: int = ENTRY_RATED

    def refusal(self, account: Account, now: float) -> str | None:
        """Why ``account`` may not play the daily deal at ``now`` (one sentence saying what
        it still needs, in the language of the moment), or None when it may."""
        age = (now - account.created_at) / DAY_SECONDS
        days_left = math.ceil(self.days - age) if age < self.days else 0
        rated_left = max(0, self.rated - account.rated_matches)
        if days_left == 0 and rated_left == 0:
            return None
        # the counted words are said in the sentence's language, each with its own plural
        days = tn("{n} day", "{n} days", int(self.days)) if self.days == int(self.days) \
            else t("{n} days", n=format(self.days, "g"))
        matches = tn("{n} finished rated match", "{n} finished rated matches", self.rated)
        more_days = tn("{n} more day", "{n} more days", days_left)
        more_matches = tn("{n} more finished rated match", "{n} more finished rated matches",
                          rated_left)
        if days_left and rated_left:
            return t("The daily deal is for established accounts (at least {days} old, with "
                     "at least {matches}): yours needs {more_days} and {more_matches}.",
                     days=days, matches=matches, more_days=more_days,
                     more_matches=more_matches)
        if days_left:
            return t("The daily deal is for established accounts (at least {days} old, with "
                     "at least {matches}): yours needs {more_days}.",
                     days=days, matches=matches, more_days=more_days)
        return t("The daily deal is for established accounts (at least {days} old, with at "
                 "least {matches}): yours needs {more_matches}.",
                 days=days, matches=matches, more_matches=more_matches)

    def to_json(self) -> dict[str, Any]:
        """The rule as ``GET /api/daily`` shows it."""
        return {"days": self.days, "rated_matches": self.rated}


def suspicion(day: str, match_id: str, username: str, board: list[dict[str, Any]],
              rating: float, hard: float, field: int = FLAG_FIELD,
              gap: float = FLAG_GAP) -> str | None:
    """Why the daily result of ``match_id`` is flagged (a sentence starting "Daily deal:"),
    or None: it tops the day's ``board`` (:func:`leaderboard`), played out, ahead of at
    least ``field`` other played-out results, while its account's ``rating`` is at least
    ``gap`` below the Hard computer's (``hard``). Such a result is far beyond what the
    account's rated play predicts: what playing deals learned beforehand would give."""
    played = [e for e in board if not e["forfeit"]]
    if not played or played[0]["match"] != match_id or len(played) - 1 < field:
        return None
    if hard - rating < gap:
        return None
    margin = int(played[0]["margin"])
    return (f"Daily deal: {username}'s margin of {margin:+d} on {day} is the day's best, "
            f"ahead of {_count(len(played) - 1, 'other player', 'other players')}, from an "
            f"account rated {rating:.0f}, {hard - rating:.0f} points below the Hard computer "
            f"({hard:.0f}): far beyond what its rated play predicts, as playing deals learned "
            f"beforehand (on another account) would give.")


class Daily:
    """The daily deal (see the module docstring)."""

    def __init__(self, db: Database, lobby: Lobby, entry: Entry | None = None) -> None:
        self.db = db
        self.lobby = lobby
        self.entry = entry if entry is not None else Entry()
        """Who may play (:class:`Entry`); tests open it."""
        self.flag_field = FLAG_FIELD
        """Other results a flagged one must top (:func:`suspicion`); tests lower it."""
        self.today: Callable[[], dt.date] = utc_today
        """Today's date (UTC); tests move it."""
        self._tasks: set[asyncio.Task[None]] = set()

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
            raise TableError(404, N_("A daily deal is named by its date, YYYY-MM-DD "
                                     "(UTC).")) from None
        if day > today:
            raise TableError(404, t("The daily deal of {date} is not dealt yet: each day's "
                                    "opens at 00:00 UTC.", date=text))
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
                raise TableError(404, t("No daily deal was dealt on {date}.",
                                        date=day.isoformat()))
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
            "entry": self.entry.to_json(),
        }
        if account is not None:
            mid = await self.db.read(self.db.store.daily.play_of, text, account.id)
            out["me"] = {"played": mid is not None,
                         "match": {"id": mid, "seat": 0, "url": f"/play/{mid}"}
                         if mid is not None else None,
                         "refused": self.refusal(account) if is_today and mid is None
                         else None}
        return out

    def refusal(self, account: Account) -> str | None:
        """Why ``account`` may not play the daily deal (a BOT account, or one not yet
        established: :class:`Entry`), in the language of the moment, or None."""
        if account.bot:
            return t(BOT_DAILY)
        return self.entry.refusal(account, time.time())

    async def play(self, account: Account) -> dict[str, Any]:
        """``POST /api/daily/play``: today's daily match for this account, once a day;
        the match object (``id``, ``seat``, ``token``, ``url``, also under ``match``). A
        BOT account is refused (403): the daily deal is a contest of people; so is an
        account not yet established (:class:`Entry`), with what it still needs."""
        why = self.refusal(account)
        if why is not None:
            raise TableError(403, why)
        day = self.today()
        seed = await self._seed(day)
        text = day.isoformat()
        store = self.db.store.daily
        if not await self.db.run(store.claim, text, account.id, dt.datetime.now(dt.UTC)
                                 .timestamp()):
            raise TableError(409, N_("You have already played today's daily deal: the "
                                     "next one is dealt at 00:00 UTC."))
        try:
            created = await self.lobby.create(
                {"opponent": "computer", "bot": LEVEL, "name": account.username,
                 "options": {"target": TARGET}},
                deal=(seed.seed, seed.salt, seed.first_dealer), hands=HANDS,
                bot_seats=(account.program, True), no_coach=True)
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

    async def review_closed(self, match_id: str) -> str | None:
        """Why a daily match's review is closed: its day is not over (the review would
        tell the day's deals); None for any other match."""
        if await self.withheld(match_id) is None:
            return None
        return REVIEW_CLOSED

    def match_over(self, t: Table) -> None:
        """The committer's listener: a match just ended here; if it is a daily match,
        judge its result (:meth:`judge`) in the background."""
        if t.stored.opponent != "computer":
            return
        task = asyncio.get_running_loop().create_task(self._judge_quietly(t.id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _judge_quietly(self, match_id: str) -> None:
        try:
            await self.judge(match_id)
        except TableError as e:
            log.warning("daily result of match %s not judged: %s", match_id, e.message)

    async def judge(self, match_id: str) -> str | None:
        """Flag the account of the finished daily match ``match_id`` for the moderators
        when its result is suspicious (:func:`suspicion`); the flag's reason, or None
        (not a daily match, or nothing suspicious). An open flag (from the screening)
        keeps its figures and matches: this reason comes first, the old one after it."""
        store = self.db.store
        day = await self.db.read(store.daily.day_of, match_id)
        if day is None:
            return None
        links = await self.db.read(store.accounts.links, [match_id])
        link = links.get(match_id)
        if link is None or link.accounts[0] is None:
            return None
        acct_id = link.accounts[0]
        accts = await self.db.read(store.accounts.by_ids, [acct_id, level_id(LEVEL)])
        acct, hard = accts.get(acct_id), accts.get(level_id(LEVEL))
        if acct is None or hard is None:
            return None
        results = await self.db.read(store.daily.results, day)
        board = leaderboard(results, _opens_at(dt.date.fromisoformat(day)))
        reason = suspicion(day, match_id, acct.username, board, acct.rating.rating,
                           hard.rating.rating, self.flag_field)
        if reason is None:
            return None
        fp = store.fairplay
        old = await self.db.read(fp.flag_of, acct_id)
        figures: dict[str, Any] = dict(NO_FIGURES)
        matches = [match_id]
        if old is not None and old.status == "open":
            if match_id in old.matches and old.reason.startswith(reason):
                return reason  # flagged for this result already
            figures = dict(old.figures)
            matches += [m for m in old.matches if m != match_id]
            reason = f"{reason} Also open: {old.reason}"
        await self.db.run(fp.flag, acct_id, reason, figures, matches, time.time())
        log.info("account %s flagged: %s", acct_id, reason)
        return reason


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
