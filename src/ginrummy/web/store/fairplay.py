"""Fair play's statements: matches the coach stays away from, the screening's queue and
figures, flags, players' reports, moderators' marks and notes, and refunds
(:mod:`ginrummy.web.online.coaching`, :mod:`ginrummy.web.online.screening`,
:mod:`ginrummy.web.online.moderation`).

Every change is one transaction. A screening job is taken by a conditional update (one
process screens a match; a job whose heartbeat went stale is taken again); a mark and its
refunds are one transaction, and each refund is a row keyed by the match, so a rating
point is given back once however often an account is marked.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ...ratings import Rating
from .schema import (
    account_matches_table,
    accounts_table,
    browser_accounts_table,
    flags_table,
    matches_table,
    mod_log_table,
    rating_history_table,
    refunds_table,
    reports_table,
    screen_jobs_table,
    screenings_table,
)

__all__ = ["FairPlayStore", "FlagRow", "Refund", "ReportRow", "ScreenRow"]

IN_PLAY = ("playing", "waiting")
"""Match statuses that count as being played."""
MAX_TRIES = 3
"""Screening tries before a match's job is given up (``failed``)."""


@dataclass(frozen=True, slots=True)
class ScreenRow:
    """One account's screening figures in one match."""

    match_id: str
    account_id: str
    seat: int
    figures: dict[str, Any]
    at: float


@dataclass(frozen=True, slots=True)
class FlagRow:
    """An account the screening flagged."""

    account_id: str
    status: str
    reason: str
    figures: dict[str, Any]
    matches: list[str]
    created_at: float
    updated_at: float
    closed_at: float | None = None


@dataclass(frozen=True, slots=True)
class ReportRow:
    """A player's report of an account."""

    id: str
    account_id: str
    by_account: str
    reason: str
    text: str
    match_id: str | None
    context: Any
    status: str
    created_at: float


@dataclass(frozen=True, slots=True)
class Refund:
    """Rating points given back to ``account_id`` for ``match_id``."""

    account_id: str
    match_id: str
    points: float


_FIGURES = ("decisions", "agree", "loss", "contested", "contested_agree")


def _flag(r: Any) -> FlagRow:
    m = r._mapping
    return FlagRow(str(m["account_id"]), str(m["status"]), str(m["reason"]),
                   {k: m[k] for k in _FIGURES}, json.loads(m["matches"] or "[]"),
                   float(m["created_at"]), float(m["updated_at"]), m["closed_at"])


def _report(r: Any) -> ReportRow:
    m = r._mapping
    return ReportRow(str(m["id"]), str(m["account_id"]), str(m["by_account"]),
                     str(m["reason"]), str(m["text"]), m["match_id"],
                     json.loads(m["context"]) if m["context"] else None, str(m["status"]),
                     float(m["created_at"]))


