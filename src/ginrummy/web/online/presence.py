"""Who is online: an account is online while one of its notice sockets (``WS
/api/me/ws``, open on every page of a signed-in player and in ``ginrummy connect``) is open
on any process.

Each process knows its own sockets. With a shared broker (Redis) each socket is also
counted there under its account, the moment it opens, and taken away the moment it closes;
a process renews its sockets' entries every few seconds, so the sockets of a process that
died (even by kill -9) stop counting within :attr:`Presence.ttl` seconds. While the broker
is away each process answers from what it knows itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from ..backends.broker import Broker

__all__ = ["Presence"]

log = logging.getLogger("ginrummy.web")

PREFIX = "online:"
"""The broker's key of an account's sockets."""
CAP = 1000
"""More sockets than one account may hold (the notices cap each process's)."""


class Presence:
    """This process's notice sockets by account, and the broker's count of everyone's."""

    def __init__(self, broker: Broker, ttl: float = 20.0) -> None:
        self.broker = broker
        self.ttl = ttl
        self._local: dict[str, set[str]] = {}

    async def opened(self, account_id: str, socket_id: str) -> None:
        """A notice socket of ``account_id`` opened here."""
        self._local.setdefault(account_id, set()).add(socket_id)
        if self.broker.distributed:
            try:
                await self.broker.presence_add(PREFIX + account_id, socket_id, CAP, self.ttl)
            except Exception as e:  # noqa: BLE001 - broker away: the next renewal adds it
                log.debug("presence not shared now: %s", e)

    async def closed(self, account_id: str, socket_id: str) -> None:
        """That socket closed."""
        mine = self._local.get(account_id)
        if mine is not None:
            mine.discard(socket_id)
            if not mine:
                del self._local[account_id]
        if self.broker.distributed:
            with contextlib.suppress(Exception):  # broker away: its entry lapses
                await self.broker.presence_remove(PREFIX + account_id, socket_id)

    async def online(self, account_ids: list[str]) -> set[str]:
        """Which of these accounts have a notice socket open, here or anywhere."""
        here = {a for a in account_ids if a in self._local}
        rest = [a for a in account_ids if a not in here]
        if not rest or not self.broker.distributed:
            return here
        try:
            counts = await self.broker.presence_counts([PREFIX + a for a in rest])
        except Exception:  # noqa: BLE001 - broker away: what this process knows
            return here
        if counts is None:
            return here
        return here | {a for a in rest if counts.get(PREFIX + a, 0) > 0}

    async def renew(self) -> None:
        """Keep this process's sockets counted at the broker."""
        entries = [(PREFIX + a, s) for a, socks in self._local.items() for s in socks]
        if entries and self.broker.distributed:
            with contextlib.suppress(Exception):  # broker away: renewed at the next pass
                await self.broker.presence_refresh(entries, self.ttl)

    async def run_forever(self) -> None:
        """Renew this process's entries every third of :attr:`ttl`."""
        while True:
            await asyncio.sleep(self.ttl / 3)
            await self.renew()
