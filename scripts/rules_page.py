"""Build the web table's How to play page from docs/rules.md (the one rule text).

Usage: python scripts/rules_page.py [--check]
Writes src/ginrummy/web/static/rules.html; with --check only says whether it is up to
date (exit status 1 if not), as the tests do. Handles the small part of Markdown the rules
use: headings, paragraphs, bullet and numbered lists, one table, **bold** and `code`.
Every heading, paragraph, list item and table cell with words is marked ``data-i18n``, so
the page is sent in the player's language (docs/translating.md): each is one message.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "docs" / "rules.md"
TARGET = ROOT / "src" / "ginrummy" / "web" / "static" / "rules.html"

HEAD = """<!doctype html>
<html lang="en">
<head>
  <!--#include head -->
  <title data-i18n>How to play · Gin Rummy</title>
  <script type="module" src="/static/js/online.js"></script>
</head>
<body>
  <!--#include topbar -->
  <main class="prose panel">
<!-- Built from docs/rules.md by scripts/rules_page.py: edit that file, not this one. -->
    <p class="rules-learn"><a class="btn primary small" href="/learn" data-testid="rules-learn" data-i18n>Learn to play</a></p>
"""
FOOT = """  </main>
</body>
</html>
"""


def inline(text: str) -> str:
    """Escape, then `code` and **bold**."""
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def cell(tag: str, text: str) -> str:
    """A table cell: marked for translation when it has words (not a cell of numbers)."""
    mark = " data-i18n" if re.search(r"[A-Za-z]", text) else ""
    return f"<{tag}{mark}>{inline(text)}</{tag}>"


def convert(md: str) -> str:
    """The page body for the Markdown text."""
    lines = md.splitlines()
    out: list[str] = []
    para: list[str] = []
    lst: str | None = None
    item: list[str] = []

    def flush_item() -> None:
        if item:
            out.append(f"<li data-i18n>{inline(' '.join(item))}</li>")
            item.clear()

    def close_list() -> None:
        nonlocal lst
        flush_item()
        if lst:
            out.append(f"</{lst}>")
            lst = None

    def flush_para() -> None:
        if para:
            out.append(f"<p data-i18n>{inline(' '.join(para))}</p>")
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not s:
            flush_para()
            flush_item()
            i += 1
            continue
        m = re.match(r"(#{1,3}) (.*)", s)
        if m:
            flush_para()
            close_list()
            level = len(m.group(1))
            title = m.group(2)
            rid = re.match(r"R(\d+) (.*)", title)
            if rid:  # the rule's number in small print after its title, for players
                out.append(f'<h{level} id="r{rid.group(1)}" data-i18n>{inline(rid.group(2))} '
                           f'<small class="rule-no">R{rid.group(1)}</small></h{level}>')
            else:
                out.append(f"<h{level} data-i18n>{inline(title)}</h{level}>")
            i += 1
            continue
        if s.startswith("|"):
            flush_para()
            close_list()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(set(c) <= {"-", " ", ":"} for c in cells):
                    rows.append(cells)
                i += 1
            out.append('<table class="score-sheet rules-table">')
            out.append("<thead><tr>" + "".join(cell("th", c) for c in rows[0])
                       + "</tr></thead><tbody>")
            for r in rows[1:]:
                out.append("<tr>" + "".join(cell("td", c) for c in r) + "</tr>")
            out.append("</tbody></table>")
            continue
        m = re.match(r"(- |\d+\. )(.*)", s)
        if m:
            flush_para()
            kind = "ol" if m.group(1)[0].isdigit() else "ul"
            if lst != kind:
                close_list()
                out.append(f"<{kind}>")
                lst = kind
            flush_item()
            item.append(m.group(2))
            i += 1
            continue
        if lst and line.startswith("  "):
            item.append(s)
            i += 1
            continue
        close_list()
        para.append(s)
        i += 1
    flush_para()
    close_list()
    return "\n".join("    " + x for x in out) + "\n"


def page() -> str:
    """The whole How to play page."""
    return HEAD + convert(SOURCE.read_text(encoding="utf-8")) + FOOT


def main(argv: list[str]) -> int:
    text = page()
    if "--check" in argv:
        ok = TARGET.exists() and TARGET.read_text(encoding="utf-8") == text
        print("up to date" if ok else f"{TARGET.name} is out of date: run scripts/rules_page.py")
        return 0 if ok else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
