"""How server processes tell each other that a table changed, and who drives a computer turn.

:class:`LocalBroker` is the single-process default: nothing to tell, and leases are held in
memory. :class:`RedisBroker` (``--broker redis://HOST:PORT/N``) publishes on Redis pub/sub
only that a table changed (its id and new version, never a view or a card: R11), so every
process can push each of its own connected seats that seat's own view; and it keeps
computer-turn leases as Redis keys with an expiry, renewed while held, so a process that
dies (even by kill -9) loses its leases within seconds and another takes the turn over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Broker", "BrokerError", "LocalBroker", "RedisBroker", "make_broker"]

log = logging.getLogger("ginrummy.web")

CHANNEL = "ginrummy:changed"
LEASE_PREFIX = "ginrummy:lease:"

OnChange = Callable[[str, int], None]
"""Called with (match id, new version) for a change made by another process."""

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
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

    async def start(self, on_change: OnChange, on_reconnect: Callable[[], None]) -> None:
        """Begin receiving other processes' changes."""

    async def publish(self, match_id: str, version: int) -> None:
        """Tell the other processes that ``match_id`` is now at ``version``."""

    async def publish_many(self, changes: Sequence[tuple[str, int]]) -> None:
        """:meth:`publish` each (match id, version), in order."""
        for match_id, version in changes:
            await self.publish(match_id, version)

    async def acquire(self, match_id: str, ttl: float) -> bool:
        """Take the computer-turn lease of a match for ``ttl`` seconds, if nobody holds it."""
        raise NotImplementedError

    async def renew(self, match_id: str, ttl: float) -> bool:
        """Extend a lease this process holds; False when it was lost (expired, taken)."""
        raise NotImplementedError

    async def release(self, match_id: str) -> None:
        """Give a lease back (only if this process still holds it)."""
        raise NotImplementedError

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
        if match_id not in self._leases:
            return False
        self._leases[match_id] = time.monotonic() + ttl
        return True

    async def release(self, match_id: str) -> None:
        self._leases.pop(match_id, None)


class RedisBroker(Broker):
    """Redis pub/sub for "table changed" events and ``SET NX PX`` keys for leases."""

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
                url, socket_connect_timeout=5, socket_timeout=10, health_check_interval=15
            )
        except ValueError as e:
            raise BrokerError(f"Cannot use the broker URL: {e}") from None
        self.url = url
        self._token = self.process_id + ":" + secrets.token_hex(4)
        self._listener: asyncio.Task[None] | None = None
        self._renew_script = self.redis.register_script(_RENEW)
        self._release_script = self.redis.register_script(_RELEASE)

    async def check(self) -> None:
        """Fail early, with a clear message, when the broker cannot be reached."""
        try:
            await self.redis.ping()
        except Exception as e:  # noqa: BLE001 - any client error: say what and where
            raise BrokerError(f"Cannot reach the broker: {e}") from None

    async def start(self, on_change: OnChange, on_reconnect: Callable[[], None]) -> None:
        await self.check()
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
                await pubsub.subscribe(CHANNEL)
                if first:
                    ready.set_result(None)
                    first = False
                else:
                    log.warning("broker connection restored")
                    on_reconnect()
                try:
                    async for msg in pubsub.listen():
                        self._deliver(msg, on_change)
                finally:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - the broker may go away: retry
                if first:
                    ready.set_exception(BrokerError(f"Cannot subscribe on the broker: {e}"))
                    return
                log.warning("broker connection lost (%s); retrying", e)
                await asyncio.sleep(1.0)

    def _deliver(self, msg: Any, on_change: OnChange) -> None:
        try:
            data = json.loads(msg["data"])
            if data.get("p") == self.process_id:
                return
            mid, version = data["m"], data["v"]
            if not isinstance(mid, str) or not isinstance(version, int):
                return
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("ignored a malformed broker message")
            return
        on_change(mid, version)

    async def publish(self, match_id: str, version: int) -> None:
        payload = json.dumps({"m": match_id, "v": version, "p": self.process_id})
        await self.redis.publish(CHANNEL, payload)

    async def publish_many(self, changes: Sequence[tuple[str, int]]) -> None:
        """All in one pipeline: one round trip, in order (under load the events of many
        commits are queued by the time the previous send returns)."""
        if len(changes) == 1:
            await self.publish(*changes[0])
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id, version in changes:
                pipe.publish(CHANNEL, json.dumps({"m": match_id, "v": version,
                                                  "p": self.process_id}))
            await pipe.execute()

    async def acquire(self, match_id: str, ttl: float) -> bool:
        ok = await self.redis.set(
            LEASE_PREFIX + match_id, self._token, nx=True, px=int(ttl * 1000)
        )
        return bool(ok)

    async def renew(self, match_id: str, ttl: float) -> bool:
        r = await self._renew_script(
            keys=[LEASE_PREFIX + match_id], args=[self._token, int(ttl * 1000)]
        )
        return bool(r)

    async def release(self, match_id: str) -> None:
        await self._release_script(keys=[LEASE_PREFIX + match_id], args=[self._token])

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(BaseException):
                await self._listener
        with contextlib.suppress(Exception):
            await self.redis.aclose()


def make_broker(url: str | None) -> Broker:
    """The broker for ``--broker``: none means one process (:class:`LocalBroker`)."""
    if not url:
        return LocalBroker()
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise BrokerError(
            f"The broker must be a Redis URL (redis://HOST:PORT/N), not {url!r}."
        )
    return RedisBroker(url)
