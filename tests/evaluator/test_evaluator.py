"""The evaluator's contract: one estimate per legal action, reproducible for a seed,
decided from the view alone (R11), and clear refusals of bad budgets and impossible views."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginrummy.cards import Card, CardSet, deck, parse_cards
from ginrummy.evaluator import (
    ActionValue,
    BudgetError,
    Evaluation,
    Evaluator,
    EvaluatorError,
    InconsistentViewError,
    NoDecisionError,
)
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Deal, Hand, View
from ginrummy.match import Match

MINE = "2C 3C 4C 7D 8D 9D KS KH KD 5S"


def _deal(other: str, stock_first: str = "") -> Deal:
    """Seat 1 (non-dealer) holds MINE; seat 0 holds ``other``; the up-card is 6C."""
    used = set(parse_cards(MINE + " " + other + " 6C " + stock_first))
    rest = [c for c in deck() if c not in used]
    return Deal.build(other, MINE, "6C", parse_cards(stock_first) + rest)


def _values(ev: Evaluation) -> list[tuple[str, float, float, float, float]]:
    return [(str(v.action), v.win, v.win_se, v.points, v.points_se) for v in ev.values]


def test_one_value_per_legal_action_in_order() -> None:
    match = Match(seed=2)
    for _ in range(12):
        view = match.view(match.to_play)
        ev = Evaluator(samples=6, seed=3).evaluate(view)
        assert [v.action for v in ev.values] == list(view.legal)
        assert ev.samples == 6
        for v in ev.values:
            assert 0.0 <= v.win <= 1.0 and v.win_se >= 0 and v.points_se >= 0
        assert ev.best() in ev.values
        assert ev.value_of(view.legal[0]) == ev.values[0]
        match.play(view.legal[-1] if view.phase.value == "discard" else view.legal[0])


def test_same_seed_same_evaluation_and_seed_matters() -> None:
    view = Match(seed=4).view(Match(seed=4).to_play)
    first = Evaluator(samples=10, seed=7).evaluate(view)
    assert _values(first) == _values(Evaluator(samples=10, seed=7).evaluate(view))
    assert _values(first) != _values(Evaluator(samples=10, seed=8).evaluate(view))


def test_view_only_r11_hidden_cards_do_not_matter() -> None:
    """Two hands alike in everything seat 1 sees, unlike in the opponent's cards and the
    stock, get the same evaluation, before and after taking the up-card."""
    a = Hand(_deal("AD 2D 3D 4D 5D 6D TS JS QS 9C"), dealer=0)
    b = Hand(_deal("TC JC QC 8C 9H TH JH 2S 3S 4S"), dealer=0)
    for action in (None, DRAW_DISCARD):
        if action is not None:
            a.play(action)
            b.play(action)
        va, vb = a.view(1), b.view(1)
        assert va == vb
        ev = Evaluator(samples=8, seed=1)
        assert _values(ev.evaluate(va)) == _values(ev.evaluate(vb))


def test_knock_with_gin_always_scores_r9() -> None:
    """Gin (R6) scores the defender's deadwood plus 25 on every sample (R9)."""
    hand = Hand(_deal("AD 2D 3D 4D 5D 6D TS JS QS 9C", "KC"), dealer=0)
    hand.play(PASS)
    hand.play(PASS)
    hand.play(DRAW_STOCK)  # seat 1 draws KC: discarding 5S leaves gin
    view = hand.view(1)
    ev = Evaluator(samples=12, seed=0).evaluate(view)
    gin = ev.value_of(Action.discard("5S", knock=True))
    assert gin.points >= 25 + 5  # at least 25 plus some deadwood on every sample
    assert ev.best().action == gin.action


@pytest.mark.parametrize("kwargs", [{"samples": 0}, {"samples": -3}, {"budget_ms": 0},
                                    {"budget_ms": -1.5}])
def test_budget_of_zero_or_less_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(BudgetError, match="budget must be positive"):
        Evaluator(**kwargs)  # type: ignore[arg-type]
    assert issubclass(BudgetError, ValueError)


def test_time_budget_is_kept() -> None:
    view = Match(seed=6).view(Match(seed=6).to_play)
    ev = Evaluator(budget_ms=30, seed=1).evaluate(view)
    assert ev.samples >= 1


def _first_view() -> View:
    match = Match(seed=9)
    return match.view(match.to_play)


def test_inconsistent_views_refused_with_a_reason() -> None:
    view = _first_view()
    ev = Evaluator(samples=2)
    first = next(iter(view.hand))
    twice = view._replace(discards=(view.upcard, view.upcard))
    with pytest.raises(InconsistentViewError, match="counted twice"):
        ev.evaluate(twice)
    more = view._replace(stock_count=view.stock_count + 1)
    with pytest.raises(InconsistentViewError, match="53"):
        ev.evaluate(more)
    short = view._replace(hand=CardSet(view.hand.mask & ~first.mask))
    with pytest.raises(InconsistentViewError, match="not 9"):
        ev.evaluate(short)
    in_pile = view._replace(discards=(first,), upcard=first)
    with pytest.raises(InconsistentViewError, match="both in the hand and the pile"):
        ev.evaluate(in_pile)
    bad_legal = view._replace(legal=(Action.discard(Card.parse("AS")),))
    with pytest.raises(EvaluatorError):
        ev.evaluate(bad_legal)
    assert issubclass(InconsistentViewError, ValueError)


