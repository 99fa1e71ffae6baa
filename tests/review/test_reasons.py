"""Why the computer moved, in words (ginrummy.review.reasons): every figure a reason
states is checked here against a count made another way, across seeded games of every
kind of bot, and no reason names a card hidden from the computer (R11)."""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass
from functools import cache

import pytest

from ginrummy import Action, Card, Deal, Hand, deck, parse_cards
from ginrummy.bots import make_bot
from ginrummy.cards import SUIT_NAMES, to_mask
from ginrummy.evaluator import ActionValue, Evaluation
from ginrummy.hand import View
from ginrummy.match import Match
from ginrummy.melds import arrange
from ginrummy.review.explain import live_outs, undercut_chance
from ginrummy.review.reasons import outs, reason

CARD = re.compile(r"\b([A2-9TJQK][CDHS])\b")
RANK = "A23456789TJQK"
SUIT_OF = {name: letter for letter, name in SUIT_NAMES.items()}


@dataclass(frozen=True)
class Move:
    """One computer move: its view (R11), the action, the reason, and the cards of the
    human that the computer could not see at that moment."""

    bot: str
    view: View
    action: Action
    why: str
    hidden: frozenset[Card]


def _hand(hand0: str, hand1: str, upcard: str, top: str, moves: list[str]) -> Hand:
    used = {*parse_cards(hand0), *parse_cards(hand1), Card.parse(upcard), *parse_cards(top)}
    stock = [*parse_cards(top), *(c for c in deck() if c not in used)]
    hand = Hand(Deal.build(hand0, hand1, upcard, stock), dealer=0)
    for m in moves:
        hand.play(Action.parse(m))
    return hand


@cache
def seeded_moves() -> tuple[Move, ...]:
    """Seat 1's moves in seeded games of each bot against ``strong-fast`` (seat 0, the
    human's place), with their reasons: whole matches, and two hands of expert."""
    out: list[Move] = []
    for name, seed, hands in [("simple", 1, 99), ("easy", 2, 99), ("marjj", 3, 99),
                              ("strong-fast", 4, 99), ("strong", 6, 3),
                              ("expert-fast", 5, 2), ("expert-fast", 7, 2)]:
        m = Match(seed=seed)
        bots = [make_bot("strong-fast", seed + 100), make_bot(name, seed)]
        while not m.is_over() and m.hand.hand_index < hands:
            h = m.hand
            seat = h.to_play
            if seat is None:
                m.start_hand()
                continue
            view = h.view(seat)
            action = bots[seat].decide(view)
            if seat == 1:
                ev = getattr(bots[1], "last", None)
                first = getattr(bots[1], "default", None)
                why = reason(view, action, ev, first_choice=first)
                human = h.view(0)  # the full state, read by the test only
                hidden = frozenset(human.hand) - _known_to_computer(view)
                out.append(Move(name, view, action, why, hidden))
            m.play(action, seat)
            if h.result is not None:
                for s in (0, 1):
                    bots[s].hand_over(h.view(s), h.result)
    return tuple(out)


def _known_to_computer(view: View) -> frozenset[Card]:
    """The human's cards the computer may know of (R11): those the human took from the
    pile and has neither thrown back nor lost to the computer's own take."""
    return frozenset(view.opponent_took) - set(view.discards) - set(view.hand)


def _unseen(view: View) -> set[Card]:
    """The cards the computer has not seen: not held, not in the pile, not known to be in
    the human's hand."""
    return set(deck()) - set(view.hand) - set(view.discards) - _known_to_computer(view)


