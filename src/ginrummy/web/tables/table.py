"""One table in memory: a match rebuilt from the database, and how it is brought forward.

A :class:`Table` is one match rebuilt from its stored row (deals from the secret seed by
the match's deal scheme, :mod:`ginrummy.fairness`; actions replayed under the rules);
:func:`catch_up` brings it forward in place when another process has stored changes (only
the new actions are read and played). Tables are held by the
:class:`~.registry.TableRegistry`. A change is played on the table's match in place (under
the table lock) and shown only once stored: the :class:`~.committer.Committer` takes back
one it could not store with :meth:`~ginrummy.match.Match.pop`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from ...bots import Bot
from ...fairness import deal_for
from ...hand import Action
from ...knowledge import Shown
from ...match import Match
from ...options import Options
from ..store import StoredAction, StoredMatch

__all__ = ["Table", "apply_ending", "build_match", "catch_up"]


@dataclass(eq=False)
class Table:
    """One match in memory: its stored row, the rebuilt :class:`Match`, the lock that
    orders every change, and the computer player (if any)."""

    stored: StoredMatch
    match: Match
    next_seq: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot: Bot | None = None
    bot_name: str = ""
    """The registered bot that plays the computer's seat (see :func:`.levels.resolve_bot`)."""
    bot_seat: int | None = None
    bot_task: asyncio.Task[None] | None = None
    base_version: int = 0
    """Oldest version an action may be based on: the last change to the game itself (a
    friend joining or a name changes no cards, so it does not make a move stale)."""
    hand_end_version: int | None = None
    """While between hands: the version at which the hand ended; a ``next`` based on any
    later version is still good (both players may press it at once)."""
    state_cache: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """Each seat's last STATE with the version it shows (see :func:`.views.state`)."""
    text_cache: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Each seat's last pushed message, encoded, with its version (one encoding serves
    every socket of the seat, on every push and heartbeat of that version)."""
    history_json: dict[int, tuple[int, list[dict[str, Any]]]] = field(default_factory=dict)
    """Each seat's view of the current hand's history as JSON, with the hand's index: the
    entries never change once made, so a STATE only encodes the new ones."""
    shown: tuple[int, int, Shown] | None = None
    """What the current hand has shown both seats (R11), with the hand's index and how
    many of its actions it has seen: a STATE replays only the new ones."""
    shown_last: Action | None = None
    """The last action :attr:`shown` has seen (a history taken back and played anew
    differs there: only one change is ever in flight)."""
    arrangements: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """Each seat's best arrangement as JSON, with the cards (mask) it is of: a seat's
    cards change only with its own moves, its STATE with every move."""
    last_used: float = field(default_factory=time.monotonic)
    """When a request last used this table (monotonic seconds): idle tables are evicted
    from memory and rebuilt from the database on their next use."""
    read_at: float = 0.0
    """When this copy was last read from the database (monotonic seconds)."""

    @property
    def id(self) -> str:
        """The match id."""
        return self.stored.id

    @property
    def version(self) -> int:
        """The version this copy shows (the last change stored and read)."""
        return self.stored.version

    def forget_views(self, history: bool = False) -> None:
        """Drop the cached STATEs (after a change that is not a version bump of its own,
        e.g. a catch-up), and with ``history`` the history entries too (a rebuild: the
        match read afresh may differ from the one in memory)."""
        self.state_cache.clear()
        self.text_cache.clear()
        if history:
            self.history_json.clear()
            self.shown = None


def build_match(sm: StoredMatch) -> Match:
    """Replay a stored match: deal each hand from the seed (by the match's deal scheme)
    and play its stored actions under the rules (so a damaged row is caught, not trusted)."""
    m = Match(
        Options.from_json(sm.options),
        seed=sm.seed,
        first_dealer=sm.first_dealer,
        players=(sm.players[0], sm.players[1]),
        auto_deal=False,
    )
    by_hand: dict[int, list[StoredAction]] = {}
    for a in sm.actions:
        by_hand.setdefault(a.hand, []).append(a)
    for i in range(sm.hands_dealt):
        m.start_hand(deal_for(sm.seed, i, sm.deal_scheme))
        for a in by_hand.get(i, []):
            _play_stored(m, a)
    apply_ending(m, sm)
    return m


def _play_stored(m: Match, a: StoredAction) -> None:
    """Play one stored action (marked ``timeout`` when the table played it for its seat)."""
    m.play(Action.from_json(a.action), a.seat, timeout=a.action.get("timeout") is True)


def apply_ending(m: Match, sm: StoredMatch) -> None:
    """End ``m`` as the stored row says when its actions cannot show it: a resignation or
    an abort (a timeout loss and the R10 endings replay from the actions)."""
    if m.is_over():
        return
    if sm.end_reason == "resigned" and sm.ended_by in (0, 1):
        m.resign(int(sm.ended_by))
    elif sm.end_reason == "aborted":
        m.abort(int(sm.ended_by) if sm.ended_by in (0, 1) else None)


def catch_up(t: Table, sm: StoredMatch) -> bool:
    """Bring ``t`` forward in place to the stored ``sm`` (whose ``actions`` are only those
    from ``t.next_seq`` on): deal the hands dealt since and play the new actions under the
    rules. Returns whether the game itself changed (new action or deal). Raises ValueError
    (or the rules' errors) when the rows do not continue this table: the caller rebuilds
    it then (under the table's lock, so nobody sees the copy half brought forward)."""
    m = t.match
    seq = t.next_seq
    changed = False
    for a in sm.actions:
        if a.seq != seq:
            raise ValueError(f"action {a.seq} does not follow {seq}")
        while len(m.hands) <= a.hand:
            m.start_hand(deal_for(sm.seed, len(m.hands), sm.deal_scheme))
        _play_stored(m, a)
        seq += 1
        changed = True
    while len(m.hands) < sm.hands_dealt:
        m.start_hand(deal_for(sm.seed, len(m.hands), sm.deal_scheme))
        changed = True
    if not m.is_over() and sm.end_reason in ("resigned", "aborted"):
        apply_ending(m, sm)
        changed = True
    if len(m.hands) != sm.hands_dealt:
        raise ValueError("more hands in memory than stored")
    sm.actions = []  # played into the match; not kept twice
    m.players = (sm.players[0], sm.players[1])  # a friend may have been renamed
    t.match = m
    t.next_seq = seq
    t.stored = sm
    t.read_at = time.monotonic()
    t.forget_views()
    return changed
