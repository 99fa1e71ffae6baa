"""Translatable text in the guided lessons: the JSON files of ``web/static/learn/`` (built
by ``scripts/learn_lesson.py`` and ``scripts/learn_lessons.py``) that ``static/js/learn.js``
shows, one step at a time.

The texts a player reads are the lesson's title, each step's title and sentence, the
closing link's words (``finish.text``) and the two players' names of the prepared
positions. Each is a message of the browser's catalog (``ginrummy-js``), and ``learn.js``
says it through ``t()`` when it shows it; everything else in a lesson (card codes, moves,
the engine's figures) is data. Card symbols such as ``9♣`` stay as they are in a
translation.

>>> lesson = {"title": "Knock", "steps": [{"title": "Melds", "text": "A run: 5♥ 6♥ 7♥.",
...           "highlight": ["5H"]}], "finish": {"text": "Puzzles on this", "href": "/puzzles"},
...           "states": [{"players": ["You", "Computer"], "view": {"hand": ["5H"]}}]}
>>> list(texts(lesson))
['Knock', 'Melds', 'A run: 5♥ 6♥ 7♥.', 'Puzzles on this', 'You', 'Computer']
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = ["extract", "messages", "texts"]


def texts(lesson: dict[str, Any]) -> Iterator[str]:
    """Every player-facing text of a lesson, once each, in the order of the file."""
    found: list[str] = []

    def add(value: object) -> None:
        if isinstance(value, str) and value.strip() and value not in found:
            found.append(value)

    add(lesson.get("title"))
    for step in lesson.get("steps") or []:
        add(step.get("title"))
        add(step.get("text"))
    add((lesson.get("finish") or {}).get("text"))
    for state in lesson.get("states") or []:
        for name in state.get("players") or []:
            add(name)
    yield from found


def messages(source: str) -> Iterator[tuple[int, str]]:
    """(line, message) of every text of a lesson file (the line where it first appears)."""
    for text in texts(json.loads(source)):
        at = -1
        for written in (json.dumps(text, ensure_ascii=False), json.dumps(text)):
            at = source.find(written)
            if at >= 0:
                break
        yield (source.count("\n", 0, at) + 1 if at >= 0 else 1), text


def extract(fileobj: Any, keywords: Any, comment_tags: Any, options: Any
            ) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extraction method for the lessons (``scripts/i18n.py``): each text as a
    message of its own."""
    source = fileobj.read().decode(options.get("encoding", "utf-8"))
    for line, message in messages(source):
        yield line, "", message, []
