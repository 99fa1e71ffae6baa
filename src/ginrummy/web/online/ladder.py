"""The computer on the ladder: the site's levels ``easy``, ``medium`` and ``hard`` are BOT
accounts, rated by their rated matches like anyone, whose moves the server's own computer
seat plays (:mod:`ginrummy.web.computer`).

Each level's account has a fixed id (``level-easy``, ...), so every process knows it
without asking; :meth:`Ladder.ensure` creates the missing ones at start-up, idempotently,
starting at the published ratings of :data:`~.ratings.BOT_RATINGS` (deviation
:data:`START_DEVIATION`: the fit is good to about fifty points). A level whose name a
person already holds is not created (a warning says so): that name then stays the
person's.
"""

from __future__ import annotations

import logging

from ...ratings import DEFAULT, Rating
from ..backends.database import Database
from ..errors import TableError
from ..store.accounts import Account
from .ratings import BOT_RATINGS

__all__ = ["LEVELS", "START_DEVIATION", "Ladder", "level_id"]

log = logging.getLogger("ginrummy.web")

LEVELS = ("easy", "medium", "hard")
"""The computer levels on the ladder (each a BOT account of that username)."""
START_DEVIATION = 50.0
"""A level's rating deviation when its account is made."""


def level_id(level: str) -> str:
    """The account id of a level's BOT account.

    >>> level_id("hard")
    'level-hard'
    """
    return f"level-{level}"


def level_of(account_id: str | None) -> str | None:
    """The level an account id is, or None for anyone else.

    >>> level_of("level-easy"), level_of("3fa2c1d0e9b8a7f6")
    ('easy', None)
    """
    if account_id is None or not account_id.startswith("level-"):
        return None
    level = account_id.removeprefix("level-")
    return level if level in LEVELS else None


class Ladder:
    """The levels' accounts (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def ensure(self) -> list[Account]:
        """Create the levels' accounts that are missing; the levels' accounts there are."""
        made = []
        for level in LEVELS:
            start = Rating(float(BOT_RATINGS[level]), START_DEVIATION, DEFAULT.volatility)
            try:
                acct = await self.db.run(self.db.store.tokens.ensure_level, level_id(level),
                                         level, start)
            except TableError as e:
                log.warning("the %s level's account is not there yet: %s", level, e.message)
                continue
            if acct is None:
                log.warning("the username %r is a person's: the %s level is not on the "
                            "ladder", level, level)
            else:
                made.append(acct)
        return made

    async def ratings(self) -> dict[str, int]:
        """Each level's rating now (its account's; the published starting rating where
        the account is missing)."""
        accts = await self.db.read(self.db.store.accounts.by_ids,
                                   [level_id(lv) for lv in LEVELS])
        out = {}
        for lv in LEVELS:
            a = accts.get(level_id(lv))
            out[lv] = round(a.rating.rating) if a is not None else BOT_RATINGS[lv]
        return out
