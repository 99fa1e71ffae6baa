"""docs/rules.md, the players' rule book (R1-R12 in the project's own words), and the web
table's How to play page built from it (scripts/rules_page.py) never drift apart."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _builder():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("rules_page", ROOT / "scripts" / "rules_page.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_rules_doc_covers_r1_to_r12_in_order() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    numbers = [int(n) for n in re.findall(r"^## R(\d+) ", text, flags=re.M)]
    assert numbers == list(range(1, 13))
    assert "`You cannot put that straight back.`" in text  # R5's exact sentence


def test_how_to_play_page_is_built_from_the_rules_doc() -> None:
    mod = _builder()
    page = (ROOT / "src" / "ginrummy" / "web" / "static" / "rules.html").read_text("utf-8")
    assert page == mod.page(), "run: python scripts/rules_page.py"
    for n in range(1, 13):
        assert f'id="r{n}"' in page


def test_readme_points_to_the_rules_doc() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/rules.md" in readme
