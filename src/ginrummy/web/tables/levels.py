"""Computer levels offered to people, and the registered bot that plays each."""

from __future__ import annotations

from ...bots import bot_names
from ...i18n import t
from ..errors import TableError

__all__ = ["BOT_LEVELS", "level_list", "resolve_bot"]

BOT_LEVELS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("easy", "Easy", ("easy", "simple", "random")),
    ("medium", "Medium", ("medium", "marjj", "simple", "easy", "random")),
    ("hard", "Hard", ("expert", "hard", "strong", "medium", "marjj", "simple", "easy", "random")),
)
"""Levels offered to people: (level, label, bot names to try in order). A level whose own
bot is not registered falls back to the next one that is, so the lobby never breaks."""


def resolve_bot(level: str) -> str:
    """The registered bot that plays ``level`` (see :data:`BOT_LEVELS`); raises
    TableError 400 for an unknown level."""
    names = set(bot_names())
    for lv, _, candidates in BOT_LEVELS:
        if lv == level:
            for c in candidates:
                if c in names:
                    return c
            return sorted(names)[0]
    levels = ", ".join(lv for lv, _, _ in BOT_LEVELS)
    raise TableError(400, t("Unknown computer level {level}: choose one of {levels}.",
                            level=repr(level), levels=levels))



def level_list() -> list[dict[str, str]]:
    """``GET /api/bots``: the levels offered to people."""
    return [{"name": lv, "label": label} for lv, label, _ in BOT_LEVELS]
