"""The arena tables: tournaments, their players and their matches.

The database is the one truth of an arena, whichever process looks: a player is paired by
:meth:`ArenaStore.take_pair` (conditional updates of both players in one transaction, so
on PostgreSQL as on SQLite a player is taken once however many processes try), then
:meth:`ArenaStore.mark_paired` names the match, links it to both accounts and records it
in one transaction, again only if the take is still this caller's. A take never completed
(its process died) reads as free again after :data:`TAKE_SECONDS`. Scores are never
stored: :meth:`ArenaStore.snapshot` reads the arena's matches with their endings (and,
for a match resigned or lost on time, how many moves its loser made itself), and the
standings follow from them. A player's address when it last joined (hashed) and the times
it withdrew are kept with it: the first makes a rated result between two players from one
address move little, the second ends a streak.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    and_,
    case,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)

from .schema import (
    account_matches_table,
    accounts_table,
    actions_table,
    matches_table,
    tournament_matches_table,
    tournament_players_table,
    tournaments_table,
)

__all__ = ["TAKE_SECONDS", "ArenaMatchRow", "ArenaRow", "ArenaSnapshot", "ArenaStore",
           "EntrantRow"]

TAKE_SECONDS = 15.0
"""How long a player taken for pairing waits for its taker before being free again."""
PENDING = "pending:"
"""``match_id`` prefix of a player being paired (the taker's token follows)."""


@dataclass(frozen=True, slots=True)
class ArenaRow:
    """One stored arena."""

    id: str
    name: str
    creator: str
    minutes: float
    options: dict[str, Any]
    """The table options of every match (target, gin_only, oklahoma, clock)."""
    rated: bool
    status: str
    created_at: float
    started_at: float | None = None
    ends_at: float | None = None
    finished_at: float | None = None
    winner: str | None = None
    bots: bool = False
    """The arena admits BOT accounts and programs (a person's arena admits neither)."""


@dataclass(frozen=True, slots=True)
class EntrantRow:
    """A player of an arena, with its account's name and rating."""

    account_id: str
    username: str
    rating: float
    bot: bool
    joined_at: float
    active: bool
    match_id: str | None
    taken_at: float | None
    last_opponent: str | None
    program: bool = False
    """The account has played through an API token (paired like a BOT)."""
    address_hash: str | None = None
    """The player's address when it last joined, hashed."""
    withdrawals: tuple[float, ...] = field(default=())
    """When the player withdrew (each ends its streak)."""

    def pending(self, now: float) -> bool:
        """Whether a process is pairing this player now (a take not yet stale)."""
        return (self.match_id is not None and self.match_id.startswith(PENDING)
                and (self.taken_at or 0.0) >= now - TAKE_SECONDS)


@dataclass(frozen=True, slots=True)
class ArenaMatchRow:
    """An arena match and, from ``matches``, how it stands."""

    match_id: str
    accounts: tuple[str, str]
    created_at: float
    status: str
    """The match's status (``waiting`` and ``playing`` until ``finished``)."""
    winner: int | None
    end: str | None
    ended_by: int | None
    scores: tuple[int, int]
    updated_at: float
    loser_moves: int | None = None
    """For a match resigned or lost on time: the moves its ``ended_by`` seat made itself
    (not those its clock made for it); else None."""


@dataclass(frozen=True, slots=True)
class ArenaSnapshot:
    """An arena, its players and its matches, read in one transaction."""

    arena: ArenaRow
    players: list[EntrantRow]
    matches: list[ArenaMatchRow]


def _arena(r: Any) -> ArenaRow:
    m = r._mapping
    return ArenaRow(str(m["id"]), str(m["name"]), str(m["creator"]), float(m["minutes"]),
                    json.loads(m["options"]), bool(m["rated"]), str(m["status"]),
                    float(m["created_at"]), m["started_at"], m["ends_at"], m["finished_at"],
                    m["winner"], bool(m.get("bots")))


def _free(now: float) -> ColumnElement[bool]:
    """A player who may be paired now: active, and in no match (never paired, the last
    match finished, or a take gone stale)."""
    p, m = tournament_players_table, matches_table
    return and_(p.c.active.is_(True), or_(
        p.c.match_id.is_(None),
        and_(p.c.match_id.like(PENDING + "%"), p.c.taken_at < now - TAKE_SECONDS),
        exists().where(m.c.id == p.c.match_id).where(m.c.status == "finished")))


def _withdrawals(text: Any) -> tuple[float, ...]:
    """A player's withdrawal times from their stored JSON list (null: none)."""
    if not text:
        return ()
    return tuple(float(t) for t in json.loads(text))


def _loser_moves() -> Any:
    """A match's column of the moves its ``ended_by`` seat made itself, for a match
    resigned or lost on time (null otherwise): its actions at that seat, less those the
    table played for it when its time ran out (stored with ``"timeout": true``)."""
    m, x = matches_table, actions_table
    own = (select(func.count()).select_from(x).where(x.c.match_id == m.c.id)
           .where(x.c.seat == m.c.ended_by)
           .where(x.c.action.not_like('%"timeout": true%')).scalar_subquery())
    return case((m.c.end_reason.in_(("resigned", "timeout")), own), else_=None)


def _current(since: float) -> ColumnElement[bool]:
    """An arena being played, or made since ``since`` and not started (one left unstarted
    longer is no longer listed or counted)."""
    t = tournaments_table
    return or_(t.c.status == "started",
               and_(t.c.status == "created", t.c.created_at >= since))


class _Gone(Exception):
    """A conditional update found its row no longer as expected: roll back."""


class ArenaStore:
    """Arenas (synchronous; the web layer runs these off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"

    # ------------------------------------------------------------------ arenas

    def create(self, row: ArenaRow, most: int, since: float,
               address_hash: str | None = None) -> bool:
        """Store a new arena with its creator as its first player (from ``address_hash``);
        False (nothing stored) when the creator already has ``most`` arenas not finished
        (an arena never started counts only if it was made after ``since``)."""
        t = tournaments_table
        with self.engine.begin() as conn:
            if not self.is_sqlite:  # one creator's arenas counted one at a time
                conn.execute(select(accounts_table.c.id)
                             .where(accounts_table.c.id == row.creator).with_for_update())
            n = conn.execute(select(func.count()).select_from(t).where(
                t.c.creator == row.creator).where(_current(since))).scalar()
            if int(n or 0) >= most:
                return False
            conn.execute(insert(t).values(
                id=row.id, name=row.name, creator=row.creator, minutes=row.minutes,
                options=json.dumps(row.options, sort_keys=True), rated=row.rated,
                status="created", created_at=row.created_at, bots=row.bots))
            conn.execute(insert(tournament_players_table).values(
                tournament_id=row.id, account_id=row.creator, joined_at=row.created_at,
                active=True, address_hash=address_hash))
        return True

    def get(self, arena_id: str) -> ArenaRow | None:
        """The arena (None: no such arena)."""
        t = tournaments_table
        with self.engine.connect() as conn:
            r = conn.execute(select(t).where(t.c.id == arena_id)).first()
        return _arena(r) if r is not None else None

    def listing(self, since: float, limit: int) -> list[tuple[ArenaRow, int]]:
        """Arenas being played, those made (and not started) or finished since ``since``,
        newest first, each with its number of active players."""
        t, p = tournaments_table, tournament_players_table
        n = (select(func.count()).select_from(p).where(p.c.tournament_id == t.c.id)
             .where(p.c.active.is_(True)).scalar_subquery())
        q = (select(t, n.label("n")).where(or_(_current(since), t.c.finished_at >= since))
             .order_by(t.c.created_at.desc()).limit(limit))
        with self.engine.connect() as conn:
            return [(_arena(r), int(r.n or 0)) for r in conn.execute(q).all()]

    def running(self) -> list[str]:
        """The ids of the arenas started and not yet finished (the periodic scan's)."""
        t = tournaments_table
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(
                select(t.c.id).where(t.c.status == "started")).all()]

    def arena_of(self, match_id: str) -> str | None:
        """The arena a match belongs to (None: not an arena match)."""
        tm = tournament_matches_table
        with self.engine.connect() as conn:
            r = conn.execute(select(tm.c.tournament_id)
                             .where(tm.c.match_id == match_id)).first()
        return str(r[0]) if r is not None else None

    def snapshot(self, arena_id: str) -> ArenaSnapshot | None:
        """The arena, its players (with their accounts' names and ratings) and its
        matches (with their endings), read together."""
        t, p, a = tournaments_table, tournament_players_table, accounts_table
        tm, m = tournament_matches_table, matches_table
        with self.engine.begin() as conn:
            r = conn.execute(select(t).where(t.c.id == arena_id)).first()
            if r is None:
                return None
            players = [
                EntrantRow(str(x.account_id), str(x.username), float(x.rating),
                           bool(x.bot), float(x.joined_at), bool(x.active), x.match_id,
                           x.taken_at, x.last_opponent, bool(x.program), x.address_hash,
                           _withdrawals(x.withdrawals))
                for x in conn.execute(
                    select(p, a.c.username, a.c.rating, a.c.bot, a.c.program)
                    .join(a, a.c.id == p.c.account_id)
                    .where(p.c.tournament_id == arena_id).order_by(p.c.joined_at)).all()]
            matches = [
                ArenaMatchRow(str(x.match_id), (str(x.account0), str(x.account1)),
                              float(x.created_at), str(x.status), x.winner, x.end_reason,
                              x.ended_by, (int(x.score0), int(x.score1)),
                              float(x.updated_at),
                              None if x.loser_moves is None else int(x.loser_moves))
                for x in conn.execute(
                    select(tm, m.c.status, m.c.winner, m.c.end_reason, m.c.ended_by,
                           m.c.score0, m.c.score1, m.c.updated_at,
                           _loser_moves().label("loser_moves"))
                    .join(m, m.c.id == tm.c.match_id)
                    .where(tm.c.tournament_id == arena_id)
                    .order_by(tm.c.created_at)).all()]
        return ArenaSnapshot(_arena(r), players, matches)

    # ------------------------------------------------------------------ players

    @staticmethod
    def _open(conn: Connection, arena_id: str, account_id: str,
              lock: bool) -> tuple[str | None, Any]:
        """Why the arena takes no change of its players (``missing``, ``over``; None: it
        does), and the player's row (None: not joined). ``lock``: the arena's row is held
        until the transaction ends (joins are counted one at a time)."""
        t, p = tournaments_table, tournament_players_table
        q = select(t.c.status).where(t.c.id == arena_id)
        arena = conn.execute(q.with_for_update() if lock else q).first()
        if arena is None:
            return "missing", None
        if arena.status == "finished":
            return "over", None
        me = conn.execute(select(p.c.active, p.c.withdrawals)
                          .where(p.c.tournament_id == arena_id)
                          .where(p.c.account_id == account_id)).first()
        return None, me

    def join(self, arena_id: str, account_id: str, now: float, most: int,
             address_hash: str | None = None) -> str:
        """Join (or join again after withdrawing, or after a pause) from ``address_hash``:
        ``joined``, or why not: ``missing``, ``over``, ``already`` (active already) or
        ``full`` (``most`` active players)."""
        p = tournament_players_table
        with self.engine.begin() as conn:
            why, me = self._open(conn, arena_id, account_id, lock=True)
            if why is not None:
                return why
            if me is not None and me.active:
                return "already"
            n = conn.execute(select(func.count()).select_from(p).where(
                p.c.tournament_id == arena_id).where(p.c.active.is_(True))).scalar()
            if int(n or 0) >= most:
                return "full"
            if me is None:
                conn.execute(insert(p).values(tournament_id=arena_id, account_id=account_id,
                                              joined_at=now, active=True,
                                              address_hash=address_hash))
            else:
                conn.execute(update(p).where(p.c.tournament_id == arena_id)
                             .where(p.c.account_id == account_id)
                             .values(active=True, joined_at=now, address_hash=address_hash))
        return "joined"

    def resume(self, arena_id: str, account_id: str, now: float,
               address_hash: str | None = None) -> bool:
        """An active player comes back from a pause (lost a match on time), from
        ``address_hash``: its join time moves to now, which ends the pause; False when it
        is not an active player."""
        p = tournament_players_table
        with self.engine.begin() as conn:
            return conn.execute(
                update(p).where(p.c.tournament_id == arena_id)
                .where(p.c.account_id == account_id).where(p.c.active.is_(True))
                .values(joined_at=now, address_hash=address_hash)).rowcount == 1

    def withdraw(self, arena_id: str, account_id: str, now: float) -> str:
        """Stop being paired, noting the time (it ends the player's streak): ``withdrawn``,
        or why not: ``missing``, ``over``, ``not_joined`` or ``already`` (withdrawn
        before). A match in play goes on."""
        p = tournament_players_table
        with self.engine.begin() as conn:
            why, me = self._open(conn, arena_id, account_id, lock=False)
            if why is not None:
                return why
            if me is None:
                return "not_joined"
            times = list(_withdrawals(me.withdrawals)) + [now]
            n = conn.execute(update(p).where(p.c.tournament_id == arena_id)
                             .where(p.c.account_id == account_id)
                             .where(p.c.active.is_(True))
                             .values(active=False, withdrawals=json.dumps(times))).rowcount
            return "withdrawn" if n == 1 else "already"

    def start(self, arena_id: str, account_id: str, now: float,
              least: int) -> tuple[str, int]:
        """Start a created arena (its creator only): ``("ok", players)``, or why not:
        ``missing``, ``not_creator``, ``started`` / ``finished`` (not created any more)
        or ``few`` (fewer than ``least`` active players), with the number of players."""
        t, p = tournaments_table, tournament_players_table
        with self.engine.begin() as conn:
            arena = conn.execute(select(t).where(t.c.id == arena_id).with_for_update()).first()
            if arena is None:
                return "missing", 0
            if arena.creator != account_id:
                return "not_creator", 0
            if arena.status != "created":
                return str(arena.status), 0
            n = int(conn.execute(select(func.count()).select_from(p).where(
                p.c.tournament_id == arena_id).where(p.c.active.is_(True))).scalar() or 0)
            if n < least:
                return "few", n
            conn.execute(update(t).where(t.c.id == arena_id).where(t.c.status == "created")
                         .values(status="started", started_at=now,
                                 ends_at=now + float(arena.minutes) * 60.0))
        return "ok", n

    # ------------------------------------------------------------------ pairing

    def take_pair(self, arena_id: str, accounts: tuple[str, str], token: str,
                  now: float) -> bool:
        """Take both players for pairing, or neither: True when the arena is running
        (started, its time not up) and both were free, and are now this caller's
        (``pending:TOKEN``)."""
        t, p = tournaments_table, tournament_players_table
        try:
            with self.engine.begin() as conn:
                running = conn.execute(select(t.c.id).where(t.c.id == arena_id)
                                       .where(t.c.status == "started")
                                       .where(t.c.ends_at > now)).first()
                if running is None:
                    raise _Gone
                # in one order for every caller: two takes never lock rows crosswise
                for account_id in sorted(accounts):
                    n = conn.execute(
                        update(p).where(p.c.tournament_id == arena_id)
                        .where(p.c.account_id == account_id).where(_free(now))
                        .values(match_id=PENDING + token, taken_at=now)).rowcount
                    if n != 1:
                        raise _Gone
        except _Gone:
            return False
        return True

    def release(self, token: str) -> None:
        """Free the players of a take whose match could not be made."""
        p = tournament_players_table
        with self.engine.begin() as conn:
            conn.execute(update(p).where(p.c.match_id == PENDING + token)
                         .values(match_id=None, taken_at=None))

    def mark_paired(self, arena_id: str, token: str, match_id: str,
                    accounts: tuple[str, str], rated: bool, now: float,
                    same_address: bool = False) -> bool:
        """The taken players' match exists: name it on both players, record it in the
        arena and link it to both accounts (rated as the arena, public; ``same_address``:
        both players joined from one address), in one transaction; False (nothing
        changed) when the take is no longer this caller's."""
        p = tournament_players_table
        try:
            with self.engine.begin() as conn:
                for seat, account_id in enumerate(accounts):
                    n = conn.execute(
                        update(p).where(p.c.tournament_id == arena_id)
                        .where(p.c.account_id == account_id)
                        .where(p.c.match_id == PENDING + token)
                        .values(match_id=match_id, taken_at=None,
                                last_opponent=accounts[1 - seat])).rowcount
                    if n != 1:
                        raise _Gone
                self._record(conn, arena_id, match_id, accounts, rated, now, same_address)
        except _Gone:
            return False
        return True

    @staticmethod
    def _record(conn: Connection, arena_id: str, match_id: str, accounts: tuple[str, str],
                rated: bool, now: float, same_address: bool) -> None:
        conn.execute(insert(tournament_matches_table).values(
            match_id=match_id, tournament_id=arena_id, account0=accounts[0],
            account1=accounts[1], created_at=now))
        conn.execute(insert(account_matches_table).values(
            match_id=match_id, account0=accounts[0], account1=accounts[1], rated=rated,
            public=True, settled=False, created_at=now, same_address=same_address))

    def finish(self, arena_id: str, winner: str | None, now: float) -> bool:
        """Mark a started arena finished (with its winner), only if its time is up, every
        match of it is over and nobody is being paired; whether it was marked now."""
        t, p = tournaments_table, tournament_players_table
        tm, m = tournament_matches_table, matches_table
        in_play = (exists().where(tm.c.tournament_id == arena_id)
                   .where(m.c.id == tm.c.match_id).where(m.c.status != "finished"))
        pairing = (exists().where(p.c.tournament_id == arena_id)
                   .where(p.c.match_id.like(PENDING + "%"))
                   .where(p.c.taken_at >= now - TAKE_SECONDS))
        with self.engine.begin() as conn:
            return conn.execute(
                update(t).where(t.c.id == arena_id).where(t.c.status == "started")
                .where(t.c.ends_at <= now).where(~in_play).where(~pairing)
                .values(status="finished", finished_at=now, winner=winner)).rowcount == 1
