"""An arena's scoring and pairing rules (ginrummy.web.online.standings), as pure
functions: lichess's streaks, ties, aborts, the order of the standings, and pairing by
score and rating without meeting the same opponent twice in a row while another is free;
and what cannot be farmed (issue 44): a win by a quick resignation or over the same
opponent again and again scores nothing, an abort or a withdrawal ends the streak."""

from __future__ import annotations

from ginrummy.web.online.standings import (
    BEATEN_MOST,
    MIN_MOVES,
    REMATCH_WAIT,
    Free,
    Game,
    choose_pairs,
    ranked,
    tally,
)


def _won(winner: str, loser: str) -> Game:
    return Game((winner, loser), True, 0)


def test_two_wins_in_a_row_make_every_further_win_worth_four_until_a_loss() -> None:
    games = [_won("a", "b"), _won("a", "c"), _won("a", "d"), _won("a", "e"),
             _won("b", "a"), _won("a", "f"), _won("a", "g"), _won("a", "h")]
    line = tally(games, ["a", "b", "c"])["a"]
    assert line.results == list("WWWWLWWW")
    # 2 + 2, then on a streak 4 + 4; the loss ends it: 2 + 2, then 4 again
    assert line.score == 2 + 2 + 4 + 4 + 0 + 2 + 2 + 4
    assert (line.matches, line.wins, line.streak, line.on_fire) == (8, 7, 3, True)


def test_a_tie_scores_one_doubled_on_a_streak_and_ends_it() -> None:
    tie = Game(("a", "b"), True, None)
    lines = tally([_won("a", "b"), _won("a", "b"), tie, tie], ["a", "b"])
    assert lines["a"].results == list("WWDD") and lines["a"].score == 2 + 2 + 2 + 1
    assert lines["a"].streak == 0 and lines["b"].score == 2


def test_an_abort_or_a_match_in_play_counts_for_nothing() -> None:
    aborted = Game(("a", "c"), True, None, aborted=True)  # (by nobody: a stale pairing)
    playing = Game(("a", "b"), False, None)
    lines = tally([_won("a", "b"), _won("a", "c"), aborted, playing, _won("a", "d")],
                  ["a", "b"])
    assert lines["a"].results == list("WWW") and lines["a"].score == 8  # still on a streak
    assert lines["a"].matches == 3 and lines["b"].matches == 1


def _quit(winner: str, loser: str, moves: int, end: str = "resigned") -> Game:
    return Game((winner, loser), True, 0, end=end, ended_by=1, loser_moves=moves)


def test_a_win_by_a_quick_resignation_or_timeout_scores_nothing_and_is_a_loss() -> None:
    """Issue 44: a friend who passed once and resigned every match gave 13 straight wins
    (48 points). A win the loser quit before making MIN_MOVES moves of its own scores
    nothing (the winner's streak as it was); for the quitter it is a loss."""
    games = [_won("a", "b"), _won("a", "c")]  # a is on a streak
    games += [_quit("a", f"x{i}", 1) for i in range(5)]
    games += [_quit("a", "y", MIN_MOVES - 1, "timeout")]
    lines = tally(games, ["a"])
    a = lines["a"]
    assert (a.score, a.results, a.matches, a.wins, a.on_fire) == (4, ["W", "W"], 2, 2, True)
    assert lines["x0"].results == ["L"] and lines["y"].results == ["L"]
    # a played-out resignation is a win like any other (doubled: still on the streak)
    played = tally(games + [_quit("a", "z", MIN_MOVES)], ["a"])["a"]
    assert (played.score, played.results) == (8, ["W", "W", "W"])
    # a match played out to its end never asks how many moves were made
    assert tally([Game(("a", "b"), True, 0, end="target", loser_moves=0)], [])["a"].score == 2


