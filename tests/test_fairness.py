"""Fair deals (docs/fairness.md): the commitment, both deal schemes checked against
independent implementations written from the document, and record verification."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path
from typing import Any

import pytest

from ginrummy.cards import deck
from ginrummy.fairness import (
    DEAL_SCHEME,
    LEGACY_SCHEME,
    commitment,
    deal_for,
    deals,
    new_salt,
    new_seed,
    seal,
    verify_record,
)
from ginrummy.match import Match

DOC = Path(__file__).resolve().parents[1] / "docs" / "fairness.md"


def doc_checker() -> dict[str, Any]:
    """The plain-Python checker printed in docs/fairness.md, loaded from the document."""
    code = re.search(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)
    assert code is not None
    ns: dict[str, Any] = {}
    exec(code.group(1), ns)
    return ns


@pytest.mark.parametrize("seed", [0, 1, 7, 2**62 + 12345, 2**63 - 1])
def test_the_documented_derivation_is_exactly_the_implementation(seed: int) -> None:
    doc = doc_checker()
    for hand in (0, 1, 5, 59):
        assert doc["deal"](seed, hand) == deal_for(seed, hand).to_json()
    salt = new_salt()
    assert doc["commitment"](seed, salt) == commitment(seed, salt)


def _mt_words(text: str) -> Any:
    """MT19937 seeded as docs/fairness.md describes python-random/1 (written from the
    document, not from the random module)."""
    data = text.encode()
    x = int.from_bytes(data + hashlib.sha512(data).digest(), "big")
    key = []
    while x:
        key.append(x & 0xFFFFFFFF)
        x >>= 32
    mt = [0] * 624
    mt[0] = 19650218
    for i in range(1, 624):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
    i, j = 1, 0
    for _ in range(max(624, len(key))):
        mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525)) + key[j] + j) & 0xFFFFFFFF
        i, j = i + 1, j + 1
        if i >= 624:
            mt[0], i = mt[623], 1
        if j >= len(key):
            j = 0
    for _ in range(623):
        mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941)) - i) & 0xFFFFFFFF
        i += 1
        if i >= 624:
            mt[0], i = mt[623], 1
    mt[0] = 0x80000000
    while True:
        for k in range(624):
            y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
            mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        for k in range(624):
            y = mt[k]
            y ^= y >> 11
            y ^= (y << 7) & 0x9D2C5680
            y ^= (y << 15) & 0xEFC60000
            yield y ^ (y >> 18)


def test_the_documented_python_random_scheme_is_exact() -> None:
    for seed, hand in [(3, 0), (2**62 + 1, 4)]:
        words = _mt_words(f"{seed}:{hand}")
        cards = [str(c) for c in deck()]
        for i in range(51, 0, -1):
            k = (i + 1).bit_length()
            r = next(words) >> (32 - k)
            while r >= i + 1:
                r = next(words) >> (32 - k)
            cards[i], cards[r] = cards[r], cards[i]
        d = deal_for(seed, hand, LEGACY_SCHEME).to_json()
        assert d["hands"] == [cards[:10], cards[10:20]] and d["stock"] == cards[21:]
        # and it is the web table's original derivation
        legacy = deck()
        random.Random(f"{seed}:{hand}").shuffle(legacy)
        assert [str(c) for c in legacy] == cards


def test_deals_are_uniformish_and_independent_per_hand() -> None:
    """Each hand is a function of (seed, hand) alone; across many seeds every card turns
    up as the up-card (a coarse check that the shuffle is not stuck)."""
    assert deal_for(5, 3) == deal_for(5, 3) and deal_for(5, 3) != deal_for(5, 4)
    gen = deals(5)
    assert [next(gen) for _ in range(3)] == [deal_for(5, h) for h in range(3)]
    ups = {deal_for(s, 0).upcard for s in range(600)}
    assert len(ups) == 52


def test_secrets_and_bad_inputs() -> None:
    assert 0 <= new_seed() < 2**63 and new_seed() != new_seed()
    salt = new_salt()
    assert re.fullmatch(r"[0-9a-f]{32}", salt) and salt != new_salt()
    assert re.fullmatch(r"[0-9a-f]{64}", commitment(1, salt))
    assert commitment(1, salt) != commitment(2, salt) != commitment(1, new_salt())
    for bad_seed in (-1, True, 1.5, "7"):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            commitment(bad_seed, salt)  # type: ignore[arg-type]
    for bad_salt in ("", "abc", "XYZ0", "AB12", 5):
        with pytest.raises(ValueError, match="salt must be lower-case hex"):
            commitment(1, bad_salt)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Unknown deal scheme"):
        deal_for(1, 0, "shuffle-by-hand")


def fair_record(seed: int = 99, scheme: str = DEAL_SCHEME) -> dict[str, Any]:
    """A real finished match dealt from the seed, sealed as a table seals it."""
    m = Match(seed=seed, deals=deals(seed, scheme))
    rng = random.Random(1)
    while not m.is_over():
        m.play(rng.choice(m.legal_actions()))
    return seal(m.to_record(), new_salt(), scheme)


@pytest.mark.parametrize("scheme", [DEAL_SCHEME, LEGACY_SCHEME])
def test_a_sealed_match_verifies_and_stays_a_valid_record(scheme: str) -> None:
    rec = fair_record(scheme=scheme)
    v = verify_record(rec)
    assert v.ok and v.commitment_ok and len(v.hands_ok) == len(rec["hands"]) > 1
    assert Match.from_record(rec).is_over()  # new members are optional: replay ignores them


def test_tampering_is_caught() -> None:
    rec = fair_record()
    # a different deal for the third hand: two stock cards swapped
    bad = dict(rec, hands=[dict(h) for h in rec["hands"]])
    deal = dict(bad["hands"][2]["deal"])
    stock = list(deal["stock"])
    stock[3], stock[4] = stock[4], stock[3]
    bad["hands"][2]["deal"] = dict(deal, stock=stock)
    v = verify_record(bad)
    assert not v.ok and v.hands_ok[2] is False and v.hands_ok[1] is True
    assert v.mismatches == ["Hand 3 is not the deal the seed gives: the stock from card 4 on "
                            "differ."]
    # a seed swapped after the fact no longer matches the commitment
    v = verify_record(dict(rec, seed=rec["seed"] + 1))
    assert v.commitment_ok is False and not v.ok
    # a hand listed in another order is the same hand
    shuffled = dict(rec, hands=[dict(h) for h in rec["hands"]])
    d0 = dict(shuffled["hands"][0]["deal"])
    d0["hands"] = [list(reversed(d0["hands"][0])), d0["hands"][1]]
    shuffled["hands"][0]["deal"] = d0
    assert verify_record(shuffled).ok


@pytest.mark.parametrize("change, problem", [
    ({"salt": None}, "lacks 'salt'"),
    ({"commitment": None, "seed": None}, "lacks 'seed', 'commitment'"),
    ({"deal_scheme": "mine"}, "Unknown deal scheme 'mine'"),
    ({"salt": "NOTHEX"}, "salt must be lower-case hex"),
    ({"format": "other"}, "Not a ginrummy/1 record"),
    ({"hands": "none"}, "needs a list of 'hands'"),
])
def test_records_that_cannot_be_checked_say_why(change: dict[str, Any], problem: str) -> None:
    rec = {k: v for k, v in {**fair_record(), **change}.items() if v is not None}
    v = verify_record(rec)
    assert not v.ok and v.problem is not None and problem in v.problem
