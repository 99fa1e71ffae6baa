"""The learned sampler in the search (``Evaluator(sampler="learned")``): a pool of the
belief's own hands raked to the learned card chances, each deal's hand drawn from it by
weight. Deterministic for a seed, the same in both kernel builds, never holding a card
the seat has seen elsewhere (R11), keeping the opponent styles' shares, meeting the
model's card chances, and falling back to the belief's hands when there is no model."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy import kernel
from ginrummy.arena import play_match
from ginrummy.bots import make_bot
from ginrummy.bots.expert import ExpertBot
from ginrummy.evaluator import Evaluator, EvaluatorError, learned
from ginrummy.evaluator.learned import card_chances
from ginrummy.evaluator.search import MIN_GROUP, POOL_MIN
from ginrummy.hand import Action, Phase, View
from ginrummy.kernel.spec import CLUB, PATIENT, QUICK
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match


def _view(seed: int, steps: int) -> View | None:
    """The view of the seat to play after ``steps`` decisions of a seeded match between
    ``strong`` and ``simple``; None when the first hand ends first or nothing is left to
    decide."""
    match = Match(seed=seed)
    bots = [make_bot("strong", seed), make_bot("simple", seed + 1)]
    for _ in range(steps):
        if match.is_over() or len(match.hands) > 1:
            return None
        seat = match.to_play
        assert seat is not None
        match.play(bots[seat].decide(match.view(seat)), seat)
    if match.is_over() or len(match.hands) > 1:
        return None
    seat = match.to_play
    assert seat is not None
    view = match.view(seat)
    return view if len(view.legal) > 1 and view.phase is not Phase.OVER else None


def _late_view() -> View:
    for steps in range(24, 4, -1):
        view = _view(8, steps)
        if view is not None:
            return view
    raise AssertionError("no view")


def test_a_learned_evaluation_is_deterministic_for_a_seed() -> None:
    view = _late_view()
    one = Evaluator(samples=48, seed=3, sampler="learned", quick=0.5).evaluate(view)
    two = Evaluator(samples=48, seed=3, sampler="learned", quick=0.5).evaluate(view)
    assert one == two and one.win_samples == two.win_samples
    other = Evaluator(samples=48, seed=4, sampler="learned", quick=0.5).evaluate(view)
    assert other.win_samples != one.win_samples
    plain = Evaluator(samples=48, seed=3, sampler="heuristic", quick=0.5).evaluate(view)
    assert plain.win_samples != one.win_samples


def test_both_kernel_builds_give_the_same_learned_evaluation() -> None:
    if kernel.name() != kernel.COMPILED:
        pytest.skip("the compiled kernel is not loaded here")
    view = _late_view()
    evs = [Evaluator(samples=12, seed=5, sampler="learned", quick=0.4, club=0.2,
                     kernel=build).evaluate(view) for build in ("python", "numba")]
    assert evs[0] == evs[1] and evs[0].win_samples == evs[1].win_samples


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.integers(0, 30), st.floats(0.0, 1.0))
def test_r11_pooled_hands_hold_no_card_the_seat_has_seen_elsewhere(
        seed: int, steps: int, quick: float) -> None:
    """Every hand the deals may draw holds the opponent's known cards and ten cards in
    all, never one in the seat's hand or in the pile."""
    view = _view(seed, steps)
    if view is None:
        return
    k = Knowledge.of(view)
    seen = k.mine | sum(c.mask for c in view.discards)
    search = Evaluator(samples=8, seed=seed, sampler="learned",
                       quick=quick).search(view, list(view.legal[:2]))
    search.extend(8)
    assert search.tilted
    pooled = search.pool_hands()
    assert len(pooled) >= POOL_MIN
    for _style, hand, weight in pooled:
        assert hand & seen == 0
        assert hand & k.opp_known == k.opp_known
        assert hand.bit_count() == 10
        assert weight >= 0.0
    assert all(x >= 0 for x in search.xs[:search.n])


def test_the_pool_keeps_the_style_shares_and_meets_the_learned_chances() -> None:
    view = _late_view()
    search = Evaluator(samples=128, seed=2, sampler="learned", quick=0.25,
                       club=0.0).search(view, list(view.legal[:2]))
    search.extend(128)
    pooled = search.pool_hands()
    by_style = {s: [(h, w) for st_, h, w in pooled if st_ == s] for s in (PATIENT, QUICK,
                                                                           CLUB)}
    assert by_style[CLUB] == []  # a style the deals never draw is not pooled
    assert len(by_style[QUICK]) >= MIN_GROUP
    assert len(by_style[PATIENT]) == pytest.approx(3 * len(by_style[QUICK]), abs=2)
    chances = card_chances(view)
    k = Knowledge.of(view)
    for style in (PATIENT, QUICK):
        group = by_style[style]
        total = sum(w for _, w in group)
        tilted, plain = [], []
        for c in range(52):
            if not k.unseen >> c & 1:
                continue
            held = sum(w for h, w in group if h >> c & 1) / total
            count = sum(1 for h, _ in group if h >> c & 1) / len(group)
            tilted.append(abs(held - chances[c]))
            plain.append(abs(count - chances[c]))
        # raking in a few passes comes close, not all the way (cards held together)
        assert sum(tilted) / len(tilted) < 0.02
        assert sum(tilted) < sum(plain) / 4


