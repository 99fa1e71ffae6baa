"""``ginrummy connect`` without a server: its command line (every wrong one is status 2
and one line, nothing done), the web extra missing, the waits between reconnections, and
how it words a challenge and a match's end. tests/web/test_connect.py plays against a
real server."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import ginrummy.connect as connect
from ginrummy.cli import main

pytest.importorskip("httpx")
pytest.importorskip("websockets")

from ginrummy.connect.client import Backoff  # noqa: E402
from ginrummy.connect.connector import describe_challenge  # noqa: E402
from ginrummy.connect.seat import describe_end  # noqa: E402

TOKEN = "ginrummy." + "A" * 43


@pytest.mark.parametrize("argv, text", [
    (["ftp://x", "random", "--token", TOKEN], "the URL must start with http:// or https://"),
    (["http://x", "random"], "--token is required"),
    (["http://x", "random", "--token", "abc"], "--token: an API token is 'ginrummy.'"),
    (["http://x", "random", "--token", TOKEN, "--accept", "rated,blitz"], "--accept takes"),
    (["http://x", "random", "--token", TOKEN, "--max-matches", "0"], "--max-matches must"),
    (["http://x", "random", "--token", TOKEN, "--concurrent", "0"], "--concurrent must"),
    (["http://x", "random", "--token", TOKEN, "--time-limit", "0"], "--time-limit must"),
])
def test_a_wrong_command_line_is_status_2(argv: list[str], text: str,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(connect.TOKEN_ENV, raising=False)
    with pytest.raises(SystemExit) as e:
        main(["connect", *argv])
    assert e.value.code == 2
    assert text in capsys.readouterr().err


def test_an_unknown_bot_and_a_missing_extra_are_status_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["connect", "http://x", "nobot", "--token", TOKEN]) == 2
    assert "Unknown bot" in capsys.readouterr().err
    real = importlib.import_module

    def without_httpx(name: str, *args: Any) -> Any:
        if name == "httpx":
            raise ImportError(name=name)
        return real(name, *args)

    monkeypatch.setattr(connect.importlib, "import_module", without_httpx)
    assert main(["connect", "http://x", "random", "--token", TOKEN]) == 2
    assert capsys.readouterr().err == (
        "ginrummy connect: the web extra is not installed (no module 'httpx'): "
        "pip install 'ginrummy[web]'\n")


def test_the_token_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(connect.TOKEN_ENV, TOKEN)
    args = connect.build_parser().parse_args(["http://x", "random"])
    assert args.token == TOKEN
    assert connect._check(connect.build_parser(), args) == {"casual", "rated"}


def test_waits_grow_to_a_cap_and_start_again() -> None:
    b = Backoff(first=0.5, most=15.0)
    waits = [b.next() for _ in range(8)]
    assert 0.4 <= waits[0] <= 0.6 and 0.8 <= waits[1] <= 1.2
    assert all(w <= 15.0 * 1.2 for w in waits) and waits[-1] >= 15.0 * 0.8
    b.reset()
    assert b.next() <= 0.6


def test_how_a_challenge_and_an_ending_are_worded() -> None:
    c = {"id": "abc", "from": "ann", "from_bot": False, "rated": True,
         "options": {"target": 150, "gin_only": True, "oklahoma": False},
         "clock": {"move": 20, "bank": 120}}
    assert describe_challenge(c) == ("challenge abc from ann (rated, to 150, gin only, "
                                     "20 s + 120 s)")
    assert "from BOT robo" in describe_challenge(c | {"from": "robo", "from_bot": True})
    s = {"seat": 1, "scores": [37, 104], "winner": 1, "end": "target"}
    assert describe_end(s) == "won 104-37"
    assert describe_end(s | {"winner": 0, "end": "resigned"}) == "lost 104-37 (a resignation)"
    assert describe_end(s | {"winner": None, "end": "aborted"}) == "aborted: no result"
