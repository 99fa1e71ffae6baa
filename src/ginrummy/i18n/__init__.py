"""The site in the player's language: gettext catalogs, the language of the moment, and
the functions every translatable sentence goes through (docs/translating.md).

Sentences are written in English in the code and marked: ``t("Your turn.")``,
``t("{name} takes {card}.", name=..., card=...)`` (the placeholders are filled after the
translation is looked up, so a translator may move them), ``tn("{n} match", "{n}
matches", n)`` for plural forms, and ``N_("...")`` for a sentence kept in a constant and
translated where it is used (``t(CONSTANT)``). ``scripts/i18n.py extract`` collects them
(Python, the pages' marked HTML and the browser's scripts) into the templates in
``src/ginrummy/locale/``; each language's ``.po`` file holds the translations and is
compiled to the ``.mo`` file that is read here, with the standard library's
:mod:`gettext` (plural rules included). Two domains: ``ginrummy`` (the server's
sentences and the pages) and ``ginrummy-js`` (the browser's, sent with each page).

The language of the moment is a context variable: the web layer sets it per request (the
``gr_lang`` cookie, else the browser's ``Accept-Language``), so code far from the request
(a refusal raised deep in a part) speaks the player's language. Outside a request it is
English.

>>> t("Your turn.")
'Your turn.'
>>> with using("es"):
...     language()
'es'
>>> negotiate("de-CH,de;q=0.9,en;q=0.8"), negotiate("pt-BR"), negotiate("pt"), negotiate("ja")
('de', 'pt-BR', 'pt-BR', 'en')
"""

from __future__ import annotations

import contextlib
import functools
import gettext
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

__all__ = [
    "DEFAULT",
    "DOMAIN",
    "JS_DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "catalog_dir",
    "js_messages",
    "language",
    "negotiate",
    "plural_rule",
    "set_language",
    "t",
    "tn",
    "translations",
    "using",
]

LANGUAGES: dict[str, str] = {
    "en": "English",
    "es": "Español",
    "pt-BR": "Português (Brasil)",
    "fr": "Français",
    "de": "Deutsch",
    "it": "Italiano",
}
"""The site's languages: their tags (as the page's ``lang`` says them) and names in
themselves, for the picker."""
DEFAULT = "en"
"""The language the sentences are written in, and the one used when nothing else fits."""
DOMAIN = "ginrummy"
"""The catalog of the server's sentences and the pages."""
JS_DOMAIN = "ginrummy-js"
"""The catalog of the browser's sentences."""
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
"""Where the catalogs are: ``LOCALE_DIR/<dir>/LC_MESSAGES/<domain>.po`` and ``.mo``."""

_current: ContextVar[str] = ContextVar("ginrummy_language", default=DEFAULT)


def catalog_dir(lang: str) -> str:
    """A language's folder name in :data:`LOCALE_DIR` (gettext's: ``pt_BR``)."""
    return lang.replace("-", "_")


@functools.cache
def translations(lang: str, domain: str = DOMAIN) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (English, or a language without one, translates
    nothing)."""
    if lang == DEFAULT or lang not in LANGUAGES:
        return gettext.NullTranslations()
    path = LOCALE_DIR / catalog_dir(lang) / "LC_MESSAGES" / f"{domain}.mo"
    try:
        with path.open("rb") as fh:
            return gettext.GNUTranslations(fh)
    except OSError:
        return gettext.NullTranslations()


def language() -> str:
    """The language of the moment."""
    return _current.get()


@contextlib.contextmanager
def using(lang: str) -> Iterator[None]:
    """Speak ``lang`` inside the block (a language the site has not: English)."""
    token = _current.set(lang if lang in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


def set_language(lang: str) -> None:
    """Speak ``lang`` from now on in this context (a request's task)."""
    _current.set(lang if lang in LANGUAGES else DEFAULT)


def N_(message: str) -> str:
    """Mark a sentence kept in a constant for translation where it is used."""
    return message


def t(message: str, /, **params: object) -> str:
    """``message`` in the language of the moment, its ``{placeholders}`` filled."""
    text = translations(language()).gettext(message) if message else message
    return text.format(**params) if params else text


def tn(singular: str, plural: str, n: int, /, **params: object) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the language of the moment (its
    own plural rule), with ``{n}`` and the other placeholders filled.

    >>> tn("{n} match", "{n} matches", 1), tn("{n} match", "{n} matches", 3)
    ('1 match', '3 matches')
    """
    text = translations(language()).ngettext(singular, plural, n)
    return text.format(n=n, **params)


def js_messages(lang: str) -> dict[str, str | list[str]]:
    """The browser's sentences translated into ``lang``, as its pages are sent them: a
    message to its translation, or for a plural message its singular to its forms."""
    cat: dict[object, str] = getattr(translations(lang, JS_DOMAIN), "_catalog", {})
    out: dict[str, str | list[str]] = {}
    forms: dict[str, dict[int, str]] = {}
    for key, text in cat.items():
        if isinstance(key, tuple):
            forms.setdefault(str(key[0]), {})[int(key[1])] = text
        elif key and text:
            out[str(key)] = text
    for one, by_index in forms.items():
        out[one] = [by_index[i] for i in sorted(by_index)]
    return out


def plural_rule(lang: str) -> str:
    """The name of ``lang``'s plural rule, as the browser's scripts apply it: ``one``
    (only 1 is singular) or ``zero-one`` (0 and 1 are: French, Brazilian Portuguese)."""
    return "zero-one" if lang in ("fr", "pt-BR") else "one"


def negotiate(accept: str | None, wanted: str | None = None) -> str:
    """The language to speak: ``wanted`` (a cookie or an account's choice) if the site has
    it, else the best of an ``Accept-Language`` header the site has (a language asked for
    without its region takes the site's regional one: ``pt`` is ``pt-BR``), else
    English."""
    if wanted in LANGUAGES:
        return str(wanted)
    asked: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept or "").split(",")[:20]):
        tag, _, rest = part.strip().partition(";")
        q = 1.0
        if rest.strip().startswith("q="):
            try:
                q = float(rest.strip()[2:])
            except ValueError:
                continue
        if tag:
            asked.append((-q, i, tag.strip()))
    by_lower = {k.lower(): k for k in LANGUAGES}
    for neg_q, _, tag in sorted(asked):
        if neg_q >= 0:
            continue
        low = tag.lower()
        if low in by_lower:
            return by_lower[low]
        base = low.split("-")[0]
        for k in LANGUAGES:
            if k.lower().split("-")[0] == base:
                return k
    return DEFAULT
