"""Public step-by-step replays of finished matches: computed once, off the event loop, cached.

A finished match never changes, so all its steps are built in one pass (each hand dealt
from the seed, its actions played one by one, the table captured after each) in a worker
thread, and kept in a small LRU cache: a popular replay costs one build, not one per
request, and never blocks other tables while it is built.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from ...fairness import deal_for
from ...hand import Action
from ...match import Match
from ...options import Options

__all__ = ["ReplayCache", "replay_frames"]


def _frame(m: Match, step: int, players: list[str]) -> dict[str, Any]:
    hand = m.hand
    ops = hand.history
    last_action = ops[-1].to_json() if ops else None
    if last_action is not None and ops[-1].card is not None:
        last_action["card_drawn"] = str(ops[-1].card)
    return {
        "step": step,
        "steps": 0,  # filled in once the number of steps is known
        "hand_index": hand.hand_index,
        "dealer": hand.dealer,
        "players": list(players),
        "hands": [[str(c) for c in hand.cards_of(s)] for s in (0, 1)],
        "upcard": str(hand.upcard),
        "discards": [str(c) for c in hand.discards],
        "stock_count": hand.stock_count,
        "phase": hand.phase.value,
        "to_play": hand.to_play,
        "last_action": last_action,
        "scores": list(m.scores),
        "result": hand.result.to_json() if hand.result else None,
        # the hand's moves so far and the options: what the analysis board needs to
        # rebuild a seat's view at this step (the match is over: all public)
        "history": [op.to_json(op.seat) for op in ops],
        "options": m.options.to_json(),
    }


def replay_frames(
    options: dict[str, Any], seed: int, first_dealer: int, players: list[str],
    hands: list[list[tuple[int, dict[str, Any]]]], scheme: str,
) -> list[dict[str, Any]]:
    """Every step of a match: each hand as dealt (from ``seed`` by the deal ``scheme``),
    then after each of its actions (``hands[i]`` lists hand i's (seat, action JSON)). One
    pass, so linear in length."""
    m = Match(Options.from_json(options), seed=seed, first_dealer=first_dealer,
              players=(players[0], players[1]), auto_deal=False)
    frames: list[dict[str, Any]] = []
    for i, actions in enumerate(hands):
        m.start_hand(deal_for(seed, i, scheme))
        frames.append(_frame(m, len(frames), players))
        for seat, a in actions:
            late = a.get("timeout") is True  # played for the seat: its clock ran out
            m.play(Action.from_json(a), seat, timeout=late)
            frames.append(_frame(m, len(frames), players))
            if late:
                frames[-1]["last_action"]["timeout"] = True
    for f in frames:
        f["steps"] = len(frames) - 1
    return frames


class ReplayCache:
    """Frames of recently replayed matches (least recently used dropped first)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self.builds = 0
        """How many times frames were built (for tests: a cached replay is not rebuilt)."""
        self._frames: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._building: dict[str, asyncio.Future[list[dict[str, Any]]]] = {}

    async def frames(
        self, match_id: str, options: dict[str, Any], seed: int, first_dealer: int,
        players: list[str], hands: list[list[tuple[int, dict[str, Any]]]], scheme: str,
    ) -> list[dict[str, Any]]:
        """The match's frames, built in a worker thread on first use."""
        got = self._frames.get(match_id)
        if got is not None:
            self._frames.move_to_end(match_id)
            return got
        fut = self._building.get(match_id)
        if fut is not None:
            return await asyncio.shield(fut)
        fut = asyncio.get_running_loop().create_future()
        self._building[match_id] = fut
        try:
            self.builds += 1
            frames = await asyncio.to_thread(
                replay_frames, options, seed, first_dealer, players, hands, scheme
            )
            fut.set_result(frames)
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # retrieved: waiting requests get it, no "never retrieved"
            raise
        finally:
            del self._building[match_id]
        self._frames[match_id] = frames
        while len(self._frames) > self.size:
            self._frames.popitem(last=False)
        return frames
