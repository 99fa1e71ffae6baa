"""The translation catalogs: extract the marked sentences, bring every language's catalog
up to date, compile them, and check them (docs/translating.md).

    python3 scripts/i18n.py extract     # the templates (.pot) from the code
    python3 scripts/i18n.py update      # each language's .po: new messages in, gone ones out
    python3 scripts/i18n.py compile     # every .po to the .mo the site reads
    python3 scripts/i18n.py check       # exit 1, saying what, unless all is complete and current
    python3 scripts/i18n.py init xx     # a new language's catalogs (then add it to LANGUAGES)

Two domains: ``ginrummy`` (Python: ``t``, ``tn``, ``N_``; the pages' ``data-i18n``
elements) and ``ginrummy-js`` (the browser's scripts: ``t``, ``tn``). Needs Babel (the
``dev`` extra); the site itself reads the compiled catalogs with the standard library.
"""

from __future__ import annotations

import argparse
import datetime
import io
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from ginrummy.i18n import DEFAULT, DOMAIN, JS_DOMAIN, LANGUAGES, LOCALE_DIR, catalog_dir

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ginrummy"
KEYWORDS = {"t": None, "tn": (1, 2), "N_": None}
METHODS = {
    DOMAIN: [("i18n/**.py", "ignore"), ("**.py", "python"),
             ("web/static/**.html", "ginrummy.i18n.html:extract")],
    JS_DOMAIN: [("web/static/js/**.js", "javascript"),
                ("web/static/learn/*.json", "ginrummy.i18n.lessons:extract")],
}
"""What each domain is extracted from (paths below the package; the i18n package's own
examples are not messages). The guided lessons' texts (``static/learn/*.json``) are the
browser's: ``learn.js`` shows them."""
STAMP = datetime.datetime(2026, 12, 7, tzinfo=datetime.UTC)
"""The date the templates carry (a fixed one: extracting again changes nothing else)."""
_PLACEHOLDER = re.compile(r"\{[a-z_][a-z0-9_]*\}")
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")


def template(domain: str) -> Catalog:
    """The domain's messages as the code marks them now."""
    cat = Catalog(project="ginrummy", version="", domain=domain, charset="utf-8",
                  fuzzy=False, copyright_holder="the ginrummy contributors",
                  msgid_bugs_address="", creation_date=STAMP, revision_date=STAMP,
                  last_translator="", language_team="")
    for filename, lineno, message, comments, context in extract_from_dir(
            str(SRC), method_map=METHODS[domain], keywords=KEYWORDS,
            comment_tags=("TRANSLATORS:",), strip_comment_tags=True):
        where = [(f"src/ginrummy/{filename}", lineno)]
        cat.add(message, None, where, auto_comments=comments, context=context)
    return cat


def pot_path(domain: str) -> Path:
    return LOCALE_DIR / f"{domain}.pot"


def po_path(lang: str, domain: str) -> Path:
    return LOCALE_DIR / catalog_dir(lang) / "LC_MESSAGES" / f"{domain}.po"


def _write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, omit_header=False, sort_output=False,
             include_lineno=False, ignore_obsolete=True)
    path.write_bytes(buf.getvalue())


