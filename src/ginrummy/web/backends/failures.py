"""Wrong passwords, counted per (username, address): a guesser is slowed down, and nobody
else can keep an account's owner out.

A limit per username alone lets anyone lock an account: ten wrong passwords from ten
addresses used to keep the owner out from a fresh address for a minute. Here each
(username, address) pair has its own count. The first :data:`FREE` wrong passwords of a
pair cost nothing; after that the pair must wait before its next try, twice as long after
each further failure (1 s, 2 s, 4 s, ... up to :data:`MAX_WAIT`). A pair is forgotten a day
after its last failure, or at once when it logs in. Once a username has had
:data:`ATTACK` wrong passwords within an hour from all addresses together (guesses spread
over many addresses), every pair of it gets only :data:`FREE_UNDER_ATTACK` free try: a
fresh address (the owner's) is always checked once at no wait, and the guessers are
slowed from their second try.

Successful log-ins are remembered too, per (username, address), for :data:`GOOD_FOR`
(:meth:`LoginFailures.known_good`): while a flood of log-ins fills the site's limit, an
address the account has logged in from recently is still let in (the flood, from
addresses it never logged in from, is what gets refused).

With a broker the counts live in Redis (``ginrummy:loginfail:*``, ``ginrummy:logingood:*``),
so every process sees them; while Redis is away, or with none, each process counts its
own.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import OrderedDict
from typing import Any

__all__ = ["ATTACK", "FREE", "FREE_UNDER_ATTACK", "GOOD_FOR", "MAX_WAIT", "LoginFailures",
           "wait_after"]

log = logging.getLogger("ginrummy.web")

FREE = 5
"""Wrong passwords a (username, address) pair makes without waiting."""
FREE_UNDER_ATTACK = 1
"""The same while its username is under attack (:data:`ATTACK`)."""
ATTACK = 50
"""Wrong passwords for one username within :data:`ATTACK_WINDOW`, from all addresses, that
put it under attack."""
ATTACK_WINDOW = 3600.0
MAX_WAIT = 900.0
"""The longest wait between two tries of a pair (15 minutes)."""
FORGET = 86400.0
"""A pair's count is forgotten this long after its last failure."""
MAX_PAIRS = 200_000
"""Pairs kept in one process's memory (the oldest are forgotten first)."""
PREFIX = "ginrummy:loginfail:"
GOOD_PREFIX = "ginrummy:logingood:"
GOOD_FOR = 30 * 86400.0
"""How long an address that logged in to an account counts as a known good address of it
(seconds; renewed at each log-in)."""


def wait_after(failures: int, free: int = FREE) -> float:
    """Seconds a pair must wait after its last failure, having failed ``failures`` times.

    >>> [wait_after(n) for n in (0, 4, 5, 6, 7, 20)]
    [0.0, 0.0, 1.0, 2.0, 4.0, 900.0]
    >>> wait_after(1, FREE_UNDER_ATTACK)
    1.0
    """
    if failures < free:
        return 0.0
    return float(min(2.0 ** min(failures - free, 30), MAX_WAIT))


