"""Every ```python block in docs/*.md runs as written (from the repository root), as the
README's tour runs as a doctest: documentation that no longer works fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
# Loops that a reader runs in full but that would only slow the suite down: the same code
# runs, with fewer repetitions.
SHORTER = {"range(1000)": "range(50)"}


def blocks() -> list[tuple[str, int, str]]:
    out = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for i, m in enumerate(BLOCK.finditer(doc.read_text(encoding="utf-8"))):
            out.append((doc.name, i + 1, m.group(1)))
    return out


def test_the_docs_have_snippets_to_run() -> None:
    names = {name for name, _, _ in blocks()}
    assert {"protocol.md", "fairness.md"} <= names


@pytest.mark.parametrize("name, index, code", blocks(),
                         ids=[f"{n}#{i}" for n, i, _ in blocks()])
def test_doc_snippet_runs(name: str, index: int, code: str,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    for long, short in SHORTER.items():
        code = code.replace(long, short)
    exec(compile(code, f"docs/{name} block {index}", "exec"), {"__name__": "__doc_snippet__"})
