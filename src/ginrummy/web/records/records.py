"""What anyone may read of a match, and a player's own record.

* :meth:`Records.record`: the ``ginrummy/1`` record, the whole match once finished (sealed
  with its salt, commitment and deal scheme, so ``ginrummy verify`` checks every deal);
  before that only the hands the rules have shown both players (R11).
* :meth:`Records.replay`: a finished match step by step, both hands shown (built once,
  off the event loop, and cached: :mod:`.replays`).
* :meth:`Records.fairness`: the commitment from the start; the seed and salt once over.
* :meth:`Records.player_record`: this browser's finished matches summed up (wins by level,
  gins, undercuts, points per hand, longest winning streak); :meth:`Records.account_record`
  the same for an account's matches, on any device.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from ...fairness import commitment, seal
from ...hand import HandResult
from ...i18n import N_, t
from ...match import Match
from ..backends.database import Database
from ..checks import check_tokens
from ..errors import TableError
from ..store import StoredMatch, hash_token
from ..tables.table import Table, build_match
from .replays import ReplayCache

__all__ = ["MAX_RECORD_TOKENS", "Records", "match_stats", "summarize", "takewhile_revealed"]

MAX_RECORD_TOKENS = 200


class Records:
    """Records, replays, fairness proofs and players' records (see the module docstring)."""

    def __init__(self, db: Database, replays: ReplayCache | None = None,
                 stats_cache: int = 20000) -> None:
        self.db = db
        self.replays = replays if replays is not None else ReplayCache()
        self.stats_cache = stats_cache
        self._stats: OrderedDict[str, dict[int, dict[str, Any]]] = OrderedDict()
        """Each finished match's row per seat (a finished match never changes): a player's
        record replays only the matches it has not seen yet."""
        self.withheld: Callable[[str], Awaitable[str | None]] | None = None
        """Why a match's deals must stay hidden for now, or None (the daily deal's, until
        its day is over: its record, replay and seed would tell the day's deals)."""

    async def _refuse_withheld(self, t: Table) -> str | None:
        """The sentence saying why this match's deals are withheld, if they are."""
        return await self.withheld(t.id) if self.withheld is not None else None

    async def record(self, t: Table) -> dict[str, Any]:
        """The ``ginrummy/1`` record: the whole match once finished (with its fairness
        members). Before that it shows no hand the rules never revealed (R11): no seed (it
        would tell the deals to come), no hand in play, and no dead hand (R7 shows neither
        hand); a record is a prefix of the match, so it stops at the first dead hand. A
        withheld match's record (:attr:`withheld`) is refused (409) until it opens."""
        why = await self._refuse_withheld(t)
        if why is not None:
            raise TableError(409, why)
        async with t.lock:
            rec = t.match.to_record()
            over = t.match.is_over()
            if not over:
                rec.pop("seed", None)
                rec["hands"] = list(
                    takewhile_revealed(rec["hands"], [h.result for h in t.match.hands])
                )
        if over and "seed" in rec:
            salt = await self.db.read(self.db.store.salt, t.id)
            if salt is not None:
                rec = seal(rec, salt, t.stored.deal_scheme)
        return rec

    async def replay(self, t: Table, step: int | None) -> dict[str, Any]:
        """The whole table at one step of a finished match (both hands shown); refused
        (409) while the match is withheld."""
        why = await self._refuse_withheld(t)
        if why is not None:
            raise TableError(409, why)
        async with t.lock:
            if not t.match.is_over():
                raise TableError(409, N_("The replay opens once the match is finished."))
            rec = t.match.to_record()
            outcome = t.match.outcome()
            sm = t.stored
        hands = [[(a["seat"], {k: v for k, v in a.items() if k != "seat"})
                  for a in h["actions"]] for h in rec["hands"]]
        frames = await self.replays.frames(
            sm.id, sm.options, sm.seed, sm.first_dealer, list(sm.players), hands,
            sm.deal_scheme,
        )
        last = len(frames) - 1
        if step is None:
            step = 0
        if step < 0 or step > last:
            raise TableError(400, _step_refused(last))
        out = dict(frames[step])  # (the cached frames are shared: add to a copy)
        ending = outcome if step == last else None  # told at the last step only
        out["end"] = ending.end if ending else None
        out["ended_by"] = ending.by if ending else None
        out["winner"] = ending.winner if ending else None
        return out

    async def fairness(self, t: Table) -> dict[str, Any]:
        """``GET .../fairness``: the commitment from the start; the seed and salt (and the
        scheme the deals follow) once the match is over, never before (R11: they would
        tell the deals to come). A withheld match shows its commitment only, and
        ``withheld``: why."""
        over = t.match.is_over()
        salt = await self.db.read(self.db.store.salt, t.id)
        if salt is None:
            return {"commitment": None, "deal_scheme": None, "seed": None, "seed_text": None,
                    "salt": None, "over": over}
        why = await self._refuse_withheld(t)
        if why is not None:
            return {"commitment": commitment(t.stored.seed, salt),
                    "deal_scheme": t.stored.deal_scheme, "seed": None, "seed_text": None,
                    "salt": None, "over": over, "withheld": _said(why)}
        return {
            "commitment": commitment(t.stored.seed, salt),
            "deal_scheme": t.stored.deal_scheme,
            "seed": t.stored.seed if over else None,
            "seed_text": str(t.stored.seed) if over else None,  # exact in JavaScript too
            "salt": salt if over else None,
            "over": over,
        }

    async def player_record(self, body: Any) -> dict[str, Any]:
        """``POST /api/record``: ``{"tokens": [...]}`` (this browser's seats) -> the
        finished matches they sat at, oldest first, and their totals (:func:`summarize`)."""
        return await self._record(await self._token_seats(body))

    async def account_record(self, account_id: str, body: Any) -> dict[str, Any]:
        """``POST /api/me/record``: the same for the account's seats (its latest
        :data:`MAX_RECORD_TOKENS` matches, on any device) and, with ``{"tokens": [...]}``,
        this browser's seats too (each seat counted once)."""
        store = self.db.store
        seats = await self.db.read(store.accounts.seats_of, account_id, MAX_RECORD_TOKENS)
        rows = {sm.id: sm for sm in await self.db.read(store.find_by_ids,
                                                          [mid for mid, _ in seats])}
        mine = [(rows[mid], seat) for mid, seat in seats if mid in rows]
        if body is not None:
            held = {(sm.id, seat) for sm, seat in mine}
            mine += [(sm, seat) for sm, seat in await self._token_seats(body)
                     if (sm.id, seat) not in held]
        return await self._record(mine)

    async def _token_seats(self, body: Any) -> list[tuple[StoredMatch, int]]:
        """The (match, seat) pairs the ``{"tokens": [...]}`` of ``body`` hold."""
        tokens = check_tokens(body, MAX_RECORD_TOKENS)
        hashes = {hash_token(x) for x in tokens}
        found = await self.db.read(self.db.store.find_by_token_hashes, list(hashes))
        return [(sm, seat) for sm in found for seat in (0, 1) if sm.token_hash(seat) in hashes]

    async def _record(self, seats: list[tuple[StoredMatch, int]]) -> dict[str, Any]:
        """The finished matches among these (match, seat) pairs from each seat's side,
        oldest first, and their totals."""
        store = self.db.store
        finished = list({sm.id: sm for sm, _ in seats if sm.status == "finished"}.values())
        for sm in finished:
            if sm.id not in self._stats:
                full = await self.db.read(store.load, sm.id)
                if full is not None:
                    self._stats[sm.id] = await asyncio.to_thread(_seat_rows, full)
            else:
                self._stats.move_to_end(sm.id)
        while len(self._stats) > self.stats_cache:
            self._stats.popitem(last=False)
        rows = [dict(self._stats[sm.id][seat]) for sm, seat in seats
                if sm.status == "finished" and sm.id in self._stats]
        rows.sort(key=lambda r: float(r["finished_at"]))
        return {"matches": rows, "summary": summarize(rows)}


