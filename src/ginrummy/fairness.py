"""Provably fair deals: a commitment to the secret seed at the start of a match, the seed
and salt revealed at its end, and a check that every deal is the one the seed gives.

The scheme is written out in ``docs/fairness.md`` precisely enough to check it in another
language; this module is its reference implementation (standard library only, so the core,
the web table and ``ginrummy verify`` share it).

>>> seed, salt = 7, "00" * 16
>>> commitment(seed, salt)[:16]
'c417688271977c85'
>>> deal_for(seed, 0).upcard                   # hand 0's up-card
Card.parse('KH')
>>> rec = {"format": "ginrummy/1", "seed": seed, "salt": salt,
...        "commitment": commitment(seed, salt), "deal_scheme": DEAL_SCHEME,
...        "hands": [{"dealer": 0, "deal": deal_for(seed, 0).to_json(), "actions": []}]}
>>> verify_record(rec).ok
True
"""

from __future__ import annotations

import hashlib
import random
import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, CardError, deck
from .hand import Deal, DealError

__all__ = [
    "DEAL_SCHEME",
    "DEAL_SCHEMES",
    "LEGACY_SCHEME",
    "Verification",
    "commitment",
    "deal_for",
    "deals",
    "new_salt",
    "new_seed",
    "seal",
    "verify_record",
]

DEAL_SCHEME = "ginrummy-deal/1"
"""The language-neutral scheme: SHA-256 blocks drive a Fisher-Yates shuffle."""
LEGACY_SCHEME = "python-random/1"
"""The web table's original scheme: Python's ``random.Random(f"{seed}:{hand}").shuffle``."""

SALT_BYTES = 16
"""A salt is 16 random bytes, written as 32 lower-case hex digits."""
SEED_BITS = 63
"""A table's secret seed: 63 random bits (fits a signed 64-bit database column)."""

_HEX = re.compile(r"[0-9a-f]+")


# ----------------------------------------------------------------------------- secrets


def new_seed() -> int:
    """A fresh secret seed from the operating system's secure generator."""
    return secrets.randbits(SEED_BITS)


def new_salt() -> str:
    """A fresh salt: 16 bytes from the secure generator, as 32 lower-case hex digits."""
    return secrets.token_hex(SALT_BYTES)


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"A seed must be a non-negative integer, not {seed!r}.")
    return seed


def _check_salt(salt: object) -> str:
    if not isinstance(salt, str) or not salt or len(salt) % 2 or not _HEX.fullmatch(salt):
        raise ValueError(f"A salt must be lower-case hex digits (an even number), not {salt!r}.")
    return salt


def commitment(seed: int, salt: str) -> str:
    """``SHA-256("ginrummy-commit/1:" + decimal seed + ":" + salt)`` as 64 hex digits.

    Published when the match starts; with the salt kept secret until the end, it tells
    nothing about the seed, and after the end it proves the seed was fixed from the start.
    """
    text = f"ginrummy-commit/1:{_check_seed(seed)}:{_check_salt(salt)}"
    return hashlib.sha256(text.encode("ascii")).hexdigest()


# ----------------------------------------------------------------------------- deals


def _u32_stream(seed: int, hand: int) -> Iterator[int]:
    """32-bit big-endian words of ``SHA-256("ginrummy-deal/1:seed:hand:block")``, block
    0, 1, 2, ... (8 words per block)."""
    block = 0
    while True:
        digest = hashlib.sha256(f"{DEAL_SCHEME}:{seed}:{hand}:{block}".encode("ascii")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i:i + 4], "big")
        block += 1


def _below(words: Iterator[int], n: int) -> int:
    """A uniform integer in ``[0, n)`` by rejection: words >= the largest multiple of n
    below 2**32 are skipped, so no value is favoured."""
    limit = (1 << 32) - (1 << 32) % n
    while True:
        w = next(words)
        if w < limit:
            return w % n


def _deal_from_deck(cards: list[Card]) -> Deal:
    """Cards 0-9 to seat 0, 10-19 to seat 1, card 20 the up-card, 21-51 the stock (top
    first): the order every scheme uses."""
    return Deal((tuple(cards[:10]), tuple(cards[10:20])), cards[20], tuple(cards[21:]))


