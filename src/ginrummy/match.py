"""A match (R10): hands until a target score or the 60-hand limit, with dealer rotation.

A match owns a seeded RNG (same seed, same deals) or takes explicit deals for tests.

>>> m = Match(seed=7)
>>> m.hand.phase, m.scores
(<Phase.OFFER: 'offer'>, (0, 0))
>>> import random
>>> rng = random.Random(0)
>>> while not m.is_over():
...     _ = m.play(rng.choice(m.legal_actions()))
>>> m.outcome().winner in (0, 1, None)
True
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from itertools import tee
from typing import Any

from .cards import CardError
from .hand import Action, Deal, DealError, Hand, HandResult, IllegalActionError, Operation, View
from .options import MAX_HANDS, Options, OptionsError

__all__ = ["END_OF", "FORMAT", "HAND_LIMIT", "TIMEOUT_LIMIT", "Match", "MatchOverError",
           "NothingToUndoError", "Outcome", "RecordError", "Termination", "loads"]

HAND_LIMIT = MAX_HANDS
"""R10: every match stops after 60 hands (``Options.hands`` may lower it)."""

TIMEOUT_LIMIT = 3
"""Turns in a row that a seat may lose to its clock: the next one loses the match."""


class MatchOverError(IllegalActionError):
    """An action after the match has ended (R10)."""


class NothingToUndoError(IllegalActionError, IndexError):
    """:meth:`Match.pop` on a match with nothing to take back (no action, deal or ending
    since it was made). A ``ValueError`` like every refusal of the rules, and an
    ``IndexError`` like popping an empty list (python-chess's ``Board.pop``)."""


class Termination(StrEnum):
    """Why a match ended: a player reached the target or the hand limit came (R10), a
    player resigned, a player lost :data:`TIMEOUT_LIMIT` turns in a row to the clock, or
    the match was aborted (no result): before the first hand's first discard, or before
    both players had moved."""

    TARGET = "target"
    HAND_LIMIT = "hand_limit"
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    ABORTED = "aborted"

    def __str__(self) -> str:
        return self.value


END_OF: dict[Termination, str] = {
    Termination.TARGET: "target",
    Termination.HAND_LIMIT: "hand-cap",
    Termination.RESIGNED: "resigned",
    Termination.TIMEOUT: "timeout",
    Termination.ABORTED: "aborted",
}
"""The record's ``end`` member for each way a match ends (docs/records.md)."""

FORMAT = "ginrummy/1"
"""The record format a :class:`Match` writes and reads (docs/records.md)."""
_ENDS = {v: k for k, v in END_OF.items()}
"""The record's ``end`` values and the ending each names."""


class RecordError(ValueError):
    """A record that is malformed or breaks the rules; says where (0-based indexes)."""

    def __init__(self, message: str, hand: int | None = None, action: int | None = None):
        super().__init__(message)
        self.message = message
        self.hand = hand
        self.action = action

    def to_json(self) -> dict[str, Any]:
        """The ``error`` member of ``replay --json`` (docs/records.md)."""
        return {"hand": self.hand, "action": self.action, "message": self.message}


def loads(text: str | bytes) -> Any:
    """Parse record JSON text, turning syntax errors into RecordError."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordError(f"The record is not valid JSON: {e}.") from None
    except RecursionError:
        raise RecordError("The record is not valid JSON: it is nested too deeply.") from None


def _is_seat(value: Any) -> bool:
    """Whether a JSON value is seat 0 or 1 (an integer, not a boolean or float)."""
    return type(value) is int and value in (0, 1)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a match ended: the winner (None for a tie at the hand limit), scores, and why."""

    winner: int | None
    scores: tuple[int, int]
    hands: int
    reason: Termination
    by: int | None = None
    """The seat that resigned, lost on time or aborted (None for the other endings, and
    for an abort nobody is named for)."""

    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2`` as in chess (an aborted match: ``*``)."""
        if self.reason is Termination.ABORTED:
            return "*"
        return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[self.winner]

    @property
    def end(self) -> str:
        """The record's ``end`` member: ``target``, ``hand-cap``, ``resigned``,
        ``timeout`` or ``aborted``."""
        return END_OF[self.reason]


@dataclass(frozen=True, slots=True)
class _Played:
    """An action that changed the timeout counts: what they were before it."""

    timeouts: tuple[int, int]


@dataclass(frozen=True, slots=True)
class _Dealt:
    """A deal: ``drawn`` when its cards came from the supplied deals or the RNG (not given
    to :meth:`Match.start_hand`), ``auto`` when the action before it dealt it (auto-deal)."""

    drawn: bool
    auto: bool


_PLAYED = _Played((0, 0))
"""The undo entry of an action that left the timeout counts at zero as they were (most)."""


class _Ended:
    """The undo entry of a resignation or an abort."""

    __slots__ = ()


_ENDED = _Ended()
_DEALS = {(drawn, auto): _Dealt(drawn, auto) for drawn in (False, True) for auto in (False, True)}
_Undo = _Played | _Dealt | _Ended


class Match:
    """A whole match under the table ``options`` (R10, R12).

    ``deals`` (optional) supplies the deal of each hand in turn; when absent or used up,
    deals come from the match RNG seeded by ``seed``. ``first_dealer`` defaults to a
    draw from that RNG (R3). With ``auto_deal=False`` the next hand waits for
    :meth:`start_hand` (used to replay records).

    :meth:`pop` takes back the last operation (an action, a deal, a resignation or an
    abort), as python-chess's ``Board.pop`` does:

    >>> m = Match(seed=1)
    >>> before = m.to_record()
    >>> _ = m.play(m.legal_actions()[0]); _ = m.resign(0)
    >>> m.pop().reason, m.is_over()
    (<Termination.RESIGNED: 'resigned'>, False)
    >>> m.pop().action, m.to_record() == before
    (Action(act='pass'), True)
    >>> m.pop()
    Traceback (most recent call last):
    ...
    ginrummy.match.NothingToUndoError: There is nothing to take back.
    """

    def __init__(
        self,
        options: Options | None = None,
        seed: int | None = None,
        first_dealer: int | None = None,
        deals: Iterable[Deal] | None = None,
        players: tuple[str, str] | None = None,
        auto_deal: bool = True,
    ) -> None:
        self.options = options or Options()
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        self.seed: int | None = seed
        self.players = players
        self._rng = random.Random(seed)
        if first_dealer is None:
            first_dealer = self._rng.randrange(2)
        elif first_dealer not in (0, 1):
            raise ValueError(f"The first dealer must be seat 0 or 1, not {first_dealer!r}.")
        self.first_dealer = first_dealer
        self._deals: Iterator[Deal] | None = iter(deals) if deals is not None else None
        self.hands: list[Hand] = []
        self._scores = [0, 0]
        self._outcome: Outcome | None = None
        self._timeouts = [0, 0]
        self._timed_out: set[tuple[int, int]] = set()
        self._first_own: list[tuple[int, int] | None] = [None, None]
        """Each seat's first decision of its own (hand, index): see has_moved."""
        self._undo: list[_Undo] = []  # one entry per operation, for pop()
        self._redeal: list[Deal] = []  # drawn deals taken back: dealt again first
        self.auto_deal = auto_deal
        if auto_deal:
            self.start_hand()
            self._undo.clear()  # dealing the first hand is part of making the match

    # ------------------------------------------------------------------ state

    @property
    def scores(self) -> tuple[int, int]:
        """Both players' totals (R10: plain sums of hand scores)."""
        return (self._scores[0], self._scores[1])

    @property
    def hand(self) -> Hand:
        """The current (or last) hand."""
        if not self.hands:
            raise IllegalActionError("No hand has been dealt yet.")
        return self.hands[-1]

    @property
    def to_play(self) -> int | None:
        """The seat to act now, or None between hands or after the match."""
        return self.hands[-1].to_play if self.hands and not self.is_over() else None

    def next_dealer(self) -> int:
        """Who deals the next hand (R7: the same dealer after a dead hand; R10: else the
        other player)."""
        if not self.hands:
            return self.first_dealer
        last = self.hands[-1]
        if last.result is None:
            raise IllegalActionError("The current hand is not over.")
        return last.dealer if last.result.result == "dead" else 1 - last.dealer

    def is_over(self) -> bool:
        """Whether the match has ended (R10)."""
        return self._outcome is not None

    def outcome(self) -> Outcome | None:
        """The match result once it is over, else None."""
        return self._outcome

    @property
    def winner(self) -> int | None:
        """The winning seat once over (None for a tie or while playing)."""
        return self._outcome.winner if self._outcome else None

    @property
    def timeouts(self) -> tuple[int, int]:
        """Each seat's turns lost to the clock in a row (see :meth:`play`)."""
        return (self._timeouts[0], self._timeouts[1])

    def timed_out(self, hand: int, index: int) -> bool:
        """Whether action ``index`` of hand ``hand`` was played for its seat on timeout."""
        return (hand, index) in self._timed_out

    def awaiting_deal(self) -> bool:
        """Whether the last hand is over and the next one has not been dealt."""
        return not self.is_over() and (not self.hands or self.hands[-1].is_over())

    def results(self) -> list[HandResult | None]:
        """Each dealt hand's result (None while a hand is unfinished)."""
        return [h.result for h in self.hands]

    # ------------------------------------------------------------------ play

    def start_hand(self, deal: Deal | None = None, dealer: int | None = None) -> Hand:
        """Deal the next hand (from ``deal``, the supplied deals, or the RNG)."""
        if self.is_over():
            raise MatchOverError("The match is over.")
        if self.hands and not self.hands[-1].is_over():
            raise IllegalActionError("The current hand is not over.")
        expected = self.next_dealer()
        if dealer is not None and dealer != expected:
            raise IllegalActionError(f"Seat {expected} deals this hand, not seat {dealer}.")
        return self._deal(deal, expected, auto=False)

    def _deal(self, deal: Deal | None, dealer: int, auto: bool) -> Hand:
        drawn = deal is None
        if deal is None:
            if self._redeal:
                deal = self._redeal.pop()
            elif self._deals is not None:
                deal = next(self._deals, None)
        if deal is None:
            deal = Deal.shuffled(self._rng)
        hand = Hand(deal, dealer, self.options, len(self.hands), self.scores)
        self.hands.append(hand)
        self._undo.append(_DEALS[drawn, auto])
        return hand

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the player to move (empty between hands or when over)."""
        if self.is_over() or not self.hands:
            return ()
        return self.hands[-1].legal_actions()

    def verify(self, action: Action, seat: int | None = None) -> None:
        """Raise the reason ``action`` is not allowed now."""
        if self.is_over():
            raise MatchOverError("The match is over.")
        self.hand.verify(action, seat)

    def can_play(self, action: Action, seat: int | None = None) -> bool:
        """Whether ``action`` is allowed now."""
        try:
            self.verify(action, seat)
        except IllegalActionError:
            return False
        return True

    def play(self, action: Action, seat: int | None = None, timeout: bool = False) -> Operation:
        """Apply an action to the current hand; score it and deal on when it ends.

        ``timeout``: the action was played for its seat because the seat's clock ran out
        (the safe move a table makes). A turn that ends on timeout (a pass or a discard)
        counts against the seat; any action the seat plays itself starts the count again;
        the seat that loses :data:`TIMEOUT_LIMIT` turns in a row to the clock loses the
        match (the scores stand as they are, R10).
        """
        if self.is_over():
            raise MatchOverError("The match is over.")
        hand = self.hand
        index = len(hand.history)
        t0, t1 = self._timeouts
        op = hand.play(action, seat)
        self._undo.append(_PLAYED if not (t0 or t1 or timeout) else _Played((t0, t1)))
        lost = False
        if timeout:
            self._timed_out.add((len(self.hands) - 1, index))
            if action.act != "draw":  # the turn ended on timeout
                self._timeouts[op.seat] += 1
                lost = self._timeouts[op.seat] >= TIMEOUT_LIMIT
        else:
            if self._first_own[op.seat] is None:
                self._first_own[op.seat] = (len(self.hands) - 1, index)
            if self._timeouts[op.seat]:
                self._timeouts[op.seat] = 0
        if hand.result is not None:
            self._hand_over(hand.result, deal=not lost)
        if lost and not self.is_over():
            self._finish(1 - op.seat, Termination.TIMEOUT, op.seat)
        return op

    def resign(self, seat: int) -> Outcome:
        """``seat`` resigns: the other seat wins the match at once, the scores as they
        stand (R10 scoring is otherwise unchanged). Allowed at any time until the end."""
        if seat not in (0, 1):
            raise ValueError(f"A seat is 0 or 1, not {seat!r}.")
        if self.is_over():
            raise MatchOverError("The match is over.")
        return self._finish(1 - seat, Termination.RESIGNED, seat)

    def has_moved(self, seat: int) -> bool:
        """Whether ``seat`` has made a decision of its own (a pass, a draw, a discard...):
        an action the table played for it on timeout is not its own."""
        return self._first_own[seat] is not None

    def can_abort(self, seat: int | None = None) -> bool:
        """Whether the match may still be aborted. With ``seat``: only before that seat's
        own first move (a pass or a draw is a move; a move played for it on timeout is
        not). Without: before the first hand's first discard, or while either seat has
        not moved yet (what a record's ``"end": "aborted"`` must satisfy)."""
        if self.is_over():
            return False
        if seat is not None:
            return not self.has_moved(seat)
        if not (self.has_moved(0) and self.has_moved(1)):
            return True
        if len(self.hands) > 1:
            return False
        return not self.hands or all(op.action.act != "discard" for op in self.hands[0].history)

    def abort(self, seat: int | None = None) -> Outcome:
        """End the match with no result (no winner): before the first hand's first
        discard, or while a seat has not moved yet (:meth:`can_abort`); ``seat``, if
        given, is who aborted (the outcome's ``by``; the rule is the same). Raises
        IllegalActionError after that."""
        if self.is_over():
            raise MatchOverError("The match is over.")
        if not self.can_abort():
            raise IllegalActionError(
                "Too late to abort: the first hand's first discard has been made.")
        if seat is not None and seat not in (0, 1):
            raise ValueError(f"A seat is 0 or 1, not {seat!r}.")
        return self._finish(None, Termination.ABORTED, seat)

    def _finish(self, winner: int | None, reason: Termination, by: int | None) -> Outcome:
        self._outcome = Outcome(winner, self.scores, len(self.hands), reason, by)
        if reason is Termination.RESIGNED or reason is Termination.ABORTED:
            self._undo.append(_ENDED)  # (a loss on time is part of its action)
        return self._outcome

    def _hand_over(self, result: HandResult, deal: bool = True) -> None:
        if result.scorer is not None:
            self._scores[result.scorer] += result.points
        target = self.options.target
        s0, s1 = self._scores
        if s0 >= target or s1 >= target:
            self._outcome = Outcome(0 if s0 > s1 else 1, self.scores, len(self.hands),
                                    Termination.TARGET)
        elif len(self.hands) >= self.options.hand_limit:
            winner = None if s0 == s1 else (0 if s0 > s1 else 1)
            self._outcome = Outcome(winner, self.scores, len(self.hands),
                                    Termination.HAND_LIMIT)
        elif self.auto_deal and deal:
            self._deal(None, self.next_dealer(), auto=True)

    def pop(self) -> Operation | Hand | Outcome:
        """Take back the last operation, restoring the match exactly as it was before it:
        the hands and their histories, the scores, the outcome, the timeout counts and
        marks (so :meth:`has_moved` and :meth:`can_abort` too) and the deals to come.
        Returns what was taken back: an action's :class:`Operation` (with the hand an
        auto-dealing match dealt after it, and a loss on time it caused), a deal's
        :class:`Hand`, or a resignation's or an abort's :class:`Outcome`. Raises
        :class:`NothingToUndoError` when there is nothing to take back (the first hand a
        match deals as it is made is part of making it). Views taken before keep what
        they showed; a :meth:`copy` is not changed.
        """
        undo = self._undo
        if not undo:
            raise NothingToUndoError("There is nothing to take back.")
        entry = undo.pop()
        if isinstance(entry, _Ended):
            outcome = self._outcome
            assert outcome is not None
            self._outcome = None
            return outcome
        if isinstance(entry, _Dealt):
            hand = self.hands.pop()
            if entry.drawn:
                self._redeal.append(hand.deal)  # the same deal comes next, as before
            if not entry.auto:
                return hand
            entry = undo.pop()  # and the action whose hand's end dealt it
        assert isinstance(entry, _Played)
        hand = self.hands[-1]
        result = hand.result
        if result is not None:
            # the action ended the hand: its points come off, and finished hands may be
            # shared with copies (see copy), so this one is taken back on a copy
            if result.scorer is not None:
                self._scores[result.scorer] -= result.points
            hand = self.hands[-1] = hand.copy()
        at = (len(self.hands) - 1, len(hand.history) - 1)
        self._timed_out.discard(at)
        first = self._first_own
        if first[0] == at:
            first[0] = None  # (the last action was a seat's first own: it had no other)
        elif first[1] == at:
            first[1] = None
        self._timeouts[:] = entry.timeouts
        self._outcome = None  # nothing could be played after the end
        return hand.pop()

    def view(self, seat: int) -> View:
        """What ``seat`` may see of the current hand (R11)."""
        return self.hand.view(seat)

    def copy(self) -> Match:
        """An independent copy: play on it (say, to try an action) and keep or drop it.

        Finished hands are shared (nothing changes them); the current hand, the scores
        and the deal RNG are copied, so both go on with the same future deals.
        """
        twin = object.__new__(Match)
        twin.__dict__.update(self.__dict__)
        twin.hands = list(self.hands)
        if twin.hands and not twin.hands[-1].is_over():
            twin.hands[-1] = twin.hands[-1].copy()
        twin._scores = list(self._scores)
        twin._timeouts = list(self._timeouts)
        twin._timed_out = set(self._timed_out)
        twin._first_own = list(self._first_own)
        twin._undo = list(self._undo)
        twin._redeal = list(self._redeal)
        twin._rng = random.Random()
        twin._rng.setstate(self._rng.getstate())
        if self._deals is not None:
            self._deals, twin._deals = tee(self._deals)
        return twin

    # ------------------------------------------------------------------ records

    def to_record(self) -> dict[str, Any]:
        """The match so far as a ``ginrummy/1`` record (docs/records.md): every dealt hand
        with its deal and actions, and how the match ended once it has."""
        rec: dict[str, Any] = {
            "format": FORMAT,
            "options": self.options.to_json(),
        }
        if self.players is not None:
            rec["players"] = list(self.players)
        rec["seed"] = self.seed
        rec["hands"] = [
            {
                "dealer": h.dealer,
                "deal": h.deal.to_json(),
                "actions": [_action_json(self, i, j, op.to_json())
                            for j, op in enumerate(h.history)],
            }
            for i, h in enumerate(self.hands)
        ]
        outcome = self.outcome()
        if outcome is not None:
            rec["end"] = outcome.end
            if outcome.reason is Termination.RESIGNED:
                rec["resigned_by"] = outcome.by
        return rec

    @classmethod
    def from_record(cls, record: Any, _progress: list[Match] | None = None) -> Match:
        """Replay a ``ginrummy/1`` record (dict or JSON text) under the rules; raises
        :class:`RecordError` saying where it is malformed or breaks them.

        ``_progress`` (internal) receives the match as soon as it exists, so a caller can
        report the hands replayed before an error.
        """
        if isinstance(record, (str, bytes)):
            record = loads(record)
        if not isinstance(record, Mapping):
            raise RecordError("A record must be a JSON object.")
        if record.get("format") != FORMAT:
            raise RecordError(f"Not a {FORMAT} record: 'format' is {record.get('format')!r}.")
        # Members this version does not know are ignored: the format may gain optional ones.
        try:
            options = Options.from_json(record.get("options"))
        except OptionsError as e:
            raise RecordError(str(e)) from None
        players = record.get("players")
        if players is not None and not (isinstance(players, list) and len(players) == 2
                                        and all(isinstance(p, str) for p in players)):
            raise RecordError("'players' must be a list of two names.")
        seed = record.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise RecordError("'seed' must be an integer.")
        hands = record.get("hands")
        if not isinstance(hands, list):
            raise RecordError("A record needs a list of 'hands'.")
        first_dealer: Any = 0
        if hands:
            if not isinstance(hands[0], Mapping):
                raise RecordError("Each hand must be an object.", 0)
            first_dealer = hands[0].get("dealer")
            if not _is_seat(first_dealer):
                raise RecordError("Each hand needs a 'dealer' of 0 or 1.", 0)
        match = cls(
            options,
            seed=seed if seed is not None else 0,
            first_dealer=first_dealer,
            players=(players[0], players[1]) if players else None,
            auto_deal=False,
        )
        match.seed = seed
        if _progress is not None:
            _progress.append(match)
        for i, h in enumerate(hands):
            if not isinstance(h, Mapping):
                raise RecordError("Each hand must be an object.", i)
            if match.is_over():
                raise RecordError("The record goes on after the match has ended.", i)
            dealer = h.get("dealer")
            if not _is_seat(dealer):
                raise RecordError("Each hand needs a 'dealer' of 0 or 1.", i)
            try:
                deal = Deal.from_json(h.get("deal"))
            except (DealError, CardError) as e:
                raise RecordError(str(e), i) from None
            expected = match.next_dealer()
            if dealer != expected:
                raise RecordError(
                    f"Seat {expected} deals hand {i} (R7, R10), not seat {dealer}.", i
                )
            hand = match.start_hand(deal, dealer)
            actions = h.get("actions", [])
            if not isinstance(actions, list):
                raise RecordError("A hand's 'actions' must be a list.", i)
            for j, a in enumerate(actions):
                if not isinstance(a, Mapping):
                    raise RecordError("Each action must be an object.", i, j)
                if hand.is_over():
                    raise RecordError("The hand goes on after it has ended.", i, j)
                seat = a.get("seat")
                if not _is_seat(seat):
                    raise RecordError("Each action needs a 'seat' of 0 or 1.", i, j)
                timeout = a.get("timeout", False)
                if not isinstance(timeout, bool):
                    raise RecordError("'timeout' must be true or false.", i, j)
                try:
                    action = Action.from_json(a)
                    if action.act != "discard" and a.get("knock") is True:
                        raise IllegalActionError("Only a discard can carry a knock.")
                    op = match.play(action, seat, timeout=timeout)
                except IllegalActionError as e:
                    raise RecordError(str(e), i, j) from None
                if action.act == "draw" and "card" in a and a["card"] != str(op.card):
                    # the card drawn is fixed by the deal; a record that says otherwise is wrong
                    raise RecordError(f"The record says {a['card']!r} was drawn, but the card "
                                      f"drawn is {op.card}.", i, j)
            if i + 1 < len(hands) and not hand.is_over():
                raise RecordError("A later hand follows a hand that did not end.", i + 1)
        _apply_end(match, record)
        return match


def _action_json(match: Match, hand: int, index: int, d: dict[str, Any]) -> dict[str, Any]:
    """A record's action, marked ``"timeout": true`` when it was played on timeout."""
    if match.timed_out(hand, index):
        d["timeout"] = True
    return d


def _apply_end(match: Match, record: Mapping[str, Any]) -> None:
    """Check the record's optional ``end`` against the replayed match, and apply the
    endings the actions cannot show (a resignation, an abort: where the record stops);
    raises RecordError. A record that stops before its match ended (a prefix) keeps the
    ``end`` of the whole match: only an ending the actions reach is checked."""
    end = record.get("end")
    if "resigned_by" in record and end != "resigned":
        raise RecordError("'resigned_by' belongs only to a record whose 'end' is resigned.")
    if end is None:
        return
    if end not in _ENDS:
        raise RecordError(f"'end' must be one of {', '.join(sorted(_ENDS))}, not {end!r}.")
    reason = _ENDS[end]
    if reason in (Termination.RESIGNED, Termination.ABORTED) and not match.is_over():
        if reason is Termination.RESIGNED:
            seat = record.get("resigned_by")
            if not _is_seat(seat):
                raise RecordError("A resigned match needs a 'resigned_by' of 0 or 1.")
            match.resign(0 if seat == 0 else 1)
        elif not match.can_abort():
            raise RecordError("The record says the match was aborted, but both players had "
                              "moved and the first hand's first discard was made.")
        else:
            match.abort()
        return
    outcome = match.outcome()
    if outcome is not None and outcome.reason is not reason:
        # (a match not over yet is a prefix of the one that ended so: nothing to check)
        raise RecordError(f"The record says the match ended by {end}, but it ended by "
                          f"{outcome.end}.")
