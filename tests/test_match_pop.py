"""Match.pop: every operation (an action, a deal, a resignation, an abort, a move played
on timeout) taken back exactly, for random legal play (property tests)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy import Match
from ginrummy.fairness import deal_for
from ginrummy.match import TIMEOUT_LIMIT, NothingToUndoError, Termination
from ginrummy.options import Options


def _moved(m: Match, seat: int) -> bool:
    """has_moved by its definition: an action of the seat's own, not played on timeout."""
    return any(op.seat == seat and not m.timed_out(h, i)
               for h, hand in enumerate(m.hands) for i, op in enumerate(hand.history))


def _snapshot(m: Match) -> Any:
    """Everything observable about a match: its record, both seats' views, the counts."""
    assert m.has_moved(0) == _moved(m, 0) and m.has_moved(1) == _moved(m, 1)
    views = ([m.view(0).to_json(), m.view(1).to_json(), m.hand.legal_actions()]
             if m.hands else None)
    return (m.to_record(), views, m.scores, m.outcome(), m.timeouts, m.to_play,
            m.has_moved(0), m.has_moved(1), m.can_abort(), m.can_abort(0), m.can_abort(1),
            m.awaiting_deal(), m.legal_actions(),
            [m.timed_out(h, i) for h, hand in enumerate(m.hands)
             for i in range(len(hand.history))])


def _step(m: Match, rng: random.Random) -> Any:
    """One random operation allowed now, applied; returns how to apply it again."""
    if m.awaiting_deal():
        seed = rng.randrange(1000)
        return ("deal", deal_for(seed, len(m.hands))) if rng.random() < 0.5 \
            else ("deal", None)
    roll = rng.random()
    if roll < 0.03:
        return ("resign", rng.randrange(2))
    if roll < 0.06 and m.can_abort():
        return ("abort", rng.choice((0, 1, None)))
    action = rng.choice(m.legal_actions())
    return ("play", action, roll < 0.4)


def _apply(m: Match, op: Any) -> None:
    kind = op[0]
    if kind == "deal":
        m.start_hand(op[1])
    elif kind == "resign":
        m.resign(op[1])
    elif kind == "abort":
        m.abort(op[1])
    else:
        m.play(op[1], timeout=op[2])


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), auto=st.booleans(), target=st.sampled_from([100, 250]),
       hands=st.sampled_from([None, 2, 3]))
def test_play_then_pop_gives_the_match_back(seed: int, auto: bool, target: int,
                                            hands: int | None) -> None:
    rng = random.Random(seed)
    m = Match(Options(target=target, hands=hands), seed=seed, auto_deal=auto)
    done: list[tuple[Any, Any, Any]] = []  # (operation, snapshot before, after)
    copies: list[tuple[Match, Any]] = []
    for _ in range(rng.randrange(50, 400)):
        if m.is_over() or (done and rng.random() < 0.25):
            op, before, after = done.pop()
            assert _snapshot(m) == after
            m.pop()
            assert _snapshot(m) == before
            if rng.random() < 0.5:  # the same operation again gives the same match
                _apply(m, op)
                assert _snapshot(m) == after
                done.append((op, before, after))
            continue
        before = _snapshot(m)
        op = _step(m, rng)
        _apply(m, op)
        done.append((op, before, _snapshot(m)))
        if rng.random() < 0.05:
            copies.append((m.copy(), done[-1][2]))
    while done:
        op, before, after = done.pop()
        m.pop()
        assert _snapshot(m) == before
    for twin, seen in copies:  # popping never reached a copy (finished hands are shared)
        assert _snapshot(twin) == seen
    with pytest.raises(NothingToUndoError):
        m.pop()


def test_a_fresh_match_has_nothing_to_take_back() -> None:
    for m in (Match(seed=1), Match(seed=1, auto_deal=False)):
        with pytest.raises(NothingToUndoError, match="nothing to take back") as e:
            m.pop()
        assert isinstance(e.value, ValueError) and isinstance(e.value, IndexError)


def test_pop_takes_back_a_loss_on_time_and_its_counts() -> None:
    m = Match(seed=3)
    # the safe moves on timeout until the seat to play loses the match on time
    while not m.is_over():
        v = m.view(m.to_play)  # type: ignore[arg-type]
        plain = [a for a in v.legal if not (a.act == "discard" and a.knock)]
        m.play(plain[0], timeout=True)
    outcome = m.outcome()
    assert outcome is not None and outcome.reason is Termination.TIMEOUT
    assert max(m.timeouts) == TIMEOUT_LIMIT
    seat = outcome.by
    assert seat is not None
    m.pop()
    assert not m.is_over() and m.timeouts[seat] == TIMEOUT_LIMIT - 1
    assert m.to_play == seat


def test_pop_of_an_auto_dealt_hand_takes_back_the_action_and_deals_the_same_again() -> None:
    m = Match(seed=8)
    rng = random.Random(8)
    while len(m.hands) == 1:
        m.play(rng.choice(m.legal_actions()))
    second = m.hand.deal
    last = m.hands[0].history[-1]
    assert m.pop() == last and len(m.hands) == 1 and not m.awaiting_deal()
    m.play(last.action, last.seat)
    assert len(m.hands) == 2 and m.hand.deal == second
