"""The coach in the terminal: ``ginrummy play --hints`` and the review after a match."""

from __future__ import annotations

import io

import pytest

from ginrummy.bots import make_bot
from ginrummy.match import Match
from ginrummy.review.hints import suggest
from ginrummy.tui import Table, main


def test_hints_show_the_coach_suggestion(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("pass\npass\nstock\nquit\n"))
    assert main(["--vs", "random", "--seed", "3", "--hints", "--budget-ms", "5"]) == 0
    out = capsys.readouterr().out
    assert out.count("Hint: ") >= 2 and "to win the match" in out


def test_suggest_names_a_legal_action() -> None:
    view = Match(seed=4).view(Match(seed=4).hand.to_play or 0)
    text = suggest(view, samples=8)
    first = text.removeprefix("either is fine: ").split(" (")[0]
    assert first in {"pass", "take the discard"}


def test_review_after_the_match_when_asked() -> None:
    out: list[str] = []
    match = Match(seed=11, players=("you", "random"))
    bots = [make_bot("strong-fast", 1)]
    answers: list[str] = []

    def read(prompt: str) -> str:
        if prompt.startswith("Review"):
            answers.append(prompt)
            return "y"
        return str(bots[0].decide(match.view(0)))

    table = Table(match, make_bot("random", 3), "random", False, read, out.append,
                  budget_ms=2, review="ask")
    assert table.play() == 0
    assert match.is_over() and answers
    text = "\n".join(out)
    assert "Summary" in text and "you (seat 0)" in text
    assert "random (seat 1)" not in text.split("Summary")[1]  # only the player's own seat


def test_no_review_unless_asked_or_agreed() -> None:
    out: list[str] = []
    match = Match(seed=11, players=("you", "random"))
    bot = make_bot("strong-fast", 1)

    def read(prompt: str) -> str:
        if prompt.startswith("Review"):
            return "n"
        return str(bot.decide(match.view(0)))

    Table(match, make_bot("random", 3), "random", False, read, out.append,
          budget_ms=2, review="ask").play()
    assert "Summary" not in "\n".join(out)
