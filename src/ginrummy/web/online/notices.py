"""An account's live notices: ``WS /api/me/ws``, open on every page of a signed-in
player (and in ``ginrummy connect``), pushes the account's challenges the moment they
change, wherever the change was made.

Each push is the whole picture, ``{"type": "notices", "in": [...], "out": [...],
"playing": [{"id", "seat"}]}`` (the challenges to the account, its own, and the matches it
is playing), sent when it differs from the last one the socket got: a socket that missed
something is never left wrong, only late. Changes made here are pushed at once; other
processes hear of them over the broker (the account's id only, never a challenge or a
token: :meth:`~.broker.Broker.publish_account`) and read the lists from the database; and
every :attr:`Notices.refresh_seconds` each account's lists are read again anyway
(expiries, an event lost while the broker was away), with a beat for sockets sent
nothing meanwhile.

Revoking an API token closes, on every process, each socket (of notices or of a table)
that authenticated with it, with code 4401 and the reason; logging out closes the
account's session sockets (that session's, or every one) here and, through the broker,
everywhere, as the table sockets are (:meth:`Notices.close_sessions`); the periodic pass
also closes any whose token it finds revoked, and any session socket whose session has
ended. A push that carries a seat token (a challenger's accepted challenge names its
match) is sent only to a socket whose session or token is checked live first: a socket
whose log-out or revocation never reached this process is closed instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from ...i18n import N_, t, using
from ..accounts.accounts import Accounts
from ..accounts.tokens import REVOKED
from ..backends.broker import Broker
from ..backends.database import Database
from ..errors import TableError
from ..store import hash_token
from ..tables.sockets import SocketHub, Subscriber
from ..tables.views import dumps
from .challenges import Challenges

__all__ = ["MAX_SOCKETS", "REVOKED_CODE", "Notices"]

log = logging.getLogger("ginrummy.web")

MAX_SOCKETS = 10
"""Notice sockets one account may hold open on one process (tabs, bots)."""
OUTAGE_SECONDS = 1.0
"""How often, while the broker is away, the sockets of revoked API tokens are looked for."""
REVOKED_CODE = 4401
"""Close code of a socket whose API token was revoked (4000 + 401, as refusals)."""
LOGGED_OUT_CODE = 4401
"""Close code of a session's socket once the session has ended."""
LOGGED_OUT = N_("You are logged out.")
"""Its reason."""
RESTARTING = N_("The server is restarting: reconnect.")
"""The reason of every socket closed when the server stops."""


