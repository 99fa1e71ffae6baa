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


# ----------------------------------------------------------------------------- CardSet


def test_cardset_is_a_set_of_cards_with_an_int_inside_r1() -> None:
    from ginrummy import CardSet

    s = CardSet("KD 7C 8C 9C")
    assert s.mask == sum(c.mask for c in parse_cards("7C 8C 9C KD"))
    assert [str(c) for c in s] == ["7C", "8C", "9C", "KD"]  # index order
    assert [str(c) for c in reversed(s)] == ["KD", "9C", "8C", "7C"]
    assert len(s) == 4 and bool(s) and not CardSet()
    assert Card.parse("kd") in s and "9c" in s and "AS" not in s and 3 not in s
    assert str(s) == "7C 8C 9C KD" and eval(repr(s), {"CardSet": CardSet}) == s
    assert CardSet(s.mask) == s == CardSet(list(s)) == CardSet.parse("7c,8c 9c kd")
    assert hash(s) == hash(CardSet(s.mask)) and int(s) == s.mask
    assert s.points == 34 and CardSet.full().points == 4 * 85


def test_cardset_operations_agree_with_python_sets() -> None:
    import random

    from ginrummy import CardSet

    rng = random.Random(1)
    cards = deck()
    for _ in range(200):
        a, b = set(rng.sample(cards, rng.randint(0, 20))), set(rng.sample(cards, 9))
        sa, sb = CardSet(list(a)), CardSet(list(b))
        assert set(sa & sb) == a & b and set(sa | sb) == a | b
        assert set(sa ^ sb) == a ^ b and set(sa - sb) == a - b
        assert set(~sa) == set(cards) - a and len(sa) == len(a)
        assert (sa <= sb) == (a <= b) and (sa < sb) == (a < b) and (sa >= sb) == (a >= b)
        assert sa.isdisjoint(sb) == a.isdisjoint(b)
        assert sa & list(b) == sa & sb and list(b) | sa == sa | sb


def test_cardset_is_immutable_and_checks_its_input() -> None:
    from ginrummy import CardSet

    s = CardSet("AS")
    with pytest.raises(AttributeError):
        s.mask = 3  # type: ignore[misc]
    assert s.add("2S") == CardSet("AS 2S") and s == CardSet("AS")
    assert s.remove("AS") == CardSet()
    with pytest.raises(CardError, match="not in the set"):
        s.remove("KD")
    for bad in (-1, 1 << 52, True, "AS AS", "ZZ", [3]):
        with pytest.raises(CardError):
            CardSet(bad)  # type: ignore[arg-type]


def test_public_functions_take_card_sets_strings_and_card_lists() -> None:
    import ginrummy
    from ginrummy import CardSet

    text = "7C 8C 9C 9D 9H 9S KD QH 4S 2H"
    for make in (lambda: text, lambda: CardSet(text), lambda: parse_cards(text),
                 lambda: tuple(parse_cards(text)), lambda: iter(parse_cards(text)),
                 text.split):
        assert ginrummy.deadwood(make()) == 26
        assert ginrummy.arrange(make()).deadwood == 26
    eleven = text + " 3H"
    expect = ginrummy.deadwood_by_discard(eleven)
    assert list(expect) == sorted(expect)
    assert ginrummy.deadwood_by_discard(CardSet(eleven)) == expect
    assert ginrummy.deadwood_by_discard(parse_cards(eleven)) == expect
    with pytest.raises(CardError, match="Duplicate"):
        ginrummy.deadwood(parse_cards("AS") * 2)
    with pytest.raises(CardError, match="exactly 11"):
        ginrummy.deadwood_by_discard(parse_cards(text))


def test_view_hand_is_a_card_set_r11() -> None:
    from ginrummy import CardSet, Match

    v = Match(seed=5).view(0)
    assert isinstance(v.hand, CardSet) and len(v.hand) == 10
    assert [str(c) for c in v.hand] == v.to_json()["hand"]
