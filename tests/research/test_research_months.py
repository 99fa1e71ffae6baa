"""The export folder's list of months (research/months.py): each month's counts, sizes and
checksums, kept by ``ginrummy export`` and read by the site's open-data page."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ginrummy.research.months import add_month, read_months


def _file(folder: Path, name: str, body: bytes) -> str:
    (folder / name).write_bytes(body)
    return name


def _sums(folder: Path) -> dict[str, str]:
    return {name: digest for digest, name in
            (line.split("  ") for line in (folder / "SHA256SUMS").read_text().splitlines())}


def test_months_are_listed_newest_first_with_sums_over_every_month(tmp_path: Path) -> None:
    a = _file(tmp_path, "a_2025-01", b"one")
    b = _file(tmp_path, "b_2025-03", b"three")
    add_month(tmp_path, "2025-01", games=1, decisions=5, files=[a])
    add_month(tmp_path, "2025-03", games=3, decisions=7, files=[b])
    assert [m["month"] for m in read_months(tmp_path)] == ["2025-03", "2025-01"]
    assert _sums(tmp_path) == {a: hashlib.sha256(b"one").hexdigest(),
                               b: hashlib.sha256(b"three").hexdigest()}


def test_a_month_exported_again_replaces_its_entry(tmp_path: Path) -> None:
    a = _file(tmp_path, "a", b"first")
    add_month(tmp_path, "2025-01", games=1, decisions=5, files=[a])
    _file(tmp_path, "a", b"second, longer")
    add_month(tmp_path, "2025-01", games=2, decisions=9, files=[a])
    (got,) = read_months(tmp_path)
    assert (got["games"], got["decisions"], got["files"][0]["bytes"]) == (2, 9, 14)
    assert _sums(tmp_path) == {a: hashlib.sha256(b"second, longer").hexdigest()}


def test_a_month_whose_files_are_gone_is_not_listed(tmp_path: Path) -> None:
    a = _file(tmp_path, "a", b"x")
    b = _file(tmp_path, "b", b"y")
    add_month(tmp_path, "2025-01", games=1, decisions=1, files=[a])
    add_month(tmp_path, "2025-02", games=1, decisions=1, files=[b])
    (tmp_path / a).unlink()
    assert [m["month"] for m in read_months(tmp_path)] == ["2025-02"]
    c = _file(tmp_path, "c", b"z")
    add_month(tmp_path, "2025-03", games=1, decisions=1, files=[c])  # the gone month drops
    assert set(_sums(tmp_path)) == {b, c}


def test_no_index_or_a_mangled_one_lists_nothing(tmp_path: Path) -> None:
    assert read_months(tmp_path) == []
    (tmp_path / "index.json").write_text("{not json")
    assert read_months(tmp_path) == []
    (tmp_path / "index.json").write_text(json.dumps({"months": {"2025-01": {"files": 3},
                                                                "../x": {"files": []}}}))
    assert read_months(tmp_path) == []
