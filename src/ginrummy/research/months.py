"""The list of a folder's monthly exports (``index.json`` beside the files of ``ginrummy
export``): each month's games, decisions and files with their sizes and SHA-256, which
``ginrummy export`` keeps up to date and the site's open-data page reads. Standard
library only: the web table lists the months without the research extra.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "a.bin").write_bytes(b"gin")
>>> entry = add_month(folder, "2025-01", games=2, decisions=30, files=["a.bin"])
>>> entry["files"][0]["bytes"], [m["month"] for m in read_months(folder)]
(3, ['2025-01'])
>>> (folder / "SHA256SUMS").read_text().split()[1]
'a.bin'
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["INDEX", "MONTH", "SUMS", "add_month", "read_months", "sha256_file", "write_sums"]

INDEX = "index.json"
"""The months' list in an export folder."""
SUMS = "SHA256SUMS"
"""The checksum list in an export or dataset folder (``sha256sum -c SHA256SUMS``)."""
MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
"""A month as the exports name it: ``YYYY-MM``."""


def sha256_file(path: str | Path) -> str:
    """The SHA-256 of a file, in hex, read a megabyte at a time."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a ``.part`` file renamed)."""
    tmp = path.with_name(f".{path.name}.part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_sums(folder: str | Path, names: Sequence[str],
               known: dict[str, str] | None = None) -> Path:
    """``folder/SHA256SUMS`` for the files ``names`` in it, in the form ``sha256sum``
    writes and ``sha256sum -c SHA256SUMS`` checks (hash, two spaces, name), sorted by
    name; ``known`` gives hashes already computed, by name."""
    folder = Path(folder)
    known = known or {}
    lines = [f"{known.get(n) or sha256_file(folder / n)}  {n}\n" for n in sorted(set(names))]
    path = folder / SUMS
    _replace(path, "".join(lines))
    return path


def read_months(folder: str | Path) -> list[dict[str, Any]]:
    """The folder's months, newest first, each ``{"month", "games", "decisions",
    "files": [{"name", "bytes", "sha256"}], "exported"}``; those whose files are gone
    are left out, and a folder with no (or an unreadable) index has none."""
    folder = Path(folder)
    try:
        data = json.loads((folder / INDEX).read_text(encoding="utf-8"))
        months = data["months"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    if not isinstance(months, dict):
        return []
    out = []
    for month, entry in months.items():
        try:
            if MONTH.match(month) and all((folder / f["name"]).is_file()
                                          for f in entry["files"]):
                out.append({"month": month, **entry})
        except (KeyError, TypeError):
            continue  # an entry someone mangled: not listed
    return sorted(out, key=lambda m: m["month"], reverse=True)


def add_month(folder: str | Path, month: str, *, games: int, decisions: int,
              files: Sequence[str]) -> dict[str, Any]:
    """Put a month's newly written ``files`` (names in ``folder``) in the folder's index,
    replacing what it had for that month, and rewrite ``SHA256SUMS`` over the files of
    every month listed; the month's entry."""
    folder = Path(folder)
    kept = {m.pop("month"): m for m in read_months(folder) if m["month"] != month}
    entry: dict[str, Any] = {
        "games": games, "decisions": decisions,
        "files": [{"name": n, "bytes": (folder / n).stat().st_size,
                   "sha256": sha256_file(folder / n)} for n in files],
        "exported": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    months = {**kept, month: entry}
    known = {f["name"]: f["sha256"] for m in months.values() for f in m["files"]}
    write_sums(folder, list(known), known)
    _replace(folder / INDEX, json.dumps({"months": dict(sorted(months.items()))}, indent=1)
             + "\n")
    return entry