def _is_meld(cards: tuple[Card, ...]) -> bool:
    """R2 read literally: 3+ of one rank, or 3+ consecutive of one suit (aces low)."""
    if len({c.rank for c in cards}) == 1:
        return len({c.suit for c in cards}) == len(cards) >= 3
    if len({c.suit for c in cards}) != 1:
        return False
    ranks = sorted(c.rank_index for c in cards)
    return len(cards) >= 3 and ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def brute_outs(kept: set[Card], unseen: set[Card]) -> int:
    """Unseen cards making a meld with some two cards kept, by trying every pair."""
    return sum(1 for u in unseen
               if any(_is_meld((a, b, u)) for a, b in itertools.combinations(kept, 2)))


def named_cards(why: str) -> set[Card]:
    """Every card a reason names: as ``9C``, or inside ``the 7-8-9 of clubs`` and
    ``the 7 and 9 of hearts``."""
    cards = {Card.parse(c) for c in CARD.findall(why)}
    for ranks, suit in re.findall(r"the ([A2-9TJQK](?:-[A2-9TJQK])+) of (\w+)", why):
        cards |= {Card.parse(r + SUIT_OF[suit]) for r in ranks.split("-")}
    for a, b, suit in re.findall(r"the ([A2-9TJQK]) and ([A2-9TJQK]) of (\w+)", why):
        cards |= {Card.parse(a + SUIT_OF[suit]), Card.parse(b + SUIT_OF[suit])}
    return cards


def after_discard(view: View, action: Action) -> set[Card]:
    assert action.card is not None
    return set(view.hand) - {action.card}


# ------------------------------------------------------------------ hand facts


def test_outs_is_the_brute_force_count_and_the_reviews() -> None:
    """The outs a reason quotes are the review's (live_outs) and a count by hand."""
    for mv in seeded_moves()[::3]:
        unseen = _unseen(mv.view)
        for c in sorted(mv.view.hand)[:4]:
            kept = set(mv.view.hand) - {c}
            n = outs(to_mask(kept), to_mask(unseen))
            assert n == brute_outs(kept, unseen)
            if len(mv.view.hand) == 11:
                assert n == live_outs(mv.view, c)


def test_every_outs_and_deadwood_figure_of_a_discard_is_true() -> None:
    checked = 0
    for mv in seeded_moves():
        if mv.action.act != "discard":
            continue
        kept = after_discard(mv.view, mv.action)
        hit = re.search(r"(\d+) outs? and (\d+) deadwood", mv.why)
        if mv.action.knock:
            assert hit is None
            continue
        assert hit is not None, mv.why
        assert int(hit[1]) == brute_outs(kept, _unseen(mv.view)), mv.why
        assert int(hit[2]) == arrange(sorted(kept)).deadwood, mv.why
        if "(the least possible)" in mv.why:
            assert int(hit[2]) == min(
                arrange(sorted(set(mv.view.hand) - {a.card})).deadwood
                for a in mv.view.legal if a.card is not None)
        other = re.search(r"throwing (\w\w) would leave (\d+) outs? and (\d+) deadwood",
                          mv.why)
        if other:
            rest = set(mv.view.hand) - {Card.parse(other[1])}
            assert int(other[2]) == brute_outs(rest, _unseen(mv.view)), mv.why
            assert int(other[3]) == arrange(sorted(rest)).deadwood, mv.why
        checked += 1
    assert checked > 100


def test_melds_pairs_and_runs_named_are_held() -> None:
    """``keeps the pair of Qs``, ``makes the 7-8-9 of clubs``: the computer holds those
    cards (with the face-up card, for a draw)."""
    for mv in seeded_moves():
        top = {mv.view.discards[-1]} if mv.view.discards else set()
        held = set(mv.view.hand) | (top if mv.action.act != "discard" else set())
        for what, rank in re.findall(r"the (pair|set) of ([A2-9TJQK])s", mv.why):
            assert sum(c.rank == rank for c in held) >= (2 if what == "pair" else 3), mv.why
        for ranks, suit in re.findall(r"the ([A2-9TJQK](?:-[A2-9TJQK])+) of (\w+)", mv.why):
            run = tuple(Card.parse(r + SUIT_OF[suit]) for r in ranks.split("-"))
            assert set(run) <= held, mv.why
            if len(run) >= 3:
                assert _is_meld(run), mv.why


