"""The coach in the reader's language (issue 46; docs/translating.md): a review is graded
in a worker and stored once, so its reasons are stored as sentences still to be said
(:mod:`ginrummy.review.said`) and said in each reader's language when the review is sent;
hints and the analysis board's refusals, made in workers too, are said in the asker's
language; the English stays as it was (the command line's and ``--json``'s).

A stand-in catalog marks every translated message with brackets, so a test sees that
every part of a sentence went through the catalog (the real catalogs are checked in
test_languages)."""

from __future__ import annotations

import gettext
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import ginrummy.i18n
from ginrummy.i18n import using
from ginrummy.match import Match
from ginrummy.review import review_match, said
from ginrummy.review.report import action_words, rating_range, rating_range_words
from ginrummy.web.app import create_app
from ginrummy.web.reviews.grading import hint_once, part_of, table_card, told
from ginrummy.web.reviews.jobs import failure_words
from ginrummy.web.training.analysis import analyze_or_error
from ginrummy.web.training.puzzles import Puzzles

from .conftest import NO_RATE_LIMITS, site
from .test_reviews import _friend, _play_hand, _review


class Bracketed(gettext.NullTranslations):
    """Every message "translated" as itself in brackets."""

    def gettext(self, message: str) -> str:
        return f"[{message}]"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return f"[{msgid1 if n == 1 else msgid2}]"


