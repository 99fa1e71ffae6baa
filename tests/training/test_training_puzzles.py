"""Puzzles (INTERFACES section 12): the margin rule on constructed values, which answers
count as right, making puzzles from fixed matches (deterministic for a seed), puzzles
showing only what their seat could see (R11), and the themes' rules."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from ginrummy.evaluator.evaluation import ActionValue, Evaluation
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Hand
from ginrummy.match import Match
from ginrummy.review.grade import moments
from ginrummy.training.position import read_position
from ginrummy.training.puzzles import (
    MARGIN_Z,
    PUZZLE_SAMPLES,
    Answer,
    Puzzle,
    answer_of,
    find_puzzles,
)
from ginrummy.training.sources import self_play
from ginrummy.training.themes import LAST_CARDS, themes_of

N = PUZZLE_SAMPLES


def _evaluation(rows: dict[Action, list[float]]) -> Evaluation:
    """An evaluation with these per-deal outcomes (the same deals for every action)."""
    values = []
    for a, r in rows.items():
        n = len(r)
        mean = sum(r) / n
        sd = (sum((x - mean) ** 2 for x in r) / (n - 1)) ** 0.5
        values.append(ActionValue(a, mean, sd / n ** 0.5, 0.0, 0.0))
    return Evaluation(tuple(values), len(next(iter(rows.values()))),
                      tuple(tuple(r) for r in rows.values()))


def _base(n: int, p: float, seed: int = 1) -> list[float]:
    """Exactly ``round(p * n)`` wins among ``n`` deals, shuffled."""
    wins = round(p * n)
    out = [1.0] * wins + [0.0] * (n - wins)
    random.Random(seed).shuffle(out)
    return out


def _worse(base: list[float], by: float) -> list[float]:
    """``base`` with wins turned into losses on a share ``by`` of the deals (paired)."""
    out = list(base)
    need = round(by * len(base))
    for i, x in enumerate(out):
        if need and x == 1.0:
            out[i], need = 0.0, need - 1
    return out


def test_the_margin_rule_keeps_a_clear_and_large_best() -> None:
    a = _base(N, 0.5)
    answer = answer_of(_evaluation({PASS: a, DRAW_DISCARD: _worse(a, 0.1)}))
    assert answer.best is PASS and answer.samples == N
    assert answer.margin == pytest.approx(0.1, abs=1e-3)
    assert answer.margin > MARGIN_Z * answer.margin_se
    assert answer.clear()


def test_the_margin_rule_wants_4096_deals() -> None:
    a = _base(1024, 0.5)
    answer = answer_of(_evaluation({PASS: a, DRAW_DISCARD: _worse(a, 0.1)}))
    assert answer.margin > 10 * answer.margin_se
    assert not answer.clear() and answer.clear(min_samples=1024)


def test_the_margin_rule_wants_three_points_of_win_chance() -> None:
    a = _base(N, 0.5)
    answer = answer_of(_evaluation({PASS: a, DRAW_DISCARD: _worse(a, 0.02)}))
    assert answer.margin > 5 * answer.margin_se  # clearly real, but too small to matter
    assert not answer.clear()


def test_the_margin_rule_scales_the_margin_to_a_first_hands_stakes() -> None:
    a = _base(N, 0.5)
    ev = _evaluation({PASS: a, DRAW_DISCARD: _worse(a, 0.05)})
    assert answer_of(ev, 1.0).clear()
    assert not answer_of(ev, 2.0).clear()  # a hand that decides twice as much: 2.5 points


def test_the_margin_rule_wants_every_other_move_beaten_by_three_paired_errors() -> None:
    a = _base(N, 0.52)
    noisy = [1.0 - x for x in a]  # 0.48 on average, but its difference from a swings by 1
    ev = _evaluation({PASS: a, DRAW_STOCK: _worse(a, 0.035), DRAW_DISCARD: noisy})
    answer = answer_of(ev)
    assert [v.action for v in answer.values] == [PASS, DRAW_STOCK, DRAW_DISCARD]
    assert answer.margin == pytest.approx(0.035, abs=1e-3)
    assert answer.margin > MARGIN_Z * answer.margin_se  # the runner-up is beaten clearly
    third = answer.values[2]
    assert third.loss > answer.margin and third.loss < MARGIN_Z * third.loss_se
    assert not answer.clear()


def test_right_answers_are_the_best_or_moves_the_review_would_not_mark() -> None:
    a = _base(N, 0.5)
    ev = _evaluation({PASS: a, DRAW_STOCK: _worse(a, 0.01), DRAW_DISCARD: _worse(a, 0.1)})
    answer = answer_of(ev)
    assert answer.correct(PASS) and answer.correct(DRAW_STOCK)  # 1 point: no mark
    assert not answer.correct(DRAW_DISCARD)
    with pytest.raises(KeyError):
        answer.correct(Action.parse("discard KH"))
    again = Answer.from_json(json.loads(json.dumps(answer.to_json())))
    assert again.to_json() == answer.to_json()


# ----------------------------------------------------------------------------- making

_SAMPLES, _SCREEN = 512, 64


@pytest.fixture(scope="module")
def made() -> tuple[list[tuple[str, Match]], list[Puzzle]]:
    matches = self_play(1, seed=5, bot="simple")
    return matches, find_puzzles(matches, samples=_SAMPLES, screen=_SCREEN, seed=2, limit=4)


def test_making_puzzles_from_fixed_matches_is_deterministic_for_a_seed(
        made: tuple[list[tuple[str, Match]], list[Puzzle]]) -> None:
    matches, puzzles = made
    assert len(puzzles) == 4
    again = self_play(1, seed=5, bot="simple")
    assert again[0][1].to_record() == matches[0][1].to_record()
    twice = find_puzzles(again, samples=_SAMPLES, screen=_SCREEN, seed=2, limit=4)
    assert [p.to_json() for p in twice] == [p.to_json() for p in puzzles]
    for p in puzzles:
        a = p.answer
        assert a.samples == _SAMPLES and a.clear(_SAMPLES)
        assert a.margin > MARGIN_Z * a.margin_se and a.margin >= 0.03
        assert p.why.endswith(".") and set(p.themes) <= set(THEME_NAMES)
        assert [v.action for v in a.values] == sorted(p.view.legal, key=lambda x: -a.value_of(
            x).win)


THEME_NAMES = ("take-or-pass", "safe-discard", "knock-or-play-on", "gin-or-knock",
               "lay-off-counting", "undercut-danger", "reading-pile-takes", "last-cards")
CARD = re.compile(r"\b(?:[2-9TJQKA])[CDHS]\b")


def _hidden(match: Match, hand: int, action: int, seat: int) -> set[str]:
    """The cards ``seat`` could not see just before that decision: the stock, and the
    opponent's cards not taken from the pile in view."""
    played = match.hands[hand]
    h = Hand(played.deal, played.dealer, played.options, played.hand_index, played.scores)
    for op in played.history[:action]:
        h.play(op.action, op.seat)
    shown = {str(op.card) for op in h.history
             if op.action is DRAW_DISCARD and op.card is not None}
    return {str(c) for c in h.stock} | ({str(c) for c in h.cards_of(1 - seat)} - shown)


