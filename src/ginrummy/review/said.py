"""Sentences said later: a message of the catalog and its parameters, kept as they are
until they are said (docs/translating.md).

The coach's sentences are made where no reader is known: a review is graded in a worker
process and stored once for every reader of the match, in whatever language each reads
it. So its sentences are kept as :class:`Said` values, not as text: ``said.t`` and
``said.tn`` mark a message exactly as :func:`ginrummy.i18n.t` and
:func:`~ginrummy.i18n.tn` do (the extractor sees them alike) but return the message with
its parameters; ``str()`` says it in the language of the moment (the request's, or
English), with its parameters said too (a parameter may be another sentence, a list of
them, or a number written as the language writes it). :meth:`Said.to_json` and
:func:`from_json` keep a sentence in a stored review.

>>> s = t("{a} and {b}", a="7♣", b=tn("{n} out", "{n} outs", 2))
>>> str(s)
'7♣ and 2 outs'
>>> str(from_json(s.to_json())) == str(s)
True
>>> str(Joined("; ", (t("it gives gin"), Num(2.25, 1))))
'it gives gin; 2.2'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Union

from .. import i18n

__all__ = ["Joined", "Num", "Said", "Value", "clauses", "from_json", "joined", "number", "t",
           "tn", "to_json", "whole"]

Value = Union[str, int, "Said", "Joined", "Num"]
"""What a sentence's placeholder is filled with: plain text (a card as the table shows
it), a whole number, a sentence, a list of sentences or a number with decimals."""

_DECIMAL = {"en": "."}
"""The decimal separator of each language (a comma where none is named)."""
_THOUSANDS = {"en": ",", "fr": "\u202f"}
"""The thousands separator of each language (a point where none is named)."""


def number(x: float, places: int) -> str:
    """``x`` with ``places`` decimals, as the language of the moment writes it (English:
    ``f"{x:.1f}"`` exactly).

    >>> number(2.25, 1), number(12.0, 0)
    ('2.2', '12')
    >>> with i18n.using("de"):
    ...     number(2.25, 1)
    '2,2'
    """
    text = f"{x:.{places}f}"
    return text.replace(".", _DECIMAL.get(i18n.language(), ","))


def whole(n: int) -> str:
    """A whole number with its thousands grouped as the language of the moment does
    (English: ``f"{n:,}"`` exactly).

    >>> whole(16384)
    '16,384'
    >>> with i18n.using("it"):
    ...     whole(16384)
    '16.384'
    """
    return f"{n:,}".replace(",", _THOUSANDS.get(i18n.language(), "."))


@dataclass(frozen=True)
class Num:
    """A number with decimals, written when it is said (:func:`number`)."""

    value: float
    places: int

    def __str__(self) -> str:
        return number(self.value, self.places)


@dataclass(frozen=True)
class Joined:
    """Words said one after another with a separator that every language writes alike
    (``", "`` between the items of a list)."""

    sep: str
    items: tuple[Value, ...]

    def __str__(self) -> str:
        return self.sep.join(str(v) for v in self.items)


@dataclass(frozen=True)
class Said:
    """A catalog message with its parameters (module docstring); ``plural`` and ``n``
    for a message with plural forms."""

    message: str
    params: tuple[tuple[str, Value], ...] = ()
    plural: str | None = None
    n: int = 0

    def __str__(self) -> str:
        values = {k: str(v) for k, v in self.params}
        if self.plural is not None:
            return i18n.tn(self.message, self.plural, self.n, **values)
        return i18n.t(self.message, **values)

    def to_json(self) -> dict[str, Any]:
        """The sentence as stored: ``{"t": message, "p": {name: value}}`` (with ``"pl"``
        and ``"n"`` for a plural message)."""
        out: dict[str, Any] = {"t": self.message,
                               "p": {k: to_json(v) for k, v in self.params}}
        if self.plural is not None:
            out |= {"pl": self.plural, "n": self.n}
        return out


def t(message: str, /, **params: Value) -> Said:
    """``message`` with its placeholders' values, to be said later (module docstring)."""
    return Said(message, tuple(params.items()))


def tn(singular: str, plural: str, n: int, /, **params: Value) -> Said:
    """The plural message for ``n`` (``{n}`` filled with it), to be said later."""
    return Said(singular, tuple(params.items()), plural, n)


def joined(sep: str, items: Iterable[Value]) -> Joined:
    """``items`` said one after another, ``sep`` between them."""
    return Joined(sep, tuple(items))


def clauses(items: Sequence[Value]) -> Value:
    """Whole clauses said one after another, each joined to the next by a semicolon (as
    the language writes one: the message ``{first}; {then}``).

    >>> str(clauses([t("it gives gin"), "a", "b"]))
    'it gives gin; a; b'
    """
    out: Value = items[0]
    for item in items[1:]:
        out = t("{first}; {then}", first=out, then=item)
    return out


def to_json(v: Value) -> Any:
    """A sentence or value as stored (:func:`from_json` reads it back)."""
    if isinstance(v, Said):
        return v.to_json()
    if isinstance(v, Joined):
        return {"join": v.sep, "items": [to_json(x) for x in v.items]}
    if isinstance(v, Num):
        return {"num": v.value, "places": v.places}
    return v


def from_json(obj: Any) -> Value:
    """A stored sentence (:meth:`Said.to_json`) or value read back; anything else is kept
    as its text."""
    if isinstance(obj, (str, int)) and not isinstance(obj, bool):
        return obj
    if isinstance(obj, dict):
        if isinstance(obj.get("t"), str):
            params = obj.get("p")
            items = tuple((str(k), from_json(v)) for k, v in
                          (params.items() if isinstance(params, dict) else ()))
            plural = obj.get("pl")
            if isinstance(plural, str):
                return Said(obj["t"], items, plural, int(obj.get("n", 0)))
            return Said(obj["t"], items)
        if isinstance(obj.get("join"), str) and isinstance(obj.get("items"), list):
            return Joined(obj["join"], tuple(from_json(x) for x in obj["items"]))
        if isinstance(obj.get("num"), (int, float)) and isinstance(obj.get("places"), int):
            return Num(float(obj["num"]), obj["places"])
    return str(obj)
