"""Checks of the open-data files (``ginrummy dataset``, ``ginrummy export``; docs/research.md),
shared by tests/research and tests/web: the checksums, the records, and every decision
row replayed from its record independently of the labelling (the record cut at the
decision, as the web tests' LeakChecker cuts it), with the cards the seat may not see."""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ginrummy.hand import Hand
from ginrummy.match import Match

CARD_RE = re.compile(r"^(?:10|[2-9TJQKA])[CDHS]$")


def compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a ``.jsonl.zst`` file, one a line."""
    zstd = pytest.importorskip("zstandard")
    with path.open("rb") as f, zstd.ZstdDecompressor().stream_reader(f) as reader:
        text = io.TextIOWrapper(reader, encoding="utf-8").read()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a decisions file."""
    pq = pytest.importorskip("pyarrow.parquet")
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


def check_sums(folder: Path, names: set[str]) -> None:
    """``SHA256SUMS`` lists exactly ``names``, in sha256sum's form, with their true hashes."""
    lines = (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    listed = {}
    for line in lines:
        m = re.fullmatch(r"([0-9a-f]{64})  (\S+)", line)
        assert m, line
        listed[m.group(2)] = m.group(1)
    assert set(listed) == names
    for name, digest in listed.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name


def cut(record: dict[str, Any], hi: int, k: int) -> Match:
    """The match of the record just before hand ``hi``'s action ``k`` (how it ended
    dropped: the cut record has not ended)."""
    rec = dict(record)
    hands = [dict(h) for h in rec["hands"][: hi + 1]]
    hands[-1]["actions"] = hands[-1]["actions"][:k]
    rec["hands"] = hands
    rec.pop("end", None)
    rec.pop("resigned_by", None)
    return Match.from_record(rec)


def hand_at(record: dict[str, Any], hi: int, k: int) -> Hand:
    """Hand ``hi`` of the record just before its action ``k``."""
    return cut(record, hi, k).hand


def card_strings(obj: Any) -> set[str]:
    """Every string in a JSON value that names a card."""
    if isinstance(obj, str):
        return {obj} if CARD_RE.match(obj) else set()
    if isinstance(obj, dict):
        return set().union(*(card_strings(k) | card_strings(v) for k, v in obj.items()))
    if isinstance(obj, list):
        return set().union(*(card_strings(v) for v in obj))
    return set()


def forbidden(hand: Hand, seat: int) -> set[str]:
    """The cards ``seat`` may not see in a hand in play: the stock, and the opponent's
    cards but those it took from the discard pile (R11)."""
    public = {str(op.card) for op in hand.history
              if op.action.act == "draw" and op.action.source == "discard"}
    return {str(c) for c in hand.stock} | ({str(c) for c in hand.cards_of(1 - seat)} - public)


def expected_decisions(record: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(hand, index, seat) of every decision with two or more legal actions, in order."""
    out = []
    for hi, h in enumerate(record["hands"]):
        for k, act in enumerate(h["actions"]):
            if len(hand_at(record, hi, k).legal_actions()) >= 2:
                out.append((hi, k, act["seat"]))
    return out


def check_rows(records: list[dict[str, Any]], rows: list[dict[str, Any]]) -> int:
    """Every row against its record (see the module docstring); the number of rows."""
    by_id = {r["id"]: r for r in records}
    assert len(by_id) == len(records), "match ids are unique"
    expected = [(r["id"], *d) for r in records for d in expected_decisions(r)]
    assert [(row["match"], row["hand"], row["index"], row["seat"]) for row in rows] == expected
    for row in rows:
        record = by_id[row["match"]]
        hand = hand_at(record, row["hand"], row["index"])
        seat = row["seat"]
        assert hand.to_play == seat
        view = json.loads(row["view"])
        assert row["view"] == compact(hand.view(seat).to_json())  # the seat's own view
        leaked = card_strings(view) & forbidden(hand, seat)
        assert not leaked, f"a view shows {sorted(leaked)} to seat {seat}"
        legal = [compact(a.to_json()) for a in hand.legal_actions()]
        assert row["legal"] == legal and len(legal) >= 2
        played = record["hands"][row["hand"]]["actions"][row["index"]]
        played = {k: v for k, v in played.items() if k not in ("seat", "timeout")}
        assert json.loads(row["action"]) == played
        assert row["action"] in row["legal"]
        assert len(row["win"]) == len(row["legal"])
        assert all(0.0 <= w <= 1.0 for w in row["win"])
    return len(rows)
