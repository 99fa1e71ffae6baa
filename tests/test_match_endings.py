"""How a match ends beyond R10's target and hand limit: a resignation, three turns in a
row lost to the clock, an abort (before the first discard, or before a seat's own first
move); and the record's ``end`` member (docs/records.md) that says which, read back under
the rules."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ginrummy import DRAW_STOCK, PASS, IllegalActionError, Match, MatchOverError
from ginrummy.actions import Action
from ginrummy.cli import main
from ginrummy.fairness import deals, seal
from ginrummy.match import TIMEOUT_LIMIT, Termination
from ginrummy.record import RecordError, match_from_record
from helpers import gin_deal, play_gin_for, random_play


def timeout_turn(m: Match) -> int:
    """Play the seat to move's whole turn on timeout, as a table does (pass at the offer;
    else draw from the stock and discard the first legal card without knocking)."""
    seat = m.to_play
    assert seat is not None
    while m.to_play == seat and not m.is_over():
        legal = m.legal_actions()
        if PASS in legal:
            m.play(PASS, seat, timeout=True)
            return seat
        if DRAW_STOCK in legal:
            m.play(DRAW_STOCK, seat, timeout=True)
            continue
        discard = next(a for a in legal if a.act == "discard" and not a.knock)
        m.play(discard, seat, timeout=True)
        return seat
    return seat


# ----------------------------------------------------------------------------- resign


def test_r10_resignation_gives_the_match_to_the_opponent_scores_as_they_stand() -> None:
    m = Match(seed=5)
    random_play(m, random.Random(1), max_actions=7)
    scores = m.scores
    out = m.resign(0)
    assert m.is_over() and out.winner == 1 and out.reason is Termination.RESIGNED
    assert out.by == 0 and out.scores == scores and out.end == "resigned"
    assert m.to_play is None and m.legal_actions() == ()
    with pytest.raises(MatchOverError):
        m.play(DRAW_STOCK)
    with pytest.raises(MatchOverError):
        m.resign(1)


def test_r10_resignation_after_a_scored_hand_keeps_the_scores() -> None:
    m = Match(first_dealer=0, deals=[gin_deal(0)] * 3)
    play_gin_for(m, 0)
    scores = m.scores
    assert scores[0] > 0
    out = m.resign(0)
    assert out.winner == 1 and out.scores == scores  # R10: the resigning leader loses
    with pytest.raises(ValueError, match="seat"):
        Match(seed=1).resign(2)


# ----------------------------------------------------------------------------- abort


def test_r10_abort_before_the_first_discard_has_no_result() -> None:
    m = Match(seed=8)
    assert m.can_abort()
    m.play(PASS)
    m.play(PASS)
    m.play(DRAW_STOCK)  # the first draw, but no discard yet
    assert m.can_abort()
    out = m.abort()
    assert out.winner is None and out.reason is Termination.ABORTED and out.end == "aborted"
    assert out.result() == "*" and not m.can_abort()


def test_r10_abort_refused_after_the_first_discard_and_changes_nothing() -> None:
    m = Match(seed=8)
    random_play(m, random.Random(3), max_actions=4)
    assert any(op.action.act == "discard" for op in m.hand.history)
    assert not m.can_abort()
    with pytest.raises(IllegalActionError, match="Too late to abort"):
        m.abort()
    assert not m.is_over()


def test_r10_a_seat_may_abort_only_before_its_own_first_move() -> None:
    """A pass or a draw is a move; a move the table played on timeout is not the seat's."""
    m = Match(seed=8)
    first = m.to_play
    assert first is not None
    assert m.can_abort(0) and m.can_abort(1) and not m.has_moved(first)
    m.play(PASS)
    assert m.has_moved(first) and not m.can_abort(first) and m.can_abort(1 - first)
    m.play(PASS, timeout=True)  # the second seat's pass, played for it
    assert not m.has_moved(1 - first) and m.can_abort(1 - first)
    m.play(DRAW_STOCK)
    discard = next(a for a in m.legal_actions() if a.act == "discard" and not a.knock)
    m.play(discard)  # the first discard: the match-wide rule alone would refuse now
    assert m.can_abort() and m.can_abort(1 - first)
    out = m.abort(1 - first)
    assert out.by == 1 - first and out.end == "aborted" and out.winner is None
    rec = m.to_record()
    assert match_from_record(rec).outcome().end == "aborted"  # type: ignore[union-attr]