def test_no_decision_refused() -> None:
    match = Match(seed=9)
    other = 1 - match.to_play
    with pytest.raises(NoDecisionError, match="no decision"):
        Evaluator(samples=2).evaluate(match.view(other))


def test_paired_difference_is_zero_for_the_same_action() -> None:
    view = _first_view()
    ev = Evaluator(samples=8).evaluate(view)
    assert ev.difference(view.legal[0], view.legal[0]) == (0.0, 0.0)


def test_evaluate_actions_refuses_illegal_ones() -> None:
    view = _first_view()
    with pytest.raises(EvaluatorError, match="not legal"):
        Evaluator(samples=2).evaluate_actions(view, [DRAW_STOCK])
    ev = Evaluator(samples=4).evaluate_actions(view, [PASS])
    assert [v.action for v in ev.values] == [PASS]


def test_the_knock_correction_lowers_knocks_short_of_gin_only_r6() -> None:
    """``knock_bias`` (the play-outs' measured overvaluation of knocking) comes off each
    knock short of gin, scaled by the stakes (1.0 in a first hand); gin (R6, never
    undercut, R9) and every other action keep their estimates."""
    hand = Hand(_deal("AD 2D 3D 4D 5D 6D TS JS QS 9C", "6H"), dealer=0)
    hand.play(PASS)
    hand.play(PASS)
    hand.play(DRAW_STOCK)  # seat 1 draws 6H: throwing it (or 5S) allows a knock (R6)
    view = hand.view(1)
    plain = Evaluator(samples=10, seed=2, knock_bias=0.0).evaluate(view)
    fixed = Evaluator(samples=10, seed=2, knock_bias=0.05).evaluate(view)
    knocks = [a for a in view.legal if a.knock]
    assert len(knocks) == 2
    for a in view.legal:
        before, after = plain.value_of(a), fixed.value_of(a)
        assert after.points == before.points
        shift = 0.05 if a.knock else 0.0
        assert after.win == pytest.approx(max(0.0, before.win - shift))
    gin = Hand(_deal("AD 2D 3D 4D 5D 6D TS JS QS 9C", "KC"), dealer=0)
    for a in (PASS, PASS, DRAW_STOCK):
        gin.play(a)
    win = Action.discard("5S", knock=True)
    assert Evaluator(samples=6, seed=2, knock_bias=0.05).evaluate(gin.view(1)).value_of(win) \
        == Evaluator(samples=6, seed=2, knock_bias=0.0).evaluate(gin.view(1)).value_of(win)


@given(st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.integers(0, k - 1),
    st.lists(st.lists(st.floats(0.0, 1.0), min_size=k, max_size=k), min_size=4,
             max_size=12))))
def test_the_cross_fitted_loss_is_at_most_the_loss_against_the_best_mean(case: Any) -> None:
    """The review's rating figure (:meth:`Evaluation.cross_fitted_loss`): the best chosen
    on one half of the samples, the loss measured on the other, both ways. It is never
    more than the loss against the action with the best mean on all the samples, and 0
    when the played action has the best mean on both halves."""
    played, samples = case
    acts = [PASS, DRAW_STOCK, DRAW_DISCARD, Action.discard("5S")][: len(samples[0])]
    rows = tuple(tuple(s[i] for s in samples) for i in range(len(acts)))
    ev = Evaluation(tuple(ActionValue(a, sum(r) / len(r), 0.0, 0.0, 0.0)
                          for a, r in zip(acts, rows, strict=True)), len(samples), rows)
    loss = ev.cross_fitted_loss(acts[played])
    assert loss is not None
    means = [sum(r) / len(r) for r in rows]
    halves = [[sum(r[h::2]) / len(r[h::2]) for r in rows] for h in (0, 1)]
    # halves of unequal size (an odd count) weigh their means unequally: compare with
    # the mean of the two half-means, which is the full mean for an even count
    half_mean = [(halves[0][i] + halves[1][i]) / 2 for i in range(len(acts))]
    assert loss <= max(half_mean) - half_mean[played] + 1e-9
    if len(samples) % 2 == 0:
        assert loss <= max(means) - means[played] + 1e-9
    if all(h[played] > max(x for j, x in enumerate(h) if j != played) for h in halves):
        assert loss == pytest.approx(0.0, abs=1e-12)


def test_the_cross_fitted_loss_needs_four_samples() -> None:
    rows = ((0.5, 0.6, 0.4), (0.5, 0.5, 0.5))
    ev = Evaluation((ActionValue(PASS, 0.5, 0, 0, 0), ActionValue(DRAW_STOCK, 0.5, 0, 0, 0)),
                    3, rows)
    assert ev.cross_fitted_loss(PASS) is None
    assert Evaluation(ev.values, 0).cross_fitted_loss(PASS) is None
