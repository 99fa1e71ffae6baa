"""Watching: the list of live public matches and a spectator's STATE.

A match is public when it is a rated quick match, or a friend table whose creator chose
``"public": true``; only public matches are listed (``GET /api/live``) or watchable
(``GET /api/matches/{id}/watch``, no token).

A spectator sees only what both players have seen (R11): the discard pile and every card
taken from it, the number of cards left in the stock, the scores and the settings; never
a hand in play, never a card drawn from the stock, never the stock's order. At a hand's
end, what the rules reveal to both (a knock shows both hands; a dead hand nothing). While
a hand is being played the spectator is :data:`DELAY` actions behind, so a spectator
cannot relay the table to a player as it happens; who is to play (``to_play``) is told
as it is now, as the live clocks tell it (it shows no card). Once the match is over the
answer links its replay, record and review.
"""

from __future__ import annotations

import json
from typing import Any

from ...i18n import N_
from ...match import Match
from ..backends.database import Database
from ..errors import TableError
from ..tables.clock import clock_json, settings_of
from ..tables.registry import TableRegistry
from ..tables.table import Table
from ..tables.views import seat_arrangements

__all__ = ["DELAY", "Spectators", "spectator_state"]

DELAY = 2
"""Actions of the hand in play a spectator is kept behind."""


def spectator_state(t: Table, delay: int = DELAY) -> dict[str, Any]:
    """What a spectator of ``t`` is shown (see the module docstring)."""
    m: Match = t.match
    sm = t.stored
    hand = m.hand
    over = hand.result is not None
    shown = len(hand.history) if over else max(0, len(hand.history) - delay)
    ops = hand.history[:shown]
    upcard = hand.deal.upcard
    pile = [upcard]
    stock_count = len(hand.deal.stock)
    history: list[dict[str, Any]] = []
    for op in ops:
        a = op.action
        entry: dict[str, Any] = {"seat": op.seat, **a.to_json()}
        if a.act == "draw":
            if a.source == "discard":
                pile.pop()
                entry["card"] = str(op.card) if op.card is not None else None
            else:
                stock_count -= 1
        elif a.act == "discard" and a.card is not None:
            pile.append(a.card)
        history.append(entry)
    # who is to play NOW, as the live clock says: never the seat to play at the position
    # shown behind (it told the wrong player in most states); public, as the clock is
    to_play = None if over else m.to_play
    hand_over: dict[str, Any] | None = None
    r = hand.result
    if r is not None:
        revealed = m.view(0).revealed  # what the rules show both seats (R11)
        arrangements = seat_arrangements(r)
        hand_over = {
            "hand": hand.hand_index,
            "result": r.to_json(),
            "hands": [[str(c) for c in h] for h in revealed] if revealed else None,
            "arrangements": arrangements,
        }
    outcome = m.outcome()
    finished = outcome is not None
    out: dict[str, Any] = {
        "id": sm.id,
        "version": sm.version,
        "spectator": True,
        "status": "finished" if finished else sm.status,
        "players": list(sm.players),
        "bots": list(sm.bot_seats),
        "options": m.options.to_json(),
        "scores": list(m.scores),
        "winner": outcome.winner if outcome else None,
        "end_reason": str(outcome.reason) if outcome else None,
        "end": outcome.end if outcome else None,
        "ended_by": outcome.by if outcome else None,
        # the clocks are live (only the moves are kept behind): they show no card
        "clock": _live_clock(t),
        "hand_index": hand.hand_index,
        "dealer": hand.dealer,
        "knock_limit": hand.knock_limit,
        "to_play": to_play,
        "upcard": str(upcard),
        "discards": [str(c) for c in pile],
        "stock_count": stock_count,
        "history": history,
        "behind": len(hand.history) - shown,
        "hand_over": hand_over,
    }
    if finished:
        out["replay"] = f"/api/matches/{sm.id}/replay"
        out["record"] = f"/api/matches/{sm.id}/record"
        out["review"] = f"/review/{sm.id}"
    return out


def _live_clock(t: Table) -> dict[str, Any] | None:
    """STATE's ``clock`` as it stands now, plus ``to_play``: the seat whose time runs (the
    moves shown are behind; the clocks are not, and a clock shows no card)."""
    m = t.match
    sm = t.stored
    out = clock_json(settings_of(sm.clock_move, sm.clock_bank), sm.banks, sm.deadline, m)
    if out is not None:
        out["to_play"] = m.to_play if out["deadline"] is not None else None
    return out


class Spectators:
    """The live list and the spectator view (see the module docstring)."""

    def __init__(self, db: Database, registry: TableRegistry) -> None:
        self.db = db
        self.registry = registry

    async def publish(self, match_id: str, account0: str | None, public: bool) -> None:
        """Record who created a new table (an account, or None: a guest) and whether its
        creator made it public (``"public": true`` in ``POST /api/matches``)."""
        await self.db.run(self.db.store.accounts.link, match_id, (account0, None), False,
                          public)

    async def is_public(self, match_id: str) -> bool:
        """Whether the match may be watched."""
        links = await self.db.read(self.db.store.accounts.links, [match_id])
        link = links.get(match_id)
        return link is not None and link.public

    async def watch(self, match_id: str) -> dict[str, Any]:
        """``GET /api/matches/{id}/watch``: the spectator's STATE (404 for a match that is
        not public, exactly as for one that does not exist)."""
        if not 0 < len(match_id) <= 32 or not await self.is_public(match_id):
            raise TableError(404, N_("No public match has this id."))
        t = await self.registry.get(match_id)
        async with t.lock:
            return spectator_state(t)

    async def live(self, limit: int = 50) -> dict[str, Any]:
        """``GET /api/live``: public matches being played, most recently active first."""
        rows = await self.db.read(self.db.store.accounts.live, limit)
        out = []
        for link, row in rows:
            out.append({"id": link.match_id, "players": json.loads(row["players"]),
                        "bots": row["bots"],
                        "options": json.loads(row["options"]), "scores": row["scores"],
                        "hands": row["hands"], "rated": link.rated,
                        "updated_at": row["updated_at"], "url": f"/watch/{link.match_id}"})
        return {"matches": out}
