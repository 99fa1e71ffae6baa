"""A position for the analysis board: what one seat sees (R11) written as plain facts
(:mod:`.board`), read into its :class:`~ginrummy.view.View` by a hand that reaches it
(:mod:`.reach`); and a view's facts written back as a position (:func:`position_of`),
which is how the board opens a replay's, a review's or a puzzle's decision.

:func:`read_position` refuses what it cannot read with one sentence naming the card
(:class:`PositionError`): a card in two places, wrong counts, unknown cards, a position no
legal play reaches.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..actions import Phase
from ..cards import Card
from ..view import View
from .board import FIELDS, Board, PositionError, check_board, read_board
from .reach import reach

__all__ = ["FIELDS", "Board", "PositionError", "board_view", "position_of", "read_board",
           "read_position"]


def board_view(b: Board) -> View:
    """The view of a board: its facts checked (:func:`~.board.check_board`), then reached
    by a legal history (:func:`~.reach.reach`); PositionError with one sentence else."""
    check_board(b)
    return reach(b)


def read_position(obj: Any) -> View:
    """The deciding seat's :class:`View` of a position object (module docstring), with
    its legal actions; :class:`PositionError` (one sentence) when it cannot be read or no
    hand reaches it."""
    return board_view(read_board(obj))


def _strs(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def position_of(view: View) -> dict[str, Any]:
    """A decision's facts as a position object: what the analysis board opens from a
    replay, a review or a puzzle (its seat's view only, R11). :func:`read_position` reads
    it back to a view with the same facts and the same legal actions."""
    return {
        "seat": view.seat,
        "dealer": view.dealer,
        "hand": _strs(view.hand),
        "pile": _strs(view.discards),
        "opponent_took": _strs(view.opponent_took),
        "opponent_discarded": _strs(view.opponent_discarded),
        "opponent_passed": _strs(view.opponent_passed),
        "stock": view.stock_count,
        "to_play": "discard" if view.phase is Phase.DISCARD else "draw",
        "scores": list(view.scores),
        "options": view.options.to_json(),
        "upcard": str(view.upcard),
        "history": view.history.to_json(view.seat),
    }
