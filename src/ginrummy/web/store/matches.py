"""Durable storage of web matches (SQLAlchemy 2): one row per match, one row per action.

A match is stored as its settings (options, players, seed, deal scheme, opponent, token
hashes) plus the actions played; each hand's deal is derived from (seed, hand index) by
the match's deal scheme (:mod:`ginrummy.fairness`), so replaying the rows rebuilds the
match exactly. Every change is one transaction that also bumps the match's version,
checked against the version the change was based on (no lost updates). Works with SQLite
(default, embedded) and PostgreSQL (``postgresql+psycopg://...``).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Engine, bindparam, delete, insert, or_, select, text, update

from ...fairness import LEGACY_SCHEME
from .accounts import AccountStore
from .arenas import ArenaStore
from .challenges import ChallengeStore
from .claims import ClaimStore
from .clocks import ClockStore
from .daily import DailyStore
from .engine import DEFAULT_DB_URL, StaleVersionError, StoreError, open_engine
from .fairplay import FairPlayStore
from .games import GameStore
from .hot import Reader, Writer
from .people import PeopleStore
from .puzzles import PuzzleStore
from .rematches import RematchStore
from .reviews import ReviewStore
from .rows import NO_TOKEN, Change, SomeStale, StoredAction, StoredMatch, ready_text
from .schema import (
    account_matches_table,
    actions_table,
    claims_table,
    hints_table,
    matches_table,
    rematches_table,
    reviews_table,
    salts_table,
)
from .seeds import SeedCipher
from .seeks import SeekStore
from .tokens import TokenStore

__all__ = ["Store"]

_BULK_UPDATE = (
    update(matches_table)
    .where(matches_table.c.id == bindparam("b_id"))
    .where(matches_table.c.version == bindparam("b_expected"))
    .values(
        version=bindparam("b_version"),
        status=bindparam("b_status"),
        joined=bindparam("b_joined"),
        hands_dealt=bindparam("b_hands_dealt"),
        ready=bindparam("b_ready"),
        score0=bindparam("b_score0"),
        score1=bindparam("b_score1"),
        winner=bindparam("b_winner"),
        to_play=bindparam("b_to_play"),
        updated_at=bindparam("b_updated_at"),
        bank0=bindparam("b_bank0"),
        bank1=bindparam("b_bank1"),
        deadline=bindparam("b_deadline"),
        end_reason=bindparam("b_end_reason"),
        ended_by=bindparam("b_ended_by"),
    )
)
"""Every version bump of a group commit in one executemany (each row only if its match is
still at the expected version)."""


def _row_to_match(row: Any, cipher: SeedCipher | None = None) -> StoredMatch:
    m = row._mapping
    enc = m.get("seed_enc")
    if enc:
        if cipher is None:
            raise StoreError("This database's seeds are encrypted: the seed key is needed.")
        try:
            seed = cipher.decrypt(enc, m["id"])
        except ValueError as e:
            raise StoreError(f"Cannot read the seed of match {m['id']}: {e}.") from None
    else:
        seed = int(m["seed"])
    return StoredMatch(
        id=m["id"],
        token_hash0=m["token_hash0"],
        token_hash1=m["token_hash1"],
        options=json.loads(m["options"]),
        players=json.loads(m["players"]),
        seed=seed,
        first_dealer=int(m["first_dealer"]),
        opponent=m["opponent"],
        bot_level=m["bot_level"],
        bot_name=m["bot_name"],
        version=int(m["version"]),
        status=m["status"],
        joined=bool(m["joined"]),
        hands_dealt=int(m["hands_dealt"]),
        ready=[c == "1" for c in m["ready"]],
        scores=[int(m["score0"]), int(m["score1"])],
        winner=m["winner"],
        to_play=m["to_play"],
        created_at=float(m["created_at"]),
        updated_at=float(m["updated_at"]),
        invite_hash=m.get("invite_hash"),
        joined_at=m.get("joined_at"),
        deal_scheme=m.get("deal_scheme") or LEGACY_SCHEME,
        clock_move=m.get("clock_move"),
        clock_bank=m.get("clock_bank"),
        banks=_banks(m.get("bank0"), m.get("bank1")),
        deadline=m.get("deadline"),
        end_reason=m.get("end_reason"),
        ended_by=m.get("ended_by"),
        bot_seats=_bot_seats(m.get("bot_seats")),
        no_coach=bool(m.get("no_coach")),
    )


def _bot_seats(text: Any) -> tuple[bool, bool]:
    """The seats BOT accounts play, from the stored "01"-style text (null: none)."""
    if not text:
        return (False, False)
    return (text[0] == "1", text[1:2] == "1")


def _banks(b0: Any, b1: Any) -> list[float] | None:
    """Both seats' banks from their columns (None for a table without a clock)."""
    if b0 is None or b1 is None:
        return None
    return [float(b0), float(b1)]


