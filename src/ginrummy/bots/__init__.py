"""Computer opponents. Every bot decides from a seat's view only (R11).

>>> bot = make_bot("random", seed=1)
>>> bot.name
'random'
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, BotError
from .expert import ExpertBot, expert_distilled, expert_fast, expert_max
from .marjj import MarjjBot
from .policy import bc_bot, ppo_bot
from .random_bot import RandomBot
from .simple import EasyBot, SimpleBot
from .strong import StrongBot, strong_fast

__all__ = ["BOTS", "Bot", "BotError", "bot_names", "make_bot"]

BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "simple": SimpleBot,
    "marjj": MarjjBot,
    "easy": EasyBot,
    "medium": MarjjBot,
    "strong": StrongBot,
    "strong-fast": strong_fast,
    "expert": ExpertBot,
    "expert-fast": expert_fast,
    "expert-max": expert_max,
    "expert-distilled": expert_distilled,
    "hard": ExpertBot,
    "ppo": ppo_bot,
    "bc": bc_bot,
}
"""Bot factories by name; difficulty aliases (easy/medium/hard) map onto these. ``ppo`` and
``bc`` are the research baselines (trained networks played with numpy, docs/research.md)."""


def bot_names() -> list[str]:
    """Every name :func:`make_bot` accepts."""
    return sorted(BOTS)


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot by name; raises BotError for an unknown name."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise BotError(
            f"Unknown bot {name!r}: choose one of {', '.join(bot_names())}."
        ) from None
    return factory(seed)
