"""The action path: every change checked (seat, version, phase, legality), committed with its
version bump in one transaction, and only then acknowledged and pushed to each seat."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from ..hand import Action, HandOverError, IllegalActionError, NotYourTurnError
from ..match import MatchOverError
from .sessions import Sessions
from .store import Change, StaleVersionError, StoredAction
from .table import Table, TableError, deal_for

__all__ = ["Actions"]

log = logging.getLogger("ginrummy.web")


def _version_of(body: Mapping[str, Any]) -> int:
    v = body.get("version")
    if isinstance(v, bool) or not isinstance(v, int):
        raise TableError(
            400, "Send the 'version' of the state you are acting on, e.g. {\"version\": 17}."
        )
    return v


class _Stale(Exception):
    """A commit found the stored version moved on (another process changed the match):
    the table has been rebuilt from the database; check the request again."""


class Actions(Sessions):
    """The action path: each change checked, committed with its version bump, then shown."""

    async def _commit(
        self, t: Table, seat: int, action: Action | None = None, token_hash1: str | None = None,
        joined_at: float | None = None,
    ) -> None:
        """Store the change already applied to ``t.match`` (and ``t.stored``'s ready and
        joined flags) with a version bump; on failure forget the table, so nothing that
        was not stored is ever shown. Called under the table lock."""
        m = t.match
        sm = t.stored
        stored_action = None
        if action is not None:
            stored_action = StoredAction(t.next_seq, len(m.hands) - 1, seat, action.to_json())
        status = self.status_of(t)
        change = Change(sm.id, sm.version, stored_action, status, sm.joined, len(m.hands),
                        tuple(sm.ready), m.scores, m.winner, m.to_play, token_hash1, joined_at)
        try:
            new_version = await self._write(change)
        except StaleVersionError:
            # Another process changed the match first: what is in memory is not stored,
            # so rebuild from the database (the caller checks its request again).
            await self._rebuild_locked(t)
            self._broadcast(t)
            raise _Stale from None
        except TableError:
            self._evict(t)
            raise
        sm.version = new_version
        sm.status = status
        sm.hands_dealt = len(m.hands)
        if stored_action is not None:
            t.next_seq += 1
        if self.broker.distributed:
            self._published.put_nowait((sm.id, new_version))

    def _check_version(
        self, t: Table, seat: int, version: int, oldest: int | None = None
    ) -> None:
        """409 unless ``version`` is from ``oldest`` (default: the last change to the game)
        up to the current version."""
        lo = t.base_version if oldest is None else oldest
        if not lo <= version <= t.stored.version:
            raise TableError(
                409,
                f"The table has moved on (you sent version {version}, it is now at "
                f"{t.stored.version}): here is the current state.",
                self.state(t, seat),
            )

    async def _apply_action(self, t: Table, seat: int, action: Action) -> None:
        """Check, apply, store (then show) one action by ``seat``; under the table lock."""
        m = t.match
        if m.is_over():
            raise TableError(409, "The match is over.")
        if m.awaiting_deal():
            raise TableError(409, "This hand is over: start the next hand first.")
        try:
            m.verify(action, seat)
        except (NotYourTurnError, HandOverError, MatchOverError) as e:
            raise TableError(409, str(e)) from None
        except IllegalActionError as e:
            raise TableError(400, str(e)) from None
        joined_before = t.stored.joined
        if seat == 1:
            t.stored.joined = True  # acting with the invite token is joining
        try:
            m.play(action, seat)
        except IllegalActionError as e:  # verify passed, so this cannot happen; be safe
            t.stored.joined = joined_before
            self._evict(t)
            raise TableError(400, str(e)) from None
        hand_ended = m.hand.is_over()
        if hand_ended:
            t.stored.ready = [s == t.bot_seat for s in (0, 1)]
        await self._commit(t, seat, action)
        t.base_version = t.stored.version
        t.hand_end_version = t.stored.version if hand_ended else None
        if hand_ended and t.bot is not None and t.bot_seat is not None:
            try:
                t.bot.hand_over(m.view(t.bot_seat), m.hand.result)
            except Exception:  # noqa: BLE001 - a bot's bookkeeping never stops the table
                log.exception("bot hand_over failed")
        self._broadcast(t)

    async def act(
        self, t: Table, seat: int, body: Any, want_state: bool = True
    ) -> dict[str, Any] | None:
        """``POST .../actions``: ``{"action": ACTION, "version": N}`` -> STATE (None when
        ``want_state`` is false: a WebSocket gets it from the broadcast)."""
        if not isinstance(body, Mapping):
            raise TableError(400, "The request body must be a JSON object.")
        version = _version_of(body)
        if "action" not in body:
            raise TableError(
                400, "Send the 'action', e.g. {\"act\": \"draw\", \"from\": \"stock\"}."
            )
        try:
            action = Action.from_json(body["action"])
        except IllegalActionError as e:
            raise TableError(400, str(e)) from None
        for _ in range(2):
            async with t.lock:
                await self._fresh_for(t, version)
                self._check_version(t, seat, version)
                try:
                    await self._apply_action(t, seat, action)
                except _Stale:
                    continue  # rebuilt from the database: check the request again
                state = self.state(t, seat) if want_state else None
            self._kick_bot(t)
            return state
        raise TableError(409, "The table changed elsewhere: reload the page to see it.")

    async def _fresh_for(self, t: Table, version: int) -> None:
        """Many processes: a request based on a version this copy has not seen yet (its
        change event is still on the way) first catches the copy up."""
        if self.broker.distributed and version > t.stored.version:
            await self._refresh_locked(t)

    async def next_hand(self, t: Table, seat: int, body: Any) -> dict[str, Any]:
        """``POST .../next``: the seat is ready for the next hand; the hand is dealt once
        both are (the computer always is)."""
        if not isinstance(body, Mapping):
            raise TableError(400, "The request body must be a JSON object.")
        version = _version_of(body)
        for _ in range(2):
            try:
                state = await self._next_once(t, seat, version)
            except _Stale:
                continue  # rebuilt from the database: check the request again
            self._kick_bot(t)
            return state
        raise TableError(409, "The table changed elsewhere: reload the page to see it.")

    async def _next_once(self, t: Table, seat: int, version: int) -> dict[str, Any]:
        async with t.lock:
            await self._fresh_for(t, version)
            m = t.match
            sm = t.stored
            end = t.hand_end_version if m.awaiting_deal() else None
            self._check_version(t, seat, version, end)
            if m.is_over():
                raise TableError(409, "The match is over.")
            if not m.awaiting_deal():
                raise TableError(409, "The hand is still being played.")
            if sm.ready[seat]:
                return self.state(t, seat)
            old_ready = list(sm.ready)
            old_joined = sm.joined
            sm.ready = [r or s == seat for s, r in enumerate(sm.ready)]
            if seat == 1:
                sm.joined = True
            dealt = all(sm.ready)
            if dealt:
                m.start_hand(deal_for(sm.seed, len(m.hands)))
                sm.ready = [False, False]
            try:
                await self._commit(t, seat)
            except TableError:
                sm.ready, sm.joined = old_ready, old_joined
                raise
            t.base_version = sm.version
            if dealt:
                t.hand_end_version = None
            self._broadcast(t)
            return self.state(t, seat)

    async def join_and_state(self, t: Table, seat: int) -> dict[str, Any]:
        """The seat's STATE; the friend's first visit marks the match as joined."""
        for _ in range(2):
            async with t.lock:
                if seat == 1 and not t.stored.joined:
                    t.stored.joined = True
                    try:
                        await self._commit(t, seat)
                    except _Stale:
                        continue
                    except TableError:
                        t.stored.joined = False
                        raise
                    self._broadcast(t)
                return self.state(t, seat)
        raise TableError(409, "The table changed elsewhere: reload the page to see it.")
