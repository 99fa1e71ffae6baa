"""Reports and moderators (docs/fair-play.md; INTERFACES section 13).

**Reports.** Any account may report another (``POST /api/reports``): a reason (``engine``,
``boosting``, ``abuse`` or ``other``), a few words, and optionally the match it is about
(one the reported account played). A reporter has at most :data:`MOST_OPEN` reports open
at a time, and one per account and match.

**Moderators** (the role an operator grants with ``ginrummy accounts moderator``; everyone
else gets 403) see the open flags the screening raised (:mod:`.screening`) with their
figures and matches, the open reports, and any account's screened matches, reports and
history of marks and notes. A moderator marks an account ``engine`` or ``booster`` (or takes
a mark away), always with a reason: a marked account leaves the leaderboard, its profile
says so, and its rated opponents get back the rating points they lost to it (once per
match, like lichess's refunds; taking a mark away gives nothing back twice and takes no
refund back). A moderator may also clear a flag found to be nothing, close a report, and
leave a note; everything is logged on the account.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ...i18n import N_, t
from ..backends.database import Database
from ..checks import json_object
from ..errors import TableError
from ..store.accounts import Account
from ..store.fairplay import FlagRow, ReportRow
from .screening import Screening

__all__ = ["MARKS", "MAX_TEXT", "MOST_OPEN", "Moderation", "REASONS"]

REASONS = ("engine", "boosting", "abuse", "other")
"""What a report may be about."""
MARKS = ("engine", "booster")
"""The marks a moderator may set."""
MAX_TEXT = 500
"""The longest report, reason or note (characters)."""
MOST_OPEN = 10
"""Reports one account may have open at a time."""
NOT_A_MODERATOR = N_("Only moderators may see or do this.")
NO_PLAYER = N_("No player has that username.")


def _text(body: Mapping[str, Any], key: str, required: bool) -> str:
    """A free-text field: at most :data:`MAX_TEXT` characters, control characters other
    than line breaks refused; required ones may not be blank."""
    value = body.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise TableError(400, t("{field} is text.", field=repr(key)))
    value = value.strip()
    if len(value) > MAX_TEXT:
        raise TableError(400, t("{field} is at most {n} characters.", field=repr(key),
                                n=str(MAX_TEXT)))
    if any(ord(ch) < 32 and ch not in "\n\t" for ch in value):
        raise TableError(400, t("{field} may not hold control characters.",
                                field=repr(key)))
    if required and not value:
        raise TableError(400, t("Say why in {field}: moderators read it.",
                                field=repr(key)))
    return value


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def figures_json(f: Mapping[str, Any]) -> dict[str, Any]:
    """Screening figures as the moderators' API shows them."""
    d, c = int(f["decisions"]), int(f["contested"])
    return {"decisions": d, "agreement": _rate(int(f["agree"]), d),
            "error_rate": round(float(f["loss"]) / d, 5) if d else 0.0,
            "contested": c, "contested_agreement": _rate(int(f["contested_agree"]), c)}