def test_r10_once_both_seats_moved_and_discarded_no_abort() -> None:
    m = Match(seed=8)
    m.play(PASS)
    m.play(PASS)
    m.play(DRAW_STOCK)
    m.play(next(a for a in m.legal_actions() if a.act == "discard" and not a.knock))
    assert not m.can_abort() and not m.can_abort(0) and not m.can_abort(1)
    with pytest.raises(IllegalActionError, match="Too late to abort"):
        m.abort(0)


# ----------------------------------------------------------------------------- timeouts


def test_r10_three_turns_in_a_row_on_timeout_lose_the_match() -> None:
    m = Match(seed=21)
    loser = None
    turns = 0
    while not m.is_over():
        seat = m.to_play
        assert seat is not None
        if loser is None:
            loser = seat
        if seat == loser:
            assert m.timeouts[seat] == turns
            timeout_turn(m)
            turns += 1
        else:  # the opponent plays its own turns (a pass or a draw and a discard)
            timeout_turn_by_hand(m)
    assert turns == TIMEOUT_LIMIT
    out = m.outcome()
    assert out is not None and out.reason is Termination.TIMEOUT and out.by == loser
    assert out.winner == 1 - loser and out.end == "timeout"


def timeout_turn_by_hand(m: Match) -> None:
    """The seat to move plays its own turn (no timeout): pass, or draw and discard."""
    seat = m.to_play
    legal = m.legal_actions()
    if PASS in legal:
        m.play(PASS)
        return
    m.play(DRAW_STOCK)
    m.play(next(a for a in m.legal_actions() if a.act == "discard" and not a.knock))
    assert m.to_play != seat or m.is_over() or m.hand.is_over()


def test_r10_a_turn_played_by_the_seat_itself_starts_the_count_again() -> None:
    m = Match(seed=4)
    seat = m.to_play
    assert seat is not None
    timeout_turn(m)  # seat passes on timeout (the offer)
    assert m.timeouts[seat] == 1
    other = m.to_play
    assert other is not None and other != seat
    timeout_turn_by_hand(m)  # the dealer passes too
    m.play(DRAW_STOCK, seat)  # seat acts itself: the count starts again
    assert m.timeouts[seat] == 0
    discard = next(a for a in m.legal_actions() if a.act == "discard" and not a.knock)
    m.play(discard, seat, timeout=True)
    assert m.timeouts[seat] == 1 and m.timed_out(0, 3) and not m.timed_out(0, 2)


def test_r10_a_draw_on_timeout_alone_is_not_a_lost_turn() -> None:
    m = Match(seed=4)
    m.play(PASS)
    m.play(PASS)
    seat = m.to_play
    assert seat is not None
    m.play(DRAW_STOCK, seat, timeout=True)
    assert m.timeouts[seat] == 0 and m.timed_out(0, 2)


# ----------------------------------------------------------------------------- records


def test_record_end_is_written_once_the_match_is_over_and_read_back() -> None:
    m = Match(seed=30)
    random_play(m, random.Random(30))
    rec = m.to_record()
    out = m.outcome()
    assert out is not None and rec["end"] == {"target": "target",
                                              "hand_limit": "hand-cap"}[out.reason]
    back = match_from_record(rec)
    assert back.outcome() == out
    assert "end" not in Match(seed=30).to_record()


def test_record_of_a_resignation_says_who_and_replays_to_it() -> None:
    m = Match(seed=11)
    random_play(m, random.Random(2), max_actions=9)
    m.resign(1)
    rec = m.to_record()
    assert rec["end"] == "resigned" and rec["resigned_by"] == 1
    back = match_from_record(rec)
    assert back.outcome() == m.outcome()
    assert back.to_record() == rec
    rec["resigned_by"] = 2
    with pytest.raises(RecordError, match="resigned_by"):
        match_from_record(rec)


def test_record_of_an_abort_replays_and_a_late_one_is_refused() -> None:
    m = Match(seed=12)
    m.play(PASS)
    m.abort()
    rec = m.to_record()
    assert rec["end"] == "aborted" and match_from_record(rec).outcome() == m.outcome()
    late = Match(seed=12)
    random_play(late, random.Random(5), max_actions=4)
    bad = late.to_record() | {"end": "aborted"}
    assert late.has_moved(0) and late.has_moved(1)
    with pytest.raises(RecordError, match="both players had moved"):
        match_from_record(bad)


def test_record_marks_timed_out_actions_and_replays_the_loss_on_time() -> None:
    m = Match(seed=21)
    loser = m.to_play
    while not m.is_over():
        if m.to_play == loser:
            timeout_turn(m)
        else:
            timeout_turn_by_hand(m)
    rec = m.to_record()
    assert rec["end"] == "timeout"
    marked = [a for h in rec["hands"] for a in h["actions"] if a.get("timeout")]
    assert marked and all(a["seat"] == loser for a in marked)
    back = match_from_record(rec)
    assert back.outcome() == m.outcome() and back.to_record() == rec
    for a in marked:
        a["timeout"] = "yes"
    with pytest.raises(RecordError, match="'timeout' must be true or false"):
        match_from_record(rec)


