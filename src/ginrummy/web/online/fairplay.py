"""The rules that keep rated play fair: what a rated result is worth, and how long a player
who keeps aborting or leaving rated matches waits before the next one. Pure functions
(no I/O); docs/web-api.md ("What is rated") states the same rules for players.

**What a result moves** (:func:`rated_result`). Both ratings follow Glicko-2
(:func:`ginrummy.ratings.match_update`), except:

* a result against an opponent whose rating is *provisional* (its deviation above
  :data:`~ginrummy.ratings.SETTLED_DEVIATION`: a new account, or one back after a long
  time) moves your rating by at most :data:`CAP` points: a fresh account's big Glicko-2
  moves are its own, never a gift to whoever it plays (fresh alts farm nothing);
* a result between two players from one address (two browsers on one machine, one
  household), or between two accounts that have used one browser, moves each rating by
  at most :data:`CAP` points, however the match was made: two seeks, a challenge and its
  acceptor, two arena players (each as it last joined);
* only the first result between two accounts in :data:`PAIR_WINDOW` seconds moves their
  ratings; later ones are settled with no change ("not rated: repeated pairing").

The deviation and volatility follow Glicko-2 in every rated result (the match was played),
so accounts that only ever met provisional opponents still settle.

**Waits** (:func:`wait_seconds`). Aborting a rated match (or resigning before both players
moved) and leaving one (losing it to the clock) are offences; :data:`FREE` of them in
:data:`OFFENCE_WINDOW` cost nothing, and each one beyond makes the account wait
:data:`WAITS` (5 min, 15 min, 1 h, then 3 h each) from that offence before its next rated
match, as lichess's playban escalates: meanwhile it may not seek one, make or accept a
rated challenge, or join or be paired in a rated arena.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...i18n import tn
from ...ratings import SETTLED_DEVIATION, Rating, match_update

__all__ = ["CAP", "FREE", "OFFENCE_WINDOW", "PAIR_WINDOW", "REPEATED", "WAITS", "capped",
           "provisional", "rated_result", "wait_seconds", "wait_sentence"]

CAP = 5.0
"""The most a result moves a rating against a provisional opponent, or between two players
from one address or browser (rating points)."""
PAIR_WINDOW = 24 * 3600.0
"""Only the first result between two accounts in this many seconds moves ratings."""
REPEATED = "repeated pairing"
"""The note of a rated match settled with no change because its pair had met already."""
OFFENCE_WINDOW = 24 * 3600.0
"""Offences older than this are forgotten."""
FREE = 2
"""Offences within the window that cost no wait."""
WAITS = (5 * 60.0, 15 * 60.0, 60 * 60.0, 3 * 3600.0)
"""The wait after the 3rd, 4th, 5th and each later offence within the window (seconds)."""


def provisional(r: Rating) -> bool:
    """Whether a rating is still provisional (not yet settled)."""
    return r.deviation > SETTLED_DEVIATION


def capped(old: Rating, new: Rating, cap: float = CAP) -> Rating:
    """``new`` with its rating moved from ``old`` by at most ``cap`` points (its deviation
    and volatility as they are).

    >>> capped(Rating(1500, 350), Rating(1662, 290)).rating
    1505.0
    """
    delta = max(-cap, min(cap, new.rating - old.rating))
    return Rating(old.rating + delta, new.deviation, new.volatility)


def rated_result(a: Rating, b: Rating, score_a: float, same_address: bool = False
                 ) -> tuple[Rating, Rating]:
    """Both new ratings after a rated result counted under the rules above (``score_a``:
    1, 0.5 or 0; the pair rule is the caller's, who knows the pair's history).

    >>> a, b = rated_result(Rating(), Rating(), 1.0)  # two fresh accounts
    >>> round(a.rating, 1), round(b.rating, 1)
    (1505.0, 1495.0)
    """
    new_a, new_b = match_update(a, b, score_a)
    if same_address or provisional(b):
        new_a = capped(a, new_a)
    if same_address or provisional(a):
        new_b = capped(b, new_b)
    return new_a, new_b


def wait_seconds(offences: Sequence[float], now: float) -> float:
    """How long an account with offences at these times (Unix seconds) must still wait
    before a rated seek (0: it may seek now).

    >>> wait_seconds([0.0, 10.0], 20.0), wait_seconds([0.0, 10.0, 20.0], 30.0)
    (0.0, 290.0)
    """
    recent = sorted(t for t in offences if now - t < OFFENCE_WINDOW)
    if len(recent) <= FREE:
        return 0.0
    wait = WAITS[min(len(recent) - FREE, len(WAITS)) - 1]
    return max(0.0, recent[-1] + wait - now)


def wait_sentence(offences: int, seconds: float, doing: str = "seek a rated match") -> str:
    """The refusal of a rated seek (or of ``doing``: ``"play a rated match"`` for a
    challenge or an arena) during a wait: one sentence, in whole minutes.

    >>> wait_sentence(3, 61, "play a rated match").split(": ")[1]
    'you can play a rated match again in 2 minutes (casual matches are open now).'
    """
    minutes = max(1, int(-(-seconds // 60)))
    # one whole sentence for each thing refused, in the language of the moment
    if doing == "seek a rated match":
        return tn("You aborted or left {offences} rated matches in the last 24 hours: you "
                  "can seek a rated match again in {n} minute (casual matches are open "
                  "now).",
                  "You aborted or left {offences} rated matches in the last 24 hours: you "
                  "can seek a rated match again in {n} minutes (casual matches are open "
                  "now).", minutes, offences=str(offences))
    if doing == "play a rated match":
        return tn("You aborted or left {offences} rated matches in the last 24 hours: you "
                  "can play a rated match again in {n} minute (casual matches are open "
                  "now).",
                  "You aborted or left {offences} rated matches in the last 24 hours: you "
                  "can play a rated match again in {n} minutes (casual matches are open "
                  "now).", minutes, offences=str(offences))
    return (f"You aborted or left {offences} rated matches in the last 24 hours: you can "
            f"{doing} again in {minutes} minute{'s' if minutes != 1 else ''} "
            "(casual matches are open now).")