def _said(sentence: str) -> str:
    """A sentence marked with ``N_``, in the language of the moment."""
    return t(sentence)


def _step_refused(last: int) -> str:
    """The refusal of a replay step outside ``0..last``."""
    return t("The step must be from 0 to {last}.", last=str(last))


def _seat_rows(full: StoredMatch) -> dict[int, dict[str, Any]]:
    """Both seats' rows of a finished match, for a player's record (replaying the match:
    done off the event loop)."""
    m = build_match(full)
    level = full.bot_level if full.opponent == "computer" else "friend"
    return {seat: {"id": full.id, "seat": seat, "opponent": full.opponent,
                   "level": level or "computer", "players": full.players,
                   "finished_at": full.updated_at, **match_stats(m, seat)}
            for seat in (0, 1)}


def takewhile_revealed(
    hands: list[dict[str, Any]], results: list[HandResult | None]
) -> Iterator[dict[str, Any]]:
    """The record's hands up to (not including) the first that is not over or ended dead
    (R7): those are the hands whose cards the rules have shown both players."""
    for h, r in zip(hands, results, strict=True):
        if r is None or r.result == "dead":
            return
        yield h


def match_stats(m: Match, seat: int) -> dict[str, Any]:
    """One finished match from ``seat``'s side: won, tied or aborted (no result: never a
    tie), points, hands, gins and undercuts scored (R9)."""
    hands = [r for r in m.results() if r is not None]
    mine = [r for r in hands if r.scorer == seat]
    outcome = m.outcome()
    winner = outcome.winner if outcome else None
    aborted = outcome is not None and outcome.end == "aborted"
    return {
        "won": winner == seat,
        "tie": outcome is not None and winner is None and not aborted,
        "aborted": aborted,
        "points": m.scores[seat],
        "against": m.scores[1 - seat],
        "hands": len(hands),
        "gins": sum(1 for r in mine if r.result == "gin"),
        "undercuts": sum(1 for r in mine if r.result == "undercut"),
        "knocks": sum(1 for r in hands if r.knocker == seat and r.result != "gin"),
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over finished matches in time order (oldest first): wins by opponent level,
    gins, undercuts, average points per hand, longest and current winning streak. An
    aborted match has no result (as on lichess): it is counted apart (``aborted``), in
    no other total, and leaves the streak as it was.

    >>> r = [{"level": "easy", "won": True, "tie": False, "points": 100, "hands": 4,
    ...       "gins": 1, "undercuts": 0},
    ...      {"level": "easy", "won": False, "tie": False, "points": 20, "hands": 6,
    ...       "gins": 0, "undercuts": 1}]
    >>> s = summarize(r)
    >>> s["by_level"]["easy"], s["points_per_hand"], s["longest_streak"]
    ({'played': 2, 'won': 1, 'lost': 1, 'tied': 0}, 12.0, 1)
    >>> summarize([{**r[0], "won": False, "tie": False, "aborted": True}])["played"]
    0
    """
    aborted = sum(1 for r in rows if r.get("aborted"))
    rows = [r for r in rows if not r.get("aborted")]
    by_level: dict[str, dict[str, int]] = {}
    streak = longest = 0
    for r in rows:
        b = by_level.setdefault(r["level"], {"played": 0, "won": 0, "lost": 0, "tied": 0})
        b["played"] += 1
        if r["won"]:
            b["won"] += 1
            streak += 1
            longest = max(longest, streak)
        else:
            b["tied" if r["tie"] else "lost"] += 1
            streak = 0
    hands = sum(r["hands"] for r in rows)
    return {
        "played": len(rows),
        "aborted": aborted,
        "won": sum(1 for r in rows if r["won"]),
        "by_level": by_level,
        "gins": sum(r["gins"] for r in rows),
        "undercuts": sum(r["undercuts"] for r in rows),
        "hands": hands,
        "points_per_hand": round(sum(r["points"] for r in rows) / hands, 2) if hands else None,
        "longest_streak": longest,
        "current_streak": streak,
    }
