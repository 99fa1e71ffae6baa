""""Play again": a rematch of a finished match, same opponent and options, the other
player dealing first.

Against the computer the new match starts at once. Between friends the first to ask sits
at seat 0 of the new match (so seats swap when the friend asks) and waits; the other
player accepts with the same call, authenticated by their seat in the old match, and takes
seat 1 (no invite code is kept for it). The link between the matches is stored
(:class:`~.store.RematchStore`), so any process answers either player.
"""

from __future__ import annotations

from typing import Any

from ...i18n import N_
from ..backends.database import Database
from ..errors import TableError
from ..store import RematchLink
from .lobby import Lobby
from .registry import TableRegistry
from .table import Table

__all__ = ["Rematches"]


class Rematches:
    """Rematch offers and acceptances (see the module docstring)."""

    def __init__(self, registry: TableRegistry, lobby: Lobby, db: Database) -> None:
        self.registry = registry
        self.lobby = lobby
        self.db = db

    async def status(self, t: Table, seat: int) -> dict[str, Any]:
        """``GET .../rematch``: whether a rematch was asked for, by which seat of this
        match, and whether it was accepted (a computer's rematch starts at once)."""
        link = await self.db.read(self.db.store.rematches.get, t.id)
        if link is None:
            return {"offered_by": None, "accepted": False}
        return {"offered_by": link.offered_by, "accepted": not link.pending}

    async def rematch(self, t: Table, seat: int) -> dict[str, Any]:
        """``POST .../rematch``: ask for a rematch, or accept the one the other player
        asked for. Returns ``{"id", "seat", "token", "url", "commitment"}`` for the
        caller's seat in the new match."""
        if not t.match.is_over():
            raise TableError(409, N_("A rematch can be asked for once the match is over."))
        if t.match.options.hands is not None:
            raise TableError(409, N_("The daily deal has no rematch: the next deal is dealt "
                                     "at 00:00 UTC."))
        store = self.db.store.rematches
        async with t.lock:
            link = await self.db.read(store.get, t.id)
            if link is not None:
                return await self._accept(t, seat, link)
            sm = t.stored
            other = 1 - seat
            first_person = sm.first_dealer  # old seat of the person who dealt first
            body: dict[str, Any] = {"opponent": sm.opponent, "name": sm.players[seat],
                                    "options": dict(sm.options)}
            if sm.clock_move is not None:  # a rematch keeps the table's clock
                body["clock"] = {"move": sm.clock_move, "bank": sm.clock_bank or 0}
            if sm.opponent == "computer":
                if seat != 0:
                    raise TableError(403, N_("The computer does not ask for rematches."))
                body["bot"] = sm.bot_level or "medium"
                new_dealer = 1 - first_person
            else:
                # The caller takes seat 0: the person who dealt first now deals second.
                new_dealer = 0 if first_person == other else 1
            made = await self.lobby.create(body, first_dealer=new_dealer, invite=False)
            pending = sm.opponent == "friend"
            if pending:
                new = await self.registry.get(made["id"])
                await self.lobby.rename(new, 1, sm.players[other])
            if not await self.db.run(store.offer, t.id,
                                     RematchLink(made["id"], seat, pending)):
                raise TableError(409, N_("Your opponent asked for a rematch at the same "
                                         "moment: reload to accept it."))
            return made

    async def _accept(self, t: Table, seat: int, link: RematchLink) -> dict[str, Any]:
        if link.offered_by == seat:
            raise TableError(409, N_("You have already asked for a rematch: it is waiting "
                                     "for your opponent."))
        if not link.pending:
            raise TableError(409, N_("This rematch has already been accepted."))
        new = await self.registry.get(link.new_id)
        out = await self.lobby.claim_seat(new, t.stored.players[seat])
        await self.db.run(self.db.store.rematches.accept, t.id)
        return out
