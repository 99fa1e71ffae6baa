"""Scoring a knocked hand (R9), in one place: the bonuses and the points of a showdown.

Every face and bot that needs a hand's points uses these rather than re-stating them.

>>> from ginrummy.melds import showdown
>>> knock_points(showdown("5C 6C 7C JD JH JS 2S 3S 4S 9H", "8C 9C 2D 3D 4D KH KD QC TH AH"))
32
>>> knock_points(showdown("5C 6C 7C JD JH JS 2S 3S 4S 9H", "AC 2C 3C 2D 3D 4D 5H 6H 7H 8S"))
-26
"""

from __future__ import annotations

from .melds import Showdown

__all__ = ["GIN_BONUS", "UNDERCUT_BONUS", "knock_points", "knock_score"]

GIN_BONUS = 25
"""R9: added to the defender's deadwood when the knocker goes gin."""

UNDERCUT_BONUS = 25
"""R9: added to the difference of deadwood when the defender undercuts (or ties)."""


def knock_points(sd: Showdown) -> int:
    """The points a knock scores, from the knocker's side (R9): positive when the knocker
    scores (with :data:`GIN_BONUS` after gin), negative when the defender undercuts, a tie
    included (with :data:`UNDERCUT_BONUS`)."""
    return knock_score(sd.gin, sd.knocker_deadwood, sd.defender_deadwood)


def knock_score(gin: bool, knocker_deadwood: int, defender_deadwood: int) -> int:
    """:func:`knock_points` from the showdown's deadwoods (the defender's after lay-offs);
    whole numbers only, so the compiled hand kernel scores with this very function.

    >>> knock_score(True, 0, 30), knock_score(False, 7, 7), knock_score(False, 3, 20)
    (55, -25, 17)
    """
    if gin:
        return defender_deadwood + GIN_BONUS
    if defender_deadwood <= knocker_deadwood:
        return -(knocker_deadwood - defender_deadwood + UNDERCUT_BONUS)
    return defender_deadwood - knocker_deadwood
