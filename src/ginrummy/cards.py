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

__all__ = [
    "Card",
    "CardError",
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

CardsLike = str | Iterable[Card | str]
"""What the public functions accept: an R1 string or an iterable of cards or card strings."""


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

    >>> cards_mask("AC 2c")
    (3, 2)
    """
    if isinstance(cards, str):
        get = _PARSE.get
        m = n = 0
        for tok in cards.replace(",", " ").split():
            card = get(tok) or get(tok.upper()) or Card.parse(tok)  # parse raises the error
            if m & card.mask:
                raise CardError(f"Duplicate card: {card}.")
            m |= card.mask
            n += 1
        return m, n
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
    """Indexes of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