def test_the_face_up_card_figures_are_true() -> None:
    """``deadwood down from X to Y`` and ``helps nothing`` for the draws and passes."""
    checked = 0
    for mv in seeded_moves():
        if mv.action.act == "discard" or not mv.view.discards:
            continue
        top = mv.view.discards[-1]
        hand = set(mv.view.hand)
        now = arrange(sorted(hand)).deadwood
        after = min(arrange(sorted((hand | {top}) - {c})).deadwood for c in hand)
        change = re.search(r"deadwood (?:down|up) from (\d+) to (\d+)|deadwood stays (\d+)",
                           mv.why)
        if change is not None:
            if change[3] is not None:
                assert int(change[3]) == now == after, mv.why
            else:
                assert (int(change[1]), int(change[2])) == (now, after), mv.why
        melds = any(_is_meld((a, b, top)) for a, b in itertools.combinations(hand, 2))
        if "lowers no deadwood" in mv.why or "helps nothing" in mv.why:
            assert after >= now, mv.why
        if "makes no meld" in mv.why or "helps nothing" in mv.why:
            assert not melds, mv.why
        if "only by breaking another" in mv.why:
            assert melds and all(top not in m for m in arrange(sorted(hand | {top})).melds)
        if "helps nothing" in mv.why:  # not even a pair or two of a suit
            assert not any(c.rank == top.rank or (c.suit == top.suit and abs(
                c.rank_index - top.rank_index) <= 2) for c in hand), mv.why
        checked += 1
    assert checked > 100


def test_no_reason_names_a_card_hidden_from_the_computer() -> None:
    """R11: across the seeded games, every card a reason names is the computer's own, in
    the discard pile, or one the human took from it; never one of the human's hidden
    cards."""
    for mv in seeded_moves():
        named = named_cards(mv.why)
        assert not named & mv.hidden, (mv.why, sorted(named & mv.hidden))
        public = set(mv.view.hand) | set(mv.view.discards) | _known_to_computer(mv.view)
        assert named <= public, mv.why


def test_reasons_are_the_same_for_the_same_view() -> None:
    """A reason is a function of the view: the human's hidden cards cannot move it."""
    for mv in seeded_moves()[::7]:
        assert reason(mv.view, mv.action) == reason(mv.view, mv.action)


def test_every_kind_of_move_gets_a_reason() -> None:
    kinds = {(mv.action.act, mv.action.source, mv.action.knock) for mv in seeded_moves()}
    assert ("draw", "stock", False) in kinds and ("discard", None, False) in kinds
    assert all(mv.why and "\n" not in mv.why for mv in seeded_moves())
    assert any("the evaluator" in mv.why for mv in seeded_moves() if mv.bot == "expert-fast")
    assert not any("the evaluator" in mv.why for mv in seeded_moves()
                   if mv.bot != "expert-fast")


def test_reasons_are_fast() -> None:
    """Well under 100 ms a move (the first undercut estimate loads the play-out kernel
    once, so it is timed after a warm-up)."""
    moves = seeded_moves()
    reason(moves[0].view, moves[0].action)
    took: list[float] = []
    for mv in moves[::2]:
        t0 = time.perf_counter()
        reason(mv.view, mv.action)
        took.append(time.perf_counter() - t0)
    took.sort()
    assert sum(took) / len(took) < 0.03
    assert took[int(0.95 * len(took))] < 0.1


# ------------------------------------------------------------------ examples


def test_taking_a_card_that_makes_a_run() -> None:
    hand = _hand("AS 3S 5S 7S 9S JS 2H 4H 6H 8H", "7C 8C 2D 4D 6D 9H JH KS QS 3H", "9C",
                 "", ["pass"])
    view = hand.view(1)
    assert reason(view, Action.parse("draw discard")) == \
        "it makes the 7-8-9 of clubs, deadwood down from 69 to 44"
    assert reason(view, Action.parse("pass")) == \
        "the 9C would make the 7-8-9 of clubs, deadwood down from 69 to 44"


