"""Playing at a table: each change checked (seat, version, phase, legality), then committed.

:class:`Play` answers a seat's moves, its ``next`` between hands and its requests for the
state. A move (a deal, a resignation and an abort alike) is checked against the table as it
is in memory, played on the table's match in place under the table lock, and handed to the
:class:`~.committer.Committer`: acknowledged (and shown) only once stored; a change that
cannot be stored is taken back with :meth:`~ginrummy.match.Match.pop`, leaving the match
exactly as it was. A move based on a version this copy has not seen yet (its change event
is still on the way from another process) first catches the copy up.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from ...fairness import deal_for
from ...hand import Action, HandOverError, IllegalActionError, NotYourTurnError
from ...i18n import N_, t
from ...match import Match, MatchOverError
from ..backends.database import Database
from ..checks import version_of
from ..errors import CHANGED_ELSEWHERE, TableError
from .committer import Committer, Edit, Stale
from .registry import TableRegistry
from .table import Table
from .views import state

__all__ = ["TIME_RAN_OUT", "TOO_LATE_TO_ABORT", "Play", "late", "played_for"]

log = logging.getLogger("ginrummy.web")

TIME_RAN_OUT = N_("Your time ran out: the table plays the safe move for you.")
"""The refusal of a move received after its decision's deadline."""

TOO_LATE_TO_ABORT = N_("You have already made a move in this match: resign instead.")
MATCH_OVER = N_("The match is over.")
"""The refusal of an abort after the seat's own first move."""

STALE_RETRIES = 2
"""A request is checked again this many times when another process changed the table
first (each time against the table rebuilt from the database)."""


def late(t: Table, seat: int, received: float) -> bool:
    """The clock's one rule, the same on every process: a decision is late when its request
    was received after the stored deadline of that decision. Checked under the table lock
    against the row the commit is then checked against (its version), so it compares
    with the deadline as stored, not with an older copy; the clock's scan plays the safe
    move for a late seat (:mod:`~ginrummy.web.computer.timeouts`)."""
    m = t.match
    deadline = t.stored.deadline
    return (deadline is not None and m.to_play == seat and not m.awaiting_deal()
            and received > deadline)


def played_for(m: Match, seat: int) -> bool:
    """Whether the match's last action was played for ``seat`` because its time ran out
    (the scan got there first: a late request from that seat is told its time ran out,
    not that it is not its turn)."""
    history = m.hands[-1].history if m.hands else []
    return bool(history) and history[-1].seat == seat and m.timed_out(
        len(m.hands) - 1, len(history) - 1)


def _moved_on(sent: int, now: int) -> str:
    """The refusal of a request based on a version the table has moved on from."""
    return t("The table has moved on (you sent version {sent}, it is now at {now}): here "
             "is the current state.", sent=str(sent), now=str(now))