class FairPlayStore:
    """The fair-play tables (synchronous; the web layer runs these off the event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"

    # ------------------------------------------------------------------ no coach

    def coached_play(self, account_ids: list[str]) -> str | None:
        """The id of a match that one of these accounts is playing and the coach stays
        away from (rated, arena or daily), else None."""
        if not account_ids:
            return None
        t, m = account_matches_table, matches_table
        ids = sorted(set(account_ids))
        q = (select(t.c.match_id).join(m, m.c.id == t.c.match_id)
             .where(or_(t.c.account0.in_(ids), t.c.account1.in_(ids)))
             .where(m.c.status.in_(IN_PLAY))
             .where(or_(m.c.no_coach.is_(True), t.c.rated.is_(True)))
             .limit(1))
        with self.engine.connect() as conn:
            row = conn.execute(q).first()
        return str(row[0]) if row is not None else None

    def browser_accounts(self, browser_hash: str) -> list[str]:
        """The accounts that have used this browser."""
        b = browser_accounts_table
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(
                select(b.c.account_id).where(b.c.browser_hash == browser_hash).limit(20))]

    # ------------------------------------------------------------------ screening queue

    def enqueue(self, match_id: str, now: float | None = None) -> bool:
        """Queue a finished rated match for screening (once); whether it was queued now."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(screen_jobs_table).values(
                    match_id=match_id, status="pending", holder=None, beat_at=None, tries=0,
                    created_at=now if now is not None else time.time()))
            return True
        except IntegrityError:
            return False

    def unqueued(self, limit: int = 50) -> list[str]:
        """Finished, settled rated matches not queued yet (a process stopped before it
        queued one): the scan queues them."""
        t, m, j = account_matches_table, matches_table, screen_jobs_table
        q = (select(t.c.match_id).join(m, m.c.id == t.c.match_id)
             .outerjoin(j, j.c.match_id == t.c.match_id)
             .where(t.c.rated.is_(True)).where(t.c.settled.is_(True))
             .where(m.c.status == "finished").where(j.c.match_id.is_(None))
             .limit(limit))
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q).all()]

    def take_job(self, holder: str, now: float, stale: float) -> str | None:
        """Take the oldest pending job (or one whose holder went quiet): its match id,
        or None when there is nothing to screen."""
        j = screen_jobs_table
        free = or_(j.c.status == "pending",
                   and_(j.c.status == "running", j.c.beat_at < now - stale))
        with self.engine.begin() as conn:
            for row in conn.execute(select(j.c.match_id, j.c.tries).where(free)
                                    .order_by(j.c.created_at).limit(5)).all():
                if int(row.tries) >= MAX_TRIES:
                    conn.execute(update(j).where(j.c.match_id == row.match_id)
                                 .values(status="failed"))
                    continue
                n = conn.execute(update(j).where(j.c.match_id == row.match_id).where(free)
                                 .values(status="running", holder=holder, beat_at=now,
                                         tries=j.c.tries + 1)).rowcount
                if n == 1:
                    return str(row.match_id)
        return None

    def beat_job(self, match_id: str, holder: str) -> bool:
        """Renew a taken job's heartbeat; False if it is no longer this holder's."""
        j = screen_jobs_table
        with self.engine.begin() as conn:
            return bool(conn.execute(update(j).where(j.c.match_id == match_id)
                                     .where(j.c.holder == holder)
                                     .values(beat_at=time.time())).rowcount == 1)

    def finish_job(self, match_id: str, holder: str,
                   rows: list[tuple[str, int, dict[str, Any]]], now: float) -> bool:
        """Store the figures of each (account, seat, figures) and mark the job done, if
        the job is still this holder's; whether it was."""
        j, s = screen_jobs_table, screenings_table
        with self.engine.begin() as conn:
            n = conn.execute(update(j).where(j.c.match_id == match_id)
                             .where(j.c.holder == holder).where(j.c.status == "running")
                             .values(status="done", beat_at=now)).rowcount
            if n != 1:
                return False
            conn.execute(delete(s).where(s.c.match_id == match_id))
            for account_id, seat, f in rows:
                conn.execute(insert(s).values(match_id=match_id, account_id=account_id,
                                              seat=seat, at=now,
                                              **{k: f[k] for k in _FIGURES}))
        return True

    def release_job(self, match_id: str, holder: str) -> None:
        """Give a taken job back (it failed here: another try later)."""
        j = screen_jobs_table
        with self.engine.begin() as conn:
            conn.execute(update(j).where(j.c.match_id == match_id)
                         .where(j.c.holder == holder).values(status="pending"))

    def job_status(self, match_id: str) -> str | None:
        """Where a match's screening stands (None: not queued)."""
        j = screen_jobs_table
        with self.engine.connect() as conn:
            row = conn.execute(select(j.c.status).where(j.c.match_id == match_id)).first()
        return str(row[0]) if row is not None else None

    def screenings(self, account_id: str, since: float = 0.0,
                   limit: int = 500) -> list[ScreenRow]:
        """The account's screened matches from ``since`` on, newest first."""
        s = screenings_table
        q = (select(s).where(s.c.account_id == account_id).where(s.c.at >= since)
             .order_by(s.c.at.desc(), s.c.match_id).limit(limit))
        with self.engine.connect() as conn:
            return [ScreenRow(str(r.match_id), str(r.account_id), int(r.seat),
                              {k: r._mapping[k] for k in _FIGURES}, float(r.at))
                    for r in conn.execute(q).all()]

    # ------------------------------------------------------------------ flags

    def flag(self, account_id: str, reason: str, figures: dict[str, Any],
             matches: list[str], now: float) -> bool:
        """Flag an account (or bring an open flag's figures up to date); a flag a
        moderator closed is raised again as open. Whether a new flag was raised."""
        f = flags_table
        values = {"reason": reason, "matches": json.dumps(matches), "updated_at": now,
                  **{k: figures[k] for k in _FIGURES}}
        with self.engine.begin() as conn:
            row = conn.execute(select(f.c.status).where(f.c.account_id == account_id)).first()
            if row is None:
                conn.execute(insert(f).values(account_id=account_id, status="open",
                                              created_at=now, **values))
                return True
            if row[0] == "open":
                conn.execute(update(f).where(f.c.account_id == account_id).values(**values))
                return False
            conn.execute(update(f).where(f.c.account_id == account_id).values(
                status="open", created_at=now, closed_at=None, closed_by=None, **values))
            return True

    def flag_of(self, account_id: str) -> FlagRow | None:
        """The account's flag, open or closed."""
        f = flags_table
        with self.engine.connect() as conn:
            row = conn.execute(select(f).where(f.c.account_id == account_id)).first()
        return _flag(row) if row is not None else None

    def flags(self, status: str = "open", limit: int = 200) -> list[FlagRow]:
        """Flags in this status, newest first."""
        f = flags_table
        with self.engine.connect() as conn:
            return [_flag(r) for r in conn.execute(
                select(f).where(f.c.status == status).order_by(f.c.updated_at.desc())
                .limit(limit)).all()]

    # ------------------------------------------------------------------ reports

    def add_report(self, by_account: str, account_id: str, reason: str, text: str,
                   match_id: str | None, context: Any, now: float,
                   most_open: int) -> str | None:
        """Store a report; its id, or None when ``by_account`` already has ``most_open``
        open reports (or an open one on this account about the same match)."""
        r = reports_table
        rid = secrets.token_urlsafe(9)
        with self.engine.begin() as conn:
            mine = conn.execute(select(r.c.account_id, r.c.match_id)
                                .where(r.c.by_account == by_account)
                                .where(r.c.status == "open")).all()
            if len(mine) >= most_open or any(a == account_id and m == match_id
                                             for a, m in mine):
                return None
            conn.execute(insert(r).values(
                id=rid, account_id=account_id, by_account=by_account, reason=reason,
                text=text, match_id=match_id,
                context=json.dumps(context) if context is not None else None,
                status="open", created_at=now))
        return rid

    def reports(self, status: str = "open", account_id: str | None = None,
                limit: int = 200) -> list[ReportRow]:
        """Reports in this status (of one account, if given), newest first."""
        r = reports_table
        q = select(r).where(r.c.status == status)
        if account_id is not None:
            q = q.where(r.c.account_id == account_id)
        with self.engine.connect() as conn:
            return [_report(x) for x in conn.execute(
                q.order_by(r.c.created_at.desc()).limit(limit)).all()]

    def close_report(self, report_id: str, moderator_id: str | None, text: str,
                     now: float) -> str | None:
        """Close an open report (logged on the reported account); the account's id, or
        None when there is no such open report."""
        r = reports_table
        with self.engine.begin() as conn:
            row = conn.execute(select(r.c.account_id).where(r.c.id == report_id)
                               .where(r.c.status == "open")).first()
            if row is None:
                return None
            conn.execute(update(r).where(r.c.id == report_id)
                         .values(status="closed", closed_at=now, closed_by=moderator_id))
            self._log(conn, str(row[0]), moderator_id, "close", None, text, now)
            return str(row[0])

    # ------------------------------------------------------------------ moderators

    def set_moderator(self, key: str, on: bool) -> bool:
        """Grant (or take away) the moderator role of the account with this folded
        username; False when there is no such account."""
        a = accounts_table
        with self.engine.begin() as conn:
            return bool(conn.execute(update(a).where(a.c.username_key == key)
                                     .values(moderator=True if on else None)).rowcount)

    @staticmethod
    def _log(conn: Any, account_id: str, moderator_id: str | None, action: str,
             mark: str | None, text: str, now: float) -> None:
        conn.execute(insert(mod_log_table).values(
            id=secrets.token_urlsafe(9), account_id=account_id, moderator_id=moderator_id,
            action=action, mark=mark, text=text, at=now))

    def note(self, account_id: str, moderator_id: str | None, action: str, text: str,
             now: float) -> None:
        """Log a note (or another action with no effect of its own) on an account."""
        with self.engine.begin() as conn:
            self._log(conn, account_id, moderator_id, action, None, text, now)

    def close_flag(self, account_id: str, moderator_id: str | None, text: str,
                   now: float) -> bool:
        """Close an open flag as nothing (``cleared``), logged; whether there was one."""
        f = flags_table
        with self.engine.begin() as conn:
            n = conn.execute(update(f).where(f.c.account_id == account_id)
                             .where(f.c.status == "open")
                             .values(status="cleared", closed_at=now,
                                     closed_by=moderator_id)).rowcount
            if n:
                self._log(conn, account_id, moderator_id, "clear", None, text, now)
            return bool(n)

    def log(self, account_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """What moderators did to the account, oldest first."""
        g = mod_log_table
        with self.engine.connect() as conn:
            rows = conn.execute(select(g).where(g.c.account_id == account_id)
                                .order_by(g.c.at.desc()).limit(limit)).all()
        return [{"action": r.action, "mark": r.mark, "text": r.text, "at": float(r.at),
                 "moderator": r.moderator_id} for r in reversed(rows)]

    def mark(self, account_id: str, mark: str | None, moderator_id: str | None,
             reason: str, now: float) -> list[Refund]:
        """Set (or, with None, take away) an account's mark, logged, and with a mark give
        its rated opponents back the rating points they lost to it (once per match); an
        open flag is closed as ``marked``. The refunds given now."""
        a, h, rf, f = accounts_table, rating_history_table, refunds_table, flags_table
        refunds: list[Refund] = []
        with self.engine.begin() as conn:
            q = select(a.c.id).where(a.c.id == account_id)
            if not self.is_sqlite:
                q = q.with_for_update()
            if conn.execute(q).first() is None:
                return []
            conn.execute(update(a).where(a.c.id == account_id)
                         .values(mark=mark, marked_at=now if mark else None))
            self._log(conn, account_id, moderator_id, "mark", mark, reason, now)
            if mark is None:
                return []
            conn.execute(update(f).where(f.c.account_id == account_id)
                         .where(f.c.status == "open")
                         .values(status="marked", closed_at=now, closed_by=moderator_id))
            # every result an opponent lost points in against this account, not refunded yet
            done = {(str(x.account_id), str(x.match_id)) for x in conn.execute(
                select(rf.c.account_id, rf.c.match_id).where(rf.c.marked_id == account_id))}
            lost = conn.execute(select(h).where(h.c.opponent_id == account_id)
                                .where(h.c.score < 1.0).order_by(h.c.at)).all()
            for row in lost:
                opp, mid = str(row.account_id), str(row.match_id)
                if (opp, mid) in done:
                    continue
                before = conn.execute(select(h.c.rating).where(h.c.account_id == opp)
                                      .where(h.c.at < row.at).order_by(h.c.at.desc())
                                      .limit(1)).first()
                start = float(before[0]) if before is not None else Rating().rating
                points = round(start - float(row.rating), 1)
                if points <= 0:
                    continue
                conn.execute(insert(rf).values(account_id=opp, match_id=mid,
                                               marked_id=account_id, points=points, at=now))
                conn.execute(update(a).where(a.c.id == opp)
                             .values(rating=a.c.rating + points))
                refunds.append(Refund(opp, mid, points))
        return refunds

    def refunds_of(self, marked_id: str) -> list[Refund]:
        """The refunds given for a marked account's results."""
        rf = refunds_table
        with self.engine.connect() as conn:
            return [Refund(str(r.account_id), str(r.match_id), float(r.points))
                    for r in conn.execute(select(rf).where(rf.c.marked_id == marked_id)
                                          .order_by(rf.c.at, rf.c.account_id))]

    def counts(self) -> dict[str, int]:
        """Open flags and reports (the moderators' page's badges)."""
        with self.engine.connect() as conn:
            flags = conn.execute(select(func.count()).select_from(flags_table)
                                 .where(flags_table.c.status == "open")).scalar_one()
            reports = conn.execute(select(func.count()).select_from(reports_table)
                                   .where(reports_table.c.status == "open")).scalar_one()
        return {"flags": int(flags), "reports": int(reports)}
