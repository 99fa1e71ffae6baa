"""The computer's turns: driven by one process at a time (a lease with expiry on many
processes), taken over by another process when its driver dies, resumed after a restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time

from .actions import Actions, _Stale
from .store import StoreError
from .table import Table, TableError

__all__ = ["ComputerTurns"]

log = logging.getLogger("ginrummy.web")


class ComputerTurns(Actions):
    """Plays the computer's seat: decisions come from the :class:`~.computer.ComputerDriver`
    and go through the same action path as a person's."""

    def _bot_to_move(self, t: Table) -> bool:
        m = t.match
        return (
            t.bot is not None
            and not m.is_over()
            and not m.awaiting_deal()
            and m.to_play == t.bot_seat
        )

    def _delay(self) -> float:
        d = self.bot_delay
        if isinstance(d, tuple):
            return random.uniform(d[0], d[1])
        return float(d)

    def _kick_bot(self, t: Table) -> None:
        """Start the computer's move if it is to play and not already thinking."""
        if t.bot_task is not None and not t.bot_task.done():
            return
        if self.tables.get(t.id) is not t or not self._bot_to_move(t):
            return
        t.bot_task = asyncio.create_task(self._bot_run(t))

    async def _bot_run(self, t: Table) -> None:
        """Play the computer's moves while it is to play, each after a short delay. With
        many processes only the holder of the match's lease drives it; the lease is
        renewed while held, so a dead holder's turn is taken over within seconds."""
        distributed = self.broker.distributed
        if distributed and not await self._try_lease(t.id):
            return
        renewer = asyncio.create_task(
            self._renew_lease(t) if distributed else asyncio.Event().wait()
        )
        try:
            while self.tables.get(t.id) is t and self._bot_to_move(t):
                version = t.stored.version
                delay = self._delay()
                if delay > 0:
                    await asyncio.sleep(delay)
                if t.stored.version != version or not self._bot_to_move(t):
                    continue
                assert t.bot is not None and t.bot_seat is not None
                view = t.match.view(t.bot_seat)
                decision = await self.driver.decide(t.bot_name, t.bot, self._bot_seed(t), view)
                action = decision.action
                if action not in view.legal:
                    log.error("bot %s chose an illegal %s", decision.by, action)
                    action = random.choice(view.legal)
                async with t.lock:
                    if t.stored.version != version or not self._bot_to_move(t):
                        continue
                    if renewer.done():
                        log.warning("lost the computer-turn lease of %s", t.id)
                        return
                    try:
                        await self._apply_action(t, t.bot_seat, action)
                    except _Stale:
                        continue  # rebuilt: think again about the table as it is
        except asyncio.CancelledError:
            raise
        except TableError as e:
            log.error("computer move in match %s failed: %s", t.id, e.message)
        except Exception:  # noqa: BLE001 - keep the server up; the move is retried on reload
            log.exception("computer move in match %s failed", t.id)
        finally:
            renewer.cancel()
            if distributed:
                with contextlib.suppress(Exception):
                    await self.broker.release(t.id)

    async def _try_lease(self, match_id: str) -> bool:
        try:
            return await self.broker.acquire(match_id, self.lease_seconds)
        except Exception as e:  # noqa: BLE001 - broker down: another process's scan retries
            log.warning("could not take the computer-turn lease of %s: %s", match_id, e)
            return False

    async def _renew_lease(self, t: Table) -> None:
        """Renew the lease every third of its life; end (so the driver stops) if lost."""
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                if not await self.broker.renew(t.id, self.lease_seconds):
                    return
            except Exception as e:  # noqa: BLE001 - broker away: the lease may lapse
                log.warning("could not renew the lease of %s: %s", t.id, e)

    # ------------------------------------------------------------------ take-over

    async def _resume_all(self) -> None:
        try:
            ids = await self._db(self.store.ids_with_status, "playing", "computer")
        except (StoreError, TableError) as e:
            log.error("Cannot resume computer turns: %s", e)
            return
        for mid in ids:
            try:
                t = await self.table(mid)
            except TableError as e:
                log.error("Cannot resume match %s: %s", mid, e.message)
                continue
            self._kick_bot(t)

    async def _scan_forever(self) -> None:
        """Many processes: take over computer turns whose driver is gone. A turn left
        waiting longer than a moment whose lease nobody holds is driven here (the lease
        makes sure by one process only; the version check makes a lost race harmless)."""
        while True:
            await asyncio.sleep(self.scan_seconds)
            try:
                ids = await self._db(
                    self.store.computer_turns, time.time() - self.scan_seconds
                )
                now = time.monotonic()
                for mid in ids:
                    if self._scan_skip.get(mid, 0.0) > now:
                        continue
                    try:
                        await self._take_over(mid)
                    except TableError as e:  # this match only: the others still go on
                        self._scan_skip[mid] = now + 60.0
                        log.warning("cannot drive computer turn of match %s: %s", mid, e.message)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - database or broker away: try again
                log.warning("scanning for computer turns failed: %s", e)

    async def _take_over(self, mid: str) -> None:
        """Drive the computer's waiting turn in ``mid`` here, unless its driver lives on."""
        t = self.tables.get(mid)
        if t is not None and t.bot_task is not None and not t.bot_task.done():
            return
        if not await self.broker.acquire(mid, self.lease_seconds):
            return
        await self.broker.release(mid)  # _bot_run takes it again for itself
        t = await self.table(mid)
        async with t.lock:
            await self._refresh_locked(t)
        self._kick_bot(t)