class Notices:
    """The notice sockets of this process, by account (see the module docstring)."""

    def __init__(self, db: Database, broker: Broker, hub: SocketHub, challenges: Challenges,
                 accounts: Accounts, refresh_seconds: float = 10.0,
                 heartbeat_seconds: float = 15.0) -> None:
        self.db = db
        self.accounts = accounts
        self.broker = broker
        self.hub = hub
        self.challenges = challenges
        self.refresh_seconds = refresh_seconds
        self.heartbeat_seconds = heartbeat_seconds
        self._by_account: dict[str, set[Subscriber]] = {}
        self._sent: dict[str, str] = {}
        """The last push each socket got (by socket id)."""
        self._sessions: dict[str, str] = {}
        """The session token each session-authenticated socket came with (by socket id):
        a socket whose session ended (a log-out, everywhere too) is closed."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.extras: list[Callable[[str], Awaitable[dict[str, Any]]]] = []
        """More of an account's picture (by account id), e.g. its followed players'
        arenas: merged into each push."""
        challenges.on_change.append(self.poke)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def stop(self) -> None:
        """Close every notice socket (the server is stopping: pages reconnect) and stop."""
        for subs in self._by_account.values():
            for s in subs:
                s.close(1012, RESTARTING)
        for task in list(self._tasks):
            task.cancel()

    # ------------------------------------------------------------------ sockets

    def admit(self, sub: Subscriber, session: str | None = None) -> None:
        """Count a new notice socket of account ``sub.match_id`` (429 past
        :data:`MAX_SOCKETS` here); ``session``: the session token it came with."""
        subs = self._by_account.setdefault(sub.match_id, set())
        if sum(1 for s in subs if not s.closed) >= MAX_SOCKETS:
            raise TableError(429, t("At most {n} open notice connections per account: "
                                    "close another tab first.", n=str(MAX_SOCKETS)))
        subs.add(sub)
        if session is not None:
            self._sessions[sub.id] = session
            sub.account = sub.match_id  # closed when this session logs out
            sub.session = hash_token(session)

    def remove(self, sub: Subscriber) -> None:
        """Forget a notice socket that closed."""
        sub.close()
        subs = self._by_account.get(sub.match_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._by_account[sub.match_id]
        self._sent.pop(sub.id, None)
        self._sessions.pop(sub.id, None)

    async def snapshot(self, account_id: str) -> dict[str, Any]:
        """What an account's notice sockets are shown now."""
        lists = await self.challenges.lists(account_id)
        playing = await self.db.read(self.db.store.tokens.playing, account_id)
        out = {"type": "notices", **lists, "playing": playing}
        for extra in self.extras:
            out.update(await extra(account_id))
        return out

    async def refresh(self, account_id: str) -> None:
        """Push the account's sockets here the lists, where they changed (one that carries
        a seat token only to a socket still live: :meth:`_still_live`), each in its
        socket's language (a declined challenge's reason is a sentence)."""
        subs = [s for s in self._by_account.get(account_id, ()) if not s.closed]
        if not subs:
            return
        by_lang: dict[str, list[Subscriber]] = {}
        for s in subs:
            by_lang.setdefault(s.lang, []).append(s)
        try:
            for lang, some in by_lang.items():
                with using(lang):
                    snap = await self.snapshot(account_id)
                text = dumps(snap)
                secret = any("match" in e for e in snap.get("out", ()))
                for s in some:
                    if self._sent.get(s.id) != text:
                        if secret and not await self._still_live(s):
                            continue
                        self._sent[s.id] = text
                        s.push_text(text)
        except TableError as e:  # database away: the next pass tries again
            log.debug("notices of %s not read: %s", account_id, e.message)

    async def _still_live(self, sub: Subscriber) -> bool:
        """Whether the session or API token ``sub`` authenticated with is live now, read
        from the database (a log-out or a revocation whose news never came here, the
        broker being away, must not be handed a seat token); one that is not is closed."""
        if sub.session is not None:
            acct = await self.accounts.account_of_session(sub.session)
            if acct is None or acct.id != sub.account:
                sub.close(LOGGED_OUT_CODE, LOGGED_OUT)
                return False
        if sub.token_id is not None:
            revoked: list[str] = await self.db.read(self.db.store.tokens.revoked_among,
                                                    [sub.token_id])
            if revoked:
                sub.close(REVOKED_CODE, REVOKED)
                return False
        return not sub.closed

    # ------------------------------------------------------------------ news

    def poke(self, account_ids: list[str]) -> None:
        """The challenges of these accounts changed here: push this process's sockets,
        and tell the other processes."""
        for account_id in account_ids:
            self._spawn(self.refresh(account_id))
            if self.broker.distributed:
                self._spawn(self._publish(account_id, "challenges", None))

    async def _publish(self, account_id: str, what: str, detail: str | None) -> None:
        try:
            await self.broker.publish_account(account_id, what, detail)
        except Exception as e:  # noqa: BLE001 - the periodic pass catches the others up
            log.warning("could not tell the other processes about account news: %s", e)

    def from_broker(self, account_id: str, what: str, detail: str | None) -> None:
        """Another process's news of an account (the broker's listener)."""
        if what == "revoked" and detail is not None:
            self._close_token(detail)
        elif account_id in self._by_account:
            self._spawn(self.refresh(account_id))

    def close_sessions(self, account_id: str, session: str | None = None) -> int:
        """Close the notice sockets ``account_id`` opened with a session (``session``: only
        that session's, by its token hash; None: every one): it logged out, here or on
        another process (the broker's listener). How many."""
        closed = 0
        for s in list(self._by_account.get(account_id, ())):
            if not s.closed and s.session is not None and (
                    session is None or s.session == session):
                s.close(LOGGED_OUT_CODE, LOGGED_OUT)
                closed += 1
        return closed

    def revoked(self, account_id: str, token_id: str) -> None:
        """An API token was revoked here: close its sockets here and everywhere."""
        self._close_token(token_id)
        if self.broker.distributed:
            self._spawn(self._publish(account_id, "revoked", token_id))

    def _close_token(self, token_id: str) -> None:
        self.hub.close_token(token_id, REVOKED_CODE, REVOKED)
        for subs in self._by_account.values():
            for s in subs:
                if s.token_id == token_id:
                    s.close(REVOKED_CODE, REVOKED)

    def refresh_all(self) -> None:
        """Read every account's lists again (the broker came back: news may be lost)."""
        for account_id in list(self._by_account):
            self._spawn(self.refresh(account_id))

    async def run_forever(self) -> None:
        """Every :attr:`refresh_seconds`: read each account's lists again, beat the
        sockets sent nothing for a while, and close sockets whose token was revoked
        without this process hearing of it. While the broker is away (no news of a
        revocation can come), the revoked tokens' sockets are looked for every
        :data:`OUTAGE_SECONDS` (one read), so a revoked token is not pushed its seat's
        hand for long."""
        since = 0.0
        step = min(self.refresh_seconds, OUTAGE_SECONDS)
        while True:
            await asyncio.sleep(step)
            since += step
            try:
                if since < self.refresh_seconds:
                    if self.broker.distributed and not self.broker.healthy:
                        await self._close_revoked()
                    continue
                since = 0.0
                for account_id in list(self._by_account):
                    await self.refresh(account_id)
                now = time.monotonic()
                for subs in list(self._by_account.values()):
                    for s in subs:
                        if now - s.last_sent >= self.heartbeat_seconds:
                            s.push({"type": "beat"})
                await self.close_stale()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the pass outlives any surprise
                log.exception("notices pass failed")

    async def close_stale(self) -> None:
        """Close the sockets whose API token was revoked, or whose session ended, without
        this process hearing of it (the periodic pass)."""
        await self._close_revoked()
        await self._close_logged_out()

    async def _close_logged_out(self) -> None:
        """Close the session sockets whose session ended (logged out here or
        everywhere, or expired)."""
        live: dict[str, bool] = {}
        for subs in list(self._by_account.values()):
            for s in subs:
                token = self._sessions.get(s.id)
                if token is None or s.closed:
                    continue
                if token not in live:
                    try:
                        live[token] = await self.accounts.account_of(token) is not None
                    except TableError:  # the database away: the next pass
                        return
                if not live[token]:
                    s.close(LOGGED_OUT_CODE, LOGGED_OUT)

    async def _close_revoked(self) -> None:
        ids = self.hub.token_ids() | {s.token_id for subs in self._by_account.values()
                                      for s in subs if s.token_id is not None}
        if not ids:
            return
        with contextlib.suppress(TableError):
            for token_id in await self.db.read(self.db.store.tokens.revoked_among,
                                               sorted(ids)):
                self._close_token(token_id)