def _clock_values(ch: Change) -> dict[str, Any]:
    """The clock and ending columns every change writes."""
    banks = ch.banks
    return {"bank0": banks[0] if banks else None, "bank1": banks[1] if banks else None,
            "deadline": ch.deadline, "end_reason": ch.end_reason, "ended_by": ch.ended_by}


class Store:
    """The match database. All methods are synchronous and thread-safe (one connection
    per call from the engine's pool); the web layer runs them off the event loop. Every
    statement the web layer runs is here or in the stores this one holds:
    :attr:`rematches`, :attr:`claims`, :attr:`reviews`, :attr:`accounts`, :attr:`seeks`,
    :attr:`tokens` (API tokens, BOT accounts), :attr:`challenges`, :attr:`clocks`,
    :attr:`puzzles`, :attr:`arenas` and :attr:`daily` (the daily deal)."""

    def __init__(
        self, url: str = DEFAULT_DB_URL, cipher: SeedCipher | None = None, migrate: bool = True
    ) -> None:
        """Open the database at ``url``, first bringing its schema to the head revision
        (:mod:`..migrations`); with ``migrate=False`` only check that it is there already.
        Raises StoreError (MigrationError for the schema) with a one-line reason."""
        from .. import migrations

        self.url = url
        self.cipher = cipher
        """Encrypts new matches' seeds and salts (None: stored in plain, as older
        versions did)."""
        self.engine: Engine = open_engine(url)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        # Bulk commits need the driver to count the rows an executemany changed.
        self._bulk_ok = bool(self.engine.dialect.supports_sane_multi_rowcount)
        try:
            if migrate:
                migrations.upgrade(self.engine)
            else:
                migrations.require_head(self.engine)
        except StoreError:
            self.engine.dispose()
            raise
        self.rematches = RematchStore(self.engine)
        self.claims = ClaimStore(self.engine)
        self.reviews = ReviewStore(self.engine)
        self.accounts = AccountStore(self.engine)
        self.seeks = SeekStore(self.engine)
        self.tokens = TokenStore(self.engine)
        self.challenges = ChallengeStore(self.engine)
        self.clocks = ClockStore(self.engine)
        self.puzzles = PuzzleStore(self.engine)
        # arena tournaments and the daily deal
        self.arenas = ArenaStore(self.engine)
        self.fairplay = FairPlayStore(self.engine)
        self.people = PeopleStore(self.engine)
        self.games = GameStore(self.engine)
        self.daily = DailyStore(self.engine, cipher)
        self._writer: Writer | None = None
        self._reader: Reader | None = None
        with contextlib.suppress(ValueError):  # a driver the hot paths do not know
            self._reader = Reader(self.engine)
            if self._bulk_ok:
                self._writer = Writer(self.engine)

    def close(self) -> None:
        """Release the engine's connections."""
        if self._writer is not None:
            self._writer.close()
        if self._reader is not None:
            self._reader.close()
        self.engine.dispose()

    def ping(self) -> None:
        """One round trip to the database (raises while it is unavailable)."""
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def reconnect(self) -> None:
        """Drop the connections the hot paths keep (the database came back: those
        opened before it went away are dead); each opens a fresh one when next used."""
        for hot in (self._writer, self._reader):
            if hot is not None:
                hot.close()

    # ------------------------------------------------------------------ writes

    def create(self, m: StoredMatch, salt: str | None = None) -> None:
        """Insert a new match (its hand 0 already dealt, version 0) and, in the same
        transaction, its secret salt (docs/fairness.md), encrypted like the seed."""
        now = time.time()
        m.created_at = m.updated_at = now
        cipher = self.cipher
        with self.engine.begin() as conn:
            conn.execute(
                insert(matches_table).values(
                    id=m.id,
                    token_hash0=m.token_hash0,
                    token_hash1=m.token_hash1,
                    options=json.dumps(m.options),
                    players=json.dumps(m.players),
                    seed=0 if cipher is not None else m.seed,
                    seed_enc=cipher.encrypt(m.seed, m.id) if cipher is not None else None,
                    first_dealer=m.first_dealer,
                    opponent=m.opponent,
                    bot_level=m.bot_level,
                    bot_name=m.bot_name,
                    version=m.version,
                    status=m.status,
                    joined=m.joined,
                    hands_dealt=m.hands_dealt,
                    ready=ready_text(m.ready),
                    score0=m.scores[0],
                    score1=m.scores[1],
                    winner=m.winner,
                    to_play=m.to_play,
                    created_at=now,
                    updated_at=now,
                    invite_hash=m.invite_hash,
                    joined_at=m.joined_at,
                    deal_scheme=m.deal_scheme,
                    clock_move=m.clock_move,
                    clock_bank=m.clock_bank,
                    bank0=m.banks[0] if m.banks else None,
                    bank1=m.banks[1] if m.banks else None,
                    deadline=m.deadline,
                    bot_seats=ready_text(m.bot_seats) if any(m.bot_seats) else None,
                    no_coach=True if m.no_coach else None,
                )
            )
            if salt is not None:
                row: dict[str, str | None] = {"salt": salt, "salt_enc": None}
                if cipher is not None:
                    row = {"salt": "", "salt_enc": cipher.encrypt_text(salt, _salt_aad(m.id))}
                conn.execute(insert(salts_table).values(match_id=m.id, **row))

    def commit_change(
        self,
        match_id: str,
        expected_version: int,
        *,
        action: StoredAction | None = None,
        status: str,
        joined: bool,
        hands_dealt: int,
        ready: Sequence[bool],
        scores: Sequence[int],
        winner: int | None,
        to_play: int | None,
    ) -> int:
        """Store one accepted change (an action, a ``next``, a join) and bump the version,
        in one transaction; returns the new version. Raises StaleVersionError (changing
        nothing) when the stored version is no longer ``expected_version``."""
        change = Change(match_id=match_id, expected_version=expected_version, action=action,
                        status=status, joined=joined, hands_dealt=hands_dealt,
                        ready=tuple(ready), scores=tuple(scores), winner=winner,
                        to_play=to_play)
        result = self.commit_batch([change])[0]
        if result is None:
            raise StaleVersionError(
                f"Match {match_id} is no longer at version {expected_version}."
            )
        return result

    def commit_batch(self, changes: Sequence[Change]) -> list[int | None]:
        """Store several changes (of different matches) in ONE transaction, so one disk
        sync covers them all (group commit); returns each new version, or None for a
        change whose expected version was stale (that one changes nothing). Raises on a
        database error, in which case none of them is stored.

        The usual batch goes as two bulk statements (all version bumps, then all new
        actions); only if some change turns out stale, or a seat is being taken or a
        player named, is the batch redone change by change to tell which ones stand."""
        if self._bulk_ok and all(ch.token_hash1 is None and ch.players is None
                                 for ch in changes):
            try:
                if self._writer is not None:
                    return self._writer.commit(changes)
                return self._commit_bulk(changes)
            except SomeStale:
                pass  # rolled back, nothing stored: sort the batch out one by one
        return self._commit_each(changes)

    def _commit_bulk(self, changes: Sequence[Change]) -> list[int | None]:
        now = time.time()
        rows = [
            {
                "b_id": ch.match_id,
                "b_expected": ch.expected_version,
                "b_version": ch.expected_version + 1,
                "b_status": ch.status,
                "b_joined": ch.joined,
                "b_hands_dealt": ch.hands_dealt,
                "b_ready": ready_text(ch.ready),
                "b_score0": ch.scores[0],
                "b_score1": ch.scores[1],
                "b_winner": ch.winner,
                "b_to_play": ch.to_play,
                "b_updated_at": now,
                **{"b_" + k: v for k, v in _clock_values(ch).items()},
            }
            for ch in changes
        ]
        actions = [
            {
                "match_id": ch.match_id,
                "seq": ch.action.seq,
                "hand": ch.action.hand,
                "seat": ch.action.seat,
                "action": json.dumps(ch.action.action),
            }
            for ch in changes
            if ch.action is not None
        ]
        with self.engine.begin() as conn:
            res = conn.execute(_BULK_UPDATE, rows)
            if res.rowcount != len(rows):
                raise SomeStale  # leaving the block rolls the transaction back
            if actions:
                conn.execute(insert(actions_table), actions)
        return [ch.expected_version + 1 for ch in changes]

    def _commit_each(self, changes: Sequence[Change]) -> list[int | None]:
        out: list[int | None] = []
        now = time.time()
        with self.engine.begin() as conn:
            for ch in changes:
                q = (
                    update(matches_table)
                    .where(matches_table.c.id == ch.match_id)
                    .where(matches_table.c.version == ch.expected_version)
                )
                extra: dict[str, Any] = {}
                if ch.token_hash1 is not None:  # a seat is taken once: only a free seat
                    q = q.where(matches_table.c.token_hash1 == NO_TOKEN)
                    extra["token_hash1"] = ch.token_hash1
                    extra["joined_at"] = ch.joined_at or now  # shown to both seats
                if ch.players is not None:
                    extra["players"] = json.dumps(list(ch.players))
                res = conn.execute(
                    q.values(
                        **extra,
                        version=ch.expected_version + 1,
                        status=ch.status,
                        joined=ch.joined,
                        hands_dealt=ch.hands_dealt,
                        ready=ready_text(ch.ready),
                        score0=ch.scores[0],
                        score1=ch.scores[1],
                        winner=ch.winner,
                        to_play=ch.to_play,
                        updated_at=now,
                        **_clock_values(ch),
                    )
                )
                if res.rowcount != 1:
                    out.append(None)
                    continue
                if ch.action is not None:
                    conn.execute(
                        insert(actions_table).values(
                            match_id=ch.match_id,
                            seq=ch.action.seq,
                            hand=ch.action.hand,
                            seat=ch.action.seat,
                            action=json.dumps(ch.action.action),
                        )
                    )
                out.append(ch.expected_version + 1)
        return out

    # ------------------------------------------------------------------ reads

    def mark_bot_seat(self, match_id: str, seat: int) -> tuple[bool, bool] | None:
        """Mark ``seat`` of the match as played by a BOT or a program (a seat played
        through an API token), keeping the other seat's mark: the match's bot seats now
        (None: no such match). The version is not bumped: no card changed; other
        processes read the mark with the match's next change."""
        t = matches_table
        with self.engine.begin() as conn:
            q = select(t.c.bot_seats).where(t.c.id == match_id)
            if not self.is_sqlite:
                q = q.with_for_update()  # two seats marked at once keep both marks
            row = conn.execute(q).first()
            if row is None:
                return None
            seats = list(_bot_seats(row[0]))
            if not seats[seat]:
                seats[seat] = True
                conn.execute(update(t).where(t.c.id == match_id)
                             .values(bot_seats=ready_text(seats)))
        return seats[0], seats[1]

    def load(self, match_id: str, from_seq: int = 0) -> StoredMatch | None:
        """The match with its actions in order (those from ``from_seq`` on: a process
        catching up reads only what is new), or None if there is no such match. The row
        and its actions are read in one snapshot: read apart, a commit landing between
        the two reads showed an action without its version bump."""
        with self.engine.connect() as conn:
            if not self.is_sqlite:  # (SQLite: one process, its reads in one thread)
                conn.execution_options(isolation_level="REPEATABLE READ")
            row = conn.execute(
                select(matches_table).where(matches_table.c.id == match_id)
            ).first()
            if row is None:
                return None
            m = _row_to_match(row, self.cipher)
            rows = conn.execute(
                select(actions_table)
                .where(actions_table.c.match_id == match_id)
                .where(actions_table.c.seq >= from_seq)
                .order_by(actions_table.c.seq)
            ).all()
        m.actions = [
            StoredAction(int(r.seq), int(r.hand), int(r.seat), json.loads(r.action)) for r in rows
        ]
        return m

    def tail(self, known: StoredMatch, from_seq: int) -> StoredMatch | None:
        """The match ``known`` as stored now, with its actions from ``from_seq`` on: how a
        process catches a table up with what other processes stored (one statement, one
        snapshot; the fields that never change, the seed among them, are ``known``'s).
        None when the match is gone."""
        if self._reader is not None:
            return self._reader.tail(known, from_seq)
        return self.load(known.id, from_seq)

    def versions(self, match_ids: Iterable[str]) -> dict[str, int]:
        """The stored version of each of these matches (absent: no such match): how a
        process learns of other processes' changes while the broker is away."""
        ids = sorted(set(match_ids))
        out: dict[str, int] = {}
        if self._reader is not None:
            for i in range(0, len(ids), 500):
                out.update(self._reader.versions(ids[i:i + 500]))
            return out
        with self.engine.connect() as conn:
            for i in range(0, len(ids), 500):
                q = select(matches_table.c.id, matches_table.c.version).where(
                    matches_table.c.id.in_(ids[i:i + 500]))
                out.update((str(r[0]), int(r[1])) for r in conn.execute(q).all())
        return out

    def find_by_token_hashes(self, hashes: Iterable[str]) -> list[StoredMatch]:
        """Matches having a seat whose token hash is among ``hashes`` (rows only, no
        actions), most recently changed first."""
        hs = sorted(set(hashes))
        if not hs:
            return []
        c = matches_table.c
        return self._rows(or_(c.token_hash0.in_(hs), c.token_hash1.in_(hs)))

    def find_by_ids(self, match_ids: Iterable[str]) -> list[StoredMatch]:
        """These matches (rows only, no actions; unknown ids are left out), most recently
        changed first: an account's matches, whose ids its links name."""
        ids = sorted(set(match_ids))
        if not ids:
            return []
        return self._rows(matches_table.c.id.in_(ids))

    def _rows(self, where: Any) -> list[StoredMatch]:
        """The match rows ``where`` holds, most recently changed first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(matches_table).where(where)
                                .order_by(matches_table.c.updated_at.desc())).all()
        return [_row_to_match(r, self.cipher) for r in rows]

    def ids_with_status(self, status: str, opponent: str | None = None) -> list[str]:
        """Ids of matches in ``status`` (and with that opponent kind, if given)."""
        q = select(matches_table.c.id).where(matches_table.c.status == status)
        if opponent is not None:
            q = q.where(matches_table.c.opponent == opponent)
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    def computer_turns(self, before: float) -> list[str]:
        """Ids of computer matches waiting for the computer's move since before ``before``
        (Unix seconds): candidates for another process to take over."""
        q = (
            select(matches_table.c.id)
            .where(matches_table.c.status == "playing")
            .where(matches_table.c.opponent == "computer")
            .where(matches_table.c.to_play == 1)
            .where(matches_table.c.updated_at < before)
            .limit(1000)
        )
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    def expired_clocks(self, now: float) -> list[str]:
        """Ids of matches being played whose clock ran out by ``now`` (Unix seconds): the
        decisions the clocks' scan plays for their seat (the indexed ``deadline``)."""
        q = (
            select(matches_table.c.id)
            .where(matches_table.c.deadline.isnot(None))
            .where(matches_table.c.deadline <= now)
            .where(matches_table.c.status == "playing")
            .order_by(matches_table.c.deadline)
            .limit(1000)
        )
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    def salt(self, match_id: str) -> str | None:
        """The match's secret salt (None for matches made before salts)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(salts_table.c.salt, salts_table.c.salt_enc)
                .where(salts_table.c.match_id == match_id)
            ).first()
        if row is None:
            return None
        if not row.salt_enc:
            return str(row.salt)
        if self.cipher is None:
            raise StoreError("This database's salts are encrypted: the seed key is needed.")
        try:
            return self.cipher.decrypt_text(row.salt_enc, _salt_aad(match_id))
        except ValueError as e:
            raise StoreError(f"Cannot read the salt of match {match_id}: {e}.") from None

    # ------------------------------------------------------------------ pruning

    def prune_abandoned(self, before: float) -> list[str]:
        """Delete unfinished matches last changed before ``before`` (Unix seconds), with
        everything stored about them (actions, salt, rematch links, reviews, hints, turn
        claims), in one transaction; returns their ids."""
        with self.engine.begin() as conn:
            ids = [
                str(r[0])
                for r in conn.execute(
                    select(matches_table.c.id)
                    .where(matches_table.c.status != "finished")
                    .where(matches_table.c.updated_at < before)
                    .limit(10000)
                ).all()
            ]
            if ids:
                for table in (actions_table, salts_table, reviews_table, hints_table,
                              claims_table, account_matches_table):
                    conn.execute(delete(table).where(table.c.match_id.in_(ids)))
                conn.execute(delete(rematches_table).where(or_(
                    rematches_table.c.old_id.in_(ids), rematches_table.c.new_id.in_(ids))))
                conn.execute(delete(matches_table).where(matches_table.c.id.in_(ids)))
        return ids


def _salt_aad(match_id: str) -> str:
    """What a stored salt is bound to: its match, as a salt (never readable as a seed)."""
    return f"salt:{match_id}"