def test_a_card_that_helps_nothing() -> None:
    # No ten, no diamond near it, and a ten thrown for it lowers nothing.
    hand = _hand("AS 3S 5S 7S 9S JS 2H 4H 6H 8H", "7C 8C 2D 4D 6D 9H JH KS QS 3H", "TD",
                 "", ["pass"])
    view = hand.view(1)
    assert reason(view, Action.parse("pass")) == "the TD helps nothing"
    assert reason(view, Action.parse("pass"), card=lambda c: c.symbol) == \
        "the T♦ helps nothing"
    # The 5C lowers the deadwood (a king goes for it) but makes no meld.
    hand = _hand("AS 3S 5S 7S 9S JS 2H 4H 6H 8H", "7C 8C 2D 4D 6D 9H JH KS QS 3H", "5C",
                 "", ["pass"])
    assert reason(hand.view(1), Action.parse("pass")) == \
        "the 5C would make no meld but bring the deadwood down from 69 to 64"


def seat_1_draws_the_ace_of_clubs() -> View:
    """Seat 1 holds two runs, the 7-8 of hearts and 3C 4H, and draws AC: the 8H is the
    discard leaving the least deadwood."""
    hand = _hand("AS 3S 9S JS 2C 4C 6C 8C TC QC", "7H 8H 2D 3D 4D 5S 6S 7S 3C 4H", "KC",
                 "AC", ["pass", "pass", "draw stock"])
    return hand.view(1)


def test_a_discard_that_keeps_a_two_card_run_names_it_and_the_alternative() -> None:
    view = seat_1_draws_the_ace_of_clubs()
    assert reason(view, Action.parse("discard 4H")) == (
        "keeps the 7-8 of hearts, 11 outs and 19 deadwood left; throwing 8H would leave "
        "10 outs and 15 deadwood")
    unseen = _unseen(view)
    assert brute_outs(set(view.hand) - {Card.parse("4H")}, unseen) == 11
    assert brute_outs(set(view.hand) - {Card.parse("8H")}, unseen) == 10
    assert reason(view, Action.parse("discard 8H")) == \
        "10 outs and 15 deadwood left (the least possible)"
    assert reason(view, Action.parse("discard 2D")).startswith(
        "breaks the 2-3-4 of diamonds, ")


def undercut_words(chance: float) -> str:
    if chance < 0.005:
        return "an undercut is very unlikely"
    if chance > 0.995:
        return "an undercut is all but certain"
    return f"an undercut is about {chance:.0%} likely"


def test_a_knock_gives_the_undercut_chance() -> None:
    # Seat 1: A-9 of spades and KH, draws 5D: discarding 5D leaves 10 deadwood, KH 5 (R6).
    hand = _hand("AH 3H 5H 7H 9H JH KC 2D 4D 6D", "AS 2S 3S 4S 5S 6S 7S 8S 9S KH", "QD",
                 "5D", ["pass", "pass", "draw stock"])
    view = hand.view(1)
    chance = undercut_chance(view, Card.parse("5D"))
    assert reason(view, Action.parse("discard 5D knock")) == \
        f"with 10 deadwood, {undercut_words(chance)}"
    chance = undercut_chance(view, Card.parse("KH"))  # the knock with the least deadwood
    assert reason(view, Action.parse("discard 5D")) == \
        f"could knock with 5 ({undercut_words(chance)}) but plays on, with 1 out and 10 deadwood"


def test_gin() -> None:
    hand = _hand("AH 3H 5H 7H 9H JH KC 2D 4D 6D", "AS 2S 3S 4S 5S 6S 7S 8S 9S KH", "QD",
                 "TS", ["pass", "pass", "draw stock"])
    view = hand.view(1)
    assert reason(view, Action.parse("discard KH knock")) == "the ten cards left all meld"


