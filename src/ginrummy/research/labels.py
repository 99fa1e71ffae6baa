"""The labelling: one row per decision of a finished match, with the coach's win chance of
every legal action.

A decision is a point where the seat to play had two or more legal actions (a forced
move teaches nothing), for both seats, found by the review's own replay
(:func:`ginrummy.review.grade.moments`): each carries the seat's view just before it (what
that seat could see, never a hidden card, R11) and the opponent styles the review
samples it with (the quick and club shares that seat saw the opponent show in the hands
before). Every legal action of that view is evaluated once, on shared samples, by the
coach's :class:`~ginrummy.evaluator.Evaluator` with ``samples`` sampled deals and a seed
that is a function of the dataset seed, the match and the decision's place only
(:func:`label_seed`), so the same match gives the same numbers in any process, in any
order, on any machine.

This module needs nothing beyond the core: the files are written by :mod:`.files`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ..evaluator import Evaluator
from ..match import Match
from ..review.grade import moments

__all__ = ["COLUMNS", "DEFAULT_SAMPLES", "Decision", "label_match", "label_record", "label_seed",
           "record_line"]

DEFAULT_SAMPLES = 64
"""Sampled deals per decision unless told (``--samples``): the review's screen (its
``DEFAULT_SAMPLES``); a win chance's standard error is then about 0.016 (the median on
expert self-play; 0.041 at 8 deals)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One row of the decisions file (:data:`COLUMNS` says what each field holds)."""

    match: str
    hand: int
    index: int
    seat: int
    view: str
    action: str
    legal: tuple[str, ...]
    win: tuple[float, ...]


COLUMNS = (
    ("match", "string", "the match id: the site's in an export, the match number in a "
     "dataset (`000001` the first); its record's `id`"),
    ("hand", "int16", "the hand's index in the match, from 0"),
    ("index", "int16", "the action's index in the hand's `actions`, from 0"),
    ("seat", "int8", "the deciding seat, 0 or 1 (the record's `players` names them)"),
    ("view", "string", "the seat's view before the decision, JSON (the bot protocol's VIEW, "
     "with `to_play`): its own cards and what it saw, never a hidden card"),
    ("action", "string", 'the action played, JSON (`{"act": "discard", "card": "7C"}`)'),
    ("legal", "list<string>", "every legal action, JSON, in the view's order"),
    ("win", "list<float32>", "the coach's chance that the deciding seat wins the match "
     "after each legal action, in `legal`'s order"),
)
"""The decisions file's columns: name, type, meaning (the data card and docs/research.md
show them as a table)."""


def _text(obj: Any) -> str:
    """Compact JSON in a fixed form (keys in the order written, no spaces)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def label_seed(seed: int, match: str, hand: int, index: int) -> int:
    """The evaluator seed of one decision: a function of the dataset seed, the match id
    and the decision's place only, so nothing else (workers, order, machine) changes it.

    >>> label_seed(47, "000001", 0, 3) == label_seed(47, "000001", 0, 3)
    True
    >>> label_seed(47, "000001", 0, 3) != label_seed(47, "000002", 0, 3)
    True
    """
    digest = hashlib.sha256(f"ginrummy-research/{seed}/{match}/{hand}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def label_match(match: Match, match_id: str, seed: int,
                samples: int = DEFAULT_SAMPLES) -> list[Decision]:
    """Every decision of ``match`` (both seats, hand by hand, in play order) with the win
    chance of each legal action (see the module docstring)."""
    out = []
    for m in moments(match, range(len(match.hands)), (0, 1)):
        quick, club = m.styles
        evaluator = Evaluator(samples=samples, seed=label_seed(seed, match_id, m.hand, m.action),
                              quick=quick, club=club)
        values = evaluator.evaluate(m.view).values
        assert [v.action for v in values] == list(m.view.legal)
        out.append(Decision(
            match_id, m.hand, m.action, m.seat, _text(m.view.to_json()),
            _text(m.played.to_json()), tuple(_text(a.to_json()) for a in m.view.legal),
            tuple(v.win for v in values)))
    return out


def label_record(item: tuple[str, dict[str, Any], int, int]) -> list[Decision]:
    """:func:`label_match` of a record: ``(match id, record, seed, samples)``, one picklable
    argument, as worker processes and Ray tasks take it."""
    match_id, record, seed, samples = item
    return label_match(Match.from_record(record), match_id, seed, samples)


def record_line(record: dict[str, Any], match_id: str) -> bytes:
    """One line of the records file: the ``ginrummy/1`` record with its match id added as
    ``id`` (the ``match`` column of its decisions; readers ignore members they do not
    know), compact JSON and a newline."""
    return (_text({**record, "id": match_id}) + "\n").encode()
