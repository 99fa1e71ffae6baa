"""The site in the player's language (issue 46 item 1; docs/translating.md): the language
from the picker's cookie, else the browser's Accept-Language, kept in the account; pages
sent translated with their scripts' sentences; refusals in the request's language; and
catalogs that are complete and current in every language."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from ginrummy.i18n import LANGUAGES, negotiate, t, tn, using
from ginrummy.web.language import COOKIE

from .online import sign_up

ROOT = Path(__file__).resolve().parents[2]


def _catalog_of(html: str) -> dict[str, object]:
    m = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html, re.S)
    assert m, "no catalog block"
    data: dict[str, object] = json.loads(m.group(1))
    return data


def test_a_page_speaks_the_browsers_language(client: TestClient) -> None:
    r = client.get("/", headers={"Accept": "text/html", "Accept-Language": "es-MX,es;q=0.9"})
    assert r.status_code == 200 and r.headers["content-language"] == "es"
    html = r.text
    assert '<html lang="es">' in html
    assert "Juega contra el ordenador o contra un amigo." in html
    assert "Play the computer or a friend." not in html
    assert '<option value="es" lang="es" selected>Español</option>' in html
    data = _catalog_of(html)
    assert data["lang"] == "es" and data["messages"]["Shuffling…"] == "Barajando…"  # type: ignore[index]
    # English by default, and for a language the site does not have
    for accept in (None, "ja,zh;q=0.5"):
        headers = {"Accept": "text/html"} | ({"Accept-Language": accept} if accept else {})
        html = client.get("/", headers=headers).text
        assert '<html lang="en">' in html and "Play the computer or a friend." in html


def test_the_pickers_cookie_wins_and_an_account_keeps_its_choice(client: TestClient) -> None:
    client.cookies.set(COOKIE, "fr")
    r = client.get("/rules", headers={"Accept": "text/html", "Accept-Language": "de"})
    assert '<html lang="fr">' in r.text and "Règles du jeu" in r.text
    client.cookies.clear()
    r = client.post("/api/me/language", json={"lang": "xx"}, headers={"Accept-Language": "es"})
    assert r.status_code == 400 and r.json()["error"].startswith("'lang' es uno de en, es")
    r = client.post("/api/me/language", json={"lang": "de"})
    assert r.status_code == 200 and client.cookies.get(COOKIE) == "de"
    # an account: kept, and given back at the next log-in on any device
    client.cookies.clear()
    csrf = sign_up(client, "Lena")["csrf"]
    assert client.post("/api/me/language", json={"lang": "it"},
                       headers={"X-CSRF-Token": csrf}).status_code == 200
    client.cookies.clear()
    r = client.post("/api/session", json={"username": "Lena", "password": "correct horse"})
    assert r.status_code == 200 and client.cookies.get(COOKIE) == "it"


def test_a_refusal_is_in_the_requests_language(client: TestClient) -> None:
    from ginrummy.web.errors import DB_DOWN, TableError
    with using("de"):
        assert TableError(503, DB_DOWN).to_json()["error"].startswith("Die Datenbank")
    assert TableError(503, DB_DOWN).to_json()["error"] == DB_DOWN  # outside: English


def test_words_with_placeholders_and_plurals() -> None:
    assert negotiate("pt-PT,pt;q=0.9") == "pt-BR" and negotiate("fr;q=0, it") == "it"
    with using("es"):
        assert t("'lang' is one of {langs}.", langs="x") == "'lang' es uno de x."
        assert tn("{n} match", "{n} matches", 2) == "2 matches"  # not translated: English
    assert set(LANGUAGES) == {"en", "es", "pt-BR", "fr", "de", "it"}


def test_the_catalogs_are_complete_and_current() -> None:
    """Every marked sentence translated in every language (none missing, none stale, none
    fuzzy), each translation keeping its placeholders and tags, every .mo compiled from its
    .po: ``python3 scripts/i18n.py check`` says what is wrong otherwise."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import i18n as catalogs
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert catalogs.problems(catalogs.languages()) == []