def test_record_end_that_contradicts_the_play_is_refused() -> None:
    m = Match(seed=30)
    random_play(m, random.Random(30))
    rec = m.to_record()
    rec["end"] = "timeout"
    with pytest.raises(RecordError, match="ended by timeout, but it ended by"):
        match_from_record(rec)
    rec["end"] = "sudden-death"
    with pytest.raises(RecordError, match="'end' must be one of"):
        match_from_record(rec)


def test_record_prefix_keeps_the_end_of_the_whole_match() -> None:
    m = Match(seed=30)
    random_play(m, random.Random(30))
    rec = m.to_record()
    rec["hands"] = rec["hands"][:1]
    rec["hands"][0]["actions"] = rec["hands"][0]["actions"][:3]
    assert not match_from_record(rec).is_over()


def test_copy_keeps_the_timeout_count_apart() -> None:
    m = Match(seed=4)
    seat = m.to_play
    assert seat is not None
    timeout_turn(m)
    twin = m.copy()
    assert twin.timeouts == m.timeouts and twin.timed_out(0, 0)
    twin.play(Action.from_json({"act": "pass"}))
    assert m.timeouts == twin.timeouts and len(m.hand.history) == 1


def test_record_resigned_by_without_a_resignation_is_refused() -> None:
    m = Match(seed=11)
    random_play(m, random.Random(2), max_actions=5)
    rec = m.to_record() | {"resigned_by": 0}
    with pytest.raises(RecordError, match="'resigned_by' belongs only"):
        match_from_record(rec)


# ----------------------------------------------------------------------------- the CLI


def test_replay_json_and_text_say_how_the_match_ended(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = Match(seed=7, first_dealer=0, deals=deals(7))  # deals from the seed: verifiable
    random_play(m, random.Random(2), max_actions=9)
    m.resign(1)
    path = tmp_path / "resigned.json"
    path.write_text(json.dumps(seal(m.to_record(), "00" * 16)))
    assert main(["replay", str(path), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["finished"] is True and obj["winner"] == 0
    assert obj["end"] == "resigned" and obj["by"] == 1
    assert main(["replay", str(path)]) == 0
    assert "Seat 1 resigns: Seat 0 wins" in capsys.readouterr().out
    assert main(["verify", str(path)]) == 0
    capsys.readouterr()
    # an unfinished match carries no "end" (INTERFACES section 3 unchanged)
    path.write_text(json.dumps(Match(seed=11).to_record()))
    assert main(["replay", str(path), "--json"]) == 0
    assert "end" not in json.loads(capsys.readouterr().out)


def test_replay_text_marks_moves_played_on_timeout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = Match(seed=21)
    loser = m.to_play
    while not m.is_over():
        if m.to_play == loser:
            timeout_turn(m)
        else:
            timeout_turn_by_hand(m)
    path = tmp_path / "timeout.json"
    path.write_text(json.dumps(m.to_record()))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("(out of time: played by the table)") >= TIMEOUT_LIMIT
    assert f"lost {TIMEOUT_LIMIT} turns in a row to the clock" in out
    assert main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["end"] == "timeout"


def test_r10_a_lowered_hand_limit_ends_the_match_after_that_many_hands(
        tmp_path: Path) -> None:
    from ginrummy import Options

    m = Match(Options(target=250, hands=3), seed=11, deals=deals(11))
    random_play(m, random.Random(4))
    out = m.outcome()
    assert out is not None and out.reason is Termination.HAND_LIMIT and out.hands == 3
    s0, s1 = m.scores
    assert out.winner == (None if s0 == s1 else 0 if s0 > s1 else 1)
    rec = m.to_record()
    assert rec["end"] == "hand-cap" and rec["options"]["hands"] == 3
    back = match_from_record(rec)
    assert back.outcome() == out
    # a record that goes on past its hands breaks R10
    longer = Match(Options(target=250), seed=11, deals=deals(11))
    random_play(longer, random.Random(4), max_actions=10_000)
    over = longer.to_record() | {"options": rec["options"]}
    over.pop("end", None)
    assert len(over["hands"]) > 3
    with pytest.raises(RecordError) as e:
        match_from_record(over)
    assert e.value.message == "The record goes on after the match has ended."
    path = tmp_path / "capped.json"
    path.write_text(json.dumps(seal(rec, "00" * 16)))
    assert main(["verify", str(path)]) == 0
