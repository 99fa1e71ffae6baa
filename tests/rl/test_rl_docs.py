"""Every Python example in docs/rl.md runs as written."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_doc_example_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    for lib in ("numpy", "gymnasium", "pettingzoo"):
        if re.search(rf"^\s*(import|from) {lib}\b", code, flags=re.M):
            pytest.importorskip(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pettingzoo's note on dict observations
        exec(compile(code, str(DOC), "exec"), {"__name__": "docs_example"})
    capsys.readouterr()
