"""Learn from your mistakes: ``GET /api/puzzles/mine`` (docs/web-api.md, "Training").

The decisions an account was marked for (inaccuracy, mistake, blunder) in the stored
reviews of its matches become its private puzzles, made on request: the first request
after a review starts measuring the new ones in the coach's workers (every legal move on
:attr:`~.coach.TrainingSettings.puzzle_samples` shared deals, from the seat's view only,
R11) and answers at once with those already made and how many are ``pending``; the page
asks again. A private puzzle is shown until its owner answers it right. A decision whose
fresh measure finds the played move as good as the best (the review's mark was the
luck of its smaller sample) is stored as settled and never shown. Each names its
``match``, ``hand`` and ``action`` index (as the review does).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ...actions import Action
from ...hand import View
from ...review.grade import moments
from ...review.report import action_json
from ...training.puzzles import measure, source_seed, with_reasons
from ...training.themes import themes_of
from ..backends.database import Database
from ..store.accounts import Account
from ..store.puzzles import NewPuzzle
from ..tables.table import build_match
from .coach import Coach
from .puzzles import puzzle_id, puzzle_payload

__all__ = ["Mistakes", "measure_mistake"]

log = logging.getLogger("ginrummy.web")

REVIEWED_MATCHES = 20
"""The account's most recent reviewed matches whose marks become puzzles."""


def mistake_key(account_id: str, match_id: str, hand: int, action: int) -> str:
    """The key of an account's private puzzle."""
    return f"mine/{account_id}/{match_id}/{hand}/{action}"


def measure_mistake(view: View, played: Action, samples: int, seed: int
                    ) -> dict[str, Any]:
    """A marked decision measured afresh (in a worker): the body of its private puzzle,
    with ``confirmed`` False when the played move turns out as good as the best."""
    answer, why = with_reasons(view, measure(view, samples, seed))
    return {"view": view.to_json(), "legal": [action_json(a) for a in view.legal],
            **answer.to_json(), "why": why, "played": action_json(played),
            "themes": list(themes_of(view, answer.best)),
            "confirmed": not answer.correct(played)}


class Mistakes:
    """An account's own marked decisions as private puzzles (module docstring)."""

    def __init__(self, db: Database, coach: Coach) -> None:
        self.db = db
        self.coach = coach
        self.store = db.store.puzzles
        self._making: dict[str, asyncio.Task[None]] = {}

    async def mine(self, account: Account) -> dict[str, Any]:
        """``GET /api/puzzles/mine``: the unsolved private puzzles, oldest first, and how
        many marked decisions are still being made into puzzles."""
        marks = await self.db.read(self.store.marked_decisions, account.id,
                                   REVIEWED_MATCHES)
        rows = await self.db.read(self.store.private, account.id)
        have = {r.key for r in rows}
        missing = [m for m in marks
                   if mistake_key(account.id, m["match"], m["hand"], m["action"]) not in have]
        if missing and account.id not in self._making:
            task = asyncio.get_running_loop().create_task(self._make(account.id, missing))
            self._making[account.id] = task
            task.add_done_callback(lambda _: self._making.pop(account.id, None))
        shown = [r for r in rows if r.solved_at is None]
        return {"puzzles": [puzzle_payload(r) for r in shown], "pending": len(missing),
                "solved": sum(1 for r in rows if r.solved_at is not None
                              and r.body.get("confirmed", True))}

    async def _make(self, account_id: str, marks: list[dict[str, Any]]) -> None:
        """Measure and store the missing private puzzles, one match at a time."""
        by_match: dict[str, list[dict[str, Any]]] = {}
        for m in marks:
            by_match.setdefault(m["match"], []).append(m)
        for match_id, ms in by_match.items():
            try:
                await self._make_match(account_id, match_id, ms)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - asked again on the next request
                log.exception("making private puzzles of %s failed", match_id)

    async def _make_match(self, account_id: str, match_id: str,
                          marks: list[dict[str, Any]]) -> None:
        stored = await self.db.read(self.db.store.load, match_id)
        if stored is None:
            return
        match = await asyncio.to_thread(build_match, stored)
        samples = self.coach.settings.puzzle_samples
        for m in marks:
            found = [x for x in moments(match, (m["hand"],), (m["seat"],))
                     if x.action == m["action"]]
            if not found:
                continue
            moment = found[0]
            key = mistake_key(account_id, match_id, m["hand"], m["action"])
            body = await self.coach.run(measure_mistake, moment.view, moment.played,
                                        samples, source_seed(0, key, m["hand"], m["action"]))
            body["mark"] = m["mark"]
            await self.db.run(self.store.add, [NewPuzzle(
                puzzle_id(key), key, account_id, match_id, m["hand"], m["action"],
                m["seat"], tuple(body["themes"]), body,
                solved_at=None if body["confirmed"] else 0.0)])

    def close(self) -> None:
        """Stop making puzzles (what is missing is made on the next request)."""
        for task in list(self._making.values()):
            task.cancel()
