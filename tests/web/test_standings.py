"""An arena's scoring and pairing rules (ginrummy.web.online.standings), as pure
functions: lichess's streaks, ties, aborts, the order of the standings, and pairing by
score and rating without meeting the same opponent twice in a row while another is free."""

from __future__ import annotations

from ginrummy.web.online.standings import (
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
    games = [_won("a", "b"), _won("a", "c"), _won("a", "b"), _won("a", "c"),
             _won("b", "a"), _won("a", "b"), _won("a", "c"), _won("a", "b")]
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
    aborted = Game(("a", "b"), True, None, aborted=True)
    playing = Game(("a", "b"), False, None)
    lines = tally([_won("a", "b"), _won("a", "b"), aborted, playing, _won("a", "b")],
                  ["a", "b"])
    assert lines["a"].results == list("WWW") and lines["a"].score == 8  # still on a streak
    assert lines["a"].matches == 3 and lines["b"].matches == 3


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
