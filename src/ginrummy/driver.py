"""One play driver: ask the seat to play for its move, check it, play it, and tell both
seats when a hand ends (R11: each sees only its own view). Tables that let programs play
(the match runner, a terminal's bot, an RL opponent) share this loop and choose only what
to do when a player fails, through a policy.

A failure is anything a player does wrong: raising, or answering with an action that is
not legal now (:class:`IllegalAnswerError`). The policy sees it and either names an action
to play instead, or returns None: the match stops there and that seat forfeits.

>>> import random
>>> from ginrummy.match import Match
>>> class Uniform:
...     def __init__(self, seed): self.rng = random.Random(seed)
...     def decide(self, view): return self.rng.choice(view.legal)
...     def hand_over(self, view, result=None): pass
>>> d = Driver(Match(seed=5), [Uniform(1), Uniform(2)])
>>> d.run() is None, d.match.is_over()
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .actions import Action, IllegalActionError
from .hand import Hand
from .match import Match
from .view import HandResult, View

__all__ = [
    "Driver",
    "Failure",
    "IllegalAnswerError",
    "Player",
    "Policy",
    "forfeit",
    "play_instead",
    "reraise",
]


class Player(Protocol):
    """Whatever plays a seat: a bot, a program behind the bot protocol, a person's
    adapter. It sees its seat's view only (R11)."""

    def decide(self, view: View) -> Action:
        """One of ``view.legal``."""
        ...

    def hand_over(self, view: View, result: HandResult | None = None) -> None:
        """The seat's final view of a hand that just ended, with its result."""
        ...


class IllegalAnswerError(IllegalActionError):
    """A player answered with an action that is not one of the legal actions now."""

    def __init__(self, action: object) -> None:
        shown = str(action) if isinstance(action, Action) else repr(action)
        super().__init__(f"chose {shown!r}, which is not legal.")
        self.action = action


@dataclass(frozen=True)
class Failure:
    """A player's failure: the seat, what it raised (or :class:`IllegalAnswerError`), and
    whether it happened deciding or being told the hand was over."""

    seat: int
    error: Exception
    during: str  # "decide" or "hand_over"


Policy = Callable[[Failure, View], Action | None]
"""What to do about a failure: an action to play instead (for a failed decision; after a
failed ``hand_over`` any action means "go on"), or None to stop the match: that seat
forfeits."""


def forfeit(failure: Failure, view: View) -> Action | None:
    """The match runner's policy: a failing player loses the match at once."""
    return None


def reraise(failure: Failure, view: View) -> Action | None:
    """Raise the player's error (tests, and tables that handle it themselves)."""
    raise failure.error


def play_instead(choose: Callable[[View], Action]) -> Policy:
    """A policy that plays ``choose(view)`` for a failed decision and ignores a failed
    ``hand_over`` (an RL opponent, say, should never end the episode)."""

    def policy(failure: Failure, view: View) -> Action | None:
        return choose(view) if failure.during == "decide" else _GO_ON

    return policy


_GO_ON = Action("pass")  # any action: "go on" after a failed hand_over


class Driver:
    """Plays ``match`` between ``players`` (seat 0, seat 1) until it ends or a player's
    failure stops it.

    ``on_decision(seat, seconds)`` hears how long each decision took (by ``clock``);
    ``on_hand_over(hand)`` hears of each finished hand before the players do.
    """

    def __init__(
        self,
        match: Match,
        players: Sequence[Player],
        *,
        on_failure: Policy = forfeit,
        on_decision: Callable[[int, float], None] | None = None,
        on_hand_over: Callable[[Hand], None] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if len(players) != 2:
            raise ValueError(f"A match has two players, not {len(players)}.")
        self.match = match
        self.players = tuple(players)
        self.on_failure = on_failure
        self.on_decision = on_decision
        self.on_hand_over = on_hand_over
        self.clock = clock
        self.failure: Failure | None = None
        """The failure that stopped the match, if one did."""

    def is_done(self) -> bool:
        """Whether the match is over or a failure stopped it."""
        return self.failure is not None or self.match.is_over()

    def step(self) -> bool:
        """Play one decision (and tell both seats if it ended the hand); False once done."""
        if self.is_done():
            return False
        hand = self.match.hand
        seat = hand.to_play
        if seat is None:  # a hand over and the next not dealt (a match without auto-deal)
            self.match.start_hand()
            return True
        view = hand.view(seat)
        player = self.players[seat]
        try:
            t0 = self.clock()
            action = player.decide(view)
            if self.on_decision is not None:
                self.on_decision(seat, self.clock() - t0)
            if action not in view.legal:
                raise IllegalAnswerError(action)
        except Exception as e:  # noqa: BLE001 - any failure of a player goes to the policy
            failure = Failure(seat, e, "decide")
            replacement = self.on_failure(failure, view)
            if replacement is None or replacement not in view.legal:
                self.failure = failure
                return False
            action = replacement
        self.match.play(action, seat)
        if hand.result is not None:
            if self.on_hand_over is not None:
                self.on_hand_over(hand)
            for s in (0, 1):
                final = hand.view(s)
                try:
                    self.players[s].hand_over(final, hand.result)
                except Exception as e:  # noqa: BLE001 - as above
                    failure = Failure(s, e, "hand_over")
                    if self.on_failure(failure, final) is None:
                        self.failure = failure
                        return False
        return not self.is_done()

    def run(self) -> Failure | None:
        """Play until the match ends (None) or a failure stops it (that failure)."""
        while self.step():
            pass
        return self.failure
