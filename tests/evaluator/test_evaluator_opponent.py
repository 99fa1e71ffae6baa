"""The opponent model reads a player's knocking habit from what the seat saw (R11):
knocks with their turn and deadwood (R6, R8), revealed hands that did not knock, dead
hands (R7); the styles' shares follow."""

from __future__ import annotations

import pytest

from ginrummy.bots import make_bot
from ginrummy.bots.strong import StrongBot
from ginrummy.evaluator.opponent import OpponentModel
from ginrummy.match import Match

EVEN = (1 / 3, 1 / 3, 1 / 3)


def test_r6_a_late_knock_short_of_gin_rules_out_a_patient_player() -> None:
    m = OpponentModel(prior=EVEN)
    m.saw_knock(turn=8, deadwood=7, limit=10)
    quick, club, patient = m.shares()
    assert quick > 0.8 and patient < 0.05 and club < 0.05  # 7 on turn 8 is not club-like


def test_r6_a_late_low_knock_fits_a_club_player_too() -> None:
    m = OpponentModel(prior=EVEN)
    m.saw_knock(turn=8, deadwood=3, limit=10)
    quick, club, patient = m.shares()
    assert quick == pytest.approx(club) and patient < 0.05


def test_r8_a_shown_hand_that_could_have_knocked_rules_out_a_quick_player() -> None:
    m = OpponentModel(prior=EVEN)
    m.saw_waiting(turns=9, deadwood=6, limit=10)  # a club player waits with 6 then too
    quick, club, patient = m.shares()
    assert quick < 0.05 and club == pytest.approx(patient)
    m.saw_waiting(turns=9, deadwood=3, limit=10)  # ... but not with 3
    quick, club, patient = m.shares()
    assert patient > 0.9 and quick < 0.01 and club < 0.05


def test_r7_dead_hands_and_late_gins_lean_away_from_quick() -> None:
    m = OpponentModel(prior=EVEN)
    m.saw_dead_hand()
    m.saw_knock(turn=9, deadwood=0, limit=10)
    quick, club, patient = m.shares()
    assert quick < club == pytest.approx(patient)


@pytest.mark.parametrize("opponent, quick", [("simple", True), ("easy", True),
                                             ("marjj", False), ("strong", False)])
def test_the_bots_are_recognised_from_a_few_hands(opponent: str, quick: bool) -> None:
    """From the hands strong saw against it (a match's first hands), simple and easy are
    read as knocking as soon as they may, marjj and strong as waiting after their first
    turns (patient or club: a few hands seldom tell those two apart)."""
    m = Match(seed=11)
    bots = [StrongBot(11), make_bot(opponent, 12)]
    model = OpponentModel(prior=EVEN)
    hands = 0
    while not m.is_over() and hands < 6:
        seat = m.to_play
        assert seat is not None
        hand = m.hand
        m.play(bots[seat].decide(m.view(seat)), seat)
        if hand.result is not None:
            model.hand_over(hand.view(0), hand.result)
            hands += 1
    share = model.shares()[0]
    assert (share > 0.8) if quick else (share < 0.05), model.shares()
