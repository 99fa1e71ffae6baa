"""The one path from an accepted change to the database, the broker and the pushes.

Every change of a match (an action, a ``next``, a friend taking the seat, a new name) is
made under the table's lock, played on the table's match, and handed to
:meth:`Committer.commit`, which

1. stores it with a version bump checked against the version it was based on (one
   transaction; group-committed with other tables' changes),
2. only then bumps the table's version: every STATE is built for a version, under the
   lock, so nothing that was not stored is ever shown; a refused commit takes the change
   back, leaving the table exactly as it was,
3. queues the "changed" event for the other processes (:class:`~.broker.Outbox`: kept
   until the broker takes it), and
4. pushes each connected seat of this process its own STATE.

A commit that finds the match moved on (another process changed it first) rebuilds the
table from the database, pushes it, and raises :class:`Stale`, so the caller checks its
request again against the table as it is.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...match import Match
from ..backends.broker import Outbox
from ..backends.database import Database
from ..store import Change, StaleVersionError, StoredAction
from .clock import next_clock, settings_of
from .registry import TableRegistry
from .sockets import SocketHub
from .table import Table

__all__ = ["Committer", "Edit", "Stale"]

log = logging.getLogger("ginrummy.web")


class Stale(Exception):
    """A commit found the stored version moved on (another process changed the match):
    the table has been rebuilt from the database; check the request again."""


@dataclass(frozen=True, slots=True)
class Edit:
    """A change to the stored row beyond the match itself (all optional)."""

    ready: tuple[bool, bool] | None = None
    joined: bool | None = None
    token_hash1: str | None = None
    """The friend takes seat 1: the new token's hash (stored only if the seat is free)."""
    joined_at: float | None = None
    players: tuple[str, str] | None = None
    game: bool = True
    """Whether the game itself changed (a move or a deal): moves based on an older version
    become stale. A join or a new name changes no card."""


class Committer:
    """Commits changes (see the module docstring)."""

    def __init__(self, db: Database, registry: TableRegistry, hub: SocketHub,
                 outbox: Outbox | None) -> None:
        self.db = db
        self.registry = registry
        self.hub = hub
        self.outbox = outbox
        self.after_commit: list[Callable[[Table], None]] = []
        """Told of each table just changed (after the pushes): the computer's turns."""
        self.match_over: list[Callable[[Table], None]] = []
        """Told once of each match the commit just ended (by the process that stored the
        ending; after the pushes): ``t.stored.end_reason`` says how (the record's ``end``),
        ``t.stored.winner`` and ``t.stored.ended_by`` who. For ratings and the like, which
        should also find, by a scan of finished matches, any ending whose process died
        before telling."""

    async def commit(self, t: Table, seat: int, played: bool = False, dealt: bool = False,
                     edit: Edit = Edit(), timeout: bool = False) -> None:
        """Store the change just made to ``t.match`` in place (``played``: one action by
        ``seat``, the last of the current hand, ``timeout`` when the table played it for
        the seat because its time was out; ``dealt``: the last hand was dealt; or neither,
        only the row's fields of ``edit``, or an ending: a resignation or an abort), then
        show it. The turn clock's banks and deadline (:func:`.clock.next_clock`) and how
        the match ended are stored with it. Called under the table lock; raises
        :class:`Stale` (the table rebuilt from the database) or TableError (503: nothing
        stored, and the change taken back: an action or a deal here, with
        :meth:`~ginrummy.match.Match.pop`; an ending by its caller,
        :meth:`.play.Play.end_locked`)."""
        new = t.match
        sm = t.stored
        stored_action = None
        if played:
            op = new.hand.history[-1]
            js = op.action.to_json()
            if timeout:
                js["timeout"] = True  # the record's mark (docs/records.md)
            stored_action = StoredAction(t.next_seq, len(new.hands) - 1, seat, js)
        ready = edit.ready if edit.ready is not None else (sm.ready[0], sm.ready[1])
        joined = edit.joined if edit.joined is not None else sm.joined
        status = _status(new, sm.opponent, joined)
        outcome = new.outcome()
        banks, deadline = next_clock(
            settings_of(sm.clock_move, sm.clock_bank), sm.banks, sm.deadline,
            sm.to_play if sm.deadline is not None else None, new, status == "playing",
            restart=played or dealt or status != sm.status,
            acted=seat if played else None, timeout=timeout, now=time.time())
        change = Change(match_id=sm.id, expected_version=sm.version, action=stored_action,
                        status=status, joined=joined, hands_dealt=len(new.hands),
                        ready=ready, scores=new.scores, winner=new.winner,
                        to_play=new.to_play, token_hash1=edit.token_hash1,
                        joined_at=edit.joined_at, players=edit.players, banks=banks,
                        deadline=deadline, end_reason=outcome.end if outcome else None,
                        ended_by=outcome.by if outcome else None)
        try:
            version = await self.db.write(change)
        except StaleVersionError:
            # Another process changed the match first: rebuild from the database and show
            # that (the caller checks its request again).
            await self.registry.rebuild(t)
            self.hub.broadcast(t)
            raise Stale from None
        except BaseException:
            if played or dealt:
                new.pop()  # not stored: the table shows it as it was
            raise
        ended = status == "finished" and sm.status != "finished"
        sm.version = version
        sm.status = status
        sm.joined = joined
        sm.ready = list(ready)
        sm.hands_dealt = len(new.hands)
        sm.scores = list(new.scores)
        sm.winner = new.winner
        sm.to_play = new.to_play
        sm.banks = list(banks) if banks is not None else None
        sm.deadline = deadline
        sm.end_reason = change.end_reason
        sm.ended_by = change.ended_by
        if edit.token_hash1 is not None:
            sm.token_hash1 = edit.token_hash1
            sm.joined_at = edit.joined_at
        if edit.players is not None:
            sm.players = list(edit.players)
            new.players = edit.players
        if stored_action is not None:
            t.next_seq += 1
        if edit.game:
            t.base_version = version
        if self.outbox is not None:
            self.outbox.put(sm.id, version)
        self.hub.broadcast(t)
        for cb in list(self.after_commit) + (list(self.match_over) if ended else []):
            try:
                cb(t)
            except Exception:  # noqa: BLE001 - a listener never undoes a commit
                log.exception("after-commit listener failed")


def _status(m: Match, opponent: str, joined: bool) -> str:
    """The stored status of a match in this state (the rule of :func:`.views.status_of`)."""
    if m.is_over():
        return "finished"
    if opponent == "friend" and not joined:
        return "waiting"
    return "playing"

