"""The ``strong`` bot in hand-made positions: gin first (R6, R9), no knock into a
likely undercut (R9: a tie or lower defender deadwood scores for the defender), safe
early knocks taken, no feeding of the opponent's melds (R2), only legal actions (R5)."""

from __future__ import annotations

import random
from dataclasses import replace

from ginrummy.bots.strong import StrongBot, sample_opponent, settle
from ginrummy.cards import Card, deck, parse_cards, to_mask
from ginrummy.hand import DRAW_STOCK, PASS, Action, Deal, Hand
from ginrummy.heuristics import draw_outlook, meld_chance
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match
from ginrummy.melds import deadwood_mask

CLUBS = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC"
JUNK = "KD QS QH TS TH 9S 9H 6S 4D 2H"


def _after_draw(seat1: str, drawn: str) -> Hand:
    """Seat 0 deals and holds ten clubs (gin); seat 1 draws ``drawn`` from the stock."""
    used = set(parse_cards(CLUBS + " " + seat1 + " KC " + drawn))
    stock = [Card.parse(drawn)] + [c for c in deck() if c not in used]
    hand = Hand(Deal.build(CLUBS, seat1, "KC", stock), dealer=0)
    hand.play(PASS)
    hand.play(PASS)
    hand.play(DRAW_STOCK)
    return hand


def _bot_seeing(opponent: str, knock_turns: int = 3) -> StrongBot:
    """A strong bot whose sampled opponent hands are all ``opponent``."""
    bot = StrongBot(1, samples=8, knock_turns=knock_turns)
    mask = to_mask(parse_cards(opponent))
    bot.worlds = lambda k, n: [mask] * n  # type: ignore[method-assign]
    return bot


def test_strong_takes_gin_when_offered_r6() -> None:
    # JC makes a four-card set; throwing 3S leaves nothing unmelded.
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 3S", "JC")
    assert StrongBot(1, samples=8).decide(hand.view(1)) == Action.discard(Card.parse("3S"), True)


def test_strong_does_not_knock_into_an_undercut_r9() -> None:
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    view = hand.view(1)
    assert Action.discard(Card.parse("KS"), True) in view.legal  # 8 deadwood (R6)
    # the defender would hold gin: an undercut worth 33 to them
    assert settle(to_mask(parse_cards("5H 6H 7H JS JD JH 8D 9D TD 8S")),
                  to_mask(parse_cards(CLUBS))) == -33
    assert not _bot_seeing(CLUBS).decide(view).knock


def test_strong_knocks_early_when_the_opponent_is_surely_far_behind_r9() -> None:
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    assert deadwood_mask(to_mask(parse_cards(JUNK))) > 60
    action = _bot_seeing(JUNK).decide(hand.view(1))
    assert action == Action.discard(Card.parse("KS"), True)  # least deadwood left (R6)


def test_strong_plays_for_gin_after_its_early_turns_r6() -> None:
    # Knocking is never compulsory (R6): past ``knock_turns`` only gin is declared.
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    action = _bot_seeing(JUNK, knock_turns=0).decide(hand.view(1))
    assert not action.knock and action in hand.view(1).legal


def test_meld_chance_marks_dead_and_live_cards_r2() -> None:
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    k = Knowledge.of(hand.view(1))
    # JC: the other three jacks are ours, and 9C-TC-QC-KC run partners are unseen.
    assert 0.0 < meld_chance(Card.parse("JC").index, k) < 1.0
    # A card whose every partner is ours or in the pile cannot be melded by them.
    dead = replace(k, unseen=0, opp_known=0)
    assert meld_chance(Card.parse("4C").index, dead) == 0.0
    # Two known pile takes next to the card make the meld certain.
    taken = to_mask(parse_cards("2C 3C"))
    sure = replace(k, opp_known=taken, unseen=k.unseen & ~taken)
    assert meld_chance(Card.parse("4C").index, sure) == 1.0
    assert meld_chance(Card.parse("4C").index, k) < 1.0


