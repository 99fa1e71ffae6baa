"""The belief's samples are hands the opponent could hold (R11: from the view only)."""

from __future__ import annotations

import random

from ginrummy.bots.strong import StrongBot
from ginrummy.evaluator.belief import Belief, BeliefParams, opponent_steps
from ginrummy.hand import Phase, View
from ginrummy.kernel.splitmix import Random
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
        rng = Random(5)
        counts = dict.fromkeys(belief.unknown, 0)
        for _ in range(40):
            hand = belief.sample_hand(rng, quick)
            for u in belief.unknown:
                counts[u] += hand >> u & 1
        assert belief.card_chances(Random(5), 40, quick) == {
            u: c / 40 for u, c in counts.items()}
    assert belief.card_chances(Random(5), 40, True) != \
        belief.card_chances(Random(5), 40, False)


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

    seen = [(Knowledge.of(view), view.knock_limit) for view, _ in _simple_positions(13)]
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


def _simple_positions(seed: int = 14) -> list[tuple[View, int]]:
    """``strong``'s views against ``simple`` (a quick knocker) in a match's first three
    hands, each with simple's real hand."""
    from ginrummy.bots.simple import SimpleBot

    match = Match(seed=seed)
    bots = [StrongBot(1), SimpleBot(2)]
    out: list[tuple[View, int]] = []
    while not match.is_over() and len(match.hands) <= 3:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        if seat == 0:
            out.append((view, match.hand.mask_of(1)))
        match.play(bots[seat].decide(view), seat)
    return out


def test_simples_real_hand_always_fits_its_history() -> None:
    """The exact reading of a quick knocker (``quick_history``) walks its hand back through
    every step of the hand (R2, R4-R6): ``simple``'s real hand always explains them, and
    uniformly drawn hands often do not."""
    params = BeliefParams(quick_history=True, quick_depth=30, quick_nodes=5000)
    rng = random.Random(6)
    tested = rejected = 0
    for view, real in _simple_positions():
        steps = opponent_steps(view)
        if not steps:
            continue
        belief = Belief(Knowledge.of(view), view.knock_limit, params, steps=steps)
        assert belief.fits_history(real, rng)
        tested += 1
        k = belief.k
        for _ in range(5):
            hand = k.opp_known | sum(1 << u for u in rng.sample(belief.unknown, k.opp_unknown))
            rejected += not belief.fits_history(hand, rng)
    assert tested > 20 and rejected > tested


def test_a_refused_upcard_that_would_have_melded_rules_a_hand_out() -> None:
    """A quick knocker takes a face-up card that lies in a meld (R2): holding three sevens
    now, it held at least two of them when it left the 7H for a stock card, so the hand
    does not fit; with one seven fewer, the stock card drawn may have been one of them."""
    from ginrummy.cards import Card, cards_mask
    from ginrummy.evaluator.belief import DISCARD, REFUSE, STOCK

    seven = Card.parse("7H").index
    king = Card.parse("KC").index
    steps = ((REFUSE, seven, -1), (STOCK, -1, -1), (DISCARD, king, -1))
    k = Knowledge.of(Match(seed=3).view(0))
    belief = Belief(k, 10, BeliefParams(quick_history=True), steps=steps)
    three, _ = cards_mask("7S 7D 7C AS 3D 5C 9H JS 2H 4C")  # KC or JS thrown: 34 left
    two, _ = cards_mask("7S 7D 8C AS 3D 5C 9H JS 2H 4C")
    rng = random.Random(1)
    assert not belief.fits_history(three, rng)
    assert belief.fits_history(two, rng)


def test_the_evaluator_can_search_with_the_exact_reading() -> None:
    """``Evaluator(belief=BeliefParams(quick_history=True))`` hands the belief the
    opponent's steps (R11: from the view only), so its samples differ from the shipped
    belief's (without the steps the option would change nothing)."""
    from ginrummy.evaluator import Evaluator

    view = next(v for v, _ in _simple_positions() if len(opponent_steps(v)) >= 6
                and v.phase is not Phase.OVER and v.to_play == v.seat)
    ev = Evaluator(samples=8, seed=1, quick=1.0,
                   belief=BeliefParams(quick_history=True)).evaluate(view)
    assert ev.samples == 8 and len(ev.values) == len(view.legal)
    plain = Evaluator(samples=8, seed=1, quick=1.0).evaluate(view)
    assert ev.win_samples != plain.win_samples
