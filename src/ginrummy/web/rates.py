"""Per-client rate limits: moving windows counted in this process, and with a broker in
Redis too, so a limit holds across processes and never lapses while Redis is away.

Every request of a kind (``create``, ``join``, ``lookup``, ``actions``, ``reads``,
``pages``, ``sockets``, ``auth``) is counted here first (:class:`LocalWindows`, a moving
window of timestamps per client); with a broker it is then counted in Redis as well (the
``limits`` library's moving window). A request is allowed only when both allow it. This
process's own count is never more than the shared one, so it changes no answer while
Redis is up; while Redis is away it goes on counting (the shared count is skipped, and
tried again a second later), and once Redis is back both hold again.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Any

from .guard import Settings

__all__ = ["KINDS", "LocalWindows", "RateLimits"]

log = logging.getLogger("ginrummy.web")

KINDS = ("create", "join", "lookup", "actions", "reads", "pages", "sockets", "auth")
"""The kinds of request limited apart, each by the setting ``rate_KIND``."""

SWEEP_SECONDS = 10.0
"""How often the local windows drop the clients with nothing left in them."""

RETRY_SHARED_SECONDS = 1.0
"""After the shared counter failed, how long only the local one counts."""


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

    def sweep(self, now: float) -> None:
        """Forget the clients whose every hit has aged out of the longest window."""
        self._next_sweep = now + SWEEP_SECONDS
        cutoff = now - self._longest
        for key in [k for k, v in self._hits.items() if not v or v[-1] <= cutoff]:
            del self._hits[key]

    def __len__(self) -> int:
        return len(self._hits)


class RateLimits:
    """Per-client limits by kind (see the module docstring)."""

    def __init__(self, settings: Settings, storage_uri: str = "memory://") -> None:
        from limits import parse

        self.items = {kind: parse(getattr(settings, f"rate_{kind}")) for kind in KINDS}
        self.local = LocalWindows()
        self._shared: Any = None
        self._storage: Any = None
        self._shared_off_until = 0.0
        if storage_uri.startswith(("redis://", "rediss://")):
            from limits.aio.storage import RedisStorage
            from limits.aio.strategies import MovingWindowRateLimiter

            self._storage = RedisStorage(
                "async+" + storage_uri, implementation="redispy", key_prefix="ginrummy-limits"
            )
            self._shared = MovingWindowRateLimiter(self._storage)

    def _local_hit(self, kind: str, client: str) -> bool:
        item = self.items[kind]
        return self.local.hit((kind, client), item.amount, float(item.get_expiry()))

    async def hit(self, kind: str, client: str) -> bool:
        """Count one request; False when the client is over its limit for ``kind``."""
        if not self._local_hit(kind, client):
            return False
        if self._shared is None or time.monotonic() < self._shared_off_until:
            return True
        try:
            return bool(await self._shared.hit(self.items[kind], kind, client))
        except Exception:  # noqa: BLE001 - Redis away: the local count holds meanwhile
            if self._shared_off_until == 0.0 or time.monotonic() >= self._shared_off_until:
                log.warning("shared rate counters unavailable: counting in this process")
            self._shared_off_until = time.monotonic() + RETRY_SHARED_SECONDS
            return True

    def allowed(self, kind: str, client: str) -> bool:
        """Whether a request of ``kind`` would be allowed now by this process's count
        (counting nothing): checked before work that only failures count (``auth``)."""
        item = self.items[kind]
        return self.local.test((kind, client), item.amount, float(item.get_expiry()))

    def describe(self, kind: str) -> str:
        """The limit in words, for the 429 message (e.g. ``20 per 1 minute``)."""
        return str(self.items[kind])
