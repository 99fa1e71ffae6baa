"""An arena's scoring and pairing, as pure functions of its matches and players.

**Scoring** (lichess's arena): a win scores :data:`WIN` (2), a tie :data:`TIE` (1: a gin
match ties only at the hand limit with equal scores), a loss 0. After two wins in a row a
player is *on a streak*: every further match is worth double (a win 4, a tie 2) until the
player fails to win; a tie or a loss ends the streak. A match lost on time or by
resignation is a loss like any other. What cannot be farmed (issue 44):

* an aborted match scores nothing and counts as no match; the player who aborted it (or
  let its clock run out before both had moved) loses its streak;
* a win must be played for: a match the loser resigned or lost on time before making
  :data:`MIN_MOVES` moves of its own (a pass, a draw and a discard are one each; the
  moves its clock made for it are not its own) is a loss for the loser and nothing for
  the winner (no points, not counted, its streak as it was), as lichess scores a game
  with too few moves;
* against one opponent, only the first :data:`BEATEN_MOST` wins score: a later win over
  the same player is a loss for the loser and nothing for the winner, so a friend who
  loses on purpose gives at most two wins, however often the two are paired;
* withdrawing ends the player's streak (a match then in play counts as it stood).

**Pairing**: players free to play are taken best first (score, then rating); each is
paired with the free player nearest to it (:func:`distance`: score, then rating), never
with the opponent it has just met while another player is free. Two players who just met
and are the only ones free are paired again only when nobody else can become free (no
other match in play) or once both have waited :data:`REMATCH_WAIT` seconds for someone
else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["BEATEN_MOST", "MIN_MOVES", "REMATCH_WAIT", "SCORE_WEIGHT", "STREAK", "TIE", "WIN",
           "Free", "Game", "Line", "choose_pairs", "distance", "earned", "ranked", "tally"]

WIN = 2
TIE = 1
STREAK = 2
"""Wins in a row after which every match is worth double, until one is not won."""
SCORE_WEIGHT = 100.0
"""How many rating points one arena point weighs in :func:`distance`."""
REMATCH_WAIT = 10.0
"""Seconds two players who just met wait for someone else before meeting again."""
MIN_MOVES = 6
"""Moves of its own (about three turns) a loser who resigned or ran out of time must have
made for the win over it to score."""
BEATEN_MOST = 2
"""Wins over one opponent that score, per player and arena."""
QUITS = ("resigned", "timeout")
"""The endings by which the loser quits (the others are played out)."""


@dataclass(frozen=True, slots=True)
class Game:
    """An arena match as the standings see it."""

    accounts: tuple[str, str]
    finished: bool
    winner: int | None
    """The winning seat (None: a tie, an abort or not finished)."""
    aborted: bool = False
    end: str | None = None
    """How it ended (the record's ``end``: ``resigned``, ``timeout``, ...), None in play."""
    ended_by: int | None = None
    """The seat that aborted, resigned or ran out of time (None: no one did)."""
    loser_moves: int | None = None
    """The moves the seat that resigned or ran out of time made itself (None: unknown,
    counted as enough)."""
    created_at: float = 0.0
    """When it was made (a withdrawal between two matches ends the streak)."""


def earned(g: Game) -> bool:
    """Whether a finished game's win was played for: not quit (resigned, lost on time) by
    the loser before it made :data:`MIN_MOVES` moves of its own.

    >>> earned(Game(("a", "b"), True, 0, end="resigned", ended_by=1, loser_moves=1))
    False
    >>> earned(Game(("a", "b"), True, 0, end="resigned", ended_by=1, loser_moves=6))
    True
    """
    return not (g.end in QUITS and g.loser_moves is not None and g.loser_moves < MIN_MOVES)


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


def tally(games: Iterable[Game], players: Iterable[str],
          withdrawals: Mapping[str, Sequence[float]] | None = None) -> dict[str, Line]:
    """Every player's line from the arena's matches in the order they were made (each
    player plays one match at a time, so this is the order of its results), under the
    rules of the module docstring; ``withdrawals``: when each player withdrew (each ends
    its streak).

    >>> win = lambda w, l: Game((w, l), True, 0)
    >>> lines = tally([win("a", "b"), win("a", "c"), win("a", "b"),
    ...                Game(("a", "c"), True, None)], ["a", "b", "c"])
    >>> lines["a"].score, lines["a"].results, lines["a"].streak, lines["c"].score
    (10, ['W', 'W', 'W', 'D'], 0, 1)
    """
    lines = {a: Line(a) for a in players}
    breaks = {a: sorted(ts) for a, ts in (withdrawals or {}).items()}
    last: dict[str, float] = {}
    beaten: dict[tuple[str, str], int] = {}
    for g in games:
        for who in g.accounts:
            line = lines.setdefault(who, Line(who))
            if any(last.get(who, float("-inf")) < t <= g.created_at
                   for t in breaks.get(who, ())):
                line.streak = 0  # withdrew since its last match
            last[who] = g.created_at
        if not g.finished:
            continue
        if g.aborted:
            if g.ended_by in (0, 1):
                lines[g.accounts[g.ended_by]].streak = 0
            continue
        if g.winner is None:
            for who in g.accounts:
                _count(lines[who], "D")
            continue
        winner, loser = g.accounts[g.winner], g.accounts[1 - g.winner]
        _count(lines[loser], "L")
        if earned(g) and beaten.get((winner, loser), 0) < BEATEN_MOST:
            beaten[(winner, loser)] = beaten.get((winner, loser), 0) + 1
            _count(lines[winner], "W")
    for who, ts in breaks.items():  # withdrew after its last match
        if who in lines and ts and ts[-1] > last.get(who, float("-inf")):
            lines[who].streak = 0
    return lines


def _count(line: Line, result: str) -> None:
    """Add one counted result (``W``, ``D`` or ``L``) to a line: its points (doubled on a
    streak) and the streak after it."""
    double = 2 if line.on_fire else 1
    line.matches += 1
    line.results.append(result)
    if result == "W":
        line.score += WIN * double
        line.wins += 1
        line.streak += 1
    elif result == "D":
        line.score += TIE * double
        line.streak = 0
    else:
        line.streak = 0


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
                 rematch_wait: float = REMATCH_WAIT,
                 apart: frozenset[frozenset[str]] = frozenset()) -> list[tuple[Free, Free]]:
    """The pairs to make now among the free players (the better player first), as the
    module docstring says; ``others_playing``: whether some other player of the arena is
    in a match (and may soon be free); ``apart``: pairs of accounts never to pair (one
    blocked the other).

    >>> ps = [Free("a", 4, 1500, "b", 0), Free("b", 4, 1500, "a", 0),
    ...       Free("c", 2, 1500, "d", 0), Free("d", 0, 1500, "c", 0)]
    >>> [(p.account_id, q.account_id) for p, q in choose_pairs(ps, False, 1)]
    [('a', 'c'), ('b', 'd')]
    >>> choose_pairs(ps[:2], True, 1), len(choose_pairs(ps[:2], False, 1))
    ([], 1)
    >>> choose_pairs(ps[:2], False, 1, apart=frozenset({frozenset("ab")}))
    []
    """
    order = sorted(free, key=lambda p: (-p.score, -p.rating, p.since, p.account_id))
    left = list(order)
    pairs: list[tuple[Free, Free]] = []
    while len(left) >= 2:
        p = left.pop(0)
        allowed = [q for q in left if frozenset((p.account_id, q.account_id)) not in apart]
        if not allowed:
            continue
        fresh = [q for q in allowed if not _just_met(p, q)]
        if fresh:
            q = min(fresh, key=lambda q: (distance(p, q), q.since))
        else:
            q = min(allowed, key=lambda q: (distance(p, q), q.since))
            waited = now - max(p.since, q.since)
            if others_playing and waited < rematch_wait:
                continue  # someone else may be free in a moment
        left.remove(q)
        pairs.append((p, q))
    return pairs
