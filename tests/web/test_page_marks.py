"""Every sentence a player reads on the site's pages is marked for translation (issue 46;
docs/translating.md): the pages' text and user-facing attributes, the How to play page
built from docs/rules.md, and the guided lessons' texts, which the browser says through
t()."""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from ginrummy.i18n.html import messages as page_messages
from ginrummy.i18n.lessons import messages as lesson_messages

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "ginrummy" / "web" / "static"
ATTRS = ("placeholder", "title", "aria-label", "alt")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
UNMARKED = {
    "Gin Rummy",  # the game's name (the lobby's heading, the brand)
    "Enter", "Shift", "Esc", "D", "K", "S", "P", "T", "N", "G", "R", "I",  # key caps
}
"""Text that stays as it is in every language."""
DEFAULT_NAMES = {"Player", "Friend", "Guest"}
"""Placeholders that show the name a player gets when the field is left empty (the name
itself, not a sentence)."""


class _Unmarked(HTMLParser):
    """The text and user-facing attributes of a page that no ``data-i18n`` covers."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        listed = (a.get("data-i18n-attrs") or "").split()
        for name in ATTRS:
            value = a.get(name)
            if value and name not in listed and not (name == "placeholder"
                                                     and value in DEFAULT_NAMES):
                self.found.append(f"{tag} {name}={value!r}")
        if tag not in VOID:
            self.stack.append((tag, "data-i18n" in a))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        text = data.strip()
        if (not re.search(r"[A-Za-z]", text) or text in UNMARKED
                or any(marked for _, marked in self.stack)
                or (self.stack and self.stack[-1][0] in ("script", "style"))):
            return
        self.found.append(repr(text))


def test_every_text_of_the_pages_is_marked() -> None:
    pages = sorted(STATIC.glob("*.html")) + sorted((STATIC / "parts").glob("*.html"))
    assert len(pages) > 20
    for path in pages:
        if path.name == "offline.html":
            continue  # the service worker keeps it as it is on disk: English
        parser = _Unmarked()
        parser.feed(path.read_text(encoding="utf-8"))
        assert parser.found == [], f"{path.name}: not marked for translation: {parser.found}"


def test_the_rules_page_marks_each_heading_paragraph_item_and_cell() -> None:
    page = (STATIC / "rules.html").read_text(encoding="utf-8")
    found = [m for _, m in page_messages(page)]
    assert "How to play · Gin Rummy" in found
    assert 'The cards <small class="rule-no">R1</small>' in found
    assert "The non-dealer may take the up-card or pass." in found
    assert "on / off" in found and "100" not in found  # cells of numbers stay as they are
    assert len(re.findall(r"<(?:h\d|p|li)[ >]", page)) == len(
        re.findall(r"<(?:h\d|p|li)(?: id=\"r\d+\")? data-i18n[ >]", page)) + 1  # + the link's <p>


def test_the_lessons_texts_are_messages_of_the_browsers_catalog() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import i18n as catalogs
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert ("web/static/learn/*.json", "ginrummy.i18n.lessons:extract") in catalogs.METHODS[
        catalogs.JS_DOMAIN]
    for path in sorted((STATIC / "learn").glob("*.json")):
        source = path.read_text(encoding="utf-8")
        lesson = json.loads(source)
        texts = {m for _, m in lesson_messages(source)}
        wanted = {s[k] for s in lesson["steps"] for k in ("title", "text")}
        wanted |= {p for st in lesson["states"] for p in st["players"]}
        if "finish" in lesson:
            wanted |= {lesson["finish"]["text"], lesson["title"]}
        assert wanted == texts, path.name
        assert not texts & {"5H", "stock", "discard", "ginrummy-lesson/1"}  # data is not text
    script = (STATIC / "js" / "learn.js").read_text(encoding="utf-8")
    for shown in ("t(step.title)", "t(step.text)", "t(data.finish.text)", "t(name)"):
        assert shown in script, shown