def test_without_a_model_the_learned_sampler_is_the_heuristic(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing model: the belief's own hands stand in (one warning, from the loader)."""
    view = _late_view()
    monkeypatch.setattr(learned, "_state", {"model": None, "loaded": False, "warned": False})
    monkeypatch.setattr(learned, "load_model",
                        lambda p=None, _l=learned.load_model: _l("/nonexistent/model.json"))
    ev = Evaluator(samples=24, seed=1, sampler="learned").evaluate(view)
    assert ev == Evaluator(samples=24, seed=1, sampler="heuristic").evaluate(view)
    Evaluator(samples=24, seed=1, sampler="learned").evaluate(view)
    lines = [x for x in capsys.readouterr().err.splitlines() if "learned belief" in x]
    assert len(lines) == 1


def test_the_sampler_setting_is_checked_and_reaches_expert() -> None:
    with pytest.raises(EvaluatorError):
        Evaluator(sampler="oracle")
    with pytest.raises(EvaluatorError):
        Evaluator(pool_factor=0)
    bot = ExpertBot(1, sampler="learned", samples=64)
    assert bot.evaluator.sampler == "learned"
    view = _late_view()
    assert bot.decide(view) in view.legal
    assert ExpertBot(1, sampler="learned", samples=64).decide(view) == bot.decide(view)
    # one default for both faces: expert believes as the review's evaluator does
    assert ExpertBot(1).evaluator.sampler == Evaluator().sampler


def test_the_kernel_scores_agree_with_the_model_in_python() -> None:
    """The search scores the cards in the kernel (either build): the same chances as
    :func:`ginrummy.evaluator.learned.card_chances` in plain Python."""
    from ginrummy.evaluator.learned import default_model
    from ginrummy.evaluator.search import _learned_chances

    model = default_model()
    assert model is not None
    for steps in (3, 9, 17):
        view = _view(5, steps)
        if view is None:
            continue
        k = Knowledge.of(view)
        want = card_chances(view)
        for build in ("python", kernel.name()):
            got = _learned_chances(kernel.backend(build), view, k, model)
            assert got == pytest.approx(want, abs=1e-9)


def test_a_deeper_race_stays_legal_and_deterministic() -> None:
    """``deep``: close, costly decisions race on past ``samples`` (a knock in the race,
    or a late discard), within ``deep_ms``; the choice is still legal and repeatable."""
    from ginrummy.hand import Action

    view = _late_view()
    one = ExpertBot(2, samples=32, deep=256, deep_ms=500.0, sampler="learned")
    two = ExpertBot(2, samples=32, deep=256, deep_ms=500.0, sampler="learned")
    assert one.decide(view) == two.decide(view) and one.decide(view) in view.legal
    knock = Action.discard("5S", knock=True)
    assert ExpertBot._costly(view, [knock]) == (view.phase is Phase.DISCARD)
    if view.phase is Phase.DISCARD and view.stock_count > ExpertBot.LATE_STOCK:
        assert not ExpertBot._costly(view, [Action.discard("5S")])


def test_a_knock_sampler_serves_only_the_decisions_with_a_knock_in_the_race() -> None:
    with pytest.raises(EvaluatorError):
        ExpertBot(1, knock_sampler="oracle")
    bot = ExpertBot(1, samples=32, sampler="heuristic", knock_sampler="learned")
    seen: list[tuple[str, bool]] = []
    search = bot.evaluator.search

    def spy(view: View, candidates: list[Action]) -> Any:
        seen.append((bot.evaluator.sampler, any(a.knock for a in candidates)))
        return search(view, candidates)

    bot.evaluator.search = spy  # type: ignore[method-assign]
    play_match(bot, make_bot("strong", 2), seed=7, first_dealer=0)
    assert {knock for _, knock in seen} == {True, False}  # both kinds of decision came up
    assert all(sampler == ("learned" if knock else "heuristic") for sampler, knock in seen)
    assert bot.evaluator.sampler == "heuristic"  # set back after each decision