class Play:
    """Moves, ``next`` and state requests of seats (see the module docstring)."""

    def __init__(self, registry: TableRegistry, committer: Committer, db: Database) -> None:
        self.registry = registry
        self.committer = committer
        self.db = db

    def state(self, t: Table, seat: int) -> dict[str, Any]:
        """The seat's STATE now (saying so while moves are paused)."""
        return state(t, seat, not self.db.available)

    def _check_version(self, t: Table, seat: int, version: int,
                       oldest: int | None = None) -> None:
        """409 unless ``version`` is from ``oldest`` (default: the last change to the game)
        up to the current version."""
        lo = t.base_version if oldest is None else oldest
        if not lo <= version <= t.version:
            raise TableError(409, _moved_on(version, t.version), self.state(t, seat))

    async def _fresh_for(self, t: Table, version: int) -> None:
        """Many processes: a request based on a version this copy has not seen yet first
        catches the copy up. Under the table lock."""
        if self.registry.broker.distributed and version > t.version:
            await self.registry.refresh(t)

    async def apply(self, t: Table, seat: int, action: Action, timeout: bool = False,
                    received: float | None = None) -> None:
        """Check one action by ``seat``, store it, then show it; under the table lock.
        ``timeout``: the table plays it for the seat, whose time is out (:mod:`.clocks`).
        ``received``: when the seat's request came (Unix seconds): later than the stored
        deadline of its decision, it is refused (:func:`late`). Raises TableError
        (refused: nothing changed) or Stale."""
        if not timeout and received is not None and late(t, seat, received):
            # late by this copy: by the row as stored now? (an outage may have moved the
            # deadline on: :mod:`~ginrummy.web.store.clocks`)
            await self.registry.refresh(t)
            if late(t, seat, received) or played_for(t.match, seat):
                # still late, or the clock's scan (on any process) has played the safe
                # move for this seat meanwhile: the same rule either way, told so
                raise TableError(409, TIME_RAN_OUT, self.state(t, seat))
        m = t.match
        if m.is_over():
            raise TableError(409, MATCH_OVER)
        if m.awaiting_deal():
            raise TableError(409, N_("This hand is over: start the next hand first."))
        try:
            m.verify(action, seat)
        except (NotYourTurnError, HandOverError, MatchOverError) as e:
            raise TableError(409, str(e)) from None
        except IllegalActionError as e:
            raise TableError(400, str(e)) from None
        m.play(action, seat, timeout=timeout)
        hand_ended = m.hand.is_over()
        ready = None
        if hand_ended:
            ready = (t.bot_seat == 0, t.bot_seat == 1)
        joined = True if seat == 1 and not timeout else None  # seat 1's token: joining
        await self.committer.commit(t, seat, played=True, timeout=timeout,
                                    edit=Edit(ready=ready, joined=joined))
        t.hand_end_version = t.version if hand_ended else None
        m = t.match
        if hand_ended and t.bot is not None and t.bot_seat is not None:
            try:
                t.bot.hand_over(m.view(t.bot_seat), m.hand.result)
            except Exception:  # noqa: BLE001 - a bot's bookkeeping never stops the table
                log.exception("bot hand_over failed")

    async def act(self, t: Table, seat: int, body: Any, want_state: bool = True,
                  received: float | None = None) -> dict[str, Any] | None:
        """``POST .../actions``: ``{"action": ACTION, "version": N}`` -> STATE (None when
        ``want_state`` is false: a WebSocket gets it from the push). ``received``: when
        the request came (default: now), for the clock's one rule (:func:`late`)."""
        received = time.time() if received is None else received
        if not isinstance(body, Mapping):
            raise TableError(400, N_("The request body must be a JSON object."))
        version = version_of(body)
        if "action" not in body:
            raise TableError(
                400, N_("Send the 'action', e.g. {\"act\": \"draw\", \"from\": \"stock\"}.")
            )
        try:
            action = Action.from_json(body["action"])
        except IllegalActionError as e:
            raise TableError(400, str(e)) from None
        for _ in range(STALE_RETRIES):
            async with t.lock:
                await self._fresh_for(t, version)
                self._check_version(t, seat, version)
                try:
                    await self.apply(t, seat, action, received=received)
                except Stale:
                    continue  # rebuilt from the database: check the request again
                return self.state(t, seat) if want_state else None
        raise TableError(409, CHANGED_ELSEWHERE)

    async def next_hand(self, t: Table, seat: int, body: Any) -> dict[str, Any]:
        """``POST .../next``: the seat is ready for the next hand; the hand is dealt once
        both are (the computer always is)."""
        if not isinstance(body, Mapping):
            raise TableError(400, N_("The request body must be a JSON object."))
        version = version_of(body)
        for _ in range(STALE_RETRIES):
            async with t.lock:
                try:
                    return await self._next_once(t, seat, version)
                except Stale:
                    continue  # rebuilt from the database: check the request again
        raise TableError(409, CHANGED_ELSEWHERE)

    async def _next_once(self, t: Table, seat: int, version: int) -> dict[str, Any]:
        await self._fresh_for(t, version)
        m = t.match
        sm = t.stored
        end = t.hand_end_version if m.awaiting_deal() else None
        self._check_version(t, seat, version, end)
        if m.is_over():
            raise TableError(409, MATCH_OVER)
        if not m.awaiting_deal():
            raise TableError(409, N_("The hand is still being played."))
        if sm.ready[seat]:
            return self.state(t, seat)
        ready = [r or s == seat for s, r in enumerate(sm.ready)]
        dealt = all(ready)
        if dealt:
            m.start_hand(deal_for(sm.seed, len(m.hands), sm.deal_scheme))
            ready = [False, False]
        await self.committer.commit(
            t, seat, dealt=dealt,
            edit=Edit(ready=(ready[0], ready[1]), joined=True if seat == 1 else None,
                      game=True))
        if dealt:
            t.hand_end_version = None
        return self.state(t, seat)

    async def deal_now(self, t: Table) -> None:
        """Deal the next hand without waiting for whoever has not pressed "Next hand" (the
        clock's wait between hands ran out, :mod:`.clocks`). Under the table lock; does
        nothing unless the table is between hands. Raises Stale or TableError."""
        m = t.match
        sm = t.stored
        if m.is_over() or not m.awaiting_deal():
            return
        m.start_hand(deal_for(sm.seed, len(m.hands), sm.deal_scheme))
        await self.committer.commit(t, 0, dealt=True, edit=Edit(ready=(False, False)))
        t.hand_end_version = None

    async def resign(self, t: Table, seat: int) -> dict[str, Any]:
        """``POST .../resign``: ``seat`` gives up the match, at any time until it is over;
        the other seat wins, the scores as they stand (R10). Before both players have made
        a move of their own the match ends as aborted instead (no result: a match nobody
        played rates nobody). Stored before it is acknowledged; 409 once the match is
        over."""
        return await self._end(t, seat, abort=False)

    async def abort(self, t: Table, seat: int) -> dict[str, Any]:
        """``POST .../abort``: ``seat`` ends the match with no result, allowed only before
        its own first move (a pass or a draw is a move): 409 with the reason after it."""
        return await self._end(t, seat, abort=True)

    async def _end(self, t: Table, seat: int, abort: bool) -> dict[str, Any]:
        for _ in range(STALE_RETRIES):
            async with t.lock:
                await self._fresh_for(t, t.version + 1)  # many processes: the latest
                m = t.match
                if m.is_over():
                    raise TableError(409, MATCH_OVER)
                if abort and not m.can_abort(seat):
                    raise TableError(409, TOO_LATE_TO_ABORT)
                try:
                    await self.end_locked(t, seat, abort)
                except Stale:
                    continue  # rebuilt from the database: check the request again
                return self.state(t, seat)
        raise TableError(409, CHANGED_ELSEWHERE)

    async def end_locked(self, t: Table, seat: int, abort: bool) -> None:
        """End the match for ``seat`` (under the table lock): an abort, or a resignation,
        which is an abort while either seat has not moved yet. Raises Stale or TableError
        (nothing stored, the table as it was)."""
        m = t.match
        if abort or not (m.has_moved(0) and m.has_moved(1)):
            m.abort(seat)
        else:
            m.resign(seat)
        try:
            await self.committer.commit(t, seat)
        except Stale:
            raise  # the table was rebuilt from the database
        except BaseException:
            m.pop()  # not stored: the table stays as it was
            raise

    async def seat_state(self, t: Table, seat: int) -> dict[str, Any]:
        """The seat's STATE; the friend's first visit with seat 1's token marks the match
        as joined (matches made before invite codes)."""
        for _ in range(STALE_RETRIES):
            async with t.lock:
                if seat == 1 and not t.stored.joined and self.db.available:
                    try:
                        await self.committer.commit(t, seat,
                                                    edit=Edit(joined=True, game=False))
                    except Stale:
                        continue
                return self.state(t, seat)
        raise TableError(409, CHANGED_ELSEWHERE)

    async def mark_bot_seat(self, t: Table, seat: int) -> None:
        """Mark ``seat`` as a program's (it is being played through an API token): stored
        with the match (:meth:`~ginrummy.web.store.Store.mark_bot_seat`), so STATE's
        ``bots``, the spectators' and the live list show it; this process's sockets of the
        table are pushed the change at once, other processes show it with the match's next
        change. Once per seat: a seat marked already costs nothing."""
        if t.stored.bot_seats[seat] or t.match.is_over():
            return
        seats = await self.db.run(self.db.store.mark_bot_seat, t.id, seat)
        if seats is None:
            return
        async with t.lock:
            t.stored.bot_seats = (t.stored.bot_seats[0] or seats[0],
                                  t.stored.bot_seats[1] or seats[1])
            t.forget_views()
            self.registry.hub.broadcast(t, force=True)