def _read(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as fh:
        return read_po(fh, locale=catalog_dir(lang) if lang else None)


def languages() -> list[str]:
    return [lang for lang in LANGUAGES if lang != DEFAULT]


def extract() -> None:
    for domain in METHODS:
        _write(template(domain), pot_path(domain))
        print(f"{pot_path(domain).relative_to(ROOT)}: {len(template(domain))} messages")


def update(langs: Iterable[str]) -> None:
    for domain in METHODS:
        pot = _read(pot_path(domain))
        for lang in langs:
            path = po_path(lang, domain)
            if path.exists():
                cat = _read(path, lang)
            else:
                cat = Catalog(locale=catalog_dir(lang), domain=domain, project="ginrummy",
                              version="", copyright_holder="the ginrummy contributors",
                              msgid_bugs_address="", creation_date=STAMP,
                              revision_date=STAMP, last_translator="",
                              language_team=f"{LANGUAGES.get(lang, lang)}")
            cat.update(pot, no_fuzzy_matching=True)
            _write(cat, path)
            done = sum(1 for m in cat if m.id and m.string)
            print(f"{path.relative_to(ROOT)}: {done} of {len(pot)} translated")


def mo_bytes(catalog: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    return buf.getvalue()


def compile_all(langs: Iterable[str]) -> None:
    for domain in METHODS:
        for lang in langs:
            po = po_path(lang, domain)
            if po.exists():
                po.with_suffix(".mo").write_bytes(mo_bytes(_read(po, lang)))


def _shape(text: str) -> tuple[list[str], list[str]]:
    """What a translation must keep of its message: the placeholders and the tags (tag
    names and their attributes, in any order)."""
    return sorted(_PLACEHOLDER.findall(text)), sorted(_TAG.findall(text))


def problems(langs: Iterable[str]) -> list[str]:
    """Everything that keeps the catalogs from being complete and current."""
    out: list[str] = []
    for domain in METHODS:
        fresh = template(domain)
        ids = {m.id for m in fresh if m.id}
        pot_file = pot_path(domain)
        if not pot_file.exists():
            out.append(f"{pot_file.name}: missing (run extract)")
            continue
        pot = _read(pot_file)
        if {m.id for m in pot if m.id} != ids:
            out.append(f"{pot_file.name}: out of date with the code (run extract, update)")
        for lang in langs:
            po = po_path(lang, domain)
            if not po.exists():
                out.append(f"{po.relative_to(ROOT)}: missing (run update)")
                continue
            cat = _read(po, lang)
            have = {m.id: m for m in cat if m.id}
            for mid in sorted(map(str, ids - set(have)))[:5]:
                out.append(f"{po.name} [{lang}]: missing {mid!r}")
            for mid in sorted(map(str, set(have) - ids))[:5]:
                out.append(f"{po.name} [{lang}]: stale {mid!r}")
            for m in have.values():
                strings = m.string if isinstance(m.string, tuple) else (m.string,)
                ids_of = m.id if isinstance(m.id, tuple) else (m.id,)
                if not all(strings) or m.fuzzy:
                    out.append(f"{po.name} [{lang}]: untranslated {ids_of[0]!r}")
                    continue
                want = _shape(ids_of[-1])
                for s in strings:
                    if _shape(s) != want and _shape(s) != _shape(ids_of[0]):
                        out.append(f"{po.name} [{lang}]: {ids_of[0]!r} -> {s!r}: the "
                                   "placeholders or tags differ from the English")
            mo = po.with_suffix(".mo")
            if not mo.exists() or mo.read_bytes() != mo_bytes(cat):
                out.append(f"{mo.relative_to(ROOT)}: not compiled from its .po (run compile)")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["extract", "update", "compile", "check", "init"])
    ap.add_argument("lang", nargs="?", help="init: the new language's tag (e.g. nl)")
    args = ap.parse_args()
    if args.action == "extract":
        extract()
    elif args.action == "update":
        update(languages())
    elif args.action == "compile":
        compile_all(languages())
    elif args.action == "init":
        if not args.lang:
            ap.error("init needs the new language's tag")
        update([args.lang])
        print(f"Now translate {po_path(args.lang, DOMAIN).relative_to(ROOT)} and "
              f"{po_path(args.lang, JS_DOMAIN).name}, add {args.lang!r} to LANGUAGES in "
              "src/ginrummy/i18n/__init__.py, and run compile and check.")
    else:
        found = problems(languages())
        for line in found[:60]:
            print(line)
        if len(found) > 60:
            print(f"... and {len(found) - 60} more")
        if found:
            return 1
        print("The catalogs are complete and current.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
