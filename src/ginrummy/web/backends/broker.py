"""How server processes tell each other that a table changed, and who drives a computer turn.

:class:`LocalBroker` is the single-process default: nothing to tell, and leases are held in
memory. :class:`RedisBroker` (``--broker redis://HOST:PORT/N``) publishes on Redis pub/sub
only that a table changed (its id and new version, never a view or a card: R11), so every
process can push each of its own connected seats that seat's own view, and that an account
was logged out (its id), so every process closes that account's sockets; it keeps
computer-turn leases as Redis keys with an expiry, renewed while held, so a process that
dies (even by kill -9) loses its leases within seconds and another takes the turn over;
and it counts each seat's open sockets, and each account's notice sockets (who is
online), across processes (:meth:`Broker.presence_add`); that a match's chat has a new
message (its id: :meth:`Broker.publish_chat`).
On a second channel it carries news of accounts (:meth:`Broker.publish_account`: an
account's challenges changed, one of its API tokens was revoked), again only ids.

The broker may go away. :attr:`Broker.healthy` says whether it is reachable (the listener
is subscribed and the last send worked), and :class:`Outbox` keeps every "changed" event
until the broker has taken it: a failed publish is sent again, never dropped. While the
broker is away, processes learn of each other's changes from the database instead (the
registry polls the versions of the tables it holds).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

__all__ = ["Broker", "BrokerError", "LocalBroker", "Outbox", "RedisBroker", "make_broker"]

log = logging.getLogger("ginrummy.web")

T = TypeVar("T")

CHANNEL = "ginrummy:changed"
ACCOUNT_CHANNEL = "ginrummy:account"
LEASE_PREFIX = "ginrummy:lease:"
PRESENCE_PREFIX = "ginrummy:sockets:"

OnChange = Callable[[str, int], None]
"""Called with (match id, new version) for a change made by another process."""
OnAccount = Callable[[str, str, str | None], None]
"""Called with (account id, what, detail) for news of an account from another process:
``("challenges", None)`` its challenges changed, ``("revoked", TOKEN_ID)`` one of its API
tokens was revoked. Never a secret: the receiver reads what it shows from the database."""

OnLogout = Callable[[str, "str | None"], object]
"""Called with (account id, the ended session's token hash, or None for every session)
when another process logged an account out."""

_RENEW = """
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
if not holder then
  redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
  return 1
end
return 0
"""
_PRESENCE_ADD = """
redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])
if redis.call('zscore', KEYS[1], ARGV[3]) or redis.call('zcard', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('zadd', KEYS[1], ARGV[4], ARGV[3])
  redis.call('pexpire', KEYS[1], ARGV[5])
  return 1
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class BrokerError(RuntimeError):
    """The broker URL cannot be used (bad URL, driver missing, server unreachable)."""


class Broker:
    """What the service needs from a broker; :class:`LocalBroker` is the in-process one."""

    distributed = False
    """True when other processes may serve the same tables."""

    def __init__(self) -> None:
        self.process_id = secrets.token_hex(6)
        """This process's id: published with each change, so its own echoes are ignored."""
        self.errors = 0
        """Broker commands that failed, for ``/metrics``."""
        self.on_logout: list[OnLogout] = []
        """Told when another process logged an account out (its sockets close here too)."""
        self.on_chat: list[Callable[[str], object]] = []
        """Told (with the match id) when another process stored a chat message."""

    async def start(self, on_change: OnChange, on_reconnect: Callable[[], None],
                    on_account: OnAccount | None = None) -> None:
        """Begin receiving other processes' changes (and, with ``on_account``, their news
        of accounts)."""

    async def publish(self, match_id: str, version: int) -> None:
        """Tell the other processes that ``match_id`` is now at ``version``."""

    async def publish_account(self, account_id: str, what: str,
                              detail: str | None = None) -> None:
        """Tell the other processes news of an account (see :data:`OnAccount`); the
        in-process broker has nobody to tell."""

    async def publish_many(self, changes: Sequence[tuple[str, int]]) -> None:
        """:meth:`publish` each (match id, version), in order."""
        for match_id, version in changes:
            await self.publish(match_id, version)

    async def publish_logout(self, account_id: str, session: str | None) -> None:
        """Tell the other processes that ``account_id`` was logged out (``session``: the
        ended session's token hash; None: every session). Nothing for one process."""

    @property
    def healthy(self) -> bool:
        """Whether the broker is reachable (always, for the in-process one)."""
        return True

    async def acquire(self, match_id: str, ttl: float) -> bool:
        """Take the computer-turn lease of a match for ``ttl`` seconds, if nobody holds it."""
        raise NotImplementedError

    async def renew(self, match_id: str, ttl: float) -> bool:
        """Extend a lease this process holds (or take it again if it has lapsed and nobody
        took it meanwhile, e.g. after the broker restarted empty); False when another
        process holds it."""
        raise NotImplementedError

    async def release(self, match_id: str) -> None:
        """Give a lease back (only if this process still holds it)."""
        raise NotImplementedError

    async def presence_add(self, key: str, member: str, cap: int, ttl: float) -> bool:
        """Count ``member`` (one socket) under ``key`` for ``ttl`` seconds unless ``cap``
        live members are there already (False). Across processes with a shared broker;
        the in-process broker counts nothing (each process counts its own sockets)."""
        return True

    async def presence_refresh(self, entries: Sequence[tuple[str, str]], ttl: float) -> None:
        """Keep these (key, member) entries alive for another ``ttl`` seconds (a process
        that dies stops refreshing, and its sockets stop counting)."""

    async def presence_remove(self, key: str, member: str) -> None:
        """Stop counting ``member`` under ``key`` (its socket closed)."""

    async def presence_counts(self, keys: Sequence[str]) -> dict[str, int] | None:
        """How many live members each key has across processes (None: nothing is
        shared, each process knows only its own)."""
        return None

    async def publish_chat(self, match_id: str) -> None:
        """Tell the other processes that a match's chat has a new message (its id only:
        they read the message from the database). Nothing for one process."""

    async def close(self) -> None:
        """Stop listening and release connections."""


class LocalBroker(Broker):
    """One process: no one to tell; leases in a dict (with expiry, like Redis's)."""

    def __init__(self) -> None:
        super().__init__()
        self._leases: dict[str, float] = {}

    async def acquire(self, match_id: str, ttl: float) -> bool:
        now = time.monotonic()
        if self._leases.get(match_id, 0.0) > now:
            return False
        self._leases[match_id] = now + ttl
        return True

    async def renew(self, match_id: str, ttl: float) -> bool:
        self._leases[match_id] = time.monotonic() + ttl
        return True

    async def release(self, match_id: str) -> None:
        self._leases.pop(match_id, None)


class RedisBroker(Broker):
    """Redis pub/sub for "table changed" events, ``SET NX PX`` keys for leases and sorted
    sets for the sockets counted across processes."""

    distributed = True

    def __init__(self, url: str) -> None:
        super().__init__()
        try:
            import redis.asyncio as aioredis
        except ImportError as e:
            raise BrokerError(
                f"The Redis client is not installed ({e.name}): pip install 'ginrummy[web]'"
            ) from None
        try:
            self.redis: Any = aioredis.Redis.from_url(
                url, socket_connect_timeout=2, socket_timeout=5, health_check_interval=5
            )
        except ValueError as e:
            raise BrokerError(f"Cannot use the broker URL: {e}") from None
        self.url = url
        self._token = self.process_id + ":" + secrets.token_hex(4)
        self._listener: asyncio.Task[None] | None = None
        self._renew_script = self.redis.register_script(_RENEW)
        self._release_script = self.redis.register_script(_RELEASE)
        self._presence_script = self.redis.register_script(_PRESENCE_ADD)
        self._subscribed = False
        self._sent_ok = True
        self._on_account: OnAccount | None = None

    @property
    def healthy(self) -> bool:
        """Subscribed, and the last command reached the broker."""
        return self._subscribed and self._sent_ok

    async def _do(self, coro: Awaitable[T]) -> T:
        """Run one broker command, keeping :attr:`healthy` up to date."""
        try:
            out = await coro
        except asyncio.CancelledError:
            raise
        except Exception:
            self._sent_ok = False
            self.errors += 1
            raise
        self._sent_ok = True
        return out

    async def check(self) -> None:
        """Fail early, with a clear message, when the broker cannot be reached."""
        try:
            await self.redis.ping()
        except Exception as e:  # noqa: BLE001 - any client error: say what and where
            raise BrokerError(f"Cannot reach the broker: {e}") from None

    async def start(self, on_change: OnChange, on_reconnect: Callable[[], None],
                    on_account: OnAccount | None = None) -> None:
        await self.check()
        self._on_account = on_account
        ready = asyncio.get_running_loop().create_future()
        self._listener = asyncio.create_task(self._listen(on_change, on_reconnect, ready))
        await ready

    async def _listen(
        self, on_change: OnChange, on_reconnect: Callable[[], None], ready: asyncio.Future[None]
    ) -> None:
        """Receive changes until cancelled; after a lost connection, subscribe again and
        let the service catch up on what it may have missed."""
        first = True
        while True:
            try:
                pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                try:
                    await pubsub.subscribe(CHANNEL, ACCOUNT_CHANNEL)
                    self._subscribed = True
                    if first:
                        ready.set_result(None)
                        first = False
                    else:
                        log.warning("broker connection restored")
                        self._sent_ok = True
                        on_reconnect()
                    async for msg in pubsub.listen():
                        self._deliver(msg, on_change)
                finally:
                    self._subscribed = False
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - the broker may go away: retry
                if first:
                    ready.set_exception(BrokerError(f"Cannot subscribe on the broker: {e}"))
                    return
                log.warning("broker connection lost (%s); retrying", e)
                await asyncio.sleep(0.5)

    def _deliver(self, msg: Any, on_change: OnChange) -> None:
        try:
            data = json.loads(msg["data"])
            if data.get("p") == self.process_id:
                return
            channel = msg.get("channel")
            if channel in (ACCOUNT_CHANNEL, ACCOUNT_CHANNEL.encode()):
                self._deliver_account(data)
                return
            if data.get("k") == "logout":
                self._logged_out(data)
                return
            if data.get("k") == "chat":
                self._chat(data)
                return
            mid, version = data["m"], data["v"]
            if not isinstance(mid, str) or not isinstance(version, int):
                return
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("ignored a malformed broker message")
            return
        on_change(mid, version)

    def _deliver_account(self, data: Any) -> None:
        account, what, detail = data.get("a"), data.get("w"), data.get("d")
        if self._on_account is None or not isinstance(account, str) \
                or not isinstance(what, str) or not (detail is None or isinstance(detail, str)):
            return
        self._on_account(account, what, detail)

    async def publish_account(self, account_id: str, what: str,
                              detail: str | None = None) -> None:
        await self._do(self.redis.publish(ACCOUNT_CHANNEL, json.dumps(
            {"a": account_id, "w": what, "d": detail, "p": self.process_id})))

    def _logged_out(self, data: dict[str, Any]) -> None:
        account, session = data.get("a"), data.get("s")
        if not isinstance(account, str) or not (session is None or isinstance(session, str)):
            log.warning("ignored a malformed broker message")
            return
        for cb in list(self.on_logout):
            try:
                cb(account, session)
            except Exception:  # noqa: BLE001 - one listener never stops the others
                log.exception("logout listener failed")

    def _chat(self, data: dict[str, Any]) -> None:
        match_id = data.get("m")
        if not isinstance(match_id, str):
            log.warning("ignored a malformed broker message")
            return
        for cb in list(self.on_chat):
            try:
                cb(match_id)
            except Exception:  # noqa: BLE001 - one listener never stops the others
                log.exception("chat listener failed")

    async def publish_logout(self, account_id: str, session: str | None) -> None:
        await self._do(self.redis.publish(CHANNEL, json.dumps(
            {"k": "logout", "a": account_id, "s": session, "p": self.process_id})))

    def _payload(self, match_id: str, version: int) -> str:
        return json.dumps({"m": match_id, "v": version, "p": self.process_id})

    async def publish(self, match_id: str, version: int) -> None:
        await self._do(self.redis.publish(CHANNEL, self._payload(match_id, version)))

    async def publish_many(self, changes: Sequence[tuple[str, int]]) -> None:
        """All in one pipeline: one round trip, in order (under load the events of many
        commits are queued by the time the previous send returns)."""
        if len(changes) == 1:
            await self.publish(*changes[0])
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id, version in changes:
                pipe.publish(CHANNEL, self._payload(match_id, version))
            await self._do(pipe.execute())

    async def acquire(self, match_id: str, ttl: float) -> bool:
        ok = await self._do(self.redis.set(
            LEASE_PREFIX + match_id, self._token, nx=True, px=int(ttl * 1000)
        ))
        return bool(ok)

    async def renew(self, match_id: str, ttl: float) -> bool:
        r = await self._do(self._renew_script(
            keys=[LEASE_PREFIX + match_id], args=[self._token, int(ttl * 1000)]
        ))
        return bool(r)

    async def release(self, match_id: str) -> None:
        await self._do(self._release_script(keys=[LEASE_PREFIX + match_id],
                                            args=[self._token]))

    async def presence_add(self, key: str, member: str, cap: int, ttl: float) -> bool:
        now = time.time()
        r = await self._do(self._presence_script(
            keys=[PRESENCE_PREFIX + key],
            args=[now, cap, member, now + ttl, int(ttl * 1000) + 1000],
        ))
        return bool(r)

    async def presence_refresh(self, entries: Sequence[tuple[str, str]], ttl: float) -> None:
        if not entries:
            return
        until = time.time() + ttl
        async with self.redis.pipeline(transaction=False) as pipe:
            for key, member in entries:
                pipe.zadd(PRESENCE_PREFIX + key, {member: until})
                pipe.pexpire(PRESENCE_PREFIX + key, int(ttl * 1000) + 1000)
            await self._do(pipe.execute())

    async def presence_remove(self, key: str, member: str) -> None:
        await self._do(self.redis.zrem(PRESENCE_PREFIX + key, member))

    async def presence_counts(self, keys: Sequence[str]) -> dict[str, int] | None:
        if not keys:
            return {}
        now = time.time()
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.zcount(PRESENCE_PREFIX + key, now, "+inf")
            counts = await self._do(pipe.execute())
        return {k: int(n) for k, n in zip(keys, counts, strict=True)}

    async def publish_chat(self, match_id: str) -> None:
        await self._do(self.redis.publish(CHANNEL, json.dumps(
            {"k": "chat", "m": match_id, "p": self.process_id})))

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(BaseException):
                await self._listener
        with contextlib.suppress(Exception):
            await self.redis.aclose()


class Outbox:
    """"Changed" events on their way to the broker: kept (the latest version of each
    match, in order of change) until the broker has taken them, sent in batches of one
    round trip, and sent again after a failure, so no event is ever dropped."""

    def __init__(self, broker: Broker, retry_seconds: float = 0.25) -> None:
        self.broker = broker
        self.retry_seconds = retry_seconds
        self._pending: dict[str, int] = {}
        self._wake = asyncio.Event()

    def put(self, match_id: str, version: int) -> None:
        """Queue "``match_id`` is now at ``version``" (replacing an older unsent one)."""
        self._pending.pop(match_id, None)
        self._pending[match_id] = version
        self._wake.set()

    def __len__(self) -> int:
        return len(self._pending)

    async def flush(self) -> None:
        """Send what is queued now, once (raises if the broker refuses)."""
        batch = list(self._pending.items())
        if batch:
            await self.broker.publish_many(batch)
            for mid, version in batch:
                if self._pending.get(mid) == version:
                    del self._pending[mid]

    async def run_forever(self) -> None:
        """Send what is queued; after a failure wait a little (longer each time, up to
        two seconds) and send it again."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            delay = self.retry_seconds
            failed = False
            while self._pending:
                batch = list(self._pending.items())
                try:
                    await self.broker.publish_many(batch)
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # noqa: BLE001 - broker away: keep them, retry
                    if not failed:
                        log.warning("could not publish %d changes (kept, retrying): %s",
                                    len(batch), e)
                    failed = True
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 2.0)
                    continue
                if failed:
                    log.warning("published %d changes held while the broker was away",
                                len(batch))
                    failed = False
                    delay = self.retry_seconds
                for mid, version in batch:
                    if self._pending.get(mid) == version:
                        del self._pending[mid]


def make_broker(url: str | None) -> Broker:
    """The broker for ``--broker``: none means one process (:class:`LocalBroker`)."""
    if not url:
        return LocalBroker()
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise BrokerError(
            f"The broker must be a Redis URL (redis://HOST:PORT/N), not {url!r}."
        )
    return RedisBroker(url)
