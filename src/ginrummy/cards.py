"""Cards (R1): immutable card values, their text notation, points, and the deck.

A card is identified by an index 0..51: ``suit * 13 + rank`` with suits in the
order C D H S and ranks A=0 .. K=12. Sets of cards are often carried as 52-bit
integer masks (bit ``index``); the meld solver works on those.

>>> Card.parse("10d")
Card.parse('TD')
>>> str(Card.parse("as")), Card.parse("KH").points
('AS', 10)
>>> parse_cards("7C 8C 9C")
[Card.parse('7C'), Card.parse('8C'), Card.parse('9C')]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any, TypeAlias

__all__ = [
    "ALL_CARDS",
    "Card",
    "CardError",
    "CardSet",
    "POINTS",
    "RANKS",
    "SUITS",
    "SUIT_SYMBOLS",
    "CardsLike",
    "deck",
    "parse_cards",
    "format_cards",
    "to_mask",
    "from_mask",
    "shuffled_deck",
    "iter_mask",
    "trips",
]

SUITS = "CDHS"
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANK_NAMES = {
    "A": "ace", "T": "ten", "J": "jack", "Q": "queen", "K": "king",
    **{r: r for r in "23456789"},
}
POINTS: tuple[int, ...] = tuple(min(r + 1, 10) for _ in SUITS for r in range(13))
"""Points of each card index (R1: ace 1, 2..9 face value, T J Q K 10)."""
ALL_CARDS = (1 << 52) - 1
"""The mask of the whole deck (bit ``suit * 13 + rank`` for every card)."""
_SUIT = 0x1FFF


class CardError(ValueError):
    """A card string or card collection is malformed (unknown or duplicate card)."""


class Card:
    """One playing card; instances are interned, so ``Card.parse('AS') is Card.parse('as')``.

    >>> c = Card(3, 12)
    >>> c, c.suit, c.rank, c.index, c.points
    (Card.parse('KS'), 'S', 'K', 51, 10)
    """

    __slots__ = ("index", "suit_index", "rank_index", "points", "mask", "_text")
    _cache: list[Card] = []

    index: int
    suit_index: int
    rank_index: int
    points: int
    mask: int
    _text: str

    def __new__(cls, suit_index: int, rank_index: int) -> Card:
        if cls._cache:
            if not (0 <= suit_index < 4 and 0 <= rank_index < 13):
                raise CardError(f"No such card: suit {suit_index}, rank {rank_index}.")
            return cls._cache[suit_index * 13 + rank_index]
        return super().__new__(cls)  # only while building the cache

    @classmethod
    def _build(cls) -> None:
        for s in range(4):
            for r in range(13):
                c = object.__new__(cls)
                object.__setattr__(c, "index", s * 13 + r)
                object.__setattr__(c, "suit_index", s)
                object.__setattr__(c, "rank_index", r)
                object.__setattr__(c, "points", min(r + 1, 10))
                object.__setattr__(c, "mask", 1 << (s * 13 + r))
                object.__setattr__(c, "_text", RANKS[r] + SUITS[s])
                cls._cache.append(c)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Card.from_index, (self.index,))

    @property
    def suit(self) -> str:
        """Suit letter, one of C D H S."""
        return SUITS[self.suit_index]

    @property
    def rank(self) -> str:
        """Rank letter, one of A 2 .. 9 T J Q K."""
        return RANKS[self.rank_index]

    @property
    def symbol(self) -> str:
        """Display form with a suit symbol, e.g. ``10♥`` style but two-character ranks: ``T♥``."""
        return RANKS[self.rank_index] + SUIT_SYMBOLS[SUITS[self.suit_index]]

    @property
    def name(self) -> str:
        """Spoken name, e.g. ``queen of hearts``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    @staticmethod
    def from_index(index: int) -> Card:
        """The card with index ``suit * 13 + rank`` (0..51)."""
        if not 0 <= index < 52:
            raise CardError(f"No such card index: {index}.")
        return Card._cache[index]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse R1 notation: rank then suit, ``10`` for ``T``, any case.

        >>> Card.parse(" qh ")
        Card.parse('QH')
        """
        if not isinstance(text, str):
            raise CardError(f"A card must be a string like 'AS', not {text!r}.")
        card = _PARSE.get(text.strip().upper())
        if card is None:
            raise CardError(
                f"Unknown card {text.strip()!r}: use a rank (A 2-9 T J Q K) then a suit "
                "(C D H S), e.g. 'AS', 'TD' or '10D'."
            )
        return card

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index


Card._build()
_PARSE: dict[str, Card] = {}
for _c in Card._cache:
    _PARSE[_c._text] = _c
    if _c.rank == "T":
        _PARSE["10" + _c.suit] = _c

CardsLike: TypeAlias = "str | CardSet | Iterable[Card | str]"
"""What the public functions accept: an R1 string, a :class:`CardSet`, or an iterable of
cards or card strings."""


def parse_cards(cards: CardsLike, *, allow_duplicates: bool = False) -> list[Card]:
    """Parse cards given as a string (separated by spaces or commas) or an iterable.

    Raises :class:`CardError` (a ``ValueError``) for an unknown or duplicated card.

    >>> parse_cards("ah,10D  2c")
    [Card.parse('AH'), Card.parse('TD'), Card.parse('2C')]
    >>> parse_cards("AS AS")
    Traceback (most recent call last):
    ...
    ginrummy.cards.CardError: Duplicate card: AS.
    """
    if isinstance(cards, str):
        items: Iterable[Card | str] = cards.replace(",", " ").split()
    elif type(cards) is CardSet:
        return list(cards)
    else:
        try:
            items = list(cards)
        except TypeError:
            raise CardError(f"Expected cards, got {cards!r}.") from None
    out: list[Card] = []
    seen = 0
    for item in items:
        card = item if isinstance(item, Card) else Card.parse(item)
        if not allow_duplicates and seen & card.mask:
            raise CardError(f"Duplicate card: {card}.")
        seen |= card.mask
        out.append(card)
    return out


def cards_mask(cards: CardsLike) -> tuple[int, int]:
    """Parse cards straight to ``(bit mask, count)``: the solver's fast path, same errors as
    :func:`parse_cards`.

    >>> cards_mask("AC 2c"), cards_mask(CardSet("AC 2C")), cards_mask(parse_cards("AC 2C"))
    ((3, 2), (3, 2), (3, 2))
    """
    if type(cards) is CardSet:
        return cards.mask, cards.mask.bit_count()
    if not isinstance(cards, str):
        if not isinstance(cards, (list, tuple)):
            try:
                cards = list(cards)
            except TypeError:
                raise CardError(f"Expected cards, got {cards!r}.") from None
        try:  # Card objects: sum their bits; they are distinct iff no carry occurred
            masks = [c.mask for c in cards]  # type: ignore[union-attr]
        except AttributeError:
            pass
        else:
            m = sum(masks)
            if m.bit_count() == len(masks) and m <= ALL_CARDS:
                return m, len(masks)
        return _cards_mask_slow(cards)
    get = _PARSE.get
    m = n = 0
    for tok in cards.replace(",", " ").split():
        card = get(tok) or get(tok.upper()) or Card.parse(tok)  # parse raises the error
        if m & card.mask:
            raise CardError(f"Duplicate card: {card}.")
        m |= card.mask
        n += 1
    return m, n


def _cards_mask_slow(cards: Any) -> tuple[int, int]:
    try:
        items = list(cards)
    except TypeError:
        raise CardError(f"Expected cards, got {cards!r}.") from None
    m = 0
    for item in items:
        card = item if isinstance(item, Card) else Card.parse(item)
        if m & card.mask:
            raise CardError(f"Duplicate card: {card}.")
        m |= card.mask
    return m, len(items)


_new_object = object.__new__


def format_cards(cards: Iterable[Card], symbols: bool = False) -> str:
    """Print cards space-separated, in R1 notation or with suit symbols.

    >>> format_cards(parse_cards("TD 2c"))
    'TD 2C'
    """
    return " ".join(c.symbol if symbols else str(c) for c in cards)


def deck() -> list[Card]:
    """The 52 cards in index order (clubs A..K, diamonds, hearts, spades)."""
    return list(Card._cache)


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A deck shuffled by ``rng`` (reproducible for a seeded ``random.Random``)."""
    cards = deck()
    rng.shuffle(cards)
    return cards


