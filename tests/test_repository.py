"""Repository hygiene: what the programs write into a working folder is ignored by git, so
`git add .` never commits a database or the web table's secret seed key."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def ignore_patterns() -> list[str]:
    """The plain name patterns of the top-level .gitignore (comments and blanks dropped)."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def ignored(name: str) -> bool:
    """Whether a file called ``name`` (in any folder) matches a pattern, as git matches a
    pattern without a slash against the last part of a path."""
    return any(fnmatch.fnmatchcase(name, p) for p in ignore_patterns() if "/" not in p)


@pytest.mark.parametrize("name", [
    "ginrummy.sqlite3",  # `ginrummy serve`'s default database
    "ginrummy.sqlite3-wal", "ginrummy.sqlite3-shm",  # SQLite's write-ahead log beside it
    "ginrummy.sqlite3-journal",
    "ginrummy.sqlite3.key",  # the seed key serve writes beside the database
    "ginrummy.key",  # ... or in the current folder
    "games.db", "games.db-wal", "games.db-shm",  # serve --db games.db
])
def test_what_serve_writes_is_ignored(name: str) -> None:
    assert ignored(name), f"{name} is not in .gitignore"


def test_the_sources_are_not_ignored() -> None:
    for name in ("cli.py", "README.md", "example-record.json", "pyproject.toml"):
        assert not ignored(name), name


NOT_YET: set[str] = set()
"""Files allowed to cite it still (none now: the test keeps citations out everywhere)."""


def test_docs_and_docstrings_cite_the_projects_own_documents() -> None:
    """The repository has no INTERFACES document: a reader is sent to docs/records.md,
    docs/protocol.md, docs/review.md and the rest, which it does have."""
    files = [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("src/**/*.py"),
             *ROOT.glob("tests/**/*.py"), *ROOT.glob("scripts/*.py")]
    needle = "INTERFACES" + " \u00a7"  # split, so this file does not cite it
    citing = sorted(str(f.relative_to(ROOT)) for f in files
                    if needle in f.read_text(encoding="utf-8", errors="replace"))
    assert [f for f in citing if f not in NOT_YET] == []
