"""Arena tournaments: anyone signed in makes one (a name, how many minutes it runs, the
table's clock and target, rated or casual); players join and withdraw; its creator starts
it; from then until its time is up, every player free to play is paired at once with a
free player of near score and rating (:mod:`.standings`: scoring with lichess's streaks,
and the pairing rule), and its matches are quick-match tables like any other (clocked,
public, rated when the arena is).

**The database is the one truth.** Nothing of an arena lives in a process: the players,
their current matches and the arena's matches are rows, and the scores follow from those
matches' endings (:meth:`~.store.arenas.ArenaStore.snapshot`). A player is taken for a
pairing by conditional updates in one transaction, and the match is named, recorded and
linked to both accounts in another, only while that take is still the caller's; a take
whose process died (kill -9) reads as free again after
:data:`~.store.arenas.TAKE_SECONDS`, and the match it may have made is then never
recorded (it has no accounts: nothing is scored or rated). So any number of processes
pair the same arena, and pairing simply stops while the database is away (every step is
refused at once; nothing is half done).

**Who pairs.** The process that commits a match's ending hears of it
(:attr:`~.committer.Committer.match_over`) and pairs that arena at once; every process
also scans the running arenas every :attr:`Arenas.scan_seconds` (pairing whoever is free,
the players of a match whose process died among them, and finishing arenas whose time is
up). When time is up no new pairing starts; matches in play finish and count; the arena
is finished once the last one is over, and its winner is the player on top.

**Absent players.** A player who loses a match on time is paused (not paired) until it
presses Join again, so nobody is paired again and again with someone who left.

**Fair play** (issue 44). A rated arena is rated play like any other (:mod:`.fairplay`):
a player who must wait after aborting or leaving rated matches can neither join it nor be
paired in it until the wait is over (an abort in it counts as such an offence), and a
result between two players who joined from one address (or have used one browser) moves
each rating by little. A person's arena admits no programs: BOT accounts, and accounts
that play through an API token, may join only an arena that admits BOTs (made by a BOT or
a program, or with ``"bots": true``), and one that became a program after joining is no
longer paired in a person's arena. The scoring cannot be farmed (:mod:`.standings`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from ...i18n import N_, t, tn
from ..backends.database import Database
from ..checks import flag, json_object
from ..errors import TableError
from ..store.accounts import Account
from ..store.arenas import ArenaMatchRow, ArenaRow, ArenaSnapshot, EntrantRow
from ..tables.lobby import Lobby
from ..tables.play import Play
from ..tables.registry import TableRegistry
from ..tables.table import Table
from .browsers import address_hash, browser_hash
from .ratings import PLAY_RATED, check_wait, waits
from .seeks import QUICK_CLOCK
from .standings import REMATCH_WAIT, Free, Game, Line, choose_pairs, ranked, tally

__all__ = ["MAX_MINUTES", "MAX_OPEN", "MAX_PLAYERS", "MIN_MINUTES", "Arenas"]

log = logging.getLogger("ginrummy.web")

MAX_NAME = 40
MIN_MINUTES = 0.5
MAX_MINUTES = 24 * 60.0
MAX_OPEN = 5
"""Arenas not yet finished one account may have made."""
MAX_PLAYERS = 500
"""Active players one arena takes."""
KEEP = 86400.0
"""How long a finished arena, or one made and never started, stays in the list (and an
unstarted one counts against its creator's :data:`MAX_OPEN`)."""
NOT_FOUND = N_("No arena has this id.")

_FIELDS = {"name", "minutes", "clock", "target", "gin_only", "oklahoma", "rated", "bots"}
FOR_PEOPLE = N_("This arena is for people: BOT accounts and programs (accounts that play "
                "through an API token) may join only an arena that admits BOTs.")
"""The refusal of a program's join of a person's arena."""


def arena_match(match_id: str, seat: int) -> dict[str, Any]:
    """A player's arena match: the account plays its seat with its session or API token
    (no seat token is made for it)."""
    return {"id": match_id, "seat": seat, "url": f"/play/{match_id}"}


class Arenas:
    """Arena tournaments (see the module docstring)."""

    def __init__(self, db: Database, lobby: Lobby, registry: TableRegistry, play: Play,
                 scan_seconds: float = 2.0, rematch_wait: float = REMATCH_WAIT) -> None:
        self.db = db
        self.lobby = lobby
        self.registry = registry
        self.play = play
        self.scan_seconds = scan_seconds
        self.rematch_wait = rematch_wait
        self.clock: Callable[[], float] = time.time
        """The time now (tests move it to end an arena without waiting)."""
        self.on_change: list[Callable[[list[str]], None]] = []
        self.on_created: list[Callable[[str], None]] = []
        """Told the creator's account id when an arena is made (its followers hear)."""
        """Told the accounts just paired (their notice sockets push their matches)."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ making

    def _parse(self, body: Any) -> tuple[str, float, dict[str, Any], bool, bool]:
        """(name, minutes, table options with their clock, rated, admits BOTs); TableError
        400."""
        body = json_object(body, _FIELDS)
        raw = body.get("name")
        name = " ".join(raw.split()) if isinstance(raw, str) else ""
        if not 0 < len(name) <= MAX_NAME or not name.isprintable():
            raise TableError(400, t("An arena needs a name: 'name' is 1 to {n} printable "
                                    "characters.", n=str(MAX_NAME)))
        minutes = body.get("minutes")
        if (isinstance(minutes, bool) or not isinstance(minutes, int | float)
                or not MIN_MINUTES <= minutes <= MAX_MINUTES):
            raise TableError(400, t("'minutes' is how long the arena runs: a number from "
                                    "{least} to {most}.", least=format(MIN_MINUTES, "g"),
                                    most=format(MAX_MINUTES, "g")))
        rated, bots = flag(body, "rated"), flag(body, "bots")
        options = self.lobby.check_options(
            {k: v for k, v in body.items() if k in ("clock", "target", "gin_only",
                                                    "oklahoma")},
            default_clock=QUICK_CLOCK)
        return name, float(minutes), options, rated, bots

    async def _note(self, account: Account, browser: str | None) -> None:
        """Note that ``account`` uses this browser (two accounts that share one are rated
        as if from one address)."""
        if browser is not None:
            await self.db.run(self.db.store.seeks.note_browser, browser_hash(browser),
                              account.id)

    async def create(self, body: Any, account: Account, address: str | None = None,
                     browser: str | None = None) -> dict[str, Any]:
        """``POST /api/tournaments``: a new arena (its creator its first player, from
        ``address`` and ``browser``); 201 ``{"id", "url"}``. A BOT's or a program's arena
        admits BOTs, as does one asked with ``"bots": true``."""
        name, minutes, options, rated, bots = self._parse(body)
        if rated:
            await check_wait(self.db, account, PLAY_RATED)
        row = ArenaRow(secrets.token_urlsafe(9), name, account.id, minutes, options, rated,
                       "created", self.clock(),
                       bots=bots or account.bot or account.program)
        await self._note(account, browser)
        if not await self.db.run(self.db.store.arenas.create, row, MAX_OPEN,
                                 row.created_at - KEEP, address_hash(address)):
            raise TableError(429, t("You have {n} arenas not finished yet: start or finish "
                                    "one before making another.", n=str(MAX_OPEN)))
        for cb in list(self.on_created):
            cb(account.id)
        return {"id": row.id, "url": f"/tournament/{row.id}", "status": "created"}

    # ------------------------------------------------------------------ players

    async def _snapshot(self, arena_id: str) -> ArenaSnapshot:
        if not 0 < len(arena_id) <= 16:
            raise TableError(404, NOT_FOUND)
        snap = await self.db.read(self.db.store.arenas.snapshot, arena_id)
        if snap is None:
            raise TableError(404, NOT_FOUND)
        return snap

    async def join(self, arena_id: str, account: Account, address: str | None = None,
                   browser: str | None = None) -> dict[str, Any]:
        """``POST /api/tournaments/{id}/join``: play in the arena (again, after a
        withdrawal or a pause) from ``address`` and ``browser``; a started arena pairs the
        player at once. A program may join only an arena that admits BOTs (403), and a
        player who must wait after aborting rated matches no rated arena (429)."""
        snap = await self._snapshot(arena_id)
        now = self.clock()
        if (account.bot or account.program) and not snap.arena.bots:
            raise TableError(403, FOR_PEOPLE)
        if snap.arena.rated and snap.arena.status != "finished":
            await check_wait(self.db, account, PLAY_RATED)
        await self._note(account, browser)
        where = address_hash(address)
        me = next((p for p in snap.players if p.account_id == account.id), None)
        if (me is not None and me.active and _paused(me, snap.matches)
                and snap.arena.status != "finished"):
            await self.db.run(self.db.store.arenas.resume, arena_id, account.id, now, where)
        else:
            why = await self.db.run(self.db.store.arenas.join, arena_id, account.id, now,
                                    MAX_PLAYERS, where)
            if why == "missing":
                raise TableError(404, NOT_FOUND)
            if why == "over":
                raise TableError(409, N_("This arena is over: it takes no more players."))
            if why == "already":
                raise TableError(409, N_("You are already playing in this arena."))
            if why == "full":
                raise TableError(409, t("This arena is full: it takes {n} players.",
                                        n=str(MAX_PLAYERS)))
        if snap.arena.status == "started":
            await self._pair_quietly(arena_id)
        return {"status": "joined"}

    async def withdraw(self, arena_id: str, account: Account) -> dict[str, Any]:
        """``POST /api/tournaments/{id}/withdraw``: no more pairings for this player (a
        match in play goes on and counts; the score stays, the streak ends; Join comes
        back)."""
        if not 0 < len(arena_id) <= 16:
            raise TableError(404, NOT_FOUND)
        why = await self.db.run(self.db.store.arenas.withdraw, arena_id, account.id,
                                self.clock())
        if why == "missing":
            raise TableError(404, NOT_FOUND)
        if why == "over":
            raise TableError(409, N_("This arena is over: there is nothing to withdraw "
                                     "from."))
        if why == "not_joined":
            raise TableError(409, N_("You have not joined this arena."))
        if why == "already":
            raise TableError(409, N_("You have already withdrawn from this arena."))
        return {"status": "withdrawn"}

    async def start(self, arena_id: str, account: Account) -> dict[str, Any]:
        """``POST /api/tournaments/{id}/start`` (its creator): the clock starts and every
        player is paired at once; at least two players are needed."""
        if not 0 < len(arena_id) <= 16:
            raise TableError(404, NOT_FOUND)
        why, n = await self.db.run(self.db.store.arenas.start, arena_id, account.id,
                                   self.clock(), 2)
        if why == "missing":
            raise TableError(404, NOT_FOUND)
        if why == "not_creator":
            raise TableError(403, N_("Only the arena's creator may start it."))
        if why == "started":
            raise TableError(409, N_("This arena has already started."))
        if why == "finished":
            raise TableError(409, N_("This arena is over."))
        if why == "few":
            raise TableError(409, tn("An arena needs at least two players to start: {n} "
                                     "has joined. Wait for more, then start it.",
                                     "An arena needs at least two players to start: {n} "
                                     "have joined. Wait for more, then start it.", n))
        await self._pair_quietly(arena_id)
        return {"status": "started"}

    # ------------------------------------------------------------------ reading

    async def show(self, arena_id: str, account: Account | None) -> dict[str, Any]:
        """``GET /api/tournaments/{id}``: the arena, its live standings, its matches and,
        for a signed-in player, ``me`` (its state and current match)."""
        snap = await self._snapshot(arena_id)
        now = self.clock()
        a = snap.arena
        lines, order = _standings(snap)
        status = _status(snap, now)
        by_id = {p.account_id: p for p in snap.players}
        unfinished = {m.match_id: m for m in snap.matches if m.status != "finished"}
        standings = []
        for i, line in enumerate(order):
            p = by_id.get(line.account_id)
            if p is None:
                continue
            current = unfinished.get(p.match_id or "")
            standings.append({
                "rank": i + 1, "username": p.username, "bot": p.bot or p.program,
                "score": line.score,
                "matches": line.matches, "wins": line.wins, "streak": line.streak,
                "fire": line.on_fire, "sheet": "".join(line.results),
                "rating": round(p.rating), "active": p.active,
                "paused": p.active and _paused(p, snap.matches),
                "playing": current.match_id if current is not None else None,
            })
        winner = _winner(order, by_id) if status == "finished" else None
        names = await self._names([a.creator])
        out: dict[str, Any] = {
            "id": a.id, "name": a.name, "status": status, "creator": names.get(a.creator),
            "minutes": a.minutes, "rated": a.rated, "bots": a.bots,
            "options": {k: v for k, v in a.options.items() if k != "clock"},
            "clock": a.options.get("clock"), "target": a.options.get("target"),
            "created_at": a.created_at, "started_at": a.started_at, "ends_at": a.ends_at,
            "seconds_left": (max(0.0, round(a.ends_at - now, 1))
                             if a.ends_at is not None else None),
            "players": sum(1 for p in snap.players if p.active),
            "in_play": len(unfinished),
            "standings": standings,
            "matches": [m.match_id for m in snap.matches],
            "winner": winner,
        }
        if account is not None:
            out["me"] = _me(snap, account.id, lines, now)
            if a.rated and status != "finished":
                wait = (await waits(self.db, [account.id], time.time())).get(account.id)
                if wait:
                    out["me"]["wait"] = round(wait)
        return out

    async def listing(self) -> dict[str, Any]:
        """``GET /api/tournaments``: arenas to join or being played, and those finished
        in the last day, newest first."""
        now = self.clock()
        rows = await self.db.read(self.db.store.arenas.listing, now - KEEP, 100)
        names = await self._names([r.creator for r, _ in rows] +
                                  [r.winner for r, _ in rows if r.winner])
        out = []
        for r, n in rows:
            out.append({
                "id": r.id, "name": r.name, "url": f"/tournament/{r.id}", "status": r.status,
                "creator": names.get(r.creator), "minutes": r.minutes, "rated": r.rated,
                "bots": r.bots,
                "clock": r.options.get("clock"), "target": r.options.get("target"),
                "players": n, "started_at": r.started_at, "ends_at": r.ends_at,
                "seconds_left": (max(0.0, round(r.ends_at - now, 1))
                                 if r.ends_at is not None else None),
                "winner": names.get(r.winner) if r.winner else None,
            })
        return {"tournaments": out}

    async def _names(self, ids: Sequence[str | None]) -> dict[str, str]:
        wanted = sorted({i for i in ids if i})
        if not wanted:
            return {}
        accts = await self.db.read(self.db.store.accounts.by_ids, wanted)
        return {k: a.username for k, a in accts.items()}

    # ------------------------------------------------------------------ pairing

    def match_over(self, t: Table) -> None:
        """The committer's listener: a match just ended here; if it is an arena's, pair
        that arena's free players now (and finish it if its time is up)."""
        if t.stored.opponent == "friend":
            self._spawn(self._after_match(t.id))

    async def _after_match(self, match_id: str) -> None:
        try:
            arena_id = await self.db.read(self.db.store.arenas.arena_of, match_id)
        except TableError as e:
            log.info("arena of match %s not read (the scan pairs it): %s", match_id,
                     e.message)
            return
        if arena_id is not None:
            await self._pair_quietly(arena_id)

    async def _pair_quietly(self, arena_id: str) -> None:
        """:meth:`pair`, a failure logged (the next scan tries again)."""
        try:
            await self.pair(arena_id)
        except TableError as e:
            log.info("arena %s not paired now: %s", arena_id, e.message)

    async def pair(self, arena_id: str) -> int:
        """Pair the arena's free players (:func:`.standings.choose_pairs`), or finish the
        arena if its time is up and its last match is over; how many matches were made."""
        lock = self._locks.setdefault(arena_id, asyncio.Lock())
        async with lock:
            snap = await self.db.read(self.db.store.arenas.snapshot, arena_id)
            if snap is None or snap.arena.status != "started":
                return 0
            now = self.clock()
            a = snap.arena
            if a.ends_at is not None and now >= a.ends_at:
                if _status(snap, now) == "finished":
                    _, order = _standings(snap)
                    by_id = {p.account_id: p for p in snap.players}
                    winner = order[0].account_id if _winner(order, by_id) else None
                    await self.db.run(self.db.store.arenas.finish, arena_id, winner, now)
                return 0
            lines, _ = _standings(snap)
            kept = await self._kept(snap)
            free, busy = _free_players(snap, lines, now, kept)
            made = 0
            apart = await self.db.read(self.db.store.people.blocks_among,
                                       [p.account_id for p in free])
            for p, q in choose_pairs(free, busy, now, self.rematch_wait, apart):
                if await self._pair_two(snap.arena, p.account_id, q.account_id, snap):
                    made += 1
            return made

    async def _kept(self, snap: ArenaSnapshot) -> set[str]:
        """The active players not to pair now: in a rated arena, those who must wait after
        aborting or leaving rated matches; in a person's arena, programs (BOT accounts,
        and accounts that have played through an API token since joining)."""
        active = [p for p in snap.players if p.active]
        kept = set()
        if not snap.arena.bots:
            kept |= {p.account_id for p in active if p.bot or p.program}
        if snap.arena.rated:
            kept |= set(await waits(self.db, [p.account_id for p in active], time.time()))
        return kept

    async def _pair_two(self, a: ArenaRow, first: str, second: str,
                        snap: ArenaSnapshot) -> bool:
        """Take two players, make their match and record it; whether it was made."""
        store = self.db.store.arenas
        token = secrets.token_urlsafe(12)
        now = self.clock()
        if not await self.db.run(store.take_pair, a.id, (first, second), token, now):
            return False
        by_id = {p.account_id: p for p in snap.players}
        p0, p1 = by_id[first], by_id[second]
        try:
            options = dict(a.options)
            clock = options.pop("clock", None)
            created = await self.lobby.create(
                {"opponent": "friend", "name": p0.username, "options": options,
                 "clock": clock}, invite=False,
                bot_seats=(p0.bot or p0.program, p1.bot or p1.program), no_coach=True)
            mid = str(created["id"])
            t = await self.registry.get(mid)
            await self.lobby.claim_seat(t, p1.username)
            same = p0.address_hash is not None and p0.address_hash == p1.address_hash
            done = await self.db.run(store.mark_paired, a.id, token, mid, (first, second),
                                     a.rated, self.clock(), same)
        except BaseException:
            with contextlib.suppress(TableError):
                await self.db.run(store.release, token)
            raise
        if not done:  # the take went stale and someone else paired them: drop this one
            log.warning("arena %s: pairing %s took too long; its match is aborted", a.id, mid)
            with contextlib.suppress(TableError):
                await self.play.abort(t, 0)
            return False
        log.info("arena %s: %s v %s in match %s", a.id, p0.username, p1.username, mid)
        for cb in list(self.on_change):
            try:
                cb([first, second])
            except Exception:  # noqa: BLE001 - a listener never undoes a pairing
                log.exception("arena listener failed")
        return True

    async def scan(self) -> None:
        """Pair every running arena's free players, and finish those whose time is up."""
        for arena_id in await self.db.read(self.db.store.arenas.running):
            await self._pair_quietly(arena_id)

    async def scan_forever(self) -> None:
        """:meth:`scan` every :attr:`scan_seconds` (every process does: the database
        decides who pairs whom)."""
        while True:
            await asyncio.sleep(self.scan_seconds)
            try:
                await self.scan()
            except asyncio.CancelledError:
                raise
            except TableError as e:
                log.info("arena scan skipped: %s", e.message)
            except Exception:  # noqa: BLE001 - the next scan tries again
                log.exception("arena scan failed")


# ---------------------------------------------------------------------- helpers


def _games(matches: list[ArenaMatchRow]) -> list[Game]:
    return [Game(m.accounts, m.status == "finished", m.winner, m.end == "aborted", m.end,
                 m.ended_by, m.loser_moves, m.created_at)
            for m in matches]


def _standings(snap: ArenaSnapshot) -> tuple[dict[str, Line], list[Line]]:
    """Every player's line, and the lines best first."""
    lines = tally(_games(snap.matches), [p.account_id for p in snap.players],
                  {p.account_id: p.withdrawals for p in snap.players if p.withdrawals})
    ratings = {p.account_id: p.rating for p in snap.players}
    names = {p.account_id: p.username for p in snap.players}
    return lines, ranked(lines.values(), ratings, names)


def _winner(order: list[Line], by_id: Mapping[str, EntrantRow]) -> str | None:
    """The username on top, once anyone has scored."""
    if not order or order[0].score <= 0 or order[0].account_id not in by_id:
        return None
    return by_id[order[0].account_id].username


def _status(snap: ArenaSnapshot, now: float) -> str:
    """``created``, ``started`` or ``finished``: finished once stored so, or once its
    time is up and nothing of it is in play or being paired."""
    a = snap.arena
    if a.status != "started":
        return a.status
    if a.ends_at is None or now < a.ends_at:
        return "started"
    if any(m.status != "finished" for m in snap.matches):
        return "started"
    if any(p.pending(now) for p in snap.players):
        return "started"
    return "finished"


def _last_match(p: EntrantRow, matches: list[ArenaMatchRow]) -> ArenaMatchRow | None:
    mine = [m for m in matches if p.account_id in m.accounts]
    return mine[-1] if mine else None


def _paused(p: EntrantRow, matches: list[ArenaMatchRow]) -> bool:
    """Whether the player lost its last match on time after its latest join (absent):
    it is not paired until it joins again."""
    last = _last_match(p, matches)
    if last is None or last.status != "finished" or last.end != "timeout":
        return False
    seat = last.accounts.index(p.account_id)
    return last.ended_by == seat and last.created_at >= p.joined_at


def _free_players(snap: ArenaSnapshot, lines: dict[str, Line], now: float,
                  kept: set[str] | None = None) -> tuple[list[Free], bool]:
    """The players free to be paired now (none of ``kept``: waiting after aborting, or a
    program in a person's arena), and whether any other active player is in a match or
    being paired (and so may be free soon)."""
    matches = {m.match_id: m for m in snap.matches}
    start = snap.arena.started_at or 0.0
    free: list[Free] = []
    busy = False
    for p in snap.players:
        if not p.active or _paused(p, snap.matches) or p.account_id in (kept or ()):
            continue
        since = max(p.joined_at, start)
        if p.pending(now):
            busy = True
            continue
        m = matches.get(p.match_id or "")
        if m is not None:
            if m.status != "finished":
                busy = True
                continue
            since = max(since, m.updated_at)
        elif p.match_id is not None and not p.match_id.startswith("pending:"):
            busy = True  # a match being recorded right now
            continue
        line = lines.get(p.account_id)
        free.append(Free(p.account_id, line.score if line else 0, p.rating,
                         p.last_opponent, since))
    return free, busy


def _me(snap: ArenaSnapshot, account_id: str, lines: dict[str, Line],
        now: float) -> dict[str, Any]:
    """A player's own view of the arena: ``joined``, ``state`` (``waiting``,
    ``pairing``, ``playing``, ``paused``, ``withdrawn`` or ``out``: not joined) and the
    current ``match`` (null when none)."""
    p = next((x for x in snap.players if x.account_id == account_id), None)
    if p is None:
        return {"joined": False, "state": "out", "match": None, "creator":
                snap.arena.creator == account_id}
    current = next((m for m in snap.matches
                    if m.match_id == p.match_id and m.status != "finished"), None)
    if current is not None:
        state = "playing"
    elif not p.active:
        state = "withdrawn"
    elif _paused(p, snap.matches):
        state = "paused"
    elif p.pending(now):
        state = "pairing"
    else:
        state = "waiting"
    line = lines.get(account_id)
    return {
        "joined": True, "active": p.active, "state": state,
        "creator": snap.arena.creator == account_id,
        "score": line.score if line else 0,
        "match": (arena_match(current.match_id, current.accounts.index(account_id))
                  if current is not None else None),
    }
