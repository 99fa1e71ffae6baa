"""Table options (R12): target score, gin only, Oklahoma, and the knock limit they imply.

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

__all__ = ["Options", "OptionsError", "TARGETS", "STANDARD_KNOCK_LIMIT"]

TARGETS = (100, 150, 200, 250)
STANDARD_KNOCK_LIMIT = 10


class OptionsError(ValueError):
    """Table options that R12 does not allow."""


@dataclass(frozen=True, slots=True)
class Options:
    """The settings of a table (R12); validated on construction."""

    target: int = 100
    gin_only: bool = False
    oklahoma: bool = False

    def __post_init__(self) -> None:
        if type(self.target) is not int or self.target not in TARGETS:
            raise OptionsError(f"The target must be 100, 150, 200 or 250, not {self.target!r}.")
        for name in ("gin_only", "oklahoma"):
            if not isinstance(getattr(self, name), bool):
                raise OptionsError(f"The option {name!r} must be true or false.")

    def knock_limit(self, upcard: Card) -> int:
        """The hand's knock limit (R6, R12): 10, 0 under gin only, the up-card under Oklahoma."""
        if self.gin_only:
            return 0
        if self.oklahoma:
            return 0 if upcard.rank_index == 0 else upcard.points
        return STANDARD_KNOCK_LIMIT

    def to_json(self) -> dict[str, Any]:
        """The record's ``options`` object."""
        return {"target": self.target, "gin_only": self.gin_only, "oklahoma": self.oklahoma}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | None) -> Options:
        """Read a (possibly partial or absent) ``options`` object; missing keys take defaults."""
        if obj is None:
            return cls()
        if not isinstance(obj, Mapping):
            raise OptionsError("The options must be an object.")
        unknown = set(obj) - {"target", "gin_only", "oklahoma"}
        if unknown:
            raise OptionsError(f"Unknown option: {sorted(unknown)[0]!r}.")
        return cls(
            target=obj.get("target", 100),
            gin_only=obj.get("gin_only", False),
            oklahoma=obj.get("oklahoma", False),
        )