def test_only_the_first_wins_over_one_opponent_score() -> None:
    """The farm of issue 44 played out properly: however often two players meet, the
    winner scores BEATEN_MOST wins over the other, and then nothing (the loser loses)."""
    games = [_won("a", "friend") for _ in range(13)]
    lines = tally(games, ["a", "friend", "honest"])
    a, friend = lines["a"], lines["friend"]
    assert a.results == ["W"] * BEATEN_MOST and a.score == 2 * BEATEN_MOST == 4
    assert friend.results == ["L"] * 13 and friend.score == 0
    # the friend's wins over a are counted apart: the pair is two ordered pairs
    back = tally(games + [_won("friend", "a")], [])
    assert back["friend"].score == 2 and back["a"].streak == 0


def test_an_abort_by_a_player_ends_its_own_streak_only() -> None:
    """Issue 44: on a streak, aborting new pairings after seeing a bad hand kept the
    streak and its double points. The aborter's streak ends; the other keeps its own."""
    games = [_won("a", "b"), _won("a", "c"), _won("d", "e"), _won("d", "f"),
             Game(("a", "d"), True, None, aborted=True, ended_by=0)]
    lines = tally(games, [])
    assert (lines["a"].streak, lines["a"].on_fire) == (0, False)
    assert (lines["d"].streak, lines["d"].on_fire) == (2, True)
    after = tally(games + [_won("a", "g")], [])["a"]
    assert after.score == 2 + 2 + 2  # not doubled: the abort ended the streak


def test_withdrawing_ends_the_streak_and_a_match_then_in_play_counts_as_it_stood() -> None:
    """Issue 44: withdrawing and joining again kept the streak. It ends it; a match in play
    when the player withdrew still counts doubled (it was paired on the streak)."""
    def won(w: str, lo: str, at: float) -> Game:
        return Game((w, lo), True, 0, created_at=at)

    games = [won("a", "b", 1), won("a", "c", 2)]
    assert tally(games, [], {"a": [3.0]})["a"].on_fire is False  # withdrew after them
    rejoined = tally(games + [won("a", "d", 4)], [], {"a": [3.0]})["a"]
    assert rejoined.score == 2 + 2 + 2 and rejoined.streak == 1
    in_play = tally(games + [won("a", "d", 2.5)], [], {"a": [3.0]})["a"]
    assert in_play.score == 2 + 2 + 4 and in_play.streak == 0  # counted, then ended


def test_the_standings_order() -> None:
    lines = tally([_won("a", "b"), _won("c", "d"), _won("c", "a")], ["a", "b", "c", "d", "e"])
    order = ranked(lines.values(), {"a": 1500, "b": 1400, "d": 1600, "e": 1700},
                   {k: k.upper() for k in "abcde"})
    # c 4; a 2; then nobody scored: fewer matches first (e), then rating (d before b)
    assert [x.account_id for x in order] == ["c", "a", "e", "d", "b"]


def _free(name: str, score: int, rating: float = 1500, last: str | None = None,
          since: float = 0.0) -> Free:
    return Free(name, score, rating, last, since)


def test_pairs_are_near_in_score_then_rating() -> None:
    free = [_free("a", 8), _free("b", 0, 1500), _free("c", 6), _free("d", 0, 1900)]
    pairs = choose_pairs(free, False, 0.0)
    assert [(p.account_id, q.account_id) for p, q in pairs] == [("a", "c"), ("d", "b")]


def test_never_the_same_opponent_twice_in_a_row_while_another_is_free() -> None:
    free = [_free("a", 4, last="b"), _free("b", 4, last="a"), _free("c", 0, 2400)]
    pairs = choose_pairs(free, True, 0.0)
    assert [(p.account_id, q.account_id) for p, q in pairs] == [("a", "c")]


def test_two_who_just_met_wait_for_others_then_meet_again() -> None:
    free = [_free("a", 2, last="b", since=100.0), _free("b", 0, last="a", since=100.0)]
    assert choose_pairs(free, True, 101.0) == []  # others in play may be free soon
    assert len(choose_pairs(free, True, 100.0 + REMATCH_WAIT)) == 1  # waited long enough
    assert len(choose_pairs(free, False, 101.0)) == 1  # nobody else can come
