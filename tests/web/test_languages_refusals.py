"""The server's sentences in the player's language (issue 46): refusals built with values
are whole sentences (one per case, plural forms by the language's rule), a socket's close
reason is said in the language of the request that opened it and fits a close frame, and
the English of every sentence is as it was."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from ginrummy.i18n import using
from ginrummy.web.errors import DB_DOWN
from ginrummy.web.guard import JSONError, close_reason, parse_json
from ginrummy.web.online.fairplay import wait_sentence
from ginrummy.web.tables.sockets import Subscriber


def test_a_close_reason_fits_a_frame_and_is_never_cut_inside_a_character() -> None:
    assert close_reason("a" * 200) == "a" * 120
    cut = close_reason("é" * 100)  # two bytes each: 60 whole characters
    assert cut == "é" * 60 and len(cut.encode()) == 120


def _closed_reason(lang: str, reason: str) -> str:
    """The reason a socket opened in ``lang`` is closed with."""
    got: list[str] = []

    async def send_text(_: str) -> None:
        return None

    async def close_socket(_: int, why: str) -> None:
        got.append(why)

    async def go() -> None:
        with using(lang):
            sub = Subscriber("m", 0, "addr", send_text, close_socket)
        sub.close(1012, reason)  # (from another task: a broker's news, a sweep)
        await sub.run()

    # (on a thread of its own: whatever loop a test before left set on this thread)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, go()).result()
    return got[0]


def test_a_socket_is_closed_in_the_language_it_was_opened_in() -> None:
    assert _closed_reason("en", DB_DOWN) == DB_DOWN
    assert _closed_reason("de", DB_DOWN).startswith("Die Datenbank")


def test_json_refusals_are_whole_sentences_with_the_english_unchanged() -> None:
    said = []
    for what in ("request body", "message"):
        for raw in ("{", "[" * 40 + "]" * 40, '{"a": "\\u0000"}', '["\\ud800"]', "9" * 5000):
            try:
                parse_json(raw, what)
            except JSONError as e:
                said.append(str(e))
    assert said[0].startswith("The request body is not valid JSON: ")
    assert said[1:5] == [
        "The request body is nested too deeply (at most 32 levels).",
        "The request body holds a NUL character, which no field accepts.",
        "The request body holds a lone surrogate, which no field accepts.",
        "The request body holds a number of more than 4300 digits.",
    ]
    assert said[5].startswith("The message is not valid JSON: ")
    assert said[6] == "The message is nested too deeply (at most 32 levels)."


def test_the_wait_after_aborting_says_its_minutes_whole() -> None:
    assert wait_sentence(3, 61, "play a rated match") == (
        "You aborted or left 3 rated matches in the last 24 hours: you can play a rated "
        "match again in 2 minutes (casual matches are open now).")
    assert wait_sentence(4, 30) == (
        "You aborted or left 4 rated matches in the last 24 hours: you can seek a rated "
        "match again in 1 minute (casual matches are open now).")
