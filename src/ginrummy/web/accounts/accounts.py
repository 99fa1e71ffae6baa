"""Accounts: signing up, logging in and out, who a request's session cookie belongs to,
the CSRF check of changes made with that cookie, and claiming a guest's matches.

An account is optional: a guest plays exactly as before (seat tokens). An account is a
username (3 to 20 characters from :data:`USERNAME_CHARS`, unique without regard to case)
and a password (8 to 200 characters) stored only as its argon2id hash (argon2-cffi; the
parameters are OWASP's recommended minimum, so a login costs tens of milliseconds, run
off the event loop). A login issues a random session token, set as an HttpOnly,
SameSite=Lax cookie (Secure when the request came over TLS); the database keeps only its
SHA-256. The session's CSRF token is derived from the session token (an HMAC-free hash
under a different label), so nothing more is stored and it cannot give the session back.

A wrong password and an unknown username get the same sentence, and take about the same
time: an unknown username is checked against a dummy hash. Hashing runs in a small pool of
its own (:mod:`.hashing`), so a flood of sign-ups and log-ins never takes the tables' CPU.
Log-ins are limited per address and across the site (kinds ``login`` and ``login_site``),
and wrong passwords slow down the (username, address) pair that sends them
(:mod:`..backends.failures`: a stranger cannot keep the owner out); the site-wide limit
never refuses a known device (a browser the account has used) or a known good address (one
it logged in from recently) while it refuses a flood; sign-ups are limited
per address, per username and across the site (``signup``, ``signup_site``), and refuse a
password too easy to guess (:mod:`.common`). The cheap checks come first: a refused
request costs no hash.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
import time
from collections.abc import Mapping
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ...i18n import N_, t
from ...ratings import DEFAULT, Rating
from ..backends.database import Database
from ..backends.failures import LoginFailures
from ..backends.limits import RateLimits
from ..checks import check_tokens
from ..errors import TableError
from ..guard import origin_allowed
from ..store import hash_token
from ..store.accounts import Account
from .common import check_not_common
from .hashing import PasswordPool

__all__ = [
    "COOKIE",
    "SESSION_DAYS",
    "USERNAME_CHARS",
    "Accounts",
    "check_password",
    "check_username",
    "csrf_of",
]

COOKIE = "ginrummy_session"
"""The session cookie's name."""
SESSION_DAYS = 30.0
"""How long a session lasts."""
USERNAME_CHARS = "letters a-z and A-Z, digits 0-9, '_' and '-'"
"""The characters a username may use (said in the refusal)."""
_USERNAME_RE = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
WRONG_LOGIN = N_("Wrong username or password.")
"""The one sentence for an unknown username and a wrong password alike."""
TAKEN = N_("That username is taken: choose another.")
NOT_YOUR_PASSWORD = N_("That is not this account's password: nothing was changed.")
SIGNUPS_FULL = N_("Too many sign-ups across the site just now (at most {limit}): try again "
                  "in a few minutes.")
LOGINS_FULL = N_("Too many log-ins across the site just now (at most {limit}): try again in "
                 "a moment.")
CSRF_REFUSED = N_("This change needs the page's CSRF token (X-CSRF-Token) or a same-origin "
                  "Origin header.")


def check_username(value: Any) -> str:
    """The username as sent, if acceptable; TableError 400 with the rule otherwise.

    >>> check_username("Ann_Lee-2")
    'Ann_Lee-2'
    >>> check_username("a b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ginrummy.web.errors.TableError: A username is 3 to 20 characters: letters a-z and A-Z...
    """
    if not isinstance(value, str) or not _USERNAME_RE.match(value):
        # (the characters are USERNAME_CHARS, said whole so the sentence is translated whole)
        raise TableError(400, N_("A username is 3 to 20 characters: letters a-z and A-Z, "
                                 "digits 0-9, '_' and '-'."))
    return value


def check_password(value: Any) -> str:
    """The password, if 8 to 200 characters of text; TableError 400 otherwise."""
    if not isinstance(value, str) or not 8 <= len(value) <= 200:
        raise TableError(400, N_("A password is 8 to 200 characters."))
    return value


def username_key(username: str) -> str:
    """The form usernames are compared in (without regard to case).

    >>> username_key("Ann_Lee")
    'ann_lee'
    """
    return username.casefold()


