"""Puzzles at the web table (docs/web-api.md, "Training"; INTERFACES section 12).

* ``GET /api/puzzles/next``: a public puzzle near a rating (the account's puzzle rating,
  a guest's ``rating`` parameter, or 1500) and of a theme if asked, one the account has
  not answered yet; its seat's view only (R11), never the answer.
* ``POST /api/puzzles/{id}/solve``: right or wrong, the best move, every legal move's
  measured value best first, the margin and its paired standard error, the samples and
  the sentence why. An account's first answer to a public puzzle moves both Glicko-2
  ratings (:mod:`ginrummy.ratings`: solving it is a win against the puzzle, failing it a
  loss; the account's puzzle rating is kept apart from its rating in play). Later answers
  to the same puzzle, and guests' answers, move nothing: a guest may solve every puzzle,
  and its streak and history live in its browser; it has no puzzle rating.
* An illegal or malformed answer is refused (400, one sentence) and changes nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from importlib import resources
from typing import Any

from ...actions import Action, IllegalActionError
from ...hand import Phase
from ...i18n import N_, t
from ...ratings import DEFAULT, match_update
from ...review.report import action_json
from ...training.puzzles import Answer, Puzzle, why_best, why_not
from ...training.themes import THEMES
from ...view import View
from ..backends.database import Database
from ..errors import TableError
from ..reviews.grading import table_card
from ..store.accounts import Account
from ..store.puzzles import NewPuzzle, PuzzleRow, PuzzleStore

__all__ = ["STARTER_FILE", "Puzzles", "add_starter_puzzles", "context_of", "new_puzzle",
           "puzzle_id", "puzzle_payload", "puzzle_row", "starter_puzzles"]

NO_SUCH_PUZZLE = N_("There is no such puzzle.")
NEAREST = 8
"""``next`` picks at random among this many puzzles nearest the rating."""
HISTORY = 100
"""Answers ``GET /api/puzzles/history`` lists at most."""
STARTER_FILE = "data/starter_puzzles.json"
"""The public puzzles a new site starts with (``scripts/starter_puzzles.py`` makes them
from expert self-play by the margin rule, as ``ginrummy puzzles make`` does)."""


def puzzle_id(key: str) -> str:
    """A puzzle's id: the first 12 hex digits of its key's SHA-256 (the same decision gets
    the same id in any database)."""
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def new_puzzle(p: Puzzle, match_id: str | None = None) -> NewPuzzle:
    """A made puzzle as a row to store (public; ``match_id``: the stored match it came
    from, if any). Its difficulty starts as a newcomer's rating (Glicko-2's 1500, with a
    deviation wide enough that the first answers place it)."""
    return puzzle_row(p.to_json(), match_id)


def puzzle_row(body: dict[str, Any], match_id: str | None = None) -> NewPuzzle:
    """A public puzzle's row from its stored form (:meth:`Puzzle.to_json`: a made puzzle,
    or one read back from a file)."""
    return NewPuzzle(puzzle_id(body["key"]), body["key"], None, match_id, body["hand"],
                     body["action"], body["seat"], tuple(body["themes"]), body)


def starter_puzzles() -> list[NewPuzzle]:
    """The starter set (:data:`STARTER_FILE`) as rows to store: public, and named by
    their self-play keys, so a site that has them already is not given them twice."""
    text = resources.files("ginrummy").joinpath(STARTER_FILE).read_text("utf-8")
    return [puzzle_row(body) for body in json.loads(text)]


def add_starter_puzzles(store: PuzzleStore) -> int:
    """Give a site with no public puzzles the starter set (none, if it has some: its
    operator's own, or the starter set, perhaps thinned by ``puzzles check --drop``); how
    many were added."""
    if store.count() > 0:
        return 0
    return store.add(starter_puzzles())


def context_of(view_json: dict[str, Any]) -> dict[str, Any]:
    """What a page shows of a puzzle's position, from its view (R11): the hand, the pile
    (bottom first), what the opponent took, threw and passed, the stock, the scores (the
    seat's first), whose deal and what is to be done."""
    view = View.from_json(view_json)
    return {
        "seat": view.seat,
        "dealer": view.dealer,
        "hand": [str(c) for c in sorted(view.hand)],
        "pile": [str(c) for c in view.discards],
        "opponent_took": [str(c) for c in view.opponent_took],
        "opponent_discarded": [str(c) for c in view.opponent_discarded],
        "opponent_passed": [str(c) for c in view.opponent_passed],
        "stock": view.stock_count,
        "phase": view.phase.value,
        "to_play": "discard" if view.phase is Phase.DISCARD else "draw",
        "scores": [view.scores[view.seat], view.scores[1 - view.seat]],
        "target": view.options.target,
        "knock_limit": view.knock_limit,
        "upcard": str(view.upcard),
        "hand_index": view.hand_index,
    }


def puzzle_payload(row: PuzzleRow) -> dict[str, Any]:
    """A puzzle as a page gets it before answering: section 12's ``id``, ``view``,
    ``legal``, ``rating`` and ``themes``, with its ``context``; a private puzzle also
    names its ``match``, ``hand`` and ``action`` index and the move that was played."""
    body = row.body
    out: dict[str, Any] = {
        "id": row.id, "view": body["view"], "legal": body["legal"],
        "rating": round(row.rating.rating), "themes": list(row.themes),
        "context": context_of(body["view"]), "private": row.owner is not None,
    }
    if row.owner is not None:
        out |= {"match": row.match_id, "hand": row.hand, "action": row.action,
                "seat": row.seat, "played": body.get("played"), "mark": body.get("mark"),
                "solved": row.solved_at is not None}
    return out


def read_answer(body: Any, legal: list[Any]) -> Action:
    """The move an answer names, if legal here; TableError 400 with one sentence else."""
    if not isinstance(body, dict) or "action" not in body:
        raise TableError(400, N_('Send {"action": {...}}: the move to answer with, as in '
                                 "the puzzle's legal list."))
    try:
        action = Action.from_json(body["action"])
    except IllegalActionError as e:
        raise TableError(400, t("The answer is not a move: {error}", error=str(e))) from None
    if action not in [Action.from_json(a) for a in legal]:
        raise TableError(400, t("That move ({action}) is not legal in this puzzle: choose "
                                "one of its legal moves.", action=str(action)))
    return action


class Puzzles:
    """Public puzzles, answers and puzzle ratings (module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.store = db.store.puzzles

    async def rating_of(self, account: Account) -> dict[str, Any]:
        """The account's puzzle rating for ``GET /api/me``: ``puzzle_rating`` (rounded),
        ``puzzle_deviation`` and ``puzzles`` (answers it was rated on)."""
        rating, n = await self.db.read(self.store.rating_of, account.id)
        return {"puzzle_rating": round(rating.rating),
                "puzzle_deviation": round(rating.deviation), "puzzles": n}

    async def next(self, account: Account | None, rating: str | None,
                   theme: str | None) -> dict[str, Any]:
        """``GET /api/puzzles/next`` (module docstring); 400 for a bad rating or an
        unknown theme, 404 when no puzzle is left to offer."""
        if theme is not None and theme not in THEMES:
            raise TableError(400, t("Unknown theme {theme}: choose one of {themes}.",
                                    theme=repr(theme), themes=", ".join(THEMES)))
        if rating is not None:
            try:
                target = float(rating)
            except ValueError:
                target = -1.0
            if not 0 <= target <= 4000:
                raise TableError(400, t("The rating must be a number from 0 to 4000, not "
                                        "{rating}.", rating=repr(rating)))
        elif account is not None:
            target = (await self.db.read(self.store.rating_of, account.id))[0].rating
        else:
            target = DEFAULT.rating
        rows = await self.db.read(self.store.nearest, target, theme,
                                  None if account is None else account.id, NEAREST)
        if not rows:
            if theme and account is not None:
                raise TableError(404, t("There is no puzzle with the theme {theme} left for "
                                        "you yet.", theme=theme))
            if theme:
                raise TableError(404, t("There is no puzzle with the theme {theme} yet.",
                                        theme=theme))
            if account is not None:
                raise TableError(404, N_("There is no puzzle left for you yet."))
            raise TableError(404, N_("There is no puzzle yet."))
        return puzzle_payload(secrets.choice(rows))

    async def puzzle(self, puzzle_id: str, account: Account | None) -> PuzzleRow:
        """The puzzle this player may see (a private one only its owner); 404 else."""
        row = await self.db.read(self.store.get, puzzle_id) if len(puzzle_id) <= 32 else None
        if row is None or (row.owner is not None
                           and (account is None or account.id != row.owner)):
            raise TableError(404, NO_SUCH_PUZZLE)
        return row

    async def solve(self, puzzle_id: str, account: Account | None,
                    body: Any) -> dict[str, Any]:
        """``POST /api/puzzles/{id}/solve`` (module docstring)."""
        row = await self.puzzle(puzzle_id, account)
        action = read_answer(body, row.body["legal"])
        answer = Answer.from_json(row.body)
        correct = answer.correct(action)
        done = await self.db.run(self.store.answer, row.id,
                                 None if account is None else account.id,
                                 action.to_json(), correct, match_update)
        if done is None:
            raise TableError(404, NO_SUCH_PUZZLE)
        # the sentences told in the table's card words (7♦, 10♣: a stored puzzle keeps
        # R1's 9C), worked out off the event loop from the seat's view
        view = View.from_json(row.body["view"], row.body["legal"])
        why, mistake = await asyncio.to_thread(
            lambda: (why_best(view, answer, table_card),
                     None if correct else why_not(view, answer, action, table_card)))
        out = {
            "correct": correct,
            **{k: v for k, v in answer.to_json().items() if k != "values"},
            "values": [{"action": v["action"], "win": v["win"], "se": v["se"],
                        "points": v["points"]} for v in answer.to_json()["values"]],
            "rating": None if done.player is None else round(done.player.rating),
            "rated": done.rated,
            "puzzle_rating": round(done.puzzle.rating.rating),
            "played": action_json(action),
            "why": why,
            "mistake": mistake,
            "themes": list(row.themes),
        }
        if row.owner is not None:
            out |= {"match": row.match_id, "hand": row.hand, "action": row.action,
                    "solved": done.puzzle.solved_at is not None}
        return out

    async def history(self, account: Account | None) -> dict[str, Any]:
        """``GET /api/puzzles/history``: the account's rated answers, newest first, with
        its puzzle rating; 401 for a guest (a guest's history is in its browser)."""
        if account is None:
            raise TableError(401, N_("Log in to keep a history of solved puzzles."))
        rows = await self.db.read(self.store.history, account.id, HISTORY)
        return {"answers": rows, **await self.rating_of(account)}

    @staticmethod
    def themes() -> dict[str, Any]:
        """``GET /api/puzzles/themes``: every theme's name and title (the title in the
        language of the moment)."""
        return {"themes": [{"name": k, "title": t(v)} for k, v in THEMES.items()]}