def test_strong_does_not_feed_a_known_meld_r2() -> None:
    # 2S and 3S were taken by seat 0 from the pile: the 4S would complete their run.
    bot = StrongBot(1)
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    k = Knowledge.of(hand.view(1))
    taken = to_mask(parse_cards("2S 3S"))
    known = replace(k, opp_known=taken, unseen=k.unseen & ~taken)
    assert bot.danger(Card.parse("4S").index, known) > bot.danger(Card.parse("KH").index, known)


def test_sampled_opponent_hands_are_consistent_with_the_view_r11() -> None:
    hand = _after_draw("5H 6H 7H JS JD JH 8D 9D TD 8S", "KS")
    k = Knowledge.of(hand.view(1))
    rng = random.Random(0)
    unknown = [c.index for c in deck() if k.unseen >> c.index & 1]
    for draws in (0, 5):
        opp = sample_opponent(k, rng, unknown, draws)
        assert opp.bit_count() == 10
        assert not opp & (k.mine | k.pile)


def _actions(seed: int) -> list[Action]:
    bots = [StrongBot(seed, samples=6), StrongBot(seed + 1, samples=6)]
    match = Match(seed=seed)
    out: list[Action] = []
    while not match.is_over() and len(match.hands) <= 2:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        action = bots[seat].decide(view)
        assert action in view.legal  # R5, R6
        out.append(action)
        match.play(action, seat)
    return out


def test_strong_is_deterministic_with_a_seed_and_plays_legally_r5() -> None:
    assert _actions(21) == _actions(21)


def test_draw_outlook_counts_live_gin_outs_r2_r6() -> None:
    # Nine melded cards and a loose KD: a draw that joins a meld gives gin (R6) after
    # throwing KD; 2D leaves 2 deadwood, QS leaves 10 (R2).
    hand = to_mask(parse_cards("AC 2C 3C 5H 6H 7H 9S 9D 9H KD"))
    pool = to_mask(parse_cards("4C 8H 2D QS"))
    mean, gin = draw_outlook(hand, pool)
    assert gin == 0.5
    assert mean == (0 + 0 + 2 + 10) / 4
    # Outs that are dead (not drawable) count for nothing.
    assert draw_outlook(hand, to_mask(parse_cards("2D QS")))[1] == 0.0


def test_the_shared_evaluation_functions_r4_r6() -> None:
    """strong and marjj are built from the same functions of the view's knowledge: the
    up-card 5C gives gin (R6) and also joins a meld lowering deadwood (R4); 8D neither."""
    from ginrummy.bots.marjj import (
        draw_action,
        least_scored,
        marjj_danger,
        top_gives_gin,
        top_joins_and_lowers,
    )
    from ginrummy.hand import DRAW_DISCARD

    def offered(upcard: str) -> tuple[Knowledge, Hand]:
        deal = Deal.build("AH 2H 3H 6D 7D 8S TC JC QD KD", "2C 3C 4C 9D 9H 9S JS QS KS 5H",
                          upcard)
        hand = Hand(deal, dealer=0)
        return Knowledge.of(hand.view(1)), hand

    k, hand = offered("5C")
    assert top_gives_gin(k) and top_joins_and_lowers(k)
    assert draw_action(hand.view(1), lambda: True) == DRAW_DISCARD
    k, hand = offered("8D")
    assert not top_gives_gin(k) and not top_joins_and_lowers(k)
    assert draw_action(hand.view(1), lambda: False) == PASS
    assert marjj_danger(Card.parse("8D").index, k, 10.0, 5.0) == 0.0  # nothing taken yet
    assert least_scored({3: 1.0, 7: 2.0}, [3, 7], random.Random(0)) == 3
    assert least_scored({3: 1.0, 7: 1.0}, [3, 7], random.Random(0)) in (3, 7)
