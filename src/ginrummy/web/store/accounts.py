"""Accounts, their sessions, who plays which match, and ratings (the statements of
:mod:`ginrummy.web.accounts.accounts`, :mod:`ginrummy.web.online.ratings` and
:mod:`ginrummy.web.online.spectators`).

Every change is one transaction: an account is created whole or not at all (its username
unique without regard to case, by the table's unique key), and a rated match's result
is applied to both ratings at most once (the ``settled`` flag is set in the same
transaction that writes both ratings; on PostgreSQL the rows are locked first, so two
processes settling the same match apply it once).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from ...ratings import Rating
from .schema import (
    account_matches_table,
    accounts_table,
    browser_accounts_table,
    matches_table,
    rated_offences_table,
    rating_history_table,
    sessions_table,
)

__all__ = ["Account", "AccountStore", "MatchLink"]


@dataclass(frozen=True, slots=True)
class Account:
    """An account as the web layer sees it (the password hash only where asked for)."""

    id: str
    username: str
    rating: Rating
    rated_matches: int
    created_at: float
    password_hash: str = ""
    bot: bool = False
    """A BOT account: it plays only through API tokens, and is marked BOT everywhere."""
    closed: bool = False
    """Closed by an operator: it cannot log in, act or be challenged."""
    moderator: bool = False
    """A moderator: it sees flags and reports and marks accounts."""
    mark: str | None = None
    """A moderator's mark (``engine`` or ``booster``): off the leaderboard."""
    program: bool = False
    """It has played through an API token: paired like a BOT (never with a person who did
    not ask for BOTs), though a person may still play it with its session."""
    lang: str | None = None
    """The language the account chose (None: its browser's)."""


@dataclass(frozen=True, slots=True)
class MatchLink:
    """Who plays a match (an account id per seat, None for a guest) and how it is listed."""

    match_id: str
    accounts: tuple[str | None, str | None]
    rated: bool
    public: bool
    settled: bool
    same_address: bool = False
    """Both players came from one address (two seeks, a challenge and its acceptor, two
    arena players): the result moves each rating by little."""
    rating_note: str | None = None
    """Why a settled rated match moved no rating (``aborted``, ``repeated pairing``)."""


def _account(row: Any, with_hash: bool = False) -> Account:
    m = row._mapping
    return Account(str(m["id"]), str(m["username"]),
                   Rating(float(m["rating"]), float(m["deviation"]), float(m["volatility"])),
                   int(m["rated_matches"]), float(m["created_at"]),
                   str(m["password_hash"]) if with_hash else "", bool(m.get("bot")),
                   m.get("closed_at") is not None, bool(m.get("moderator")), m.get("mark"),
                   bool(m.get("program")), m.get("lang"))


def _link(row: Any) -> MatchLink:
    m = row._mapping
    return MatchLink(str(m["match_id"]), (m["account0"], m["account1"]), bool(m["rated"]),
                     bool(m["public"]), bool(m["settled"]), bool(m["same_address"]),
                     m["rating_note"])


