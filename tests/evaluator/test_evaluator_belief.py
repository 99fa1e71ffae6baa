"""The belief's samples are hands the opponent could hold (R11: from the view only)."""

from __future__ import annotations

import random

from ginrummy.bots.strong import StrongBot
from ginrummy.evaluator.belief import Belief, BeliefParams
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.melds import deadwood_mask


def _knowledges() -> list[tuple[Knowledge, int]]:
    match = Match(seed=12)
    bots = [StrongBot(1), StrongBot(2)]
    out = []
    while not match.is_over() and len(match.hands) <= 2:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        out.append((Knowledge.of(view), view.knock_limit))
        match.play(bots[seat].decide(view), seat)
    return out


def test_samples_are_possible_opponent_hands() -> None:
    rng = random.Random(1)
    for k, limit in _knowledges():
        belief = Belief(k, limit)
        for _ in range(5):
            hand, stock = belief.sample(rng)
            assert hand.bit_count() == 10
            assert hand & k.opp_known == k.opp_known  # its pile takes are surely held
            assert not hand & (k.mine | k.pile)
            assert hand | k.opp_known == hand
            assert sorted(stock) == sorted(u for u in range(52) if k.unseen >> u & 1
                                           and not hand >> u & 1)


def test_card_chances_add_up_to_the_unknown_cards() -> None:
    k, limit = _knowledges()[20]
    for quick in (False, True):
        chances = Belief(k, limit).card_chances(random.Random(2), 50, quick)
        assert abs(sum(chances.values()) - k.opp_unknown) < 1e-9
        assert set(chances) == {u for u in range(52) if k.unseen >> u & 1}


def test_card_chances_of_a_quick_knocker_come_from_its_own_samples() -> None:
    """``quick`` asks the quick knocker's belief (its hand improved less, R6: it would
    have knocked): the chances are those of its samples, not the patient player's."""
    k, limit = next((k, limit) for k, limit in _knowledges() if k.opp_discarded.bit_count() >= 4)
    belief = Belief(k, limit)
    for quick in (False, True):
        rng = random.Random(5)
        counts = dict.fromkeys(belief.unknown, 0)
        for _ in range(40):
            hand = belief.sample_hand(rng, quick)
            for u in belief.unknown:
                counts[u] += hand >> u & 1
        assert belief.card_chances(random.Random(5), 40, quick) == {
            u: c / 40 for u, c in counts.items()}
    assert belief.card_chances(random.Random(5), 40, True) != \
        belief.card_chances(random.Random(5), 40, False)


def test_gin_samples_are_redrawn_once_the_opponent_has_played() -> None:
    """An opponent holding gin would have knocked (R6): such samples are redrawn, so they
    are much rarer than without that evidence."""
    rng = random.Random(3)
    gins = [0, 0]
    for k, limit in _knowledges():
        if k.opp_discarded:
            for i, params in enumerate((BeliefParams(), BeliefParams(retries=0))):
                belief = Belief(k, limit, params)
                gins[i] += sum(deadwood_mask(belief.sample_hand(rng)) == 0 for _ in range(20))
    assert gins[1] > 0 and gins[0] < gins[1] / 2


def test_a_quick_knocking_opponent_never_holds_a_knockable_hand() -> None:
    """An opponent that knocks as soon as it may (R6) and has not knocked held no hand of
    deadwood <= the knock limit after its last discard: with ``quick`` such samples are
    redrawn (up to ``retries`` times), so they are clearly rarer than in the plain belief;
    ``quick_consistent=False`` turns that off (a quick opponent's hand is improved
    ``quick_improve`` times a turn, so the plain belief at that rate is the reference)."""
    rng = random.Random(4)
    knockable = [0, 0, 0, 0]
    plain = BeliefParams(improve=BeliefParams().quick_improve)
    for k, limit in _knowledges():
        if k.opp_discarded:
            for i, (quick, params) in enumerate(((True, BeliefParams()), (False, BeliefParams()),
                                                 (True, BeliefParams(quick_consistent=False)),
                                                 (False, plain))):
                belief = Belief(k, limit, params)
                knockable[i] += sum(deadwood_mask(belief.sample_hand(rng, quick)) <= limit
                                    for _ in range(20))
    assert knockable[1] > 100 and knockable[0] < knockable[1] / 2
    assert knockable[0] < knockable[3] / 2
    assert knockable[2] > knockable[3] * 0.8


def test_a_quick_knockers_latest_discard_left_the_least_deadwood() -> None:
    """A quick knocker (here ``simple``) discards the card leaving the least deadwood: with
    ``quick`` the samples in which its latest discard was not such a card are redrawn, so
    they are clearly rarer than with ``quick_discards=False``."""
    from ginrummy.melds import deadwood_by_discard_mask

    def fits(k: Knowledge, hand: int) -> bool:
        d = k.opp_last_discard
        assert d is not None
        table = deadwood_by_discard_mask(hand | 1 << d)
        return table[d] <= min(v for i, v in table.items() if i != k.opp_last_taken)

    from ginrummy.bots.simple import SimpleBot

    match = Match(seed=13)
    bots = [StrongBot(1), SimpleBot(2)]
    seen: list[tuple[Knowledge, int]] = []
    while not match.is_over() and len(match.hands) <= 3:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        if seat == 0:
            seen.append((Knowledge.of(view), view.knock_limit))
        match.play(bots[seat].decide(view), seat)
    rng = random.Random(5)
    misfits = [0, 0]
    tested = 0
    for k, limit in seen:
        if k.opp_last_discard is None:
            continue
        tested += 1
        for i, params in enumerate((BeliefParams(), BeliefParams(quick_discards=False))):
            belief = Belief(k, limit, params)
            misfits[i] += sum(not fits(k, belief.sample_hand(rng, quick=True))
                              for _ in range(20))
    assert tested > 10
    assert misfits[1] > 50 and misfits[0] < misfits[1] / 2
