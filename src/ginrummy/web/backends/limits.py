"""Per-client rate limits: moving windows counted in this process, and with a broker in
Redis too, so a limit holds across processes and never lapses while Redis is away.

Every request of a kind (``create``, ``join``, ``lookup``, ``actions``, ``reads``,
``pages``, ``sockets``, ``auth``, ``login``, ``signup``, and the site-wide ``login_site`` and
``signup_site``, whose one client is ``site``, ``messages`` and ``bot_messages``, counted
per seat or per account's notice sockets, ``coach``, per account or guest address, and
``chat`` and ``chat_account``, chat messages per seat or spectator and per account) is
counted here exactly
(:class:`LocalWindows`, a moving window of timestamps per client). With a broker the
processes also share their counts (:class:`SharedCounts`): each adds its clients' new
hits to Redis in one batch every ``sync_seconds`` (buckets of a sixth of the window) and
reads back those clients' totals over the window; a request is refused once the shared
total, with the hits not yet added, reaches the limit. A request costs no round trip to
Redis, and the shared count lags by at most a sync; the site-wide kinds (:data:`EXACT`)
are the exception, counted in Redis at every hit. A request is allowed only when both
counts allow it; this process's own count is never more than the shared one, so it
changes no answer while Redis is up, and while Redis is away it goes on counting alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import Any

from ...i18n import N_, t
from ..guard import Settings

__all__ = ["KINDS", "LocalWindows", "RateLimits"]

log = logging.getLogger("ginrummy.web")

KINDS = ("create", "join", "lookup", "actions", "reads", "pages", "sockets", "auth", "login",
         "signup", "login_site", "signup_site", "messages", "bot_messages", "coach", "chat",
         "chat_account")
"""The kinds of request limited apart, each by the setting ``rate_KIND``."""

LEARN_FIRST = frozenset({"login_site", "signup_site", "messages", "bot_messages", "chat",
                         "chat_account"})
"""Kinds whose keys every process shares (the site; a seat's sockets on several
processes): a process reads such a key's shared total at its first hit there, instead of
counting alone until the next sync (a round trip, once per key and window)."""

EXACT = frozenset({"login_site", "signup_site"})
"""Kinds counted in Redis at every hit (one round trip, small beside the password hash each
of them costs): the site is their one client, hit by every process at once, so a count
that lagged a sync would let each process spend the whole site's allowance (two processes
let 33 of 60 log-ins through a limit of 20)."""

PER = {
    "second": N_("{amount} per {multiples} second"),
    "minute": N_("{amount} per {multiples} minute"),
    "hour": N_("{amount} per {multiples} hour"),
    "day": N_("{amount} per {multiples} day"),
    "month": N_("{amount} per {multiples} month"),
    "year": N_("{amount} per {multiples} year"),
}
"""A limit in words, by the unit of its window (in English as the limits library says it:
``20 per 1 minute``), for the sentences of the refusals."""

PER_MANY = {
    "second": N_("{amount} per {multiples} seconds"),
    "minute": N_("{amount} per {multiples} minutes"),
    "hour": N_("{amount} per {multiples} hours"),
    "day": N_("{amount} per {multiples} days"),
    "month": N_("{amount} per {multiples} months"),
    "year": N_("{amount} per {multiples} years"),
}
"""The same for a window of several units (``5 per 10 seconds``)."""

SWEEP_SECONDS = 10.0
"""How often the local windows drop the clients with nothing left in them."""

class LocalWindows:
    """Moving windows in memory: for each key, the times of its hits within the window
    (the oldest dropped as it ages out), so a hit costs O(1)."""

    def __init__(self) -> None:
        self._hits: dict[tuple[str, str], deque[float]] = {}
        self._longest = 0.0
        self._next_sweep = 0.0

    def hit(self, key: tuple[str, str], limit: int, window: float,
            now: float | None = None) -> bool:
        """Count one hit unless ``limit`` hits are in the last ``window`` seconds."""
        now = time.monotonic() if now is None else now
        if now >= self._next_sweep:
            self.sweep(now)
        log_ = self._hits.get(key)
        if log_ is None:
            log_ = self._hits[key] = deque()
            self._longest = max(self._longest, window)
        cutoff = now - window
        while log_ and log_[0] <= cutoff:
            log_.popleft()
        if len(log_) >= limit:
            return False
        log_.append(now)
        return True

    def test(self, key: tuple[str, str], limit: int, window: float,
             now: float | None = None) -> bool:
        """Whether a hit would be allowed now (counting nothing)."""
        now = time.monotonic() if now is None else now
        log_ = self._hits.get(key)
        if not log_:
            return True
        cutoff = now - window
        return sum(1 for t in log_ if t > cutoff) < limit

    def retry_after(self, key: tuple[str, str], limit: int, window: float,
                    now: float | None = None) -> float:
        """Seconds until a hit would be allowed (0: now), counting nothing.

        >>> w = LocalWindows()
        >>> [w.hit(("k", "a"), 2, 10.0, now=t) for t in (0.0, 1.0, 2.0)]
        [True, True, False]
        >>> w.retry_after(("k", "a"), 2, 10.0, now=2.0), w.retry_after(("k", "a"), 2, 10.0, 11.0)
        (8.0, 0.0)
        """
        now = time.monotonic() if now is None else now
        log_ = self._hits.get(key)
        if not log_:
            return 0.0
        cutoff = now - window
        while log_ and log_[0] <= cutoff:  # aged out: no answer ever needs them again
            log_.popleft()
        if len(log_) < limit:
            return 0.0
        return log_[len(log_) - limit] + window - now

    def sweep(self, now: float) -> None:
        """Forget the clients whose every hit has aged out of the longest window."""
        self._next_sweep = now + SWEEP_SECONDS
        cutoff = now - self._longest
        for key in [k for k, v in self._hits.items() if not v or v[-1] <= cutoff]:
            del self._hits[key]

    def __len__(self) -> int:
        return len(self._hits)


class SharedCounts:
    """Hits of every process counted in Redis, added and read in batches (see the module
    docstring). Keys: ``ginrummy:rate:KIND:CLIENT:BUCKET`` (integers, expiring after the
    window)."""

    BUCKETS = 6
    """Buckets per window: the shared window slides in sixths of itself."""

    def __init__(self, url: str, windows: dict[str, float], amounts: dict[str, int],
                 sync_seconds: float = 0.5) -> None:
        import redis.asyncio as aioredis

        self.redis: Any = aioredis.Redis.from_url(url, socket_connect_timeout=2,
                                                  socket_timeout=5)
        self.windows = windows
        self.amounts = amounts
        self.sync_seconds = sync_seconds
        self._pending: dict[tuple[str, str], int] = {}
        self._known: dict[tuple[str, str], tuple[int, float]] = {}
        self.available = True

    def total(self, key: tuple[str, str]) -> int:
        """The shared count of ``key`` over its window as last read, plus this process's
        hits since (0 while Redis is away: the local count holds alone)."""
        if not self.available:
            return 0
        known = self._known.get(key)
        base = 0
        if known is not None and time.monotonic() - known[1] < self.windows[key[0]]:
            base = known[0]
        return base + self._pending.get(key, 0)

    def add(self, key: tuple[str, str]) -> None:
        """Count one hit (added to Redis at the next sync)."""
        self._pending[key] = self._pending.get(key, 0) + 1

    def knows(self, key: tuple[str, str]) -> bool:
        """Whether the shared total of ``key`` has been read (within its window)."""
        known = self._known.get(key)
        return known is not None and time.monotonic() - known[1] < self.windows[key[0]]

    def _away(self) -> None:
        """Redis did not answer: say so once and count in this process until it does."""
        if self.available:
            log.warning("shared rate counters unavailable: counting in this process")
        self.available = False

    def _buckets(self, key: tuple[str, str], now: float) -> tuple[str, list[str], int]:
        """The Redis key of ``key``'s bucket at ``now``, the keys of the buckets of its
        window (that one first) and the seconds the bucket must outlive its window."""
        width = self.windows[key[0]] / self.BUCKETS
        b = int(now // width)
        name = f"ginrummy:rate:{key[0]}:{key[1]}:"
        window = [name + str(b - i) for i in range(self.BUCKETS)]
        return window[0], window, int(self.windows[key[0]] + width) + 1

    async def learn(self, key: tuple[str, str]) -> None:
        """Read the shared total of one key now (one round trip; nothing while Redis is
        away): a process's first hit of a key every process shares must not wait a sync
        to see the others' hits."""
        if not self.available:
            return
        _, window, _ = self._buckets(key, time.time())
        try:
            values = await self.redis.mget(window)
        except Exception:  # noqa: BLE001 - the next sync says Redis is away
            return
        self._known[key] = (sum(int(v) for v in values if v is not None), time.monotonic())

    async def take(self, key: tuple[str, str], limit: int) -> bool | None:
        """Count one hit in Redis now unless the shared total over the window has reached
        ``limit``: True counted, False refused (the hit taken back), None while Redis is
        away (the local count decides alone)."""
        if not self.available:
            return None
        bucket, window, expiry = self._buckets(key, time.time())
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.incrby(bucket, 1)
                pipe.expire(bucket, expiry)
                pipe.mget(window)
                out = await pipe.execute()
            total = sum(int(v) for v in out[2] if v is not None)  # this hit included
            counted = total <= limit
            if not counted:
                await self.redis.decr(bucket)
                total -= 1
        except Exception:  # noqa: BLE001 - away: local counts until a sync gets through
            self._away()
            return None
        self._known[key] = (total, time.monotonic())
        return counted

    async def sync(self) -> None:
        """Add the pending hits and read back the totals of those clients and of the
        clients already past half their limit (others' hits may tip them over), in one
        round trip; with nothing to add while Redis is away, whether it is back."""
        pending, self._pending = self._pending, {}
        hot = [k for k, (n, _) in self._known.items()
               if k not in pending and 2 * n >= self.amounts[k[0]]]
        if not pending and not hot and self.available:
            return
        now = time.time()
        keys = list(pending) + hot
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in keys:
                    bucket, window, expiry = self._buckets(key, now)
                    pipe.incrby(bucket, pending.get(key, 0))
                    pipe.expire(bucket, expiry)
                    pipe.mget(window)
                if not keys:
                    pipe.ping()  # nothing to add: only whether Redis is back
                out = await pipe.execute()
        except Exception:
            for k, n in pending.items():  # kept for the next try
                self._pending[k] = self._pending.get(k, 0) + n
            self._away()
            return
        if not self.available:
            log.warning("shared rate counters back")
        self.available = True
        seen = time.monotonic()
        for i, key in enumerate(keys):
            values = out[3 * i + 2]
            self._known[key] = (sum(int(v) for v in values if v is not None), seen)

    async def sync_forever(self) -> None:
        """Sync every ``sync_seconds``; forget clients whose counts have aged out."""
        while True:
            await asyncio.sleep(self.sync_seconds)
            await self.sync()
            now = time.monotonic()
            for key in [k for k, (_, at) in self._known.items()
                        if now - at > self.windows[k[0]]]:
                del self._known[key]

    async def close(self) -> None:
        """Release the connection."""
        with contextlib.suppress(Exception):
            await self.redis.aclose()


