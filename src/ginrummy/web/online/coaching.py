"""No coach in rated play: when the site's hints, reviews and analysis board refuse.

The coach is the strongest engine we know of, so it must never sit beside a seat whose
result counts. Two rules, checked wherever the coach answers (docs/fair-play.md):

* **The match.** A rated, arena or daily match (``no_coach``, stored with the match) gets
  no hints at all, and its review opens only once it is over; a daily match's, like its
  record, only once its day is over (its deals are everyone's that day).
* **The player.** While an account has such a match in play, every hint, review and
  analysis it asks for is refused, whichever match or position it is about: an account
  is known by its session or API token, by the account holding the seat a seat token
  opens, and by the browser cookie of the accounts that used that browser (logging out
  in another tab does not open the board).

Refusals are 409 with one sentence that says why and when it opens again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ...i18n import N_
from ..backends.database import Database
from ..tables.table import Table
from .browsers import browser_hash

__all__ = ["Coaching", "IN_PLAY", "NO_HINTS", "REVIEW_LATER"]

NO_HINTS = N_("No hints in rated, arena or daily play: the coach stays away from results "
              "that count.")
REVIEW_LATER = N_("The review of a rated, arena or daily match opens when the match is "
                  "over: the coach stays away from results that count.")
IN_PLAY = N_("The coach is closed to you while you play a rated, arena or daily match: "
             "hints, reviews and the analysis board open again when it is over.")


class Coaching:
    """Says whether the coach may answer (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.daily_open: Callable[[str], Awaitable[str | None]] | None = None
        """Why a daily match's review is still closed (its day is not over), or None for
        any other match; set by the site (:meth:`Daily.review_closed`)."""

    async def in_play(self, accounts: list[str], browser: str | None = None) -> str | None:
        """Why the coach refuses these accounts (and the accounts that used this browser
        cookie) now: one of them plays a rated, arena or daily match; else None."""
        ids = [a for a in accounts if a]
        if browser is not None:
            ids += await self.db.read(self.db.store.fairplay.browser_accounts,
                                      browser_hash(browser))
        if not ids:
            return None
        if await self.db.read(self.db.store.fairplay.coached_play, ids) is not None:
            return IN_PLAY
        return None

    @staticmethod
    def seat_accounts(t: Table, links: tuple[str | None, str | None] | None,
                      seat: int | None) -> list[str]:
        """The account holding ``seat`` at ``t``, if any (as a list)."""
        if links is None or seat is None:
            return []
        acct = links[seat]
        return [acct] if acct else []

    async def hint_refusal(self, t: Table, seat: int, accounts: list[str],
                           browser: str | None) -> str | None:
        """Why the seat gets no hint at ``t`` now (else None)."""
        if t.stored.no_coach or (self.daily_open is not None
                                 and await self.daily_open(t.id) is not None):
            return NO_HINTS
        return await self.in_play(accounts + await self._holders(t, seat), browser)

    async def review_refusal(self, t: Table, seat: int | None, over: bool,
                             accounts: list[str], browser: str | None) -> str | None:
        """Why the review of ``t`` is closed to this reader now (else None)."""
        if t.stored.no_coach and not over:
            return REVIEW_LATER
        if self.daily_open is not None:
            why = await self.daily_open(t.id)
            if why is not None:
                return why
        return await self.in_play(accounts + await self._holders(t, seat), browser)

    async def _holders(self, t: Table, seat: int | None) -> list[str]:
        """The account that holds ``seat`` at ``t`` (none for a guest's seat)."""
        if seat is None:
            return []
        links = await self.db.read(self.db.store.accounts.links, [t.id])
        link = links.get(t.id)
        return self.seat_accounts(t, link.accounts if link else None, seat)
