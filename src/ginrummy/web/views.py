"""What each seat is shown: its own STATE (R11), built once per version and pushed to its
sockets after every committed change."""

from __future__ import annotations

from typing import Any

from ..cards import to_mask
from ..melds import arrangements_mask
from . import extras
from .table import Table, dumps

__all__ = ["TableViews"]


class TableViews:
    """Each seat's STATE of a table and the push of it to the seat's WebSockets."""

    def status_of(self, t: Table) -> str:
        """``waiting`` (friend not joined), ``playing`` or ``finished``."""
        if t.match.is_over():
            return "finished"
        if t.stored.opponent == "friend" and not t.stored.joined:
            return "waiting"
        return "playing"

    def state(self, t: Table, seat: int) -> dict[str, Any]:
        """What ``seat`` sees (R11): its view, legal moves, its own arrangement, the score
        sheet, and at a hand's end what the rules reveal (nothing after a dead hand).
        Every change bumps the version, so a seat's STATE is built once per version (the
        broadcast and the HTTP answer share it); callers must not modify it."""
        cached = t.state_cache.get(seat)
        if cached is not None and cached[0] == t.stored.version:
            return cached[1]
        out = self._build_state(t, seat)
        t.state_cache[seat] = (t.stored.version, out)
        return out

    def _build_state(self, t: Table, seat: int) -> dict[str, Any]:
        m = t.match
        sm = t.stored
        hand = m.hand
        v = m.view(seat)
        legal = [a.to_json() for a in v.legal]
        knock = sorted({a.card for a in v.legal if a.knock and a.card is not None})
        arr = arrangements_mask(to_mask(v.hand))[0]
        status = self.status_of(t)
        hand_over: dict[str, Any] | None = None
        r = hand.result
        if r is not None:
            arrangements: list[dict[str, Any]] | None = None
            layoffs: list[dict[str, Any]] = []
            sd = r.showdown
            if sd is not None and r.knocker is not None:
                pair = [sd.knocker_arrangement, sd.defender_arrangement]
                if r.knocker == 1:
                    pair.reverse()
                arrangements = [a.to_json() for a in pair]
                layoffs = [{"card": str(c), "meld": i} for c, i in sd.layoffs]
            hand_over = {
                "hand": hand.hand_index,
                "result": r.to_json(),
                "hands": [[str(c) for c in h] for h in v.revealed] if v.revealed else None,
                "arrangements": arrangements,
                "layoffs": layoffs,
                "ready": list(sm.ready),
            }
        sheet = []
        running = [0, 0]
        for h in m.hands:
            if h.result is None:
                continue
            if h.result.scorer is not None:
                running[h.result.scorer] += h.result.points
            sheet.append(
                {
                    "hand": h.hand_index,
                    "result": h.result.result,
                    "scorer": h.result.scorer,
                    "points": h.result.points,
                    "scores": list(running),
                }
            )
        other = 1 - seat
        waiting = status == "waiting" or (
            status == "playing"
            and (
                m.to_play == other
                or (hand_over is not None and sm.ready[seat] and not sm.ready[other])
            )
        )
        outcome = m.outcome()
        return extras.state_extras(v) | {
            "id": sm.id,
            "seat": seat,
            "version": sm.version,
            "status": status,
            "players": list(sm.players),
            "opponent": sm.opponent,
            "bot": sm.bot_level,
            "options": m.options.to_json(),
            "scores": list(m.scores),
            "winner": outcome.winner if outcome else None,
            "end_reason": outcome.reason if outcome else None,
            "view": v.to_json(),
            "legal": legal,
            "my_turn": bool(legal),
            "arrangement": arr.to_json(),
            "knock_discards": [str(c) for c in knock],
            "hand_over": hand_over,
            "score_sheet": sheet,
            "waiting_for_opponent": waiting,
            "friend_joined_at": sm.joined_at,
        }

    def _broadcast(self, t: Table) -> None:
        """Queue each connected seat's own STATE (called under the table lock, after the
        change is committed, so every browser sees changes in order)."""
        texts: dict[int, str] = {}
        for s in list(t.subscribers):
            if s.closed:
                t.subscribers.discard(s)
                continue
            if s.seat not in texts:
                texts[s.seat] = dumps({"type": "state", "state": self.state(t, s.seat)})
            s.push_text(texts[s.seat])