class LoginFailures:
    """The counts (see the module docstring): :meth:`wait` before checking a password,
    :meth:`failed` after a wrong one, :meth:`succeeded` after a right one."""

    def __init__(self, storage_uri: str = "memory://") -> None:
        self._pairs: OrderedDict[tuple[str, str], tuple[int, float]] = OrderedDict()
        self._good: OrderedDict[tuple[str, str], float] = OrderedDict()
        """(username, address) pairs that logged in, and when (this process's own)."""
        self._users: dict[str, tuple[int, float]] = {}
        self.redis: Any = None
        self._redis_ok = True
        if storage_uri.startswith(("redis://", "rediss://")):
            import redis.asyncio as aioredis

            self.redis = aioredis.Redis.from_url(storage_uri, socket_connect_timeout=2,
                                                 socket_timeout=2)

    # ------------------------------------------------------------------ the API

    async def wait(self, key: str, address: str, now: float | None = None) -> float:
        """Seconds the pair must still wait before its password is checked (0: now)."""
        now = time.time() if now is None else now
        counts = await self._shared_counts(key, address)
        if counts is None:
            counts = self._local_counts(key, address, now)
        (n, last), under_attack = counts
        free = FREE_UNDER_ATTACK if under_attack else FREE
        return max(0.0, last + wait_after(n, free) - now) if n else 0.0

    async def failed(self, key: str, address: str, now: float | None = None) -> None:
        """Count a wrong password of the pair (and of its username)."""
        now = time.time() if now is None else now
        n, _ = self._pairs.pop((key, address), (0, 0.0))
        self._pairs[(key, address)] = (n + 1, now)
        while len(self._pairs) > MAX_PAIRS:
            self._pairs.popitem(last=False)
        count, since = self._users.get(key, (0, now))
        if now - since >= ATTACK_WINDOW:
            count, since = 0, now
        self._users[key] = (count + 1, since)
        if self.redis is not None:
            pair = f"{PREFIX}{key}:{address}"
            user = f"{PREFIX}user:{key}"
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.hincrby(pair, "n", 1)
                    pipe.hset(pair, "t", repr(now))
                    pipe.expire(pair, int(FORGET))
                    pipe.incr(user)
                    pipe.expire(user, int(ATTACK_WINDOW), nx=True)
                    await pipe.execute()
                self._up()
            except Exception:  # noqa: BLE001 - Redis away: this process's count holds
                self._down()

    async def succeeded(self, key: str, address: str, now: float | None = None) -> None:
        """The pair logged in: forget its failures, and remember it as a known good
        address of the username (:meth:`known_good`)."""
        now = time.time() if now is None else now
        self._pairs.pop((key, address), None)
        self._good.pop((key, address), None)
        self._good[(key, address)] = now
        while len(self._good) > MAX_PAIRS:
            self._good.popitem(last=False)
        if self.redis is not None:
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.delete(f"{PREFIX}{key}:{address}")
                    pipe.set(f"{GOOD_PREFIX}{key}:{address}", repr(now), ex=int(GOOD_FOR))
                    await pipe.execute()
                self._up()
            except Exception:  # noqa: BLE001 - Redis away: its count expires by itself
                self._down()

    async def known_good(self, key: str, address: str, now: float | None = None) -> bool:
        """Whether this address logged in to the username within :data:`GOOD_FOR` (seen by
        any process through Redis, or by this one)."""
        now = time.time() if now is None else now
        at = self._good.get((key, address))
        if at is not None and now - at < GOOD_FOR:
            return True
        if self.redis is not None:
            try:
                seen = await self.redis.exists(f"{GOOD_PREFIX}{key}:{address}")
                self._up()
                return bool(seen)
            except Exception:  # noqa: BLE001 - Redis away: this process's record holds
                self._down()
        return False

    async def close(self) -> None:
        """Release the Redis connection."""
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.redis.aclose()

    # ------------------------------------------------------------------ counting

    def _local_counts(self, key: str, address: str, now: float
                      ) -> tuple[tuple[int, float], bool]:
        pair = self._pairs.get((key, address))
        if pair is not None and now - pair[1] > FORGET:
            del self._pairs[(key, address)]
            pair = None
        count, since = self._users.get(key, (0, now))
        if now - since >= ATTACK_WINDOW:
            self._users.pop(key, None)
            count = 0
        return pair or (0, 0.0), count >= ATTACK

    async def _shared_counts(self, key: str, address: str
                             ) -> tuple[tuple[int, float], bool] | None:
        """The pair's (failures, last failure) and whether its username is under attack,
        as Redis has them; None without Redis or while it is away."""
        if self.redis is None:
            return None
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hmget(f"{PREFIX}{key}:{address}", ["n", "t"])
                pipe.get(f"{PREFIX}user:{key}")
                (n, t), users = await pipe.execute()
            self._up()
        except Exception:  # noqa: BLE001 - Redis away: this process's count holds
            self._down()
            return None
        return (int(n or 0), float(t or 0.0)), int(users or 0) >= ATTACK

    def _up(self) -> None:
        if not self._redis_ok:
            log.warning("shared log-in failure counts back")
        self._redis_ok = True

    def _down(self) -> None:
        if self._redis_ok:
            log.warning("shared log-in failure counts unavailable: counting in this process")
        self._redis_ok = False
