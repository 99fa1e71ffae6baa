"""The ``random`` bot: a uniformly random legal action (a floor for every other bot)."""

from __future__ import annotations

from ..hand import Action, View
from .base import Bot


class RandomBot(Bot):
    """Picks uniformly among the legal actions."""

    name = "random"

    def decide(self, view: View) -> Action:
        """Any legal action, uniformly."""
        return self.rng.choice(view.legal)
