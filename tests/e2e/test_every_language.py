"""Every language of the site in a real browser (issue 46, "Done means"): in Spanish,
Portuguese (Brazil), French, German and Italian the lobby, the rules and a table in play
show no English sentence left (no text, title or label that the catalogs translate shown
in English) and no message key (no ``{placeholder}`` left in a sentence)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

import pytest
from test_web_table import choose, wait_my_move

from ginrummy.i18n import DOMAIN, JS_DOMAIN, LANGUAGES, translations
from ginrummy.web.language import COOKIE

pytestmark = pytest.mark.e2e

TAG = re.compile(r"<[^>]+>")
KEY = re.compile(r"\{[a-z_]+\}")

# Every shown text of the page: visible text nodes, the lines of the page as it reads,
# and the labels a screen reader or a pointer gets (title, aria-label, placeholder, alt).
SHOWN = """() => {
  const out = [document.title];
  const visible = (e) => !!(e && (e.offsetWidth || e.offsetHeight || e.getClientRects().length));
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const p = n.parentElement;
    if (n.textContent.trim() && visible(p) && !['SCRIPT', 'STYLE'].includes(p.tagName))
      out.push(n.textContent);
  }
  out.push(...document.body.innerText.split('\\n'));
  for (const e of document.querySelectorAll('[title], [aria-label], [placeholder], [alt]')) {
    if (!visible(e) && !e.closest('[role=dialog]')) continue;
    for (const a of ['title', 'aria-label', 'placeholder', 'alt'])
      if (e.getAttribute(a)) out.push(e.getAttribute(a));
  }
  return out.map((s) => s.replace(/\\s+/g, ' ').trim()).filter(Boolean);
}"""


def _english(lang: str) -> set[str]:
    """The English sentences the catalogs say otherwise in ``lang`` (markup dropped): one
    of them shown on a page in ``lang`` is English left."""
    out: set[str] = set()
    said: set[str] = set()  # the language's own sentences ("Analyse" is French as well)
    for domain in (DOMAIN, JS_DOMAIN):
        cat = translations(lang, domain)
        for msgid, msgstr in getattr(cat, "_catalog", {}).items():
            if not msgid or not isinstance(msgid, str) or not isinstance(msgstr, str):
                continue
            said.add(" ".join(TAG.sub("", msgstr).split()))
            if msgstr.strip() != msgid.strip():
                text = " ".join(TAG.sub("", msgid).split())
                if len(text) > 2:  # ("OK", "KB" and such read the same in many languages)
                    out.add(text)
    return out - said


def _check(page: Any, lang: str, english: set[str], where: str) -> None:
    shown = page.evaluate(SHOWN)
    left = sorted({s for s in shown if s in english})
    keys = sorted({s for s in shown if KEY.search(s)})
    assert not left, f"{where} in {lang}: English left: {left[:12]}"
    assert not keys, f"{where} in {lang}: message keys left: {keys[:12]}"


@pytest.mark.parametrize("lang", [code for code in LANGUAGES if code != "en"])
def test_no_english_left_in_the_lobby_the_rules_and_the_table(server: str, browser: Any,
                                                              lang: str) -> None:
    english = _english(lang)
    assert len(english) > 500  # the catalogs are there
    ctx = browser.new_context(locale=lang)
    ctx.add_cookies([{"name": COOKIE, "value": lang, "domain": urlparse(server).hostname,
                      "path": "/"}])
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/rules")
    assert page.evaluate("document.documentElement.lang") == lang
    _check(page, lang, english, "the rules")
    page.goto(server + "/")
    page.wait_for_load_state("networkidle")
    _check(page, lang, english, "the lobby")
    page.get_by_test_id("name-input").fill("Ann")
    choose(page, "bot-easy")
    page.get_by_test_id("start-button").click()
    page.wait_for_url("**/play/**")
    wait_my_move(page)
    page.wait_for_timeout(300)
    _check(page, lang, english, "the table")
    page.get_by_test_id("menu-button").click()  # the Options menu's switches
    _check(page, lang, english, "the table's menu")
    page.keyboard.press("Escape")
    page.get_by_test_id("score-sheet-button").click()
    _check(page, lang, english, "the score sheet")
    assert not errors
    ctx.close()
