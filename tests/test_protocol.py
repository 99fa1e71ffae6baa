"""The ginrummy-bot/1 protocol (docs/protocol.md): the bot side, the referee side, and how
the referee survives bots that misbehave."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ginrummy.bots import make_bot
from ginrummy.hand import Hand
from ginrummy.match import Match
from ginrummy.protocol import (
    MAX_LINE,
    PROTOCOL,
    BotFailure,
    ExternalBot,
    decide_message,
    hand_over_message,
    main,
    serve,
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "misbehaving_bot.py"
PROJECT_BOT = f"{sys.executable} -m ginrummy.cli bot random --seed 5"
VIEW_KEYS = {"seat", "dealer", "hand_index", "scores", "options", "knock_limit", "phase",
             "hand", "upcard", "discards", "stock_count", "history"}


@pytest.fixture(autouse=True)
def _pythonpath(monkeypatch: pytest.MonkeyPatch) -> None:
    """Subprocesses import the package from this checkout."""
    src = str(ROOT / "src")
    old = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", src + (os.pathsep + old if old else ""))


def misbehaving(mode: str, after: int = 0) -> str:
    return f"{sys.executable} {FIXTURE} {mode} {after}"


def run_serve(lines: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = serve(make_bot("random", 1), io.StringIO("".join(x + "\n" for x in lines)), out, err)
    return rc, out.getvalue(), err.getvalue()


# ----------------------------------------------------------------------------- bot side


def test_bot_side_answers_hello_and_decide_with_a_legal_action() -> None:
    match = Match(seed=3)
    seat = match.to_play
    assert seat is not None
    view = match.view(seat)
    rc, out, err = run_serve([
        json.dumps({"type": "hello", "protocol": PROTOCOL}),
        json.dumps(decide_message(view)),
        json.dumps({"type": "bye"}),
        json.dumps({"type": "hello", "protocol": PROTOCOL}),  # after bye: never read
    ])
    assert rc == 0 and err == ""
    answers = [json.loads(x) for x in out.splitlines()]
    assert answers[0] == {"type": "hello", "name": "random"}
    assert answers[1]["type"] == "action"
    assert answers[1]["action"] in [a.to_json() for a in view.legal]
    assert len(answers) == 2


def test_bot_side_is_silent_on_hand_over_and_stops_at_eof() -> None:
    match = Match(seed=3)
    hand = match.hand
    rc, out, err = run_serve([json.dumps(hand_over_message({"result": "dead"}, None))])
    assert (rc, out, err) == (0, "", "")
    assert hand.result is None


def test_bot_side_reports_malformed_lines_without_traceback_and_goes_on() -> None:
    rc, out, err = run_serve([
        "{not json",
        "[1, 2]",
        json.dumps({"type": "dance"}),
        json.dumps({"type": "decide", "view": {"seat": 0}, "legal": []}),
        json.dumps({"type": "hello", "protocol": PROTOCOL}),
    ])
    assert rc == 0
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("ginrummy bot: line 1: not valid JSON")
    assert "must be a JSON object" in lines[1]
    assert "unknown message type 'dance'" in lines[2]
    assert "cannot read the decide message" in lines[3]
    assert json.loads(out) == {"type": "hello", "name": "random"}


def test_bot_command_rejects_an_unknown_bot_with_exit_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-bot"]) == 2
    err = capsys.readouterr().err
    assert "Unknown bot 'no-such-bot'" in err and "Traceback" not in err


def test_ginrummy_bot_subprocess_round_trip() -> None:
    """`ginrummy bot random` as a real program, driven through pipes."""
    match = Match(seed=11)
    seat = match.to_play
    assert seat is not None
    view = match.view(seat)
    lines = [{"type": "hello", "protocol": PROTOCOL}, decide_message(view), {"type": "bye"}]
    proc = subprocess.run(
        [sys.executable, "-m", "ginrummy.cli", "bot", "random", "--seed", "2"],
        input="".join(json.dumps(x) + "\n" for x in lines), capture_output=True, text=True,
        timeout=30, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(x) for x in proc.stdout.splitlines()]
    assert answers[0]["type"] == "hello"
    assert answers[1]["action"] in [a.to_json() for a in view.legal]


# ----------------------------------------------------------------------------- referee side


def play_some(ext: ExternalBot, ext_seat: int, seed: int, hands: int) -> Match:
    """Play ``hands`` hands of ext (in ext_seat) against the random bot."""
    match = Match(seed=seed)
    other = make_bot("random", seed)
    while not match.is_over() and len(match.hands) <= hands:
        hand = match.hand
        seat = hand.to_play
        assert seat is not None
        bot = ext if seat == ext_seat else other
        match.play(bot.decide(match.view(seat)), seat)
        if hand.result is not None:
            ext.hand_over(hand.view(ext_seat), hand.result)
    return match


def test_external_project_bot_plays_legal_moves_through_the_referee() -> None:
    with ExternalBot(PROJECT_BOT, time_limit=10) as ext:
        match = play_some(ext, 0, seed=4, hands=3)
        assert ext.reported_name == "random"
        proc = ext._proc
        assert proc is not None
    assert ext._proc is None and proc.returncode == 0  # said bye and exited cleanly
    assert len(match.hands) >= 3


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def test_decide_messages_never_reveal_the_opponent_hand_or_stock(tmp_path: Path) -> None:
    """R11: every decide sent to an external bot, checked against the true hidden cards."""
    log = tmp_path / "log.jsonl"
    secrets: list[set[str]] = []
    with ExternalBot(f"{sys.executable} {FIXTURE} log {log}") as ext:
        match = Match(seed=21)
        other = make_bot("random", 0)
        while len(match.hands) <= 3 and not match.is_over():
            hand: Hand = match.hand
            seat = hand.to_play
            assert seat is not None
            if seat == 0:
                opp = 1
                took = {str(h.card) for h in match.view(0).history
                        if h.seat == opp and h.action.source == "discard"}
                hidden = {str(c) for c in hand.cards_of(opp)} - took
                secrets.append(hidden | {str(c) for c in hand.stock})
                action = ext.decide(match.view(0))
            else:
                action = other.decide(match.view(1))
            match.play(action, seat)
            if hand.result is not None:
                ext.hand_over(hand.view(0), hand.result)
    msgs = [json.loads(x) for x in log.read_text().splitlines()]
    decides = [m for m in msgs if m["type"] == "decide"]
    assert len(decides) == len(secrets) > 10
    for msg, hidden in zip(decides, secrets, strict=True):
        assert VIEW_KEYS <= set(msg["view"]) <= VIEW_KEYS | {"to_play"}
        assert not hidden & set(_strings(msg)), "a decide message leaked a hidden card"
    overs = [m for m in msgs if m["type"] == "hand_over"]
    assert overs, "hand_over is sent after each hand"
    for m in overs:
        assert set(m) == {"type", "result", "hands"}
        if m["result"]["result"] == "dead":
            assert m["hands"] is None  # R7: a dead hand reveals nothing
        else:
            assert len(m["hands"]) == 2 and all(len(h) == 10 for h in m["hands"])
    assert msgs[0] == {"type": "hello", "protocol": PROTOCOL}
    assert msgs[-1] == {"type": "bye"}


@pytest.mark.parametrize(("mode", "expected"), [
    ("crash", "exited with status 3. Its last error output: something went badly wrong"),
    ("hang", "gave no answer to decide within 0.5 seconds"),
    ("malformed", "answered decide with malformed JSON"),
    ("wrongtype", "answered decide with a message of type 'hello' instead of 'action'"),
    ("illegal", "answered with an unreadable action"),
])
def test_misbehaving_bot_raises_a_clear_bot_failure(mode: str, expected: str) -> None:
    ext = ExternalBot(misbehaving(mode, 2), name="badbot", time_limit=0.5)
    match = Match(seed=8)
    ext.start()
    proc = ext._proc
    assert proc is not None
    with pytest.raises(BotFailure) as info:
        play_some(ext, 0, seed=8, hands=60)
    assert isinstance(info.value, ValueError)
    assert info.value.bot == "badbot"
    assert str(info.value).startswith("Bot 'badbot' failed: ")
    assert expected in str(info.value)
    assert proc.poll() is not None, "the failing bot's process is cleaned up"
    assert ext._proc is None
    with pytest.raises(BotFailure):  # it stays failed
        ext.decide(match.view(match.to_play or 0))


def test_action_not_in_legal_is_refused() -> None:
    """An action that parses but is not legal now (a discard in the offer phase)."""
    with ExternalBot(misbehaving("notlegal"), time_limit=5) as ext:
        match = Match(seed=1)
        seat = match.to_play
        assert seat is not None
        with pytest.raises(BotFailure, match="which is not one of the legal actions"):
            ext.decide(match.view(seat))


def test_silent_hello_and_missing_program_fail_clearly() -> None:
    ext = ExternalBot(misbehaving("silent_hello"), start_limit=0.5)
    with pytest.raises(BotFailure, match="gave no answer to hello within 0.5 seconds"):
        ext.start()
    with pytest.raises(BotFailure, match="cannot start 'no-such-program-xyz'"):
        ExternalBot("no-such-program-xyz --flag").start()
    with pytest.raises(BotFailure, match="the command is empty"):
        ExternalBot("   ").start()


def test_an_answer_line_over_1_mib_is_a_failure_and_the_limit_is_documented(
        tmp_path: Path) -> None:
    """The referee reads at most 1 MiB of one line (docs/protocol.md says so): a bot that
    floods it fails in one sentence instead of exhausting the referee's memory."""
    script = tmp_path / "flood.py"
    script.write_text(
        "import json, sys\n"
        "sys.stdin.readline()\n"
        "print(json.dumps({'type': 'hello', 'name': 'flood'}), flush=True)\n"
        "sys.stdin.readline()\n"
        "sys.stdout.write('x' * (2 << 20))\n"  # 2 MiB and no newline
        "sys.stdout.flush()\n"
        "sys.stdin.readline()\n")
    with ExternalBot(f"{sys.executable} {script}", name="flood", time_limit=20) as ext:
        match = Match(seed=1)
        seat = match.to_play
        assert seat is not None
        with pytest.raises(BotFailure, match=f"sent a line longer than {MAX_LINE} bytes"):
            ext.decide(match.view(seat))
    assert MAX_LINE == 1 << 20
    doc = " ".join((ROOT / "docs" / "protocol.md").read_text(encoding="utf-8").split())
    assert "1 MiB (1,048,576 bytes)" in doc