# ------------------------------------------------------------------ the evaluator


def _evaluation(rows: dict[str, list[float]]) -> Evaluation:
    values = tuple(ActionValue(Action.parse(a), sum(r) / len(r), 0.0, 0.0, 0.0)
                   for a, r in rows.items())
    return Evaluation(values, len(next(iter(rows.values()))),
                      tuple(tuple(r) for r in rows.values()),
                      tuple(tuple(0.0 for _ in r) for r in rows.values()))


@pytest.fixture
def upcard_view() -> View:
    hand = _hand("AS 3S 5S 7S 9S JS 2H 4H 6H 8H", "7C 8C 2D 4D 6D 9H JH KS QS 3H", "9C",
                 "", ["pass"])
    return hand.view(1)


def test_the_evaluators_margin_over_the_runner_up(upcard_view: View) -> None:
    ev = _evaluation({"draw discard": [0.6, 0.62, 0.58, 0.6], "pass": [0.5, 0.5, 0.5, 0.5]})
    gain, se = ev.difference(Action.parse("draw discard"), Action.parse("pass"))
    assert gain > 2 * se
    why = reason(upcard_view, Action.parse("draw discard"), ev)
    assert why.endswith(f"; the evaluator gives it {gain:.1%} more match wins than passing")


def test_too_close_to_call(upcard_view: View) -> None:
    ev = _evaluation({"draw discard": [0.6, 0.4, 0.62, 0.41], "pass": [0.5, 0.5, 0.5, 0.5]})
    gain, se = ev.difference(Action.parse("draw discard"), Action.parse("pass"))
    assert 0 < gain <= 2 * se
    why = reason(upcard_view, Action.parse("draw discard"), ev)
    assert why.endswith(f"gives it {gain:.1%} more match wins than passing, too close to call")
    why = reason(upcard_view, Action.parse("pass"), ev)
    assert why.endswith(f"; by the evaluator, taking 9C wins the match {gain:.1%} more "
                        "often, too close to call")


def test_an_overruled_first_choice(upcard_view: View) -> None:
    ev = _evaluation({"pass": [0.5, 0.5, 0.5, 0.5], "draw discard": [0.6, 0.62, 0.58, 0.6]})
    why = reason(upcard_view, Action.parse("draw discard"), ev,
                 first_choice=Action.parse("pass"))
    assert why.endswith("the evaluator gives it 10.0% more match wins than its first "
                        "choice, passing")


def test_an_evaluation_of_other_moves_is_ignored(upcard_view: View) -> None:
    ev = _evaluation({"pass": [0.5, 0.5, 0.5, 0.5], "draw stock": [0.6, 0.6, 0.6, 0.6]})
    assert reason(upcard_view, Action.parse("draw discard"), ev) == \
        reason(upcard_view, Action.parse("draw discard"))


def test_a_discard_names_the_runner_up_with_its_figures() -> None:
    view = seat_1_draws_the_ace_of_clubs()
    ev = _evaluation({"discard 4H": [0.5, 0.52, 0.5, 0.52],
                      "discard 8H": [0.5, 0.5, 0.49, 0.5],
                      "discard 2D": [0.4, 0.4, 0.4, 0.4]})
    why = reason(view, Action.parse("discard 4H"), ev)
    rest = set(view.hand) - {Card.parse("8H")}
    gain, _ = ev.difference(Action.parse("discard 4H"), Action.parse("discard 8H"))
    assert why.endswith(
        f"the evaluator gives it {gain:.1%} more match wins than throwing 8H "
        f"({brute_outs(rest, _unseen(view))} outs, {arrange(sorted(rest)).deadwood} deadwood)")
    assert "would leave" not in why  # the evaluator's words name the runner-up once
