"""Rated matches: both players' Glicko-2 ratings move when a rated match ends; the
leaderboard and each player's profile; the computer levels' published ratings.

**The hook.** :meth:`Ratings.after_commit` is registered with
:attr:`~.committer.Committer.after_commit`, which every change of a match goes through
(moves, ``next``, and any other ending committed the same way: resign, a clock's
timeout). Whenever the committed match has an outcome (``match.outcome()`` is not None),
the result is settled: a win scores 1, a tie (the hand limit) 0.5, and an ending named
``aborted`` (no winner, ``outcome.reason`` ``"aborted"``: any ending before both players
moved is one) settles the match with no change. What a result moves follows
:mod:`.fairplay` (capped against provisional opponents and between two players from one
address or browser, however the match was made; a pair's repeated results within a day
move nothing), and a seat that aborted or left a rated match is recorded there for the
waits, which :func:`check_wait` and :func:`waits` enforce wherever a rated match is made
(seeks, challenges, arenas). Settling is one transaction that
applies the result at most once (:meth:`~.store.accounts.AccountStore.settle`); a scan
every ``scan_seconds`` settles rated matches that finished while their committing process
stopped before it could.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from ...i18n import N_
from ...match import Outcome, Termination
from ...ratings import SETTLED_DEVIATION
from ..backends.database import Database
from ..errors import TableError
from ..store.accounts import Account
from ..tables.registry import TableRegistry
from ..tables.table import Table
from .fairplay import (
    OFFENCE_WINDOW,
    PAIR_WINDOW,
    REPEATED,
    rated_result,
    wait_seconds,
    wait_sentence,
)

__all__ = ["BOT_RATINGS", "PLAY_RATED", "Ratings", "check_wait", "offence_of", "score_of",
           "waits"]

log = logging.getLogger("ginrummy.web")

BOT_RATINGS: dict[str, int] = {
    "easy": 910,
    "medium": 1500,
    "hard": 1680,
}
"""Each computer level's published rating on the players' scale, fitted from the levels'
results against each other by ``scripts/bot_ratings.py --matches 400 --hard-matches 300
--seed 31`` (medium anchored at 1500; the script's docstring has what it measured): good
to about fifty points."""


def score_of(outcome: Outcome) -> float | None:
    """Seat 0's score in a finished match: 1 win, 0 loss, 0.5 tie; None for an aborted
    match (no result, no rating change)."""
    if outcome.reason is Termination.ABORTED:
        return None
    if outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner == 0 else 0.0


def offence_of(outcome: Outcome) -> tuple[int, str] | None:
    """(seat, kind) of a seat that aborted (``aborted``) or left, losing on its clock
    (``left``), if the match ended so; None for every other ending."""
    if outcome.by is None:
        return None
    if outcome.reason is Termination.ABORTED:
        return outcome.by, "aborted"
    if outcome.reason is Termination.TIMEOUT:
        return outcome.by, "left"
    return None


PLAY_RATED = "play a rated match"
"""What a player waiting after aborting may not do yet, in the sentence of a refused
challenge or arena (a seek's sentence says "seek a rated match")."""


async def check_wait(db: Database, account: Account, doing: str = PLAY_RATED) -> None:
    """429 with the wait in the sentence (and ``"wait"``, in seconds) while ``account``
    must still wait after aborting or leaving rated matches (:func:`.fairplay.wait_seconds`):
    the one rule for every way a rated match is made, so a wait kept from rated seeks also
    keeps the account from rated challenges and rated arenas."""
    now = time.time()
    times = await db.read(db.store.accounts.offences, account.id, now - OFFENCE_WINDOW)
    wait = wait_seconds(times, now)
    if wait > 0:
        e = TableError(429, wait_sentence(len(times), wait, doing))
        e.extra["wait"] = round(wait)
        raise e


async def waits(db: Database, account_ids: list[str], now: float) -> dict[str, float]:
    """The seconds each of these accounts must still wait before a rated match (absent:
    none), read at once: a rated arena pairs none of its players that must wait."""
    offences = await db.read(db.store.accounts.offences_of, account_ids, now - OFFENCE_WINDOW)
    out = {a: wait_seconds(times, now) for a, times in offences.items()}
    return {a: w for a, w in out.items() if w > 0}


class Ratings:
    """Settling rated matches, the leaderboard and profiles (see the module docstring)."""

    def __init__(self, db: Database, registry: TableRegistry,
                 scan_seconds: float = 30.0) -> None:
        self.db = db
        self.registry = registry
        self.scan_seconds = scan_seconds
        self._tasks: set[asyncio.Task[None]] = set()
        self.level_ratings: Callable[[], Awaitable[dict[str, int]]] | None = None
        """The computer levels' ratings now (their BOT accounts'); None: the published
        :data:`BOT_RATINGS`."""
        self.level_ids: list[str] = []
        """The computer levels' account ids (set by the site): not on the bots' ladder."""

    async def _bots(self) -> dict[str, int]:
        """The computer levels' ratings (what ``bots`` shows)."""
        if self.level_ratings is None:
            return dict(BOT_RATINGS)
        return await self.level_ratings()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def after_commit(self, t: Table) -> None:
        """The committer's listener: a match just committed with an outcome is settled."""
        outcome = t.match.outcome()
        if outcome is not None:
            self._spawn(self._settle_quietly(t.id, outcome))

    async def settled(self) -> None:
        """Wait for the settling started by commits so far (a match's ratings and
        offences are written just after its last commit, not before it is answered)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _settle_quietly(self, match_id: str, outcome: Outcome) -> None:
        await self.settle(match_id, outcome)

    async def settle(self, match_id: str, outcome: Outcome) -> bool:
        """Apply a finished match's result to its players' ratings if it is rated and not
        settled yet; whether it was applied now."""
        try:
            done = await self.db.run(self.db.store.accounts.settle, match_id,
                                     score_of(outcome), rated_result, PAIR_WINDOW,
                                     offence_of(outcome))
            log.info("match %s settled: %s", match_id, done)
            return done
        except TableError as e:
            log.warning("rating of match %s not settled yet: %s", match_id, e.message)
            return False

    async def scan(self) -> int:
        """Settle rated matches left finished but unsettled; how many were settled."""
        n = 0
        for mid in await self.db.read(self.db.store.accounts.unsettled):
            with contextlib.suppress(TableError):
                t = await self.registry.get(mid)
                outcome = t.match.outcome()
                if outcome is not None and await self.settle(mid, outcome):
                    n += 1
        return n

    async def scan_forever(self) -> None:
        """:meth:`scan` every ``scan_seconds``."""
        while True:
            await asyncio.sleep(self.scan_seconds)
            try:
                await self.scan()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - try again at the next scan
                log.exception("rating scan failed")

    # ------------------------------------------------------------------ reads

    async def leaderboard(self, limit: int = 100) -> dict[str, Any]:
        """``GET /api/leaderboard``: accounts with a settled deviation, best first, and
        the computer levels' ratings."""
        rows = await self.db.read(self.db.store.accounts.leaderboard, SETTLED_DEVIATION, limit)
        return {
            "players": [{"rank": i + 1, "username": a.username, "rating": round(a.rating.rating),
                         "deviation": round(a.rating.deviation), "matches": a.rated_matches,
                         "bot": a.bot}
                        for i, a in enumerate(rows)],
            "settled_deviation": SETTLED_DEVIATION,
            "bots": await self._bots(),
        }

    async def bot_ladder(self, limit: int = 100) -> dict[str, Any]:
        """``GET /api/leaderboard/bots``: the programs playing on the site (BOT accounts
        with a rated match), best rating first, with their rated records, and the computer
        levels' ratings beside them as the yardstick; a bot whose deviation is not yet
        settled is ``provisional`` (as on lichess: its rating is a first guess)."""
        rows = await self.db.read(self.db.store.accounts.bot_ladder, limit, self.level_ids)
        return {
            "bots": [{"rank": i + 1, "username": a.username, "rating": round(a.rating.rating),
                      "deviation": round(a.rating.deviation),
                      "provisional": a.rating.deviation > SETTLED_DEVIATION,
                      "matches": a.rated_matches, **r}
                     for i, (a, r) in enumerate(rows)],
            "levels": await self._bots(),
            "settled_deviation": SETTLED_DEVIATION,
        }

    async def profile(self, username: Any, viewer: str | None = None) -> dict[str, Any]:
        """``GET /api/players/{username}``: rating, deviation, volatility, matches (how
        many), the rating ``history``, the record by opponent and recent matches (as
        ``viewer``, an account id or None, may see them: no private match it did not
        play), each told from the profile's side."""
        store = self.db.store.accounts
        if not isinstance(username, str) or not 0 < len(username) <= 40:
            raise TableError(404, N_("No player has that username."))
        rows = await self.db.read(store.profile, username.casefold(), 200, 20, viewer)
        if rows is None:
            raise TableError(404, N_("No player has that username."))
        acct = rows["account"]
        history, record, recent, played = (rows["history"], rows["record"], rows["recent"],
                                           rows["matches"])
        ids = {h["opponent"] for h in history} | {r["opponent"] for r in record}
        for m in recent:
            ids |= {a for a in m["accounts"] if a}
        others = await self.db.read(store.by_ids, sorted(ids))
        names = {k: a.username for k, a in others.items()}
        bot_ids = {k for k, a in others.items() if a.bot}
        for h in history:
            h["opponent"] = names.get(h["opponent"], "?")
            h["rating"] = round(h["rating"], 1)
            h["deviation"] = round(h["deviation"], 1)
        for r in record:
            r["bot"] = r["opponent"] in bot_ids
            r["opponent"] = names.get(r["opponent"], "?")
        out_recent = [_recent_item(m, names)
                      | {"opponent_bot": (m["accounts"][1 - m["seat"]] in bot_ids
                                          or m["bots"][1 - m["seat"]])}
                      for m in recent]
        rating = acct.rating
        return {
            "username": acct.username,
            "bot": acct.bot,
            "mark": acct.mark,
            "program": acct.program,
            "rating": round(rating.rating, 1),
            "deviation": round(rating.deviation, 1),
            "volatility": round(rating.volatility, 6),
            "matches": played,
            "rated_matches": acct.rated_matches,
            "settled": rating.deviation <= SETTLED_DEVIATION,
            "history": history,
            "record": record,
            "recent": out_recent,
            "bots": await self._bots(),
        }


def _recent_item(m: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """One recent match as the profile shows it, from the profile's own seat: ``result``
    (win, loss, tie or aborted; null while playing), ``scores`` (the profile's first),
    ``rated`` (only if it counts: not an aborted match) and ``note`` (why a rated match
    moved no rating)."""
    seat = m["seat"]
    aborted = m["end"] == "aborted"
    result = None
    if m["status"] == "finished":
        result = ("aborted" if aborted else "tie" if m["winner"] is None
                  else "win" if m["winner"] == seat else "loss")
    note = "not rated: repeated pairing" if m["note"] == REPEATED else None
    return {
        "id": m["id"], "opponent": _other_name(m, seat, names),
        "rated": m["rated"] and not aborted and m["note"] is None,
        "status": m["status"], "result": result, "note": note,
        "scores": [m["scores"][seat], m["scores"][1 - seat]],
        "updated_at": m["updated_at"],
        "replay": f"/api/matches/{m['id']}/replay",
        "review": f"/review/{m['id']}", "watch": f"/watch/{m['id']}",
    }


def _other_name(m: dict[str, Any], seat: int, names: dict[str, str]) -> str:
    """The opponent's username (an account) or the name shown at the table (a guest)."""
    other = m["accounts"][1 - seat]
    if other and other in names:
        return names[other]
    players = json.loads(m["players"]) if isinstance(m["players"], str) else m["players"]
    return str(players[1 - seat])