class RateLimits:
    """Per-client limits by kind (see the module docstring)."""

    def __init__(self, settings: Settings, storage_uri: str = "memory://") -> None:
        from limits import parse

        self.items = {kind: parse(getattr(settings, f"rate_{kind}")) for kind in KINDS}
        self.local = LocalWindows()
        self.shared: SharedCounts | None = None
        if storage_uri.startswith(("redis://", "rediss://")):
            self.shared = SharedCounts(
                storage_uri, {k: float(i.get_expiry()) for k, i in self.items.items()},
                {k: i.amount for k, i in self.items.items()})

    async def hit(self, kind: str, client: str) -> bool:
        """Count one request; False when the client is over its limit for ``kind``."""
        item = self.items[kind]
        key = (kind, client)
        shared = self.shared
        if shared is not None and kind in EXACT:
            taken = await shared.take(key, item.amount)
            if taken is not None:  # the shared count decided; the local one follows it
                return taken and self.local.hit(key, item.amount, float(item.get_expiry()))
        if shared is not None and kind in LEARN_FIRST and not shared.knows(key):
            await shared.learn(key)
        if shared is not None and shared.total(key) >= item.amount:
            return False
        if not self.local.hit(key, item.amount, float(item.get_expiry())):
            return False
        if shared is not None:
            shared.add(key)
        return True

    def allowed(self, kind: str, client: str) -> bool:
        """Whether a request of ``kind`` would be allowed now by this process's count
        (counting nothing): checked before work that only failures count (``auth``)."""
        item = self.items[kind]
        return self.local.test((kind, client), item.amount, float(item.get_expiry()))

    def retry_after(self, kind: str, client: str) -> float:
        """Seconds until a request of ``kind`` would be allowed (0: now), counting nothing:
        by this process's count exactly; a refusal by the shared count alone says a
        quarter of a second (it is read again at the next sync)."""
        item = self.items[kind]
        key = (kind, client)
        wait = self.local.retry_after(key, item.amount, float(item.get_expiry()))
        if wait <= 0 and self.shared is not None and self.shared.total(key) >= item.amount:
            return 0.25
        return wait

    def describe(self, kind: str) -> str:
        """The limit in words, for the 429 message (e.g. ``20 per 1 minute``), in the
        language of the moment."""
        item = self.items[kind]
        words = (PER_MANY if item.multiples > 1 else PER).get(item.GRANULARITY.name)
        if words is None:
            return str(item)
        return t(words, amount=str(item.amount), multiples=str(item.multiples))