def csrf_of(session_token: str) -> str:
    """The CSRF token of a session (derived, so never stored; it does not give the
    session token back)."""
    return hashlib.sha256(b"ginrummy-csrf:" + session_token.encode()).hexdigest()[:32]


def _credentials(body: Any) -> tuple[Any, Any]:
    if not isinstance(body, Mapping):
        raise TableError(400, N_('Send {"username": "...", "password": "..."}.'))
    unknown = set(body) - {"username", "password"}
    if unknown:
        raise TableError(400, t("Unknown field {field}.", field=repr(sorted(unknown)[0])))
    return body.get("username"), body.get("password")


def _fields(body: Any, allowed: set[str], shape: str) -> Mapping[str, Any]:
    """The body of a change to the account: an object of only ``allowed`` fields."""
    if not isinstance(body, Mapping):
        raise TableError(400, shape)
    unknown = set(body) - allowed
    if unknown:
        raise TableError(400, t("Unknown field {field}.", field=repr(sorted(unknown)[0])))
    return body


class Accounts:
    """Accounts and sessions (see the module docstring)."""

    def __init__(self, db: Database, rates: RateLimits,
                 hasher: PasswordHasher | None = None, pool: PasswordPool | None = None,
                 failures: LoginFailures | None = None) -> None:
        self.db = db
        self.rates = rates
        self.hasher = hasher if hasher is not None else PasswordHasher(
            time_cost=2, memory_cost=19456, parallelism=1)
        self.pool = pool if pool is not None else PasswordPool()
        self.failures = failures if failures is not None else LoginFailures()
        self._dummy: str | None = None

    # ------------------------------------------------------------------ hashing

    async def _hash(self, password: str) -> str:
        return await self.pool.run(self.hasher.hash, password)

    async def _verify(self, stored: str | None, password: str, reserved: bool = False) -> bool:
        """Whether ``password`` matches ``stored`` (None: an unknown user, checked
        against a dummy hash so that it takes as long); ``reserved``: a known device's
        check, which may take a reserved place in the pool."""
        if self._dummy is None:
            self._dummy = await self._hash(secrets.token_urlsafe(16))
        target = stored if stored is not None else self._dummy

        def verify() -> bool:
            try:
                return bool(self.hasher.verify(target, password))
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        ok = await self.pool.run(verify, reserved=reserved)
        return ok and stored is not None

    # ------------------------------------------------------------------ limits

    async def _hit(self, kind: str, client: str, sentence: str) -> None:
        """Count one request of ``kind`` for ``client``; 429 with ``sentence`` past it."""
        if not await self.rates.hit(kind, client):
            raise TableError(429, t(sentence, limit=self.rates.describe(kind)))

    def _site_full(self, kind: str, sentence: str) -> None:
        """429 at once, counting nothing, while the site is over its rate of ``kind``."""
        if self.rates.retry_after(kind, "site") > 0:
            raise TableError(429, t(sentence, limit=self.rates.describe(kind)))

    # ------------------------------------------------------------------ sessions

    async def sign_up(self, body: Any, address: str) -> tuple[Account, str]:
        """``POST /api/accounts``: a new account, logged in (its session token). Nothing
        is stored unless every check passes; the hash is computed last."""
        raw_name, raw_password = _credentials(body)
        await self._hit("signup", f"ip:{address}", N_("Too many sign-ups: at most {limit} "
                        "from one address. Wait a moment and try again."))
        username = check_username(raw_name)
        password = check_password(raw_password)
        check_not_common(password, username)
        key = username_key(username)
        await self._hit("signup", f"user:{key}", N_("Too many sign-ups for this username: "
                        "at most {limit}. Wait a moment and try again."))
        self._site_full("signup_site", SIGNUPS_FULL)  # no database read for a flood
        if await self.db.read(self.db.store.accounts.by_key, key) is not None:
            raise TableError(409, TAKEN)
        await self._hit("signup_site", "site", SIGNUPS_FULL)
        digest = await self._hash(password)
        account = await self.db.run(self.db.store.accounts.create,
                                    secrets.token_hex(8), username, key, digest, DEFAULT)
        if account is None:
            raise TableError(409, TAKEN)
        await self.failures.succeeded(key, address)  # a known good address of it
        return account, await self._new_session(account)

    async def _known(self, key: str, address: str, browser: str | None) -> bool:
        """Whether the log-in comes from a known device or a known good address of the
        username: a browser (``browser``: its cookie's hash) the account has used, or an
        address it logged in from within :data:`~..backends.failures.GOOD_FOR`."""
        if await self.failures.known_good(key, address):
            return True
        return browser is not None and bool(
            await self.db.read(self.db.store.accounts.used_browser, key, browser))

    async def log_in(self, body: Any, address: str,
                     browser: str | None = None) -> tuple[Account, str]:
        """``POST /api/session``: check the password; the account and a new session
        token. A wrong password and an unknown username get the same 401 sentence; a
        (username, address) pair that has sent several wrong ones waits before its next
        try (429, saying how long).

        The site-wide limit (``login_site``) and the password pool's queue never refuse a
        known device or a known good address first (:meth:`_known`; ``browser``: the
        request's browser cookie, hashed): while a flood fills them, such a log-in still
        goes through (the pool keeps it a reserved place) and the flood is refused. Only
        then is it asked (a read): a flood costs nothing more."""
        raw_name, raw_password = _credentials(body)
        key = username_key(raw_name) if isinstance(raw_name, str) and len(raw_name) <= 40 \
            else None
        await self._hit("login", f"ip:{address}", N_("Too many log-in attempts: at most "
                        "{limit} from one address. Wait a moment and try again."))
        if key is None or not isinstance(raw_password, str) or len(raw_password) > 200:
            raise TableError(401, WRONG_LOGIN)
        known: bool | None = None  # asked only when the site is full
        site_full = self.rates.retry_after("login_site", "site") > 0
        if site_full or self.pool.full:
            known = await self._known(key, address, browser)
            if site_full and not known:  # no look-up of failures for a flood
                raise TableError(429, t(LOGINS_FULL,
                                        limit=self.rates.describe("login_site")))
        wait = await self.failures.wait(key, address)
        if wait > 0:
            raise TableError(429, t("Too many wrong passwords for this username from your "
                                    "address: try again in {seconds} s.",
                                    seconds=str(math.ceil(wait))))
        if not await self.rates.hit("login_site", "site"):
            if known is None:
                known = await self._known(key, address, browser)
            if not known:
                raise TableError(429, t(LOGINS_FULL,
                                        limit=self.rates.describe("login_site")))
        account = await self.db.read(self.db.store.accounts.by_key, key)
        ok = await self._verify(account.password_hash if account else None, raw_password,
                                reserved=bool(known))
        if not ok or account is None:
            await self.failures.failed(key, address)
            raise TableError(401, WRONG_LOGIN)
        await self.failures.succeeded(key, address)
        if self.hasher.check_needs_rehash(account.password_hash):
            await self.db.run(self.db.store.accounts.set_password_hash, account.id,
                              await self._hash(raw_password))
        return account, await self._new_session(account)

    # ------------------------------------------------------------------ the account's own

    async def _confirm(self, account: Account, password: Any, address: str) -> Account:
        """The account as stored, if ``password`` is its password: a change to the
        account itself asks for it again (a session left open on a shared computer must
        not be enough). Wrong ones count as wrong log-ins do (they wait alike); 403 with
        :data:`NOT_YOUR_PASSWORD`."""
        key = username_key(account.username)
        if not isinstance(password, str) or len(password) > 200:
            raise TableError(403, NOT_YOUR_PASSWORD)
        wait = await self.failures.wait(key, address)
        if wait > 0:
            raise TableError(429, t("Too many wrong passwords for this account from your "
                                    "address: try again in {seconds} s.",
                                    seconds=str(math.ceil(wait))))
        stored = await self.db.read(self.db.store.accounts.by_key, key)
        if stored is None or stored.id != account.id or not await self._verify(
                stored.password_hash, password):
            await self.failures.failed(key, address)
            raise TableError(403, NOT_YOUR_PASSWORD)
        await self.failures.succeeded(key, address)
        return stored

    async def change_password(self, account: Account, body: Any, address: str) -> str:
        """``POST /api/me/password`` ``{"password", "new_password"}``: the new password
        replaces the old, every session of the account ends (other devices log in again)
        and this browser gets a new one: its token. Nothing changes unless every check
        passes."""
        fields = _fields(body, {"password", "new_password"},
                         N_('Send {"password": "...", "new_password": "..."}.'))
        new = check_password(fields.get("new_password"))
        check_not_common(new, account.username)
        stored = await self._confirm(account, fields.get("password"), address)
        if new == fields.get("password"):
            raise TableError(400, N_("The new password is the one you have: choose "
                                     "another."))
        digest = await self._hash(new)
        await self.db.run(self.db.store.accounts.replace_password, stored.id, digest)
        return await self._new_session(stored)

    async def close(self, account: Account, body: Any, address: str) -> None:
        """``POST /api/me/close`` ``{"password"}``: close the account, as an operator's
        ``ginrummy db close-account`` does (it can no longer log in or be challenged, its
        sessions end, its API tokens are revoked, its open challenges cancelled; its
        finished matches and its name stay, so nobody else takes the name)."""
        fields = _fields(body, {"password"}, N_('Send {"password": "..."}.'))
        if account.bot:
            raise TableError(403, N_("A BOT account is closed by an operator "
                                     "(ginrummy db close-account)."))
        stored = await self._confirm(account, fields.get("password"), address)
        await self.db.run(self.db.store.tokens.close_account, username_key(stored.username))

    async def _new_session(self, account: Account) -> str:
        token = secrets.token_urlsafe(32)
        await self.db.run(self.db.store.accounts.add_session, hash_token(token), account.id,
                          time.time() + SESSION_DAYS * 86400)
        return token

    async def log_out(self, token: str | None, everywhere: bool) -> int:
        """``DELETE /api/session``: end this session or, ``everywhere``, every session of
        its account; how many ended."""
        if not token:
            return 0
        return await self.db.run(self.db.store.accounts.end_session, hash_token(token),
                                 everywhere)

    async def account_of(self, token: str | None) -> Account | None:
        """The account of a session token (None: none, unknown or expired)."""
        if not token or len(token) > 100:
            return None
        return await self.db.read(self.db.store.accounts.session_account, hash_token(token))

    async def account_of_session(self, token_hash: str) -> Account | None:
        """The account of a live session, by its token hash (a socket re-checks the
        session it was opened with before each move)."""
        return await self.db.read(self.db.store.accounts.session_account, token_hash)

    @staticmethod
    def change_allowed(token: str, csrf: str | None, origin: str | None, host: str | None,
                       scheme: str) -> bool:
        """Whether a change made with the session ``token`` may go ahead: it carries the
        session's CSRF token, or a same-origin ``Origin`` header (a browser sends one on
        every cross-site POST; no Origin and no token is refused)."""
        if csrf is not None and hmac.compare_digest(csrf, csrf_of(token)):
            return True
        return origin is not None and origin_allowed(origin, host, scheme, ())

    # ------------------------------------------------------------------ answers

    @staticmethod
    def me(account: Account, token: str, bots: Mapping[str, float] | None = None
           ) -> dict[str, Any]:
        """What ``GET /api/me`` (and a sign-up or login) answers (``"moderator": true``
        for a moderator)."""
        r = account.rating
        out = {"username": account.username, "rating": round(r.rating),
               "deviation": round(r.deviation), "volatility": round(r.volatility, 5),
               "rated_matches": account.rated_matches, "csrf": csrf_of(token)}
        if account.moderator:  # the top bar offers the moderators' page
            out["moderator"] = True
        return out

    async def claim(self, account: Account, body: Any) -> dict[str, Any]:
        """``POST /api/me/matches`` ``{"tokens": [...]}``: put the account on the seats
        these seat tokens hold (a guest's matches in this browser), where the seat has no
        account yet; how many it took."""
        tokens = check_tokens(body, 200)
        by_hash = {hash_token(x): x for x in tokens}
        rows = await self.db.read(self.db.store.find_by_token_hashes, list(by_hash))
        seats = [(sm.id, seat) for sm in rows for seat in (0, 1)
                 if sm.token_hash(seat) in by_hash]
        n = await self.db.run(self.db.store.accounts.claim_seats, account.id, seats)
        return {"claimed": n}

    @staticmethod
    def rating_of(account: Account | None) -> Rating:
        """An account's rating (a guest: a newcomer's)."""
        return account.rating if account is not None else DEFAULT