class AccountStore:
    """The account tables (synchronous; the web layer runs these off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"

    # ------------------------------------------------------------------ accounts

    def create(self, account_id: str, username: str, key: str, password_hash: str,
               rating: Rating) -> Account | None:
        """Insert a new account; None (nothing stored) when the folded username ``key``
        is in use."""
        now = time.time()
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(accounts_table).values(
                    id=account_id, username=username, username_key=key,
                    password_hash=password_hash, created_at=now, rating=rating.rating,
                    deviation=rating.deviation, volatility=rating.volatility,
                    rated_matches=0, rated_at=None))
        except IntegrityError:
            return None
        return Account(account_id, username, rating, 0, now)

    def by_key(self, key: str) -> Account | None:
        """The open account with this folded username, its password hash included (a
        closed account is not found: it cannot log in)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts_table)
                               .where(accounts_table.c.username_key == key)
                               .where(accounts_table.c.closed_at.is_(None))).first()
        return _account(row, with_hash=True) if row is not None else None

    def used_browser(self, key: str, browser_hash: str) -> bool:
        """Whether the open account with this folded username has used this browser (by
        its cookie's hash, ``browser_accounts``): a known device, let in to log in while
        the site refuses a flood of log-ins."""
        a, ba = accounts_table, browser_accounts_table
        q = (select(ba.c.account_id).join(a, a.c.id == ba.c.account_id)
             .where(a.c.username_key == key).where(a.c.closed_at.is_(None))
             .where(ba.c.browser_hash == browser_hash).limit(1))
        with self.engine.connect() as conn:
            return conn.execute(q).first() is not None

    def by_ids(self, ids: list[str]) -> dict[str, Account]:
        """The accounts with these ids (no password hashes)."""
        if not ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(select(accounts_table)
                                .where(accounts_table.c.id.in_(sorted(set(ids))))).all()
        return {str(r.id): _account(r) for r in rows}

    def set_language(self, account_id: str, lang: str) -> None:
        """Keep the language the account chose."""
        with self.engine.begin() as conn:
            conn.execute(update(accounts_table).where(accounts_table.c.id == account_id)
                         .values(lang=lang))

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        """Store a re-hashed password (the hasher's parameters changed)."""
        with self.engine.begin() as conn:
            conn.execute(update(accounts_table).where(accounts_table.c.id == account_id)
                         .values(password_hash=password_hash))

    def replace_password(self, account_id: str, password_hash: str) -> int:
        """A new password chosen by the account: store its hash and end every session of
        the account (in one transaction); how many sessions ended."""
        with self.engine.begin() as conn:
            conn.execute(update(accounts_table).where(accounts_table.c.id == account_id)
                         .values(password_hash=password_hash))
            return int(conn.execute(delete(sessions_table)
                                    .where(sessions_table.c.account_id == account_id)).rowcount)

    def leaderboard(self, max_deviation: float, limit: int) -> list[Account]:
        """Accounts with at least one rated match and a settled deviation, best first (a
        marked account is not on it)."""
        t = accounts_table
        q = (select(t).where(t.c.rated_matches > 0).where(t.c.deviation <= max_deviation)
             .where(t.c.mark.is_(None))
             .order_by(t.c.rating.desc(), t.c.username_key).limit(limit))
        with self.engine.connect() as conn:
            return [_account(r) for r in conn.execute(q).all()]

    def bot_ladder(self, limit: int, exclude: Sequence[str] = ()
                   ) -> list[tuple[Account, dict[str, Any]]]:
        """BOT accounts (programs) with a rated match, best rating first (not marked, not
        closed, none of the ids ``exclude``: the computer's levels), each with its rated
        results: ``wins``, ``ties``, ``losses`` and ``last`` (when it last finished one,
        Unix seconds)."""
        a, h = accounts_table, rating_history_table
        q = (select(a).where(a.c.bot.is_(True)).where(a.c.rated_matches > 0)
             .where(a.c.id.not_in(list(exclude)))
             .where(a.c.mark.is_(None)).where(a.c.closed_at.is_(None))
             .order_by(a.c.rating.desc(), a.c.username_key).limit(limit))
        with self.engine.connect() as conn:
            bots = [_account(r) for r in conn.execute(q).all()]
            results: dict[str, dict[str, Any]] = {
                b.id: {"wins": 0, "ties": 0, "losses": 0, "last": None} for b in bots}
            if bots:
                rq = (select(h.c.account_id, h.c.score, func.count(), func.max(h.c.at))
                      .where(h.c.account_id.in_(list(results)))
                      .group_by(h.c.account_id, h.c.score))
                for acct, score, n, last in conn.execute(rq).all():
                    d = results[str(acct)]
                    d["wins" if score > 0.5 else "losses" if score < 0.5 else "ties"] += int(n)
                    d["last"] = max(d["last"] or 0.0, float(last))
        return [(b, results[b.id]) for b in bots]

    # ------------------------------------------------------------------ sessions

    def add_session(self, token_hash: str, account_id: str, expires_at: float) -> None:
        """Store a new session (its token's hash only)."""
        with self.engine.begin() as conn:
            conn.execute(insert(sessions_table).values(
                token_hash=token_hash, account_id=account_id, created_at=time.time(),
                expires_at=expires_at))

    def session_account(self, token_hash: str) -> Account | None:
        """The account of an unexpired session, else None."""
        s, a = sessions_table, accounts_table
        q = (select(a).join(s, s.c.account_id == a.c.id)
             .where(s.c.token_hash == token_hash).where(s.c.expires_at > time.time())
             .where(a.c.closed_at.is_(None)))
        with self.engine.connect() as conn:
            row = conn.execute(q).first()
        return _account(row) if row is not None else None

    def end_session(self, token_hash: str, everywhere: bool) -> int:
        """Delete this session or, ``everywhere``, every session of its account; how many
        were deleted (expired ones are swept along)."""
        s = sessions_table
        with self.engine.begin() as conn:
            if everywhere:
                acct = conn.execute(select(s.c.account_id)
                                    .where(s.c.token_hash == token_hash)).scalar()
                if acct is None:
                    return 0
                n = conn.execute(delete(s).where(s.c.account_id == acct)).rowcount
            else:
                n = conn.execute(delete(s).where(s.c.token_hash == token_hash)).rowcount
            conn.execute(delete(s).where(s.c.expires_at < time.time()))
        return int(n)

    # ------------------------------------------------------------------ matches

    def link(self, match_id: str, accounts: tuple[str | None, str | None], rated: bool,
             public: bool, same_address: bool = False) -> None:
        """Record who plays a new match and how it is listed (``same_address``: both
        players came from one address)."""
        with self.engine.begin() as conn:
            conn.execute(insert(account_matches_table).values(
                match_id=match_id, account0=accounts[0], account1=accounts[1], rated=rated,
                public=public, settled=False, created_at=time.time(),
                same_address=same_address))

    def links(self, match_ids: list[str]) -> dict[str, MatchLink]:
        """The links of these matches (absent: guests only, private, unrated)."""
        if not match_ids:
            return {}
        t = account_matches_table
        with self.engine.connect() as conn:
            rows = conn.execute(select(t).where(t.c.match_id.in_(sorted(set(match_ids))))).all()
        return {str(r.match_id): _link(r) for r in rows}

    def claim_seats(self, account_id: str, seats: list[tuple[str, int]]) -> int:
        """Put ``account_id`` on these (match, seat) pairs where the seat has no account
        yet; how many seats it took. A seat already an account's is left as it is."""
        t = account_matches_table
        taken = 0
        with self.engine.begin() as conn:
            for match_id, seat in seats:
                col = t.c.account0 if seat == 0 else t.c.account1
                other = t.c.account1 if seat == 0 else t.c.account0
                row = conn.execute(select(t).where(t.c.match_id == match_id)).first()
                if row is None:
                    conn.execute(insert(t).values(
                        match_id=match_id, account0=account_id if seat == 0 else None,
                        account1=account_id if seat == 1 else None, rated=False,
                        public=False, settled=False, created_at=time.time()))
                    taken += 1
                    continue
                n = conn.execute(update(t).where(t.c.match_id == match_id)
                                 .where(col.is_(None))
                                 .where(or_(other.is_(None), other != account_id))
                                 .values({col.name: account_id})).rowcount
                taken += int(n)
        return taken

    def live(self, limit: int) -> list[tuple[MatchLink, dict[str, Any]]]:
        """Public matches still being played, most recently changed first, each with its
        row's summary (players, options, scores, hands, updated_at)."""
        t, m = account_matches_table, matches_table
        q = (select(t, m.c.players, m.c.options, m.c.score0, m.c.score1, m.c.hands_dealt,
                    m.c.updated_at, m.c.bot_seats)
             .join(m, m.c.id == t.c.match_id)
             .where(t.c.public.is_(True)).where(m.c.status == "playing")
             .order_by(m.c.updated_at.desc()).limit(limit))
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [(_link(r), {"players": r.players, "options": r.options,
                            "scores": [int(r.score0), int(r.score1)],
                            "hands": int(r.hands_dealt), "updated_at": float(r.updated_at),
                            "bots": [bool(r.bot_seats) and r.bot_seats[i] == "1"
                                     for i in (0, 1)]})
                for r in rows]

    @staticmethod
    def _recent_matches(conn: Connection, account_id: str, limit: int,
                        viewer: str | None) -> list[dict[str, Any]]:
        """The account's most recent matches that ``viewer`` (an account id, None for a
        guest) may see: the public ones, and private ones only where the viewer played:
        id, seat, status, end, winner, scores, players, rated, note, updated_at, and
        ``bots`` (which seats BOT accounts or programs played)."""
        t, m = account_matches_table, matches_table
        seen: ColumnElement[bool] = t.c.public.is_(True)
        if viewer is not None:
            seen = or_(seen, t.c.account0 == viewer, t.c.account1 == viewer)
        q = (select(t, m.c.players, m.c.status, m.c.winner, m.c.score0, m.c.score1,
                    m.c.updated_at, m.c.end_reason, m.c.bot_seats)
             .join(m, m.c.id == t.c.match_id)
             .where(or_(t.c.account0 == account_id, t.c.account1 == account_id))
             .where(seen)
             .order_by(m.c.updated_at.desc()).limit(limit))
        rows = conn.execute(q).all()
        return [{"id": str(r.match_id), "seat": 0 if r.account0 == account_id else 1,
                 "accounts": [r.account0, r.account1], "players": r.players,
                 "status": str(r.status), "end": r.end_reason, "winner": r.winner,
                 "rated": bool(r.rated), "note": r.rating_note,
                 "scores": [int(r.score0), int(r.score1)], "updated_at": float(r.updated_at),
                 "bots": [bool(r.bot_seats) and r.bot_seats[i:i + 1] == "1" for i in (0, 1)]}
                for r in rows]

    def seats_of(self, account_id: str, limit: int) -> list[tuple[str, int]]:
        """The (match id, seat) of every seat the account holds, most recently changed
        match first (at most ``limit`` matches): the lobby's list on any device."""
        t, m = account_matches_table, matches_table
        q = (select(t.c.match_id, t.c.account0, t.c.account1).join(m, m.c.id == t.c.match_id)
             .where(or_(t.c.account0 == account_id, t.c.account1 == account_id))
             .order_by(m.c.updated_at.desc()).limit(limit))
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [(str(r.match_id), seat) for r in rows
                for seat, holder in enumerate((r.account0, r.account1)) if holder == account_id]

    @staticmethod
    def _count_matches(conn: Connection, account_id: str) -> int:
        """How many matches the account has played or plays (rated or not)."""
        t = account_matches_table
        q = select(func.count()).select_from(t).where(
            or_(t.c.account0 == account_id, t.c.account1 == account_id))
        return int(conn.execute(q).scalar() or 0)

    def profile(self, key: str, history_limit: int, recent_limit: int,
                viewer: str | None = None) -> dict[str, Any] | None:
        """Everything a profile shows of the account with this folded username to
        ``viewer`` (an account id; None: a guest), read in one snapshot (a rating and the
        history it came from always agree): ``account``, ``history``, ``record``,
        ``recent`` (never a private match the viewer did not play), ``matches``. None: no
        such account."""
        with self.engine.connect() as conn:
            if not self.is_sqlite:
                conn.execution_options(isolation_level="REPEATABLE READ")
            row = conn.execute(select(accounts_table)
                               .where(accounts_table.c.username_key == key)).first()
            if row is None:
                return None
            acct = _account(row)
            return {"account": acct,
                    "history": self._history(conn, acct.id, history_limit),
                    "record": self._record_by_opponent(conn, acct.id),
                    "recent": self._recent_matches(conn, acct.id, recent_limit, viewer),
                    "matches": self._count_matches(conn, acct.id)}

    # ------------------------------------------------------------------ ratings

    def settle(self, match_id: str, score0: float | None,
               rate: Callable[[Rating, Rating, float, bool], tuple[Rating, Rating]],
               pair_window: float, offence: tuple[int, str] | None = None) -> bool:
        """Apply a rated match's result to both accounts' ratings, once: ``score0`` is
        seat 0's score (1, 0.5 or 0), None for an aborted match (settled, no change, noted
        ``aborted``); ``rate`` gives both new ratings from both old ones, the score and
        whether both seeks came from one address. A result between two accounts whose
        last counted result is less than ``pair_window`` seconds old is settled with no
        change (noted ``repeated pairing``). Two accounts that have used one browser
        (``browser_accounts``) are rated as if from one address, however their match was
        made. ``offence``: (seat, kind) of a seat that aborted or left, recorded in the
        same transaction (so once). False when there was nothing to do (not rated, or
        settled already)."""
        t, a, h = account_matches_table, accounts_table, rating_history_table
        now = time.time()
        with self.engine.begin() as conn:
            q = select(t).where(t.c.match_id == match_id)
            if not self.is_sqlite:
                q = q.with_for_update()
            row = conn.execute(q).first()
            if row is None:
                return False
            link = _link(row)
            ids = link.accounts
            if not link.rated or link.settled or ids[0] is None or ids[1] is None:
                return False
            if offence is not None and ids[offence[0]] is not None:
                conn.execute(insert(rated_offences_table).values(
                    account_id=ids[offence[0]], match_id=match_id, kind=offence[1], at=now))
            aq = select(a).where(a.c.id.in_([ids[0], ids[1]])).order_by(a.c.id)
            if not self.is_sqlite:
                aq = aq.with_for_update()  # both accounts: the pair rule sees every result
            accts = {str(r.id): _account(r) for r in conn.execute(aq).all()}
            note = None
            if score0 is None:
                note = "aborted"
            elif conn.execute(select(h.c.match_id).where(h.c.account_id == ids[0])
                              .where(h.c.opponent_id == ids[1])
                              .where(h.c.at > now - pair_window).limit(1)).first():
                note = "repeated pairing"
            conn.execute(update(t).where(t.c.match_id == match_id)
                         .values(settled=True, rating_note=note))
            if note is not None or score0 is None:
                return True
            if len(accts) != 2:
                return False
            old = (accts[ids[0]].rating, accts[ids[1]].rating)
            same = link.same_address or self._share_browser(conn, ids[0], ids[1])
            new = rate(old[0], old[1], score0, same)
            for seat in (0, 1):
                r = new[seat]
                conn.execute(update(a).where(a.c.id == ids[seat]).values(
                    rating=r.rating, deviation=r.deviation, volatility=r.volatility,
                    rated_matches=a.c.rated_matches + 1, rated_at=now))
                conn.execute(insert(h).values(
                    account_id=ids[seat], match_id=match_id, opponent_id=ids[1 - seat],
                    score=score0 if seat == 0 else 1.0 - score0, rating=r.rating,
                    deviation=r.deviation, volatility=r.volatility, at=now))
        return True

    @staticmethod
    def _share_browser(conn: Connection, a: str, b: str) -> bool:
        """Whether two accounts have used one browser (sought, challenged, joined an arena
        or opened a page signed in from it)."""
        ba = browser_accounts_table
        mine = select(ba.c.browser_hash).where(ba.c.account_id == a)
        q = (select(ba.c.account_id).where(ba.c.account_id == b)
             .where(ba.c.browser_hash.in_(mine)).limit(1))
        return conn.execute(q).first() is not None

    def offences_of(self, account_ids: list[str], since: float) -> dict[str, list[float]]:
        """When each of these accounts aborted or left a rated match, from ``since`` on
        (oldest first; an account with none is absent): an arena's pairing reads its
        players' waits at once."""
        o = rated_offences_table
        if not account_ids:
            return {}
        q = (select(o.c.account_id, o.c.at).where(o.c.account_id.in_(sorted(set(account_ids))))
             .where(o.c.at >= since).order_by(o.c.at))
        out: dict[str, list[float]] = {}
        with self.engine.connect() as conn:
            for account_id, at in conn.execute(q).all():
                out.setdefault(str(account_id), []).append(float(at))
        return out

    def offences(self, account_id: str, since: float) -> list[float]:
        """When the account aborted or left a rated match, from ``since`` on (oldest
        first)."""
        o = rated_offences_table
        q = (select(o.c.at).where(o.c.account_id == account_id).where(o.c.at >= since)
             .order_by(o.c.at))
        with self.engine.connect() as conn:
            return [float(r[0]) for r in conn.execute(q).all()]

    def unsettled(self, limit: int = 100) -> list[str]:
        """Rated matches that are finished but whose result is not applied yet (a process
        stopped between the two): the ratings part settles them."""
        t, m = account_matches_table, matches_table
        q = (select(t.c.match_id).join(m, m.c.id == t.c.match_id)
             .where(t.c.rated.is_(True)).where(t.c.settled.is_(False))
             .where(m.c.status == "finished").limit(limit))
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    @staticmethod
    def _history(conn: Connection, account_id: str, limit: int) -> list[dict[str, Any]]:
        """The account's rating after each rated match, oldest first (the last ``limit``)."""
        h = rating_history_table
        q = (select(h).where(h.c.account_id == account_id).order_by(h.c.at.desc())
             .limit(limit))
        rows = conn.execute(q).all()
        return [{"match": str(r.match_id), "opponent": str(r.opponent_id),
                 "score": float(r.score), "rating": float(r.rating),
                 "deviation": float(r.deviation), "at": float(r.at)}
                for r in reversed(rows)]

    @staticmethod
    def _record_by_opponent(conn: Connection, account_id: str) -> list[dict[str, Any]]:
        """Rated results against each opponent: wins, ties, losses."""
        h = rating_history_table
        q = (select(h.c.opponent_id, h.c.score, func.count())
             .where(h.c.account_id == account_id).group_by(h.c.opponent_id, h.c.score))
        out: dict[str, dict[str, Any]] = {}
        for opp, score, n in conn.execute(q).all():
            d = out.setdefault(str(opp), {"opponent": str(opp), "wins": 0, "ties": 0,
                                          "losses": 0})
            key = "wins" if score > 0.5 else "losses" if score < 0.5 else "ties"
            d[key] += int(n)
        return sorted(out.values(), key=lambda d: -(d["wins"] + d["ties"] + d["losses"]))