def _sha_deal(seed: int, hand: int) -> Deal:
    words = _u32_stream(seed, hand)
    cards = deck()
    for i in range(51, 0, -1):
        j = _below(words, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return _deal_from_deck(cards)


def _legacy_deal(seed: int, hand: int) -> Deal:
    cards = deck()
    random.Random(f"{seed}:{hand}").shuffle(cards)
    return _deal_from_deck(cards)


DEAL_SCHEMES: dict[str, Callable[[int, int], Deal]] = {
    DEAL_SCHEME: _sha_deal,
    LEGACY_SCHEME: _legacy_deal,
}
"""Every scheme a record may name in ``deal_scheme``: name -> ``(seed, hand) -> Deal``."""


def deal_for(seed: int, hand: int, scheme: str = DEAL_SCHEME) -> Deal:
    """The deal of hand ``hand`` (0-based) of the match with secret ``seed``.

    Each hand depends only on ``(seed, hand)``, so no hand tells anything about another
    without the seed.
    """
    if scheme not in DEAL_SCHEMES:
        raise ValueError(f"Unknown deal scheme {scheme!r}: known are {', '.join(DEAL_SCHEMES)}.")
    if isinstance(hand, bool) or not isinstance(hand, int) or hand < 0:
        raise ValueError(f"A hand index must be a non-negative integer, not {hand!r}.")
    return DEAL_SCHEMES[scheme](_check_seed(seed), hand)


def deals(seed: int, scheme: str = DEAL_SCHEME) -> Iterator[Deal]:
    """Every deal of the match in turn, for ``Match(deals=...)``."""
    hand = 0
    while True:
        yield deal_for(seed, hand, scheme)
        hand += 1


def seal(record: dict[str, Any], salt: str, scheme: str = DEAL_SCHEME) -> dict[str, Any]:
    """Add the fairness members to a finished match's record (a new dict): ``salt``,
    ``commitment`` and ``deal_scheme``. The record must carry its ``seed``."""
    seed = record.get("seed")
    out = dict(record)
    out["deal_scheme"] = scheme
    out["commitment"] = commitment(_check_seed(seed), salt)
    out["salt"] = salt
    return out


# ----------------------------------------------------------------------------- verification


@dataclass
class Verification:
    """What ``ginrummy verify`` found. ``ok`` is True only when the commitment matches,
    every deal is the seed's and the play follows the rules; ``problem`` is set when the
    record cannot be checked at all."""

    commitment_ok: bool | None = None
    hands_ok: list[bool] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    problem: str | None = None
    scheme: str = DEAL_SCHEME
    seed: int | None = None
    play_ok: bool | None = None
    play_error: dict[str, Any] | None = None  # replay's error object: hand, action, message

    @property
    def ok(self) -> bool:
        """Whether everything checked out (and something was checked)."""
        return (self.problem is None and bool(self.commitment_ok) and all(self.hands_ok)
                and bool(self.play_ok))

    def to_json(self) -> dict[str, Any]:
        """The ``ginrummy verify --json`` object."""
        return {
            "verified": self.ok,
            "commitment": self.commitment_ok,
            "deal_scheme": self.scheme,
            "hands": self.hands_ok,
            "mismatches": self.mismatches,
            "problem": self.problem,
            "play": self.play_ok,
            "play_error": self.play_error,
        }


def _differences(expected: Deal, got: Deal) -> str:
    parts = []
    for s in (0, 1):
        if set(expected.hands[s]) != set(got.hands[s]):
            parts.append(f"seat {s}'s hand")
    if expected.upcard != got.upcard:
        parts.append(f"the up-card ({got.upcard}, the seed gives {expected.upcard})")
    if expected.stock != got.stock:
        pairs = zip(expected.stock, got.stock, strict=True)
        first = next(i for i, (a, b) in enumerate(pairs) if a != b)
        parts.append(f"the stock from card {first + 1} on")
    return ", ".join(parts)


def verify_record(record: Any) -> Verification:
    """Check a ``ginrummy/1`` record's fairness members: that ``commitment`` is the hash of
    its ``seed`` and ``salt``, and that each hand's deal is the one the seed gives under its
    ``deal_scheme`` (default ``ginrummy-deal/1``). Hands are compared as sets of cards, the
    up-card and the stock exactly (the stock's order is the order of the draws).

    The play is checked too, as ``ginrummy replay`` checks it: fair deals under an
    impossible game prove nothing, so a record with an illegal action is not verified."""
    v = _verify_deals(record)
    if v.problem is None:
        from .record import read_partial  # the record reader needs the whole core

        _, error = read_partial(record)
        v.play_ok = error is None
        v.play_error = None if error is None else error.to_json()
    return v


def _verify_deals(record: Any) -> Verification:
    """The commitment and the deals of :func:`verify_record`."""
    v = Verification()
    if not isinstance(record, Mapping):
        v.problem = "A record must be a JSON object."
        return v
    if record.get("format") != "ginrummy/1":
        v.problem = f"Not a ginrummy/1 record: 'format' is {record.get('format')!r}."
        return v
    missing = [k for k in ("seed", "salt", "commitment") if record.get(k) is None]
    if missing:
        v.problem = ("The record carries no fairness proof: it lacks "
                     + ", ".join(repr(k) for k in missing)
                     + " (records of tables that commit to their deals have them).")
        return v
    seed, salt, claimed = record["seed"], record["salt"], record["commitment"]
    scheme = record.get("deal_scheme", DEAL_SCHEME)
    v.scheme = scheme if isinstance(scheme, str) else repr(scheme)
    if not isinstance(scheme, str) or scheme not in DEAL_SCHEMES:
        v.problem = (f"Unknown deal scheme {scheme!r}: this version knows "
                     f"{', '.join(DEAL_SCHEMES)}.")
        return v
    try:
        v.seed = _check_seed(seed)
        expected_hash = commitment(seed, _check_salt(salt))
    except ValueError as e:
        v.problem = str(e)
        return v
    if not isinstance(claimed, str):
        v.problem = f"The commitment must be a string of 64 hex digits, not {claimed!r}."
        return v
    v.commitment_ok = claimed.lower() == expected_hash
    if not v.commitment_ok:
        v.mismatches.append(f"The commitment {claimed} is not the hash of the seed and salt "
                            f"({expected_hash}).")
    hands = record.get("hands")
    if not isinstance(hands, list):
        v.problem = "A record needs a list of 'hands'."
        return v
    for i, h in enumerate(hands):
        try:
            if not isinstance(h, Mapping):
                raise DealError("Each hand must be an object.")
            got = Deal.from_json(h.get("deal"))
        except (DealError, CardError) as e:
            v.problem = f"Hand {i + 1}: {e}"
            return v
        expected = deal_for(seed, i, scheme)
        same = _differences(expected, got)
        v.hands_ok.append(not same)
        if same:
            v.mismatches.append(f"Hand {i + 1} is not the deal the seed gives: {same} differ.")
    return v