@pytest.fixture
def bracketed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Spanish is the stand-in catalog; English stays English."""
    real = ginrummy.i18n.translations

    def fake(lang: str, domain: str = ginrummy.i18n.DOMAIN) -> gettext.NullTranslations:
        if lang == "es" and domain == ginrummy.i18n.DOMAIN:
            return Bracketed()
        return real(lang, domain)

    monkeypatch.setattr(ginrummy.i18n, "translations", fake)
    yield


def _played(seed: int, hands: int = 1) -> Match:
    m = Match(seed=seed)
    while len(m.hands) < hands or m.hand.result is None:
        if m.awaiting_deal():
            m.start_hand()
            continue
        assert m.to_play is not None
        v = m.view(m.to_play)
        m.play(v.legal[-1] if v.phase.value == "discard" else v.legal[0])
    return m


def test_a_stored_reason_is_said_in_each_readers_language(bracketed: None) -> None:
    m = _played(21)
    review = review_match(m, seats=(0,), hands=(0,), samples=4, card=table_card)
    stored = json.loads(json.dumps(part_of(review, 0, 0)))  # as the database keeps it
    whys = [d for d in stored["decisions"] if d["why"]]
    assert whys and all("why_said" in d for d in whys)
    assert [d["why"] for d in whys] == [g.why for g in review.graded if g.why]  # English
    for d in whys:
        english = told(d)
        assert english["why"] == d["why"] and "why_said" not in english
        with using("es"):
            spanish = told(d)["why"]
        assert spanish != d["why"] and spanish.startswith("[") and "why_said" not in told(d)
        # every word of the English went through the catalog: none is said outside it
        outside = spanish
        for c in "♣♦♥♠":
            outside = outside.replace(c, "")
        assert not any(ch.isalpha() for ch in _unbracketed(outside)), spanish
    # a part stored before reasons were kept as sentences keeps its English
    old = {k: v for k, v in whys[0].items() if k != "why_said"}
    with using("es"):
        assert told(old) == old


def _unbracketed(text: str) -> str:
    """``text`` without its bracketed parts (what no message said)."""
    out, depth = [], 0
    for ch in text:
        depth += ch == "["
        if depth == 0:
            out.append(ch)
        depth -= ch == "]"
    return "".join(out)


def test_a_sentence_keeps_its_parts_through_json() -> None:
    s = said.clauses([said.t("breaks {meld}", meld=said.t("the set of {rank}s", rank="10")),
                      said.tn("{n} out", "{n} outs", 3),
                      said.joined(", ", ["7♣", said.Num(2.25, 1)])])
    back = said.from_json(json.loads(json.dumps(said.to_json(s))))
    assert back == s and str(back) == "breaks the set of 10s; 3 outs; 7♣, 2.2"
    with using("de"):
        assert said.number(0.5, 1) == "0,5" and said.whole(16384) == "16.384"
    assert said.from_json({"odd": 1}) == "{'odd': 1}"


def test_a_hint_is_said_in_the_askers_language(bracketed: None) -> None:
    m = Match(seed=4)
    assert m.to_play is not None
    v = m.view(m.to_play)
    english = hint_once(v, (0.0, 0.0), 4, None)
    assert english["text"].startswith(("Suggestion: ", "Either is fine: "))
    spanish = hint_once(v, (0.0, 0.0), 4, None, "es")
    assert spanish["text"].startswith(("[Suggestion: ", "[Either is fine: "))
    assert {k: v for k, v in spanish.items() if k != "text"} == \
        {k: v for k, v in english.items() if k != "text"}


def test_the_analysis_boards_refusals_are_said_in_the_askers_language(bracketed: None) -> None:
    bad = {"hand": "7C 7C", "stock": 31, "to_play": "draw"}
    english = analyze_or_error(bad)
    assert english == "To draw you hold 10 cards, not 2."
    assert analyze_or_error(bad, "es") == "[To draw you hold 10 cards, not 2.]"


def test_the_words_a_page_shows(bracketed: None) -> None:
    assert rating_range(0.003, 0.02) == rating_range_words(0.003, 0.02) == "Awful to Expert"
    failed = "The review failed (ValueError); try again."
    assert failure_words(failed) == failed and failure_words("other") == "other"
    with using("es"):
        assert rating_range_words(0.003, 0.02) == "[[Awful] to [Expert]]"
        assert rating_range(0.003, 0.02) == "Awful to Expert"  # the JSON's stays English
        assert failure_words(failed) == "[The review failed (ValueError); try again.]"
        assert Puzzles.themes()["themes"][0]["title"].startswith("[Take or pass")
        m = Match(seed=4)
        assert m.to_play is not None
        assert action_words(m.view(m.to_play).legal[0], table_card) == "[pass]"


def test_the_web_review_speaks_the_requests_language(bracketed: None, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GINRUMMY_REVIEW_SAMPLES", "2")
    monkeypatch.setenv("GINRUMMY_REVIEW_BUDGET_MS", "3")
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0,
                     settings=NO_RATE_LIMITS)
    with TestClient(app) as c:
        site(c).lobby.seed_source = lambda: (4, 0)
        mid, tokens = _friend(c)
        _play_hand(c, mid, tokens, random.Random(7))
        english = _review(c, mid, tokens[0])  # graded in a worker, stored once
        c.headers["Accept-Language"] = "es"
        spanish = _review(c, mid, tokens[0])
    ds_en = english["review"]["hands"][0]["decisions"]
    ds_es = spanish["review"]["hands"][0]["decisions"]
    whys = [(a["why"], b["why"]) for a, b in zip(ds_en, ds_es, strict=True) if a["why"]]
    assert whys and all(es.startswith("[") and not en.startswith("[") for en, es in whys)
    assert not any("why_said" in d for d in ds_en + ds_es)
    seat_en, seat_es = english["review"]["seats"][0], spanish["review"]["seats"][0]
    assert seat_es["rating"] == f"[{seat_en['rating']}]"
    assert seat_es["plays_like"] == seat_en["plays_like"]  # a bot's name, as it was
    words = [a["words"] for a in spanish["hands"][0]["actions"]]
    assert words and all(w.startswith("[") for w in words)
    # the rest is the same review
    strip = ("why", "rating", "rating_interval")
    assert [{k: v for k, v in d.items() if k != "why"} for d in ds_es] == \
        [{k: v for k, v in d.items() if k != "why"} for d in ds_en]
    assert {k: v for k, v in seat_es.items() if k not in strip} == \
        {k: v for k, v in seat_en.items() if k not in strip}
