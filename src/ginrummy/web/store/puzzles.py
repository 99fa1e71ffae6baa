"""The puzzle tables (revision 0008): puzzles, an account's first answer to each public
one, and accounts' puzzle ratings; with the reads a player's own marked decisions need.

An answer is one transaction: the puzzle's row is read (locked on PostgreSQL, so two
players answering at once both count), and for an account's first answer to a public
puzzle both Glicko-2 ratings move and the answer is stored, all or nothing. A second
answer to the same puzzle changes no rating. A private puzzle only counts its answers
and remembers when its owner got it right.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ...ratings import DEFAULT, Rating
from .schema import (
    account_matches_table,
    matches_table,
    puzzle_attempts_table,
    puzzle_ratings_table,
    puzzles_table,
    reviews_table,
)

__all__ = ["Answered", "NewPuzzle", "PuzzleRow", "PuzzleStore"]

RATE = Callable[[Rating, Rating, float], tuple[Rating, Rating]]
"""Both new ratings (the player's, the puzzle's) from both old ones and the player's score."""


@dataclass(frozen=True)
class NewPuzzle:
    """A puzzle to store (its body is the JSON of :meth:`ginrummy.training.puzzles.Puzzle
    .to_json`, or a private puzzle's)."""

    id: str
    key: str
    owner: str | None
    match_id: str | None
    hand: int
    action: int
    seat: int
    themes: tuple[str, ...]
    body: dict[str, Any]
    rating: Rating = DEFAULT
    solved_at: float | None = None


@dataclass(frozen=True)
class PuzzleRow(NewPuzzle):
    """A stored puzzle as the web layer sees it: with its answers counted (rated ones, or
    every answer of a private puzzle) and when it was stored."""

    attempts: int = 0
    solved: int = 0
    created_at: float = 0.0


@dataclass(frozen=True, slots=True)
class Answered:
    """What an answer did: the puzzle after it, whether it was rated, the account's
    puzzle rating after it (None: a guest)."""

    puzzle: PuzzleRow
    rated: bool
    player: Rating | None


def _row(r: Any) -> PuzzleRow:
    m = r._mapping
    return PuzzleRow(
        str(m["id"]), str(m["key"]), m["owner"], m["match_id"], int(m["hand"]),
        int(m["action"]), int(m["seat"]), tuple(str(m["themes"]).split()),
        json.loads(m["body"]),
        Rating(float(m["rating"]), float(m["deviation"]), float(m["volatility"])),
        solved_at=None if m["solved_at"] is None else float(m["solved_at"]),
        attempts=int(m["attempts"]), solved=int(m["solved"]),
        created_at=float(m["created_at"]))


def _player(r: Any) -> Rating:
    return Rating(float(r.rating), float(r.deviation), float(r.volatility))


