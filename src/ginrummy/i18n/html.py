"""Translatable text in the site's HTML pages: marked, extracted and translated.

An element whose text is a sentence to translate carries ``data-i18n``: its whole inner
HTML (whitespace runs read as one space) is the message, so a sentence may hold inline
markup (``<kbd>``, ``<a href>``, ``<strong>``) that the translation keeps. An element with
``data-i18n-attrs="placeholder aria-label"`` has those attributes' values translated too.
The pages are ours and well formed: the scanner reads tags with a pattern, keeps a stack of
open elements, and never runs anything.

>>> page = '<p data-i18n>Your   turn: <b>draw</b>.</p><input data-i18n-attrs="title" title="Name">'
>>> [m for _, m in messages(page)]
['Your turn: <b>draw</b>.', 'Name']
>>> translate(page, {"Your turn: <b>draw</b>.": "Tu turno: <b>roba</b>."}.get)
'<p data-i18n>Tu turno: <b>roba</b>.</p><input data-i18n-attrs="title" title="Name">'
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["extract", "messages", "normalize", "translate"]

_TAG = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][\w-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>",
                  re.S)
_ATTR = re.compile(r"""([\w:-]+)\s*=\s*("[^"]*"|'[^']*')""")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
         "source", "track", "wbr"}
_SPACE = re.compile(r"\s+")
_MARK = re.compile(r"(^|\s)data-i18n(\s|=|/|$)")


def normalize(text: str) -> str:
    """A message as the catalogs keep it: whitespace runs as one space, no ends."""
    return _SPACE.sub(" ", text).strip()


def _attrs(raw: str) -> dict[str, tuple[int, int, str]]:
    """The attributes of a tag's text: name -> (start, end, value) of each quoted value."""
    return {m.group(1): (m.start(2) + 1, m.end(2) - 1, m.group(2)[1:-1])
            for m in _ATTR.finditer(raw)}


def _marked(source: str) -> Iterator[tuple[str, int, int, int]]:
    """("text", start, end, line) of each marked element's inner HTML and ("attr", start,
    end, line) of each marked attribute value, in the order they end."""
    stack: list[tuple[str, int, bool, int]] = []
    for m in _TAG.finditer(source):
        if m.group(2) is None:
            continue  # a comment
        closing, name, raw = m.group(1), m.group(2).lower(), m.group(3) or ""
        line = source.count("\n", 0, m.start()) + 1
        if closing:
            while stack:
                open_name, inner_start, marked, open_line = stack.pop()
                if marked:
                    yield "text", inner_start, m.start(), open_line
                if open_name == name:
                    break
            continue
        attrs = _attrs(raw)
        if "data-i18n-attrs" in attrs:
            for wanted in attrs["data-i18n-attrs"][2].split():
                if wanted in attrs:
                    start, end, _ = attrs[wanted]
                    offset = m.start(3)
                    yield "attr", offset + start, offset + end, line
        if name not in _VOID and not raw.rstrip().endswith("/"):
            stack.append((name, m.end(), _MARK.search(raw) is not None, line))


def messages(source: str) -> Iterator[tuple[int, str]]:
    """(line, message) of every marked text and attribute of a page, in page order."""
    found = sorted(_marked(source), key=lambda x: x[1])
    for kind, start, end, line in found:
        text = source[start:end]
        message = normalize(text) if kind == "text" else html.unescape(text)
        if message:
            yield line, message


def translate(source: str, lookup: Callable[[str], str | None]) -> str:
    """The page with every marked message replaced by ``lookup(message)`` (kept as it is
    where that gives nothing or the same)."""
    out: list[str] = []
    at = 0
    for kind, start, end, _ in sorted(_marked(source), key=lambda x: x[1]):
        if start < at:
            continue  # inside a marked element already replaced whole
        text = source[start:end]
        message = normalize(text) if kind == "text" else html.unescape(text)
        done = lookup(message) if message else None
        if done and done != message:
            out.append(source[at:start])
            out.append(done if kind == "text" else html.escape(done, quote=True))
            at = end
    out.append(source[at:])
    return "".join(out)


def extract(fileobj: Any, keywords: Any, comment_tags: Any, options: Any
            ) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extraction method for the pages (``scripts/i18n.py``): every marked text
    and attribute as a message of its own."""
    source = fileobj.read().decode(options.get("encoding", "utf-8"))
    for line, message in messages(source):
        yield line, "", message, []
