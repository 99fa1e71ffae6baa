"""API tokens: an account's keys for programs (a bot run by ``ginrummy connect``, a
script), made and revoked by the account, sent as ``Authorization: Bearer TOKEN``.

A token is :data:`PREFIX` and 43 url-safe characters (32 random bytes), shown once when it
is made; the database keeps its SHA-256. The prefix holds a character no seat token has
(``.``), so one header tells a seat token from an API token. A request carrying an API
token acts as its account on every endpoint and socket with no CSRF token (a cross-site
form cannot send the header). Refused tokens are counted per address with the seat
tokens' limit (``rate_auth``); each refusal is one sentence: malformed, unknown, revoked,
or its account closed.

**A token is a program.** An account that plays through a token (a seat's move or socket,
a seek, a challenge or an arena made with one) is marked a program player
(:meth:`ApiTokens.played`): from then on it is paired like a BOT, never with a person who
did not ask for BOT opponents, and its seats played through a token are marked bot seats.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...i18n import N_, t
from ..backends.database import Database
from ..backends.limits import RateLimits
from ..errors import TableError
from ..store import hash_token
from ..store.accounts import Account

__all__ = ["MAX_TOKENS", "PREFIX", "ApiTokens", "Bearer", "is_api_token"]

PREFIX = "ginrummy."
"""How every API token begins."""
_TOKEN_RE = re.compile(r"^ginrummy\.[A-Za-z0-9_-]{43}$")
MAX_TOKENS = 20
"""Live API tokens an account may hold."""
USED_EVERY = 60.0
"""A token's ``last_used`` is written at most this often (seconds)."""
LIVE_SECONDS = 1.0
"""How long a process trusts its last reading that a token is live (seconds), while the
broker can bring it news of a revocation; with the broker away it reads it every time."""

MALFORMED = N_("This API token is malformed: a token is 'ginrummy.' and 43 more "
               "characters, exactly as it was shown when it was made.")
UNKNOWN = N_("This API token is not valid here: it was never issued by this site.")
REVOKED = N_("This API token has been revoked: make a new one on the account page.")
CLOSED = N_("This API token's account is closed.")
BY_SESSION = N_("API tokens are made and revoked with the account's session (the account "
                "page), not with another token.")


def is_api_token(value: str | None) -> bool:
    """Whether a bearer value is meant as an API token (rather than a seat token)."""
    return value is not None and value.startswith(PREFIX)


@dataclass(frozen=True, slots=True)
class Bearer:
    """An account acting through one of its API tokens."""

    account: Account
    token_id: str


class ApiTokens:
    """Making, listing, revoking and checking API tokens (see the module docstring)."""

    def __init__(self, db: Database, rates: RateLimits) -> None:
        self.db = db
        self.rates = rates
        self.on_revoke: list[Callable[[str, str], None]] = []
        """Told (account id, token id) of each token revoked here: its sockets close."""
        self._used: dict[str, float] = {}
        self._live: dict[str, float] = {}
        """When each token was last read live (monotonic seconds): :meth:`live`."""

    async def create(self, account: Account, body: Any) -> dict[str, Any]:
        """``POST /api/tokens`` ``{"name"}`` (optional): a new token, shown this once."""
        if body is None:
            body = {}
        if not isinstance(body, Mapping):
            raise TableError(400, N_("The request body must be a JSON object."))
        unknown = set(body) - {"name"}
        if unknown:
            raise TableError(400, t("Unknown field {field}.", field=repr(sorted(unknown)[0])))
        name = body.get("name", "API token")
        if not isinstance(name, str) or not 0 < len(name.strip()) <= 40 \
                or not name.isprintable():
            raise TableError(400, N_("A token's name is 1 to 40 printable characters."))
        token = PREFIX + secrets.token_urlsafe(32)
        token_id = secrets.token_hex(6)
        ok = await self.db.run(self.db.store.tokens.add, token_id, account.id,
                               hash_token(token), name.strip(), MAX_TOKENS)
        if not ok:
            raise TableError(409, t("An account holds at most {n} API tokens: revoke one "
                                    "first.", n=str(MAX_TOKENS)))
        return {"token": token, "id": token_id, "name": name.strip()}

    async def listing(self, account: Account) -> dict[str, Any]:
        """``GET /api/tokens``: the account's live tokens (never the tokens themselves)."""
        rows = await self.db.read(self.db.store.tokens.live, account.id)
        return {"tokens": [{"id": r.id, "name": r.name, "created_at": r.created_at,
                            "last_used": r.last_used} for r in rows]}

    async def revoke(self, account: Account, token_id: str) -> dict[str, Any]:
        """``DELETE /api/tokens/{id}``: the token stops working at once, on every
        process (its open sockets are closed)."""
        if not 0 < len(token_id) <= 16 or not await self.db.run(
                self.db.store.tokens.revoke, account.id, token_id):
            raise TableError(404, N_("You have no API token with this id."))
        self._live.pop(token_id, None)  # this process knows at once
        for cb in list(self.on_revoke):
            cb(account.id, token_id)
        return {"revoked": token_id}

    async def live(self, token_id: str, cached: bool = True) -> bool:
        """Whether the token is still live (not revoked, its account not closed), as the
        database says: a socket opened with it asks before each move, so a revocation
        takes effect at once on every process, whether or not the broker's news of it
        arrives. ``cached``: a reading of this process within :data:`LIVE_SECONDS` is
        trusted (a revocation made here clears it); without, the database is read."""
        now = time.monotonic()
        at = self._live.get(token_id)
        if cached and at is not None and now - at < LIVE_SECONDS:
            return True
        if await self.db.read(self.db.store.tokens.revoked_among, [token_id]):
            self._live.pop(token_id, None)
            return False
        if len(self._live) > 10_000:  # forget old readings: each costs one read again
            self._live = {k: v for k, v in self._live.items() if now - v < LIVE_SECONDS}
        self._live[token_id] = now
        return True

    async def played(self, account: Account) -> Account:
        """``account``, which is playing through an API token, marked a program player
        (once: stored, then paired like a BOT); a BOT account is one already."""
        if account.bot or account.program:
            return account
        await self.db.run(self.db.store.tokens.set_program, account.id)
        return dataclasses.replace(account, program=True)

    async def resolve(self, token: str, address: str) -> Bearer:
        """The account an API token acts as; TableError 401 with the sentence saying why
        not (429 once the address has had too many tokens refused)."""
        rates = self.rates
        if not rates.allowed("auth", address):
            raise TableError(429, t("Too many refused tokens: at most {limit} from one "
                                    "address. Wait a moment and try again.",
                                    limit=rates.describe("auth")))
        try:
            return await self._resolve(token)
        except TableError as e:
            if e.status == 401:
                await rates.hit("auth", address)
            raise

    async def _resolve(self, token: str) -> Bearer:
        if not _TOKEN_RE.match(token):
            raise TableError(401, MALFORMED)
        found = await self.db.read(self.db.store.tokens.by_hash, hash_token(token))
        if found is None:
            raise TableError(401, UNKNOWN)
        row, account = found
        if row.revoked_at is not None:
            raise TableError(401, REVOKED)
        if account.closed:
            raise TableError(401, CLOSED)
        now = time.time()
        if now - self._used.get(row.id, 0.0) >= USED_EVERY:
            self._used[row.id] = now
            await self.db.run(self.db.store.tokens.used, row.id, now)
        return Bearer(account, row.id)