def test_R11_a_puzzle_never_shows_a_card_its_seat_could_not_see(
        made: tuple[list[tuple[str, Match]], list[Puzzle]]) -> None:
    matches, puzzles = made
    match = dict(matches)
    for p in puzzles:
        text = json.dumps(p.to_json())
        hidden = _hidden(match[p.source], p.hand, p.action, p.view.seat)
        assert hidden and not set(CARD.findall(text)) & hidden, p.key


# ----------------------------------------------------------------------------- themes


def _view(**change: Any) -> Any:
    pos = {"hand": "AC 2C 3C 4D 5D 6D 7H 8H 9H KS 5S", "pile": "TD QC",
           "opponent_discarded": ["QC"], "opponent_passed": ["TD"], "stock": 29,
           "to_play": "discard"} | change
    return read_position(pos)


def test_themes_of_a_draw_and_of_the_last_cards() -> None:
    v = read_position({"hand": "AC 2C 3C 4D 5D 6D 7H 8H 9H KS", "pile": "TD QC",
                       "opponent_discarded": ["QC"], "opponent_passed": ["TD"],
                       "stock": 30, "to_play": "draw"})
    assert themes_of(v, DRAW_STOCK) == ("take-or-pass",)
    (_, match), = self_play(1, seed=1, bot="random")  # long hands, to the last cards
    views = [m.view for m in moments(match, range(len(match.hands)), (0, 1))]
    for w in views:
        assert ("last-cards" in themes_of(w, w.legal[0])) == (w.stock_count <= LAST_CARDS)
    assert any(w.stock_count <= LAST_CARDS for w in views)


def test_themes_of_a_knock_one_card_from_gin() -> None:
    v = _view()
    knock = Action.discard("KS", True)
    assert knock in v.legal
    got = themes_of(v, knock)
    assert "knock-or-play-on" in got and "gin-or-knock" in got
    assert "take-or-pass" not in got


def test_reading_pile_takes_needs_a_held_take_and_a_discard_that_fits_it() -> None:
    v = read_position({"hand": "AC 2C 3C 4D 5D 6D 8H 9H KS TS QD", "pile": "TD 9C",
                       "opponent_took": ["9S"], "opponent_discarded": ["9C"],
                       "opponent_passed": ["TD"], "stock": 29, "to_play": "discard"})
    assert "reading-pile-takes" in themes_of(v, Action.discard("KS"))
    assert "reading-pile-takes" not in themes_of(v, Action.discard("TS"))
