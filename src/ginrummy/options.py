"""Table options (R12): target score, gin only, Oklahoma, and the knock limit they imply;
and, for events that play a fixed number of hands (the web's daily deal), a lower hand
limit than R10's 60.

>>> Options(target=150).knock_limit(Card.parse("5H"))
10
>>> okla = Options(oklahoma=True)
>>> okla.knock_limit(Card.parse("5H")), okla.knock_limit(Card.parse("AH"))
(5, 0)
>>> Options(target=120)
Traceback (most recent call last):
...
ginrummy.options.OptionsError: The target must be 100, 150, 200 or 250, not 120.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import Card

__all__ = ["MAX_HANDS", "Options", "OptionsError", "TARGETS", "STANDARD_KNOCK_LIMIT"]

TARGETS = (100, 150, 200, 250)
STANDARD_KNOCK_LIMIT = 10
MAX_HANDS = 60
"""R10's hand limit: every match stops after this many hands (``hands`` may lower it)."""


class OptionsError(ValueError):
    """Table options that R12 does not allow."""


@dataclass(frozen=True, slots=True)
class Options:
    """The settings of a table (R12); validated on construction."""

    target: int = 100
    gin_only: bool = False
    oklahoma: bool = False
    hands: int | None = None
    """The match stops after this many hands (R10's limit lowered; every hand dealt
    counts, dead ones too): the leader wins, an exact tie has no winner, and the record's
    ``end`` is ``hand-cap``. None: R10's 60. Not an R12 table option: only events that
    play a fixed number of hands set it (the daily deal), and it is written in the
    record's ``options`` only when set."""

    def __post_init__(self) -> None:
        if type(self.target) is not int or self.target not in TARGETS:
            raise OptionsError(f"The target must be 100, 150, 200 or 250, not {self.target!r}.")
        for name in ("gin_only", "oklahoma"):
            if not isinstance(getattr(self, name), bool):
                raise OptionsError(f"The option {name!r} must be true or false.")
        if self.hands is not None and (type(self.hands) is not int
                                       or not 1 <= self.hands <= MAX_HANDS):
            raise OptionsError(f"'hands' must be a whole number from 1 to {MAX_HANDS}, "
                               f"not {self.hands!r}.")

    @property
    def hand_limit(self) -> int:
        """How many hands the match may last: ``hands``, else R10's 60.

        >>> Options().hand_limit, Options(hands=3).hand_limit
        (60, 3)
        """
        return self.hands if self.hands is not None else MAX_HANDS

    def knock_limit(self, upcard: Card) -> int:
        """The hand's knock limit (R6, R12): 10, 0 under gin only, the up-card under Oklahoma."""
        if self.gin_only:
            return 0
        if self.oklahoma:
            return 0 if upcard.rank_index == 0 else upcard.points
        return STANDARD_KNOCK_LIMIT

    def to_json(self) -> dict[str, Any]:
        """The record's ``options`` object (``hands`` only when set)."""
        out: dict[str, Any] = {"target": self.target, "gin_only": self.gin_only,
                               "oklahoma": self.oklahoma}
        if self.hands is not None:
            out["hands"] = self.hands
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | None) -> Options:
        """Read a (possibly partial or absent) ``options`` object; missing keys take defaults."""
        if obj is None:
            return cls()
        if not isinstance(obj, Mapping):
            raise OptionsError("The options must be an object.")
        unknown = set(obj) - {"target", "gin_only", "oklahoma", "hands"}
        if unknown:
            raise OptionsError(f"Unknown option: {sorted(unknown)[0]!r}.")
        return cls(
            target=obj.get("target", 100),
            gin_only=obj.get("gin_only", False),
            oklahoma=obj.get("oklahoma", False),
            hands=obj.get("hands"),
        )
