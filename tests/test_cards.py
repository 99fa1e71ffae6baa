"""R1: cards, their text notation, points, and the deck."""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginrummy.cards import (
    RANKS,
    SUITS,
    Card,
    CardError,
    deck,
    format_cards,
    from_mask,
    parse_cards,
    shuffled_deck,
    to_mask,
)

ALL = deck()


def test_r1_deck_has_52_distinct_cards() -> None:
    assert len(ALL) == 52
    assert len({str(c) for c in ALL}) == 52
    assert {c.suit for c in ALL} == set("CDHS")
    assert {c.rank for c in ALL} == set("A23456789TJQK")
    assert [c.index for c in ALL] == list(range(52))


@pytest.mark.parametrize("card", ALL, ids=str)
def test_r1_parse_print_round_trip(card: Card) -> None:
    text = str(card)
    assert len(text) == 2
    assert text == card.rank + card.suit
    assert Card.parse(text) is card
    assert Card.parse(text.lower()) is card
    assert Card.from_index(card.index) is card
    assert Card(card.suit_index, card.rank_index) is card


def test_r1_ten_written_as_10_or_t_any_case() -> None:
    for suit in SUITS:
        ten = Card.parse("T" + suit)
        assert Card.parse("10" + suit) is ten
        assert Card.parse("10" + suit.lower()) is ten
        assert Card.parse("t" + suit.lower()) is ten
        assert str(ten) == "T" + suit
    assert parse_cards("10D td Td tD", allow_duplicates=True) == [Card.parse("TD")] * 4
    assert str(Card.parse(" 10d ")) == "TD"


def test_r1_output_is_two_characters() -> None:
    assert format_cards(parse_cards("10d as 2c kh")) == "TD AS 2C KH"
    assert all(len(str(c)) == 2 for c in ALL)


def test_r1_points() -> None:
    expected = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                "T": 10, "J": 10, "Q": 10, "K": 10}
    for c in ALL:
        assert c.points == expected[c.rank]
    assert sum(c.points for c in ALL) == 4 * (45 + 40)


def test_r1_aces_low() -> None:
    ace = Card.parse("AS")
    assert ace.rank_index == 0 and ace.points == 1
    assert RANKS.index("A") == 0 and RANKS.index("K") == 12
    assert Card.parse("2S").rank_index == 1


@pytest.mark.parametrize("bad", ["", "X", "1C", "11C", "AX", "ZZ", "A", "ASS", "0D", "10", "T"])
def test_r1_bad_strings_raise_card_error(bad: str) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(bad)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "card" in message.lower()
    assert "AS" in message  # shows an example of the notation


def test_r1_bad_card_in_list_names_it() -> None:
    with pytest.raises(CardError, match="QX"):
        parse_cards("AS KD QX")
    with pytest.raises(ValueError):
        parse_cards(["AS", 7])  # type: ignore[list-item]
    with pytest.raises(CardError):
        Card.parse(12)  # type: ignore[arg-type]
    with pytest.raises(CardError):
        Card.from_index(52)
    with pytest.raises(CardError):
        Card(4, 0)


def test_r1_duplicates_refused() -> None:
    with pytest.raises(CardError, match="Duplicate card: AS"):
        parse_cards("AS 2C as")
    with pytest.raises(CardError, match="Duplicate card: TD"):
        parse_cards(["TD", "10D"])
    with pytest.raises(CardError, match="Duplicate"):
        parse_cards([Card.parse("KH"), "kh"])
    assert len(parse_cards("AS AS", allow_duplicates=True)) == 2


def test_r1_separators_and_mixed_input() -> None:
    assert parse_cards("ah,10D  2c") == parse_cards(["AH", Card.parse("TD"), "2c"])
    assert parse_cards("") == []
    assert parse_cards([]) == []


def test_r1_cards_are_immutable_and_interned() -> None:
    c = Card.parse("QH")
    with pytest.raises(AttributeError):
        setattr(c, "points", 3)  # noqa: B010 - the point is that this raises
    assert c is Card.parse("qh")
    assert c == Card.parse("QH") and c != Card.parse("QS")
    assert hash(c) == c.index
    assert sorted([Card.parse("2S"), Card.parse("AC")]) == [Card.parse("AC"), Card.parse("2S")]


@pytest.mark.parametrize("card", ALL, ids=str)
def test_r1_pickle_and_repr_read_back(card: Card) -> None:
    assert pickle.loads(pickle.dumps(card)) is card
    assert eval(repr(card), {"Card": Card}) is card


def test_r1_names_and_symbols() -> None:
    assert Card.parse("QH").name == "queen of hearts"
    assert Card.parse("TS").symbol == "T\u2660"


@given(st.lists(st.sampled_from(ALL), unique=True, max_size=52))
def test_r1_mask_round_trip(cards: list[Card]) -> None:
    m = to_mask(cards)
    assert m.bit_count() == len(cards)
    assert from_mask(m) == sorted(cards)


def test_r1_shuffled_deck_is_reproducible() -> None:
    a = shuffled_deck(random.Random(5))
    b = shuffled_deck(random.Random(5))
    assert a == b and sorted(a) == ALL and a != ALL