def to_mask(cards: Iterable[Card]) -> int:
    """Bit mask of the cards (bit ``card.index``)."""
    m = 0
    for c in cards:
        m |= c.mask
    return m


def from_mask(mask: int) -> list[Card]:
    """Cards of a bit mask, in index order."""
    out = []
    cache = Card._cache
    while mask:
        low = mask & -mask
        out.append(cache[low.bit_length() - 1])
        mask ^= low
    return out


def iter_mask(mask: int) -> Iterator[int]:
    """Indexes of the set bits of ``mask``, lowest first.

    >>> list(iter_mask(0b1010))
    [1, 3]
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def trips(mask: int) -> int:
    """The ranks held three or four times in ``mask``, as a 13-bit rank mask (the only
    ranks that can form a set, R2).

    >>> trips(CardSet("7C 7D 7H 8C 8D").mask) == 1 << 6
    True
    """
    a, b, c, d = mask & _SUIT, mask >> 13 & _SUIT, mask >> 26 & _SUIT, mask >> 39 & _SUIT
    return (a & b & (c | d)) | (c & d & (a | b))


class CardSet:
    """An immutable set of cards held as a 52-bit integer (bit ``card.index``), like
    python-chess's ``SquareSet``: set operations, iteration in index order, ``len``,
    parsing and printing in R1 notation, and a repr that reads back.

    >>> hand = CardSet("7C 8C 9C KD")
    >>> hand
    CardSet('7C 8C 9C KD')
    >>> len(hand), Card.parse("KD") in hand, "QD" in hand, hand.points
    (4, True, False, 34)
    >>> hand - CardSet("KD") | CardSet("TC")
    CardSet('7C 8C 9C TC')
    >>> [str(c) for c in hand & CardSet("9C KD AS")]
    ['9C', 'KD']
    >>> len(~hand), CardSet(hand.mask) == hand, CardSet() == CardSet.empty()
    (48, True, True)
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cards: CardsLike | int = 0) -> None:
        if type(cards) is int:
            if not 0 <= cards <= ALL_CARDS:
                raise CardError("A card mask must be a 52-bit non-negative integer.")
            m = cards
        elif isinstance(cards, bool):
            raise CardError(f"Expected cards, got {cards!r}.")
        else:
            m = cards_mask(cards)[0]  # type: ignore[arg-type]
        object.__setattr__(self, "mask", m)

    @classmethod
    def empty(cls) -> CardSet:
        """The set with no cards."""
        return cls(0)

    @classmethod
    def full(cls) -> CardSet:
        """The whole deck."""
        return cls(ALL_CARDS)

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Read cards in R1 notation (same errors as :func:`parse_cards`)."""
        return cls(cards_mask(text)[0])

    @staticmethod
    def _of(m: int) -> CardSet:
        """The set of a mask known to be valid (no check: the core's fast path)."""
        out = _new_object(CardSet)
        _set_mask(out, m)
        return out

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (CardSet, (self.mask,))

    @property
    def points(self) -> int:
        """The cards' total points (R1), as if all were deadwood."""
        return sum(POINTS[i] for i in iter_mask(self.mask))

    def __iter__(self) -> Iterator[Card]:
        cache = Card._cache
        m = self.mask
        while m:
            low = m & -m
            yield cache[low.bit_length() - 1]
            m ^= low

    def __reversed__(self) -> Iterator[Card]:
        cache = Card._cache
        m = self.mask
        while m:
            k = m.bit_length() - 1
            yield cache[k]
            m ^= 1 << k

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, card: object) -> bool:
        if isinstance(card, Card):
            return bool(self.mask & card.mask)
        if isinstance(card, str):
            c = _PARSE.get(card.strip().upper())
            return c is not None and bool(self.mask & c.mask)
        return False

    @staticmethod
    def _mask_of(other: object) -> int | None:
        if type(other) is CardSet:
            return other.mask
        if isinstance(other, Card):
            return other.mask
        if isinstance(other, (str, list, tuple, frozenset, set)):
            return cards_mask(other)[0]
        return None

    def __and__(self, other: object) -> CardSet:
        m = self._mask_of(other)
        return NotImplemented if m is None else CardSet._of(self.mask & m)

    def __or__(self, other: object) -> CardSet:
        m = self._mask_of(other)
        return NotImplemented if m is None else CardSet._of(self.mask | m)

    def __xor__(self, other: object) -> CardSet:
        m = self._mask_of(other)
        return NotImplemented if m is None else CardSet._of(self.mask ^ m)

    def __sub__(self, other: object) -> CardSet:
        m = self._mask_of(other)
        return NotImplemented if m is None else CardSet._of(self.mask & ~m)

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __invert__(self) -> CardSet:
        return CardSet._of(ALL_CARDS ^ self.mask)

    def __le__(self, other: object) -> bool:
        m = self._mask_of(other)
        return NotImplemented if m is None else self.mask & ~m == 0

    def __ge__(self, other: object) -> bool:
        m = self._mask_of(other)
        return NotImplemented if m is None else m & ~self.mask == 0

    def __lt__(self, other: object) -> bool:
        m = self._mask_of(other)
        return NotImplemented if m is None else self.mask != m and self.mask & ~m == 0

    def __gt__(self, other: object) -> bool:
        m = self._mask_of(other)
        return NotImplemented if m is None else self.mask != m and m & ~self.mask == 0

    def isdisjoint(self, other: CardsLike) -> bool:
        """Whether no card is in both."""
        return not self.mask & CardSet(other).mask

    def add(self, card: Card | str) -> CardSet:
        """A new set with ``card`` added (the set itself is immutable)."""
        c = card if isinstance(card, Card) else Card.parse(card)
        return CardSet._of(self.mask | c.mask)

    def remove(self, card: Card | str) -> CardSet:
        """A new set without ``card``; raises :class:`CardError` if it is not there."""
        c = card if isinstance(card, Card) else Card.parse(card)
        if not self.mask & c.mask:
            raise CardError(f"{c} is not in the set.")
        return CardSet._of(self.mask ^ c.mask)

    def __eq__(self, other: object) -> bool:
        if type(other) is CardSet:
            return self.mask == other.mask
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def __int__(self) -> int:
        return self.mask

    def __str__(self) -> str:
        return " ".join(str(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet({str(self)!r})"

    def symbols(self) -> str:
        """The cards with suit symbols, e.g. ``7♣ 8♣``."""
        return format_cards(self, symbols=True)


_set_mask = CardSet.__dict__["mask"].__set__  # the slot's own setter, past __setattr__