class Moderation:
    """Reports, flags, marks and refunds (see the module docstring)."""

    def __init__(self, db: Database, screening: Screening) -> None:
        self.db = db
        self.screening = screening
        self.chat_report: Callable[[Any, Account, Account],
                                   Awaitable[dict[str, Any]]] | None = None
        """What a report of a chat message carries (the chat's conversation around it:
        :meth:`~.chat.Chat.reported`)."""

    @staticmethod
    def require(account: Account | None) -> Account:
        """The moderator making the request; 401 for a guest, 403 for anyone else."""
        if account is None:
            raise TableError(401, N_("Log in first."))
        if not account.moderator:
            raise TableError(403, NOT_A_MODERATOR)
        return account

    async def _account(self, username: Any) -> Account:
        if not isinstance(username, str) or not 0 < len(username) <= 40:
            raise TableError(404, NO_PLAYER)
        acct = await self.db.read(self.db.store.tokens.by_name, username.casefold())
        if acct is None:
            raise TableError(404, NO_PLAYER)
        return acct

    async def _names(self, ids: set[str]) -> dict[str, str]:
        found = await self.db.read(self.db.store.accounts.by_ids, sorted(ids))
        return {k: a.username for k, a in found.items()}

    # ------------------------------------------------------------------ players

    async def report(self, by: Account | None, body: Any) -> dict[str, Any]:
        """``POST /api/reports``: 201 ``{"id"}``; nothing is stored when refused."""
        if by is None:
            raise TableError(401, N_("Log in to report a player."))
        body = json_object(body, {"username", "reason", "text", "match", "message"})
        target = await self._account(body.get("username"))
        if target.id == by.id:
            raise TableError(400, N_("You cannot report yourself."))
        reason = body.get("reason")
        if reason not in REASONS:
            raise TableError(400, t("'reason' is one of {reasons}.",
                                    reasons=", ".join(REASONS)))
        text = _text(body, "text", required=False)
        match = body.get("match")
        context: dict[str, Any] | None = None
        if body.get("message") is not None and self.chat_report is not None:
            context = await self.chat_report(body["message"], by, target)
            if match is not None and match != context["match"]:
                raise TableError(400, N_("That message is not of that match."))
            match = context["match"]
        if match is not None:
            if not isinstance(match, str) or not 0 < len(match) <= 32:
                raise TableError(400, N_("'match' is a match id."))
            links = await self.db.read(self.db.store.accounts.links, [match])
            link = links.get(match)
            if link is None or target.id not in link.accounts:
                raise TableError(400, t("That match is not one {name} played.",
                                        name=target.username))
        rid = await self.db.run(self.db.store.fairplay.add_report, by.id, target.id, reason,
                                text, match,
                                context or ({"match": match} if match else None),
                                time.time(), MOST_OPEN)
        if rid is None:
            raise TableError(429, t("You have reported this already, or have {n} reports "
                                    "waiting for a moderator: they will get to them.",
                                    n=str(MOST_OPEN)))
        return {"id": rid}

    # ------------------------------------------------------------------ moderators

    async def flags(self, mod: Account | None) -> dict[str, Any]:
        """``GET /api/mod/flags``: the open flags, newest first."""
        self.require(mod)
        rows: list[FlagRow] = await self.db.read(self.db.store.fairplay.flags)
        names = await self._names({r.account_id for r in rows})
        return {"flags": [{"username": names.get(r.account_id, "?"), "reason": r.reason,
                           **figures_json(r.figures), "matches": r.matches,
                           "created_at": r.created_at, "updated_at": r.updated_at}
                          for r in rows]}

    async def reports(self, mod: Account | None) -> dict[str, Any]:
        """``GET /api/mod/reports``: the open reports, newest first."""
        self.require(mod)
        rows: list[ReportRow] = await self.db.read(self.db.store.fairplay.reports)
        return {"reports": await self._reports_json(rows)}

    async def _reports_json(self, rows: list[ReportRow]) -> list[dict[str, Any]]:
        names = await self._names({r.account_id for r in rows} | {r.by_account for r in rows})
        return [{"id": r.id, "username": names.get(r.account_id, "?"),
                 "by": names.get(r.by_account, "?"), "reason": r.reason, "text": r.text,
                 "match": r.match_id, "context": r.context, "status": r.status,
                 "created_at": r.created_at} for r in rows]

    async def account(self, mod: Account | None, username: Any) -> dict[str, Any]:
        """``GET /api/mod/accounts/{username}``: what a moderator judges an account by:
        its flag, its screened matches (newest first) and their sum, the reports about it
        and its history of marks and notes."""
        self.require(mod)
        acct = await self._account(username)
        fp = self.db.store.fairplay
        flag = await self.db.read(fp.flag_of, acct.id)
        screened = await self.db.read(fp.screenings, acct.id, 0.0, 200)
        total: dict[str, Any] = {k: 0 for k in ("decisions", "agree", "contested",
                                                "contested_agree")} | {"loss": 0.0}
        for s in screened:
            for k in total:
                total[k] += s.figures[k]
        log = await self.db.read(fp.log, acct.id)
        names = await self._names({e["moderator"] for e in log if e["moderator"]})
        for e in log:
            e["moderator"] = names.get(e["moderator"], "?") if e["moderator"] else None
        open_reports = await self.db.read(fp.reports, "open", acct.id)
        closed = await self.db.read(fp.reports, "closed", acct.id, 50)
        refunds = await self.db.read(fp.refunds_of, acct.id)
        people = (await self.db.read(self.db.store.people.settings, [acct.id]))[acct.id]
        muted = people["muted_until"]
        refund_names = await self._names({r.account_id for r in refunds})
        return {
            "username": acct.username, "bot": acct.bot, "mark": acct.mark,
            "moderator": acct.moderator, "rating": round(acct.rating.rating, 1),
            "muted_until": muted if muted is not None and muted > time.time() else None,
            "rated_matches": acct.rated_matches,
            "flag": None if flag is None else {
                "status": flag.status, "reason": flag.reason, **figures_json(flag.figures),
                "matches": flag.matches, "created_at": flag.created_at,
                "closed_at": flag.closed_at},
            "screened": figures_json(total) | {"matches": len(screened)},
            "matches": [{"match": s.match_id, "seat": s.seat, "at": s.at,
                         **figures_json(s.figures)} for s in screened],
            "reports": await self._reports_json(open_reports + closed),
            "log": log,
            "refunds": [{"username": refund_names.get(r.account_id, "?"),
                         "match": r.match_id, "points": r.points} for r in refunds],
        }

    async def mark(self, mod: Account | None, username: Any, body: Any) -> dict[str, Any]:
        """``POST /api/mod/accounts/{username}/mark`` ``{"mark", "reason"}``: set or take
        away a mark; the refunds given."""
        moderator = self.require(mod)
        body = json_object(body, {"mark", "reason"})
        if "mark" not in body or (body["mark"] is not None and body["mark"] not in MARKS):
            raise TableError(400, N_("'mark' is \"engine\", \"booster\" or null (no "
                                     "mark)."))
        reason = _text(body, "reason", required=True)
        acct = await self._account(username)
        refunds = await self.db.run(self.db.store.fairplay.mark, acct.id, body["mark"],
                                    moderator.id, reason, time.time())
        names = await self._names({r.account_id for r in refunds})
        return {"username": acct.username, "mark": body["mark"],
                "refunds": [{"username": names.get(r.account_id, "?"), "match": r.match_id,
                             "points": r.points} for r in refunds]}

    async def note(self, mod: Account | None, username: Any, body: Any) -> dict[str, Any]:
        """``POST /api/mod/accounts/{username}/note`` ``{"text"}``: a note on the account."""
        moderator = self.require(mod)
        text = _text(json_object(body, {"text"}), "text", required=True)
        acct = await self._account(username)
        await self.db.run(self.db.store.fairplay.note, acct.id, moderator.id, "note", text,
                          time.time())
        return {"username": acct.username, "noted": True}

    async def clear(self, mod: Account | None, username: Any, body: Any) -> dict[str, Any]:
        """``POST /api/mod/accounts/{username}/clear`` ``{"text"}``: the open flag was
        nothing (409 when there is none)."""
        moderator = self.require(mod)
        text = _text(json_object(body, {"text"}), "text", required=True)
        acct = await self._account(username)
        if not await self.db.run(self.db.store.fairplay.close_flag, acct.id, moderator.id,
                                 text, time.time()):
            raise TableError(409, t("{name} has no open flag.", name=acct.username))
        return {"username": acct.username, "cleared": True}

    async def close_report(self, mod: Account | None, report_id: str,
                           body: Any) -> dict[str, Any]:
        """``POST /api/mod/reports/{id}/close`` ``{"text"}``: a report dealt with (404
        when there is no such open report)."""
        moderator = self.require(mod)
        text = _text(json_object(body, {"text"}), "text", required=True)
        if not 0 < len(report_id) <= 16 or await self.db.run(
                self.db.store.fairplay.close_report, report_id, moderator.id, text,
                time.time()) is None:
            raise TableError(404, N_("No such open report."))
        return {"id": report_id, "closed": True}

    async def counts(self, mod: Account | None) -> dict[str, int]:
        """``GET /api/mod``: how many flags and reports are open (the page's badges)."""
        self.require(mod)
        counts: dict[str, int] = await self.db.read(self.db.store.fairplay.counts)
        return counts