class PuzzleStore:
    """The puzzle tables over an engine whose schema is at the migrations' head
    (synchronous; the web layer runs it off the event loop, ``ginrummy puzzles make``
    directly)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"

    # ------------------------------------------------------------------ writing puzzles

    def add(self, puzzles: Iterable[NewPuzzle]) -> int:
        """Store new puzzles, each in its own savepoint; one whose ``key`` (or id) is
        stored already is left as it is. How many were added."""
        added = 0
        now = time.time()
        with self.engine.begin() as conn:
            for p in puzzles:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(puzzles_table).values(
                            id=p.id, key=p.key, owner=p.owner, match_id=p.match_id,
                            hand=p.hand, action=p.action, seat=p.seat,
                            themes=" " + " ".join(p.themes) + " ",
                            body=json.dumps(p.body, separators=(",", ":")),
                            rating=p.rating.rating, deviation=p.rating.deviation,
                            volatility=p.rating.volatility, attempts=0, solved=0,
                            created_at=now, solved_at=p.solved_at))
                    added += 1
                except IntegrityError:
                    pass
        return added

    # ------------------------------------------------------------------ reading puzzles

    def get(self, puzzle_id: str) -> PuzzleRow | None:
        """The puzzle with this id, or None."""
        with self.engine.connect() as conn:
            r = conn.execute(select(puzzles_table)
                             .where(puzzles_table.c.id == puzzle_id)).first()
        return None if r is None else _row(r)

    def public(self, limit: int | None = None) -> list[PuzzleRow]:
        """Public puzzles in the order they were made (at most ``limit``)."""
        p = puzzles_table
        q = select(p).where(p.c.owner.is_(None)).order_by(p.c.created_at, p.c.key)
        if limit is not None:
            q = q.limit(limit)
        with self.engine.connect() as conn:
            return [_row(r) for r in conn.execute(q).all()]

    def remove(self, ids: Iterable[str]) -> int:
        """Delete these puzzles and the answers to them; how many puzzles went."""
        ids = sorted(set(ids))
        if not ids:
            return 0
        with self.engine.begin() as conn:
            conn.execute(delete(puzzle_attempts_table)
                         .where(puzzle_attempts_table.c.puzzle_id.in_(ids)))
            return int(conn.execute(delete(puzzles_table)
                                    .where(puzzles_table.c.id.in_(ids))).rowcount)

    def finished_public_matches(self, limit: int | None = None) -> list[str]:
        """Ids of finished public matches (listed live while played), newest first: where
        ``ginrummy puzzles make --from-db`` looks for puzzles."""
        t, m = account_matches_table, matches_table
        q = (select(m.c.id).join(t, t.c.match_id == m.c.id).where(t.c.public.is_(True))
             .where(m.c.status == "finished").order_by(m.c.updated_at.desc(), m.c.id))
        if limit is not None:
            q = q.limit(limit)
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    def count(self) -> int:
        """How many public puzzles there are."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(puzzles_table)
                                    .where(puzzles_table.c.owner.is_(None))).scalar() or 0)

    def nearest(self, rating: float, theme: str | None, account_id: str | None,
                limit: int) -> list[PuzzleRow]:
        """Up to ``limit`` public puzzles on each side of ``rating`` (nearest first),
        with ``theme`` if given, that the account has not answered yet."""
        p, a = puzzles_table, puzzle_attempts_table
        base = select(p).where(p.c.owner.is_(None))
        if theme is not None:
            base = base.where(p.c.themes.like(f"% {theme} %"))
        if account_id is not None:
            done = select(a.c.puzzle_id).where(a.c.account_id == account_id)
            base = base.where(p.c.id.not_in(done))
        up = base.where(p.c.rating >= rating).order_by(p.c.rating.asc(), p.c.id).limit(limit)
        down = base.where(p.c.rating < rating).order_by(p.c.rating.desc(), p.c.id).limit(limit)
        with self.engine.connect() as conn:
            rows = [_row(r) for r in conn.execute(up).all()]
            rows += [_row(r) for r in conn.execute(down).all()]
        rows.sort(key=lambda r: (abs(r.rating.rating - rating), r.id))
        return rows[:limit]

    def private(self, account_id: str) -> list[PuzzleRow]:
        """The account's private puzzles, oldest first (solved ones too)."""
        p = puzzles_table
        with self.engine.connect() as conn:
            rows = conn.execute(select(p).where(p.c.owner == account_id)
                                .order_by(p.c.created_at, p.c.key)).all()
        return [_row(r) for r in rows]

    # ------------------------------------------------------------------ answers

    def answer(self, puzzle_id: str, account_id: str | None, action: dict[str, Any],
               correct: bool, rate: RATE) -> Answered | None:
        """Apply one answer (module docstring); None when there is no such puzzle for
        this player (a private puzzle of another account counts as none)."""
        for _ in range(3):
            try:
                return self._answer(puzzle_id, account_id, action, correct, rate)
            except IntegrityError:
                continue  # another answer of this account got in first: read it again
        return self._answer(puzzle_id, account_id, action, correct, rate)

    def _lock(self, q: Any) -> Any:
        return q if self.is_sqlite else q.with_for_update()

    def _answer(self, puzzle_id: str, account_id: str | None, action: dict[str, Any],
                correct: bool, rate: RATE) -> Answered | None:
        p, a, pr = puzzles_table, puzzle_attempts_table, puzzle_ratings_table
        now = time.time()
        with self.engine.begin() as conn:
            r = conn.execute(self._lock(select(p).where(p.c.id == puzzle_id))).first()
            if r is None:
                return None
            row = _row(r)
            if row.owner is not None:
                if row.owner != account_id:
                    return None
                values: dict[str, Any] = {"attempts": p.c.attempts + 1,
                                          "solved": p.c.solved + int(correct)}
                if correct and row.solved_at is None:
                    values["solved_at"] = now
                conn.execute(update(p).where(p.c.id == puzzle_id).values(**values))
                return Answered(self._reread(conn, puzzle_id), False, None)
            if account_id is None:
                return Answered(row, False, None)
            player_row = conn.execute(self._lock(
                select(pr).where(pr.c.account_id == account_id))).first()
            player = DEFAULT if player_row is None else _player(player_row)
            seen = conn.execute(select(a.c.puzzle_id).where(a.c.account_id == account_id)
                                .where(a.c.puzzle_id == puzzle_id)).first()
            if seen is not None:
                return Answered(row, False, player)
            new_player, new_puzzle = rate(player, row.rating, 1.0 if correct else 0.0)
            conn.execute(update(p).where(p.c.id == puzzle_id).values(
                rating=new_puzzle.rating, deviation=new_puzzle.deviation,
                volatility=new_puzzle.volatility, attempts=p.c.attempts + 1,
                solved=p.c.solved + int(correct)))
            values = {"rating": new_player.rating, "deviation": new_player.deviation,
                      "volatility": new_player.volatility, "rated_at": now}
            if player_row is None:
                conn.execute(insert(pr).values(account_id=account_id, puzzles=1, **values))
            else:
                conn.execute(update(pr).where(pr.c.account_id == account_id)
                             .values(puzzles=pr.c.puzzles + 1, **values))
            conn.execute(insert(a).values(account_id=account_id, puzzle_id=puzzle_id,
                                          correct=correct, action=json.dumps(action),
                                          rating=new_player.rating, at=now))
            return Answered(self._reread(conn, puzzle_id), True, new_player)

    @staticmethod
    def _reread(conn: Connection, puzzle_id: str) -> PuzzleRow:
        return _row(conn.execute(select(puzzles_table)
                                 .where(puzzles_table.c.id == puzzle_id)).one())

    def rating_of(self, account_id: str) -> tuple[Rating, int]:
        """The account's puzzle rating and how many puzzles it was rated on (a newcomer's
        rating and 0 before its first)."""
        pr = puzzle_ratings_table
        with self.engine.connect() as conn:
            r = conn.execute(select(pr).where(pr.c.account_id == account_id)).first()
        return (DEFAULT, 0) if r is None else (_player(r), int(r.puzzles))

    def history(self, account_id: str, limit: int) -> list[dict[str, Any]]:
        """The account's rated answers, newest first: the puzzle, right or wrong, the move,
        the rating after it, when; with the puzzle's themes."""
        a, p = puzzle_attempts_table, puzzles_table
        q = (select(a, p.c.themes).join(p, p.c.id == a.c.puzzle_id)
             .where(a.c.account_id == account_id).order_by(a.c.at.desc()).limit(limit))
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [{"id": str(r.puzzle_id), "correct": bool(r.correct),
                 "action": json.loads(r.action), "rating": round(float(r.rating)),
                 "at": float(r.at), "themes": str(r.themes).split()} for r in rows]

    # ------------------------------------------------------------------ marked decisions

    def marked_decisions(self, account_id: str, limit: int) -> list[dict[str, Any]]:
        """The account's own marked decisions in its reviewed matches (the newest
        matches first, at most ``limit`` matches): ``match``, ``seat``, ``hand``,
        ``action``, ``played`` and ``mark`` of each, from the stored reviews."""
        t, rv = account_matches_table, reviews_table
        q = (select(t.c.match_id, t.c.account0, t.c.account1, rv.c.parts)
             .join(rv, rv.c.match_id == t.c.match_id)
             .where(or_(t.c.account0 == account_id, t.c.account1 == account_id))
             .order_by(t.c.created_at.desc()).limit(limit))
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        out: list[dict[str, Any]] = []
        for r in rows:
            seats = [s for s, who in enumerate((r.account0, r.account1)) if who == account_id]
            parts = json.loads(r.parts or "{}")
            for key, part in sorted(parts.items(), key=lambda kv: _part_order(kv[0])):
                hand, seat = _part_order(key)
                if seat not in seats:
                    continue
                for d in part.get("decisions", []):
                    if d.get("mark") and int(d.get("seat", seat)) == seat:
                        out.append({"match": str(r.match_id), "seat": seat, "hand": hand,
                                    "action": int(d["action"]), "played": d["played"],
                                    "mark": d["mark"]})
        return out


def _part_order(key: str) -> tuple[int, int]:
    """``"HAND:SEAT"`` (a stored review part's key) as numbers."""
    hand, _, seat = key.partition(":")
    return int(hand), int(seat)
