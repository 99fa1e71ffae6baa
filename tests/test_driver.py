"""The play driver: one loop for every table, with a policy for a failing player."""

from __future__ import annotations

import random

import pytest

from ginrummy import Action, HandResult, Match, View
from ginrummy.driver import (
    Driver,
    Failure,
    IllegalAnswerError,
    forfeit,
    play_instead,
    reraise,
)
from ginrummy.hand import Hand


class Uniform:
    """A uniformly random player that remembers what it was told."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.overs: list[tuple[View, HandResult | None]] = []

    def decide(self, view: View) -> Action:
        return self.rng.choice(view.legal)

    def hand_over(self, view: View, result: HandResult | None = None) -> None:
        self.overs.append((view, result))


class Faulty(Uniform):
    """Fails on its ``when``-th decision: ``illegal`` answers, ``raise`` raises."""

    def __init__(self, seed: int, when: int, how: str) -> None:
        super().__init__(seed)
        self.when, self.how, self.count = when, how, 0

    def decide(self, view: View) -> Action:
        self.count += 1
        if self.count == self.when:
            if self.how == "raise":
                raise RuntimeError("boom")
            legal = set(view.legal)
            return next(a for a in (Action("pass"), Action("draw", "stock"),
                                    Action("draw", "discard")) if a not in legal)
        return super().decide(view)


def test_driver_plays_the_same_match_as_the_loop_by_hand_r10_r11() -> None:
    players = [Uniform(1), Uniform(2)]
    decisions: list[int] = []
    hands: list[Hand] = []
    d = Driver(Match(seed=7), players, on_decision=lambda s, t: decisions.append(s),
               on_hand_over=hands.append)
    assert d.run() is None and d.match.is_over() and not d.step()
    # the same choices by hand give the same record
    m, mine = Match(seed=7), [Uniform(1), Uniform(2)]
    while not m.is_over():
        seat = m.to_play
        assert seat is not None
        m.play(mine[seat].decide(m.view(seat)), seat)
    assert m.to_record() == d.match.to_record()
    assert len(decisions) == sum(len(h.history) for h in d.match.hands)
    assert hands == d.match.hands
    for s, p in enumerate(players):  # each seat told of every hand, with its own view
        assert [r for _, r in p.overs] == [h.result for h in hands]
        assert all(v.seat == s and v.phase == "over" for v, _ in p.overs)


@pytest.mark.parametrize("how", ["illegal", "raise"])
def test_forfeit_policy_stops_the_match_at_the_failure(how: str) -> None:
    d = Driver(Match(seed=3), [Uniform(1), Faulty(2, 5, how)], on_failure=forfeit)
    failure = d.run()
    assert failure is not None and failure.seat == 1 and failure.during == "decide"
    if how == "illegal":
        assert isinstance(failure.error, IllegalAnswerError)
        assert "which is not legal" in str(failure.error)
    else:
        assert isinstance(failure.error, RuntimeError)
    assert not d.match.is_over() and d.is_done() and not d.step()
    assert d.match.to_play == 1  # nothing was played for the failed decision


def test_play_instead_policy_replaces_bad_answers_and_finishes() -> None:
    seen: list[Failure] = []

    def first_legal(view: View) -> Action:
        return view.legal[0]

    policy = play_instead(first_legal)

    def recording(failure: Failure, view: View) -> Action | None:
        seen.append(failure)
        return policy(failure, view)

    d = Driver(Match(seed=4), [Faulty(1, 3, "illegal"), Faulty(2, 4, "raise")],
               on_failure=recording)
    assert d.run() is None and d.match.is_over()
    assert [(f.seat, type(f.error)) for f in seen] == [(0, IllegalAnswerError),
                                                        (1, RuntimeError)]


def test_hand_over_failures_go_to_the_policy() -> None:
    class Sulky(Uniform):
        def hand_over(self, view: View, result: HandResult | None = None) -> None:
            raise ValueError("no")

    d = Driver(Match(seed=2), [Uniform(1), Sulky(2)])
    failure = d.run()
    assert failure is not None and (failure.seat, failure.during) == (1, "hand_over")
    assert len(d.match.hands) == 2  # the first hand ended; the next one was dealt
    go_on = Driver(Match(seed=2), [Uniform(1), Sulky(2)],
                   on_failure=play_instead(lambda v: v.legal[0]))
    assert go_on.run() is None and go_on.match.is_over()
    with pytest.raises(ValueError, match="no"):
        Driver(Match(seed=2), [Uniform(1), Sulky(2)], on_failure=reraise).run()


def test_driver_needs_two_players() -> None:
    with pytest.raises(ValueError, match="two players"):
        Driver(Match(seed=1), [Uniform(1)])
