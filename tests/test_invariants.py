"""Properties that hold in every legal game (R3-R11), checked on random play through the
public Match API."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy import (
    Action,
    Card,
    Hand,
    IllegalActionError,
    Match,
    Options,
    Phase,
)
from helpers import cards_in, every_action, snapshot

options_st = st.builds(
    Options,
    target=st.sampled_from([100, 150, 200, 250]),
    gin_only=st.booleans(),
    oklahoma=st.booleans(),
)


def choose(match: Match, rng: random.Random, greed: float) -> Action:
    """A legal action: with probability ``greed`` a sensible discard (knock half the time
    when allowed, always on gin; else keep the least deadwood), otherwise any at random."""
    legal = match.legal_actions()
    hand = match.hand
    if hand.phase is not Phase.DISCARD or rng.random() >= greed:
        return rng.choice(legal)
    def left(a: Action) -> tuple[int, float]:
        assert a.card is not None
        return (hand.deadwood_after(a.card), rng.random())

    knocks = [a for a in legal if a.knock]
    if knocks and (rng.random() < 0.5 or min(map(left, knocks))[0] == 0):
        return min(knocks, key=left)  # knock now, with gin where possible
    return min((a for a in legal if not a.knock), key=left)  # keep the best ten


def steps(match: Match, seed: int, greed: float, limit: int) -> Iterator[Action]:
    """Play up to ``limit`` chosen actions, yielding after each one is applied."""
    rng = random.Random(seed)
    for _ in range(limit):
        if match.is_over():
            return
        action = choose(match, rng, greed)
        match.play(action, match.to_play)
        yield action


def check_cards(hand: Hand) -> None:
    """R3, R5: the 52 cards are all somewhere exactly once; hands hold 10 (11 to discard)."""
    parts = [hand.cards_of(0), hand.cards_of(1), list(hand.discards), list(hand.stock)]
    everything = [c for p in parts for c in p]
    assert len(everything) == 52 and len(set(everything)) == 52
    assert hand.stock_count == len(hand.stock)
    for seat in (0, 1):
        n = len(hand.cards_of(seat))
        assert n == (11 if hand.phase is Phase.DISCARD and seat == hand.to_play else 10)


def public_cards(hand: Hand, seat: int) -> set[Card]:
    """What ``seat`` may know (R11): own cards, the up-card, every discard, pile draws, and
    the seat's own stock draws."""
    known = {*hand.cards_of(seat), hand.upcard, *hand.discards}
    for op in hand.history:
        if op.action.card is not None:
            known.add(op.action.card)
        if op.card is not None and (op.action.source == "discard" or op.seat == seat):
            known.add(op.card)
    return known


def check_views(hand: Hand) -> None:
    """R11: a view holds no opponent card nor stock card that the seat cannot know."""
    revealed = hand.result is not None and hand.result.result != "dead"
    for seat in (0, 1):
        j = hand.view(seat).to_json()
        shown = cards_in(j)
        assert j["stock_count"] == hand.stock_count
        assert j["hand"] == [str(c) for c in hand.cards_of(seat)]
        assert not shown & {str(c) for c in hand.stock}
        if not revealed:
            secret = {str(c) for c in hand.cards_of(1 - seat)} - {
                str(c) for c in public_cards(hand, seat)}
            assert not shown & secret
            assert "revealed" not in j


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), options=options_st, greed=st.sampled_from([0.0, 0.9]))
def test_r3_r5_cards_accounted_for_and_hand_sizes(seed: int, options: Options,
                                                  greed: float) -> None:
    m = Match(options, seed=seed)
    check_cards(m.hand)
    for _ in steps(m, seed, greed, 250):
        for h in m.hands[-2:]:
            check_cards(h)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), options=options_st)
def test_r9_r10_one_scorer_per_scored_hand_and_scores_never_fall(seed: int,
                                                                 options: Options) -> None:
    m = Match(options, seed=seed)
    before = m.scores
    hands_done = 0
    for _ in steps(m, seed, 0.95, 3000):
        done = [h for h in m.hands if h.result is not None]
        if len(done) == hands_done:
            assert m.scores == before
            continue
        hands_done = len(done)
        r = done[-1].result
        assert r is not None
        delta = (m.scores[0] - before[0], m.scores[1] - before[1])
        assert min(delta) >= 0
        if r.result == "dead":
            assert delta == (0, 0) and r.scorer is None
        else:
            assert r.scorer in (0, 1) and r.points > 0
            assert delta[r.scorer] == r.points and delta[1 - r.scorer] == 0
            if r.result == "undercut":
                assert r.scorer != r.knocker and r.points >= 25
            else:
                assert r.scorer == r.knocker
        before = m.scores
    if m.is_over():
        o = m.outcome()
        assert o is not None and o.scores == m.scores
        if o.reason == "target":
            assert max(m.scores) >= options.target and o.winner == m.scores.index(max(m.scores))
        else:
            assert len(m.hands) == 60


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), options=options_st, greed=st.sampled_from([0.3, 0.95]),
       limit=st.integers(0, 1500))
def test_record_replay_through_json_reproduces_the_match(seed: int, options: Options,
                                                         greed: float, limit: int) -> None:
    m = Match(options, seed=seed, players=("a", "b"))
    for _ in steps(m, seed, greed, limit):
        pass
    text = json.dumps(m.to_record())
    again = Match.from_record(text)
    assert again.to_record() == json.loads(text)
    assert again.results() == m.results() and again.scores == m.scores
    assert again.outcome() == m.outcome()
    for seat in (0, 1):
        assert again.view(seat).to_json() == m.view(seat).to_json()
    assert again.legal_actions() == m.legal_actions()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), options=options_st, greed=st.sampled_from([0.0, 0.9]))
def test_r11_view_never_holds_opponent_cards_or_stock(seed: int, options: Options,
                                                      greed: float) -> None:
    m = Match(options, seed=seed)
    check_views(m.hand)
    for _ in steps(m, seed, greed, 200):
        for h in m.hands[-2:]:
            check_views(h)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), greed=st.sampled_from([0.0, 0.9]))
def test_r5_every_refused_random_action_changes_nothing(seed: int, greed: float) -> None:
    m = Match(seed=seed)
    rng = random.Random(seed ^ 0x5EED)
    universe = every_action()
    for _ in steps(m, seed, greed, 120):
        if m.is_over():
            break
        legal = set(m.legal_actions())
        for _ in range(3):
            action = rng.choice(universe)
            seat = rng.choice([0, 1, None])
            if action in legal and seat in (m.to_play, None):
                assert m.can_play(action, seat)
                continue
            assert not m.can_play(action, seat)
            before = (snapshot(m.hand), m.scores, len(m.hands))
            try:
                m.play(action, seat)
            except IllegalActionError as e:
                assert str(e).endswith(".")
            else:
                raise AssertionError(f"{action} by {seat} was accepted")
            assert (snapshot(m.hand), m.scores, len(m.hands)) == before
