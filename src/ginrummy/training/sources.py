"""Where puzzles come from: matches of expert self-play (deterministic for a seed) and
records of finished matches (files here; the web table's database in
:mod:`ginrummy.web.training.making`).

>>> [(source, m.is_over()) for source, m in self_play(1, seed=3, bot="simple")]
[('self-play/simple/3/0', True)]
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..arena import derive_seed, play_match
from ..bots import make_bot
from ..bots.base import Bot
from ..bots.expert import ExpertBot
from ..match import Match
from ..record import RecordError, loads

__all__ = ["SELF_PLAY_BOT", "records_in", "self_play"]

SELF_PLAY_BOT = "expert"
"""The bot that plays both seats of self-play matches."""
NO_CLOCK_MS = 3_600_000.0
"""``expert``'s time cap in self-play: an hour a decision, so that only its sample budget
binds and the games depend on the seed alone, however loaded the machine."""


def _bot(name: str, seed: int) -> Bot:
    if name == "expert":
        return ExpertBot(seed, budget_ms=NO_CLOCK_MS)
    return make_bot(name, seed)


def self_play(matches: int, seed: int = 0, bot: str = SELF_PLAY_BOT) -> list[tuple[str, Match]]:
    """``matches`` finished matches of ``bot`` against itself, each named
    ``self-play/BOT/SEED/I``: the same seed gives the same matches (deals and moves)."""
    out = []
    for i in range(matches):
        a = _bot(bot, derive_seed("puzzles", seed, i, 0))
        b = _bot(bot, derive_seed("puzzles", seed, i, 1))
        _, match = play_match(a, b, seed=derive_seed("puzzles", seed, i), first_dealer=i % 2,
                              names=(bot, bot))
        out.append((f"self-play/{bot}/{seed}/{i}", match))
    return out


def records_in(folder: str | Path) -> Iterator[tuple[str, Match]]:
    """The finished matches of the ``*.json`` records in a folder (``ginrummy match
    --records DIR``), in name order, each named ``record/FILE``; RecordError for a
    record that cannot be read."""
    for path in sorted(Path(folder).glob("*.json")):
        match = Match.from_record(loads(path.read_text(encoding="utf-8")))
        if not match.is_over():
            raise RecordError(f"{path.name}: the match is not finished.")
        yield f"record/{path.name}", match
