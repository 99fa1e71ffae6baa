"""An arena's scoring and pairing, as pure functions of its matches and players.

**Scoring** (lichess's arena): a win scores :data:`WIN` (2), a tie :data:`TIE` (1: a gin
match ties only at the hand limit with equal scores), a loss 0. After two wins in a row a
player is *on a streak*: every further match is worth double (a win 4, a tie 2) until the
player fails to win; a tie or a loss ends the streak. An aborted match scores nothing,
counts as no match, and leaves the streak as it was. A match lost on time or by
resignation is a loss like any other.

**Pairing**: players free to play are taken best first (score, then rating); each is
paired with the free player nearest to it (:func:`distance`: score, then rating), never
with the opponent it has just met while another player is free. Two players who just met
and are the only ones free are paired again only when nobody else can become free (no
other match in play) or once both have waited :data:`REMATCH_WAIT` seconds for someone
else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["REMATCH_WAIT", "SCORE_WEIGHT", "STREAK", "TIE", "WIN", "Free", "Game", "Line",
           "choose_pairs", "distance", "ranked", "tally"]

WIN = 2
TIE = 1
STREAK = 2
"""Wins in a row after which every match is worth double, until one is not won."""
SCORE_WEIGHT = 100.0
"""How many rating points one arena point weighs in :func:`distance`."""
REMATCH_WAIT = 10.0
"""Seconds two players who just met wait for someone else before meeting again."""


@dataclass(frozen=True, slots=True)
class Game:
    """An arena match as the standings see it."""

    accounts: tuple[str, str]
    finished: bool
    winner: int | None
    """The winning seat (None: a tie, an abort or not finished)."""
    aborted: bool = False


@dataclass
class Line:
    """A player's standing."""

    account_id: str
    score: int = 0
    matches: int = 0
    wins: int = 0
    streak: int = 0
    """Wins in a row now."""
    results: list[str] = field(default_factory=list)
    """Each counted match in order: ``W``, ``L`` or ``D``."""

    @property
    def on_fire(self) -> bool:
        """Whether the next match is worth double."""
        return self.streak >= STREAK


def tally(games: Iterable[Game], players: Iterable[str]) -> dict[str, Line]:
    """Every player's line from the arena's matches in the order they were made (each
    player plays one match at a time, so this is the order of its results).

    >>> win0 = lambda: Game(("a", "b"), True, 0)
    >>> lines = tally([win0(), win0(), win0(), Game(("a", "b"), True, None)], ["a", "b"])
    >>> lines["a"].score, lines["a"].results, lines["a"].streak, lines["b"].score
    (10, ['W', 'W', 'W', 'D'], 0, 1)
    """
    lines = {a: Line(a) for a in players}
    for g in games:
        if not g.finished or g.aborted:
            continue
        for seat in (0, 1):
            line = lines.setdefault(g.accounts[seat], Line(g.accounts[seat]))
            double = 2 if line.on_fire else 1
            line.matches += 1
            if g.winner is None:
                line.score += TIE * double
                line.streak = 0
                line.results.append("D")
            elif g.winner == seat:
                line.score += WIN * double
                line.wins += 1
                line.streak += 1
                line.results.append("W")
            else:
                line.streak = 0
                line.results.append("L")
    return lines


def ranked(lines: Iterable[Line], ratings: dict[str, float],
           names: dict[str, str]) -> list[Line]:
    """The lines best first: score, then wins, then fewer matches (the same score in
    fewer), then rating, then name."""
    return sorted(lines, key=lambda x: (-x.score, -x.wins, x.matches,
                                        -ratings.get(x.account_id, 0.0),
                                        names.get(x.account_id, x.account_id).casefold()))


@dataclass(frozen=True, slots=True)
class Free:
    """A player free to be paired now."""

    account_id: str
    score: int
    rating: float
    last_opponent: str | None
    since: float
    """When the player became free (its last match ended, or it joined)."""


def distance(a: Free, b: Free) -> float:
    """How far apart two players are for pairing: their scores' difference (weighted by
    :data:`SCORE_WEIGHT`) plus their ratings' difference.

    >>> distance(Free("a", 4, 1500, None, 0), Free("b", 2, 1600, None, 0))
    300.0
    """
    return abs(a.score - b.score) * SCORE_WEIGHT + abs(a.rating - b.rating)


def _just_met(a: Free, b: Free) -> bool:
    return a.last_opponent == b.account_id or b.last_opponent == a.account_id


def choose_pairs(free: Iterable[Free], others_playing: bool, now: float,
                 rematch_wait: float = REMATCH_WAIT) -> list[tuple[Free, Free]]:
    """The pairs to make now among the free players (the better player first), as the
    module docstring says; ``others_playing``: whether some other player of the arena is
    in a match (and may soon be free).

    >>> ps = [Free("a", 4, 1500, "b", 0), Free("b", 4, 1500, "a", 0),
    ...       Free("c", 2, 1500, "d", 0), Free("d", 0, 1500, "c", 0)]
    >>> [(p.account_id, q.account_id) for p, q in choose_pairs(ps, False, 1)]
    [('a', 'c'), ('b', 'd')]
    >>> choose_pairs(ps[:2], True, 1), len(choose_pairs(ps[:2], False, 1))
    ([], 1)
    """
    order = sorted(free, key=lambda p: (-p.score, -p.rating, p.since, p.account_id))
    left = list(order)
    pairs: list[tuple[Free, Free]] = []
    while len(left) >= 2:
        p = left.pop(0)
        fresh = [q for q in left if not _just_met(p, q)]
        if fresh:
            q = min(fresh, key=lambda q: (distance(p, q), q.since))
        else:
            q = min(left, key=lambda q: (distance(p, q), q.since))
            waited = now - max(p.since, q.since)
            if others_playing and waited < rematch_wait:
                continue  # someone else may be free in a moment
        left.remove(q)
        pairs.append((p, q))
    return pairs
