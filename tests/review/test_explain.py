"""The review's reasons in words, read from the deciding seat's view only (R11)."""

from __future__ import annotations

from ginrummy import Action, Card, Deal, Hand, deck, parse_cards
from ginrummy.evaluator import ActionValue
from ginrummy.review.explain import explain, undercut_chance


def _hand(hand0: str, hand1: str, upcard: str, top: str, moves: list[str]) -> Hand:
    used = {*parse_cards(hand0), *parse_cards(hand1), Card.parse(upcard), *parse_cards(top)}
    stock = [*parse_cards(top), *(c for c in deck() if c not in used)]
    hand = Hand(Deal.build(hand0, hand1, upcard, stock), dealer=0)
    for m in moves:
        hand.play(Action.parse(m))
    return hand


def _value(action: str, win: float, points: float = 0.0) -> ActionValue:
    return ActionValue(Action.parse(action), win, 0.01, points, 1.0)


def test_feeding_the_run_the_opponent_collects() -> None:
    # Seat 1 took 6H and 8H from the pile; seat 0 throws the 7H between them.
    hand = _hand("6H 8H 7H 2C 4C 6C 8C TC QC KD", "AS 3S 5S 7S 9S JS KS 2D 4D 6D", "QD",
                 "TD JD 9D 2H",
                 ["pass", "pass", "draw stock", "discard TD", "draw stock", "discard 6H",
                  "draw discard", "discard AS", "draw stock", "discard 8H", "draw discard",
                  "discard 3S", "draw stock"])
    view = hand.view(0)
    why = explain(view, Action.parse("discard 7H"), _value("discard 7H", 0.40),
                  _value("discard KD", 0.45))
    assert why is not None
    assert "feeds the run the opponent is collecting: they took 6H and 8H" in why


def test_missed_knock_and_premature_knock_give_the_undercut_chance() -> None:
    # Seat 1: A-9 of spades and KH, draws 5D: discarding 5D leaves 10 deadwood (R6).
    hand = _hand("AH 3H 5H 7H 9H JH KC 2D 4D 6D", "AS 2S 3S 4S 5S 6S 7S 8S 9S KH", "QD",
                 "5D", ["pass", "pass", "draw stock"])
    view = hand.view(1)
    chance = undercut_chance(view, Card.parse("5D"))
    assert 0.0 <= chance <= 1.0
    why = explain(view, Action.parse("discard 5D"), _value("discard 5D", 0.5),
                  _value("discard 5D knock", 0.6))
    assert why is not None and why.startswith("knocking with 10 deadwood (discard 5D)")
    assert "undercut is only about" in why
    why = explain(view, Action.parse("discard 5D knock"), _value("discard 5D knock", 0.5),
                  _value("discard 5D", 0.6))
    assert why is not None
    if chance >= 0.05:
        assert "loses to an undercut about" in why
    else:  # a negligible undercut is not given as the reason ("about 0%")
        assert why.startswith("knocking with 10 deadwood is rarely undercut here")
        assert "%" not in why


def test_taking_a_card_that_makes_a_meld() -> None:
    hand = _hand("7C 8C 2D 4D 6D 9H JH KS QS 3H", "AS 3S 5S 7S 9S JS 2H 4H 6H 8H", "9C",
                 "", ["pass"])
    view = hand.view(0)  # the dealer, offered the 9C after seat 1 passed
    why = explain(view, Action.parse("pass"), _value("pass", 0.4),
                  _value("draw discard", 0.5))
    assert why is not None and why.startswith("taking 9C makes the 7-8-9 of clubs")


def test_live_outs_count_the_unseen_meld_completing_cards_r2() -> None:
    """The outs a reason quotes are the unseen cards that would make a meld with two cards
    left in the hand, counted by brute force from the view (R2, R11)."""
    from ginrummy.cards import Card
    from ginrummy.knowledge import Knowledge, in_some_meld
    from ginrummy.match import Match
    from ginrummy.review.explain import live_outs

    m = Match(seed=12)
    while m.hand.phase.value != "discard":
        m.play(m.legal_actions()[0])
    view = m.view(m.to_play or 0)
    k = Knowledge.of(view)
    for c in view.hand:
        left = k.mine & ~c.mask
        want = sum(1 for u in range(52) if k.unseen >> u & 1
                   and in_some_meld(left | 1 << u, u))
        assert live_outs(view, Card.from_index(c.index)) == want
