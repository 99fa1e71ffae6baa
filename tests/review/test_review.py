"""The game review (docs/review.md): JSON shape and invariants, marks, view-only grading
(R11), bad input as §3. Small fixed sample counts keep these fast and reproducible."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ginrummy import Deal, Match, Options, deck, parse_cards
from ginrummy.cards import Card
from ginrummy.cli import main
from ginrummy.hand import Action, Hand
from ginrummy.review import (
    BLUNDER,
    DEFAULT_SAMPLES,
    INACCURACY,
    MISTAKE,
    PLAYS_LIKE,
    RATINGS,
    mark_for,
    rating_for,
    review_match,
)
from ginrummy.review.grade import (
    CLEAR_Z,
    STAKES_FLOOR,
    Moment,
    evaluate_view,
    grade,
    moments,
    normalize,
    stakes,
)

DATA = Path(__file__).parent.parent / "data"
SAMPLES = 6
"""Evaluator samples per decision in these tests (small: plumbing and clear cases)."""


def _deal(hand0: str, hand1: str, upcard: str, stock_top: str = "") -> Deal:
    top = parse_cards(stock_top)
    used = {*parse_cards(hand0), *parse_cards(hand1), Card.parse(upcard), *top}
    return Deal.build(hand0, hand1, upcard, [*top, *(c for c in deck() if c not in used)])


def _record(deal: Deal, moves: list[str], dealer: int = 0,
            scores_target: int = 100) -> dict[str, Any]:
    m = Match(Options(target=scores_target), seed=1, first_dealer=dealer, deals=[deal])
    for move in moves:
        m.play(Action.parse(move), m.to_play)
    return m.to_record()


def _review(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> tuple[int, Any]:
    code = main(["review", str(path), "--json", "--samples", str(SAMPLES),
                 "--budget-ms", "1e6", *args])
    out, _ = capsys.readouterr()
    assert out.count("\n") == 1, out
    return code, json.loads(out)


def _check_shape(review: dict[str, Any], record: dict[str, Any]) -> None:
    """§7: keys, indexes into the record, losses never negative, best >= played; the
    normalized loss is the loss at the hand's stakes and the marks and the rating go by it;
    the cross-fitted figure is reported beside it."""
    assert review["unit"] == "match"
    assert len(review["seats"]) == 2
    counts = [0, 0]
    losses: list[list[float]] = [[], []]
    norms: list[list[float]] = [[], []]
    unbiased: list[list[float]] = [[], []]
    for h in review["hands"]:
        actions = record["hands"][h["index"]]["actions"]
        for d in h["decisions"]:
            assert set(d) >= {"action", "seat", "played", "best", "equity", "loss", "mark"}
            rec = actions[d["action"]]
            assert rec["seat"] == d["seat"]
            assert d["played"]["act"] == rec["act"]
            assert Action.from_json(d["played"]) == Action.from_json(rec)
            eq = d["equity"]
            assert 0.0 <= eq["played"] <= eq["best"] <= 1.0
            assert d["loss"] >= 0.0
            assert d["loss"] == pytest.approx(eq["best"] - eq["played"], abs=1.5e-4)
            assert d["stakes"] > 0
            assert d["loss_normalized"] == normalize(d["loss"], d["stakes"])
            # a mark needs the loss over its threshold and clearly real (CLEAR_Z errors)
            clear = d["loss"] >= CLEAR_Z * d["loss_se"]
            assert d["mark"] == (mark_for(d["loss_normalized"]) if clear else None)
            assert d["loss_se"] >= 0 and isinstance(d["capped"], bool)
            alts = d["alternatives"]
            assert len(alts) <= 2 and all(a["action"] != d["played"] for a in alts)
            assert all(a["margin"] == pytest.approx(a["equity"] - eq["played"], abs=2e-4)
                       for a in alts)
            # cross-fitted (its bound is a property test of the evaluator): a normalized
            # difference of win chances, below 0 when the played action measured better
            assert -1 / STAKES_FLOOR <= d["loss_unbiased"] <= 1 / STAKES_FLOOR
            if d["played"] == d["best"]:
                assert d["loss"] == 0.0 and d["loss_normalized"] == 0.0 and d["mark"] is None
            counts[d["seat"]] += 1
            losses[d["seat"]].append(d["loss"])
            norms[d["seat"]].append(d["loss_normalized"])
            unbiased[d["seat"]].append(d["loss_unbiased"])
    for s, seat in enumerate(review["seats"]):
        assert seat["decisions"] == counts[s]
        if counts[s]:
            assert seat["error_rate"] == pytest.approx(sum(losses[s]) / counts[s], abs=1e-5)
            rate = sum(norms[s]) / counts[s]
            assert seat["error_rate_normalized"] == pytest.approx(rate, abs=1e-5)
            rate = sum(unbiased[s]) / counts[s]
            assert seat["error_rate_unbiased"] == pytest.approx(rate, abs=1e-5)
            assert seat["rating"] == rating_for(seat["error_rate_normalized"])
            assert seat["plays_like"] == PLAYS_LIKE[seat["rating"]]
        marks = [d["mark"] for h in review["hands"] for d in h["decisions"]
                 if d["seat"] == s]
        assert (seat["inaccuracies"], seat["mistakes"], seat["blunders"]) == (
            marks.count("inaccuracy"), marks.count("mistake"), marks.count("blunder"))


def test_thresholds_are_ordered() -> None:
    assert 0 < INACCURACY < MISTAKE < BLUNDER < 1
    bounds = [b for b, _ in RATINGS]
    assert bounds == sorted(bounds) and bounds[-1] == float("inf")
    assert set(PLAYS_LIKE) == {w for _, w in RATINGS}
    # the bots from strongest to weakest fill the bands in order (docs/review.md)
    bots = [PLAYS_LIKE[w] for _, w in RATINGS]
    assert bots == ["expert", "strong or marjj", "simple", "easy", "random"]


def test_no_rating_claims_more_than_the_strongest_bot() -> None:
    """Issue 36: the review called the Hard computer "World class (more accurate than any
    computer player)". It grades with `expert`'s own evaluator, so it cannot tell a player
    more accurate than `expert` from `expert`: the best rating is `expert`'s band, and
    every rating names the bot that plays alike."""
    assert rating_for(0.0) == "Expert" and PLAYS_LIKE["Expert"] == "expert"
    assert all(PLAYS_LIKE[w] for _, w in RATINGS)


def _calibrated_rates() -> dict[str, float]:
    """Each bot's pooled normalized error rate in docs/review_calibration*.json, the
    independent runs the bounds were chosen from."""
    rows: dict[str, list[float]] = {}
    for name in ("review_calibration.json", "review_calibration_2031.json"):
        data = json.loads((Path(__file__).parents[2] / "docs" / name).read_text())
        for bot, d in data["bots"].items():
            rows.setdefault(bot, []).extend(r[2] for r in d["rows"])  # normalized loss
    return {bot: sum(xs) / len(xs) for bot, xs in rows.items()}


def test_rating_bounds_lie_between_the_calibrated_bots() -> None:
    # each band's bots review inside it, so the bounds and the data cannot drift apart
    rates = _calibrated_rates()
    assert set(rates) == {"random", "easy", "simple", "marjj", "strong", "expert"}
    for bot, rate in rates.items():
        like = PLAYS_LIKE[rating_for(rate)]
        assert bot in like.split(" or "), (bot, rate, rating_for(rate))


def test_calibrated_error_rates_order_the_bots_by_strength() -> None:
    # issue 8: the error rates order the bots as their match results do (docs/results.md)
    rates = _calibrated_rates()
    weakest_first = ["random", "easy", "simple", "marjj", "strong", "expert"]
    assert sorted(rates, key=lambda b: -rates[b]) == weakest_first, rates


def test_review_json_shape_indexes_and_invariants(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = json.loads((DATA / "short_match.json").read_text())
    code, review = _review(capsys, DATA / "short_match.json", "--hands", "0,2,3")
    assert code == 0
    assert [h["index"] for h in review["hands"]] == [0, 2, 3]
    _check_shape(review, record)
    # every moment with >= 2 legal actions is a decision, and nothing else
    match = Match.from_record(record)
    expected = [(m.hand, m.action) for m in moments(match, (0, 2, 3), (0, 1))]
    got = [(h["index"], d["action"]) for h in review["hands"] for d in h["decisions"]]
    assert got == expected and got
    # one seat only
    code, one = _review(capsys, DATA / "short_match.json", "--hands", "0", "--seat", "1")
    assert code == 0 and one["seats"][0]["decisions"] == 0
    assert all(d["seat"] == 1 for h in one["hands"] for d in h["decisions"])


def test_review_identical_for_any_jobs() -> None:
    match = Match.from_record((DATA / "short_match.json").read_text())
    one = review_match(match, hands=[0, 2], samples=SAMPLES, budget_ms=None, jobs=1).to_json()
    two = review_match(match, hands=[0, 2], samples=SAMPLES, budget_ms=None, jobs=2).to_json()
    assert one == two


GIN_SEAT1 = "AS 2S 3S 4S 5S 6S 7S 8S 9S KH"
JUNK_SEAT0 = "AH 3H 5H 7H 9H JH KC 2D 4D 6D"


def test_missed_gin_is_a_blunder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Seat 1 draws TS and could discard KH for gin (R6: 25 + 57 points, R9); it throws the
    # ten of spades back instead and plays on.
    deal = _deal(JUNK_SEAT0, GIN_SEAT1, "QD", "TS")
    record = _record(deal, ["pass", "pass", "draw stock", "discard TS"])
    path = tmp_path / "missed_gin.json"
    path.write_text(json.dumps(record))
    code, review = _review(capsys, path, "--seat", "1")
    assert code == 0
    _check_shape(review, record)
    last = review["hands"][0]["decisions"][-1]
    assert last["action"] == 3
    assert last["best"] == {"act": "discard", "card": "KH", "knock": True}
    assert last["mark"] == "blunder" and last["loss"] >= BLUNDER
    assert "gin" in (last["why"] or "")
    # the text review says so too
    assert main(["review", str(path), "--samples", str(SAMPLES), "--seat", "1"]) == 0
    text = capsys.readouterr().out
    assert "??" in text and "gin was there" in text


def _missed_gin(scores: tuple[int, int], target: int) -> tuple[float, Any]:
    """Seat 1 draws TS for gin at ``scores`` in a match to ``target`` and throws it back:
    the hand's relative stakes and the graded decision."""
    junk = "AH AC 2H 2D 3C 3D 4H 5C 6D 7H"  # 34 deadwood: the gin is worth 25 + 34
    hand = Hand(_deal(junk, GIN_SEAT1, "QD", "TS"), 0, Options(target=target), 0, scores)
    for move in ("pass", "pass", "draw stock"):
        hand.play(Action.parse(move), hand.to_play)
    view, played = hand.view(1), Action.parse("discard TS")
    ev = evaluate_view(view, played, budget_ms=None, samples=24, seed=3)
    return stakes(view), grade(Moment(0, 3, 1, view, played), ev)


def test_the_screens_choice_is_measured_without_the_winners_curse() -> None:
    # The second evaluation carries the action the first one ranked best. Grading
    # compares the played action with it (not with the best of the second evaluation's
    # noisy estimates), and that figure may be negative when the played action measured
    # better; the shown loss never is.
    from ginrummy.evaluator import ActionValue, Evaluation

    m = Match(seed=5)
    view = m.view(m.to_play)
    take, other = view.legal[0], view.legal[1]
    ev = evaluate_view(view, other, budget_ms=None, samples=SAMPLES, seed=2)
    assert ev.preferred in view.legal

    def graded(played: Action, wins: dict[Action, float], preferred: Action | None) -> Any:
        values = tuple(ActionValue(a, wins[a], 0.01, 0.0, 1.0) for a in view.legal)
        return grade(Moment(0, 0, view.seat, view, played),
                     Evaluation(values, 10, preferred=preferred))

    wins = {take: 0.50, other: 0.56}
    worse = graded(take, wins, preferred=other)  # the screen's choice measured better
    assert worse.loss == pytest.approx(0.06) and worse.unbiased == pytest.approx(0.06)
    lucky = graded(other, wins, preferred=take)  # played measured better than the choice
    assert lucky.loss == 0.0 and lucky.unbiased == pytest.approx(-0.06)
    same = graded(take, {take: 0.50, other: 0.56}, preferred=take)
    assert same.unbiased == 0.0 and same.loss == pytest.approx(0.06)
    # without a screen's choice the figure is the loss itself
    assert graded(take, wins, preferred=None).unbiased == pytest.approx(0.06)


def test_with_sample_rows_the_rating_figure_is_cross_fitted() -> None:
    # With the measure's per-sample outcomes the figure no longer leans on the screen's
    # choice: the best is chosen on half the samples and the loss measured on the other
    # half, both ways (Evaluation.cross_fitted_loss).
    from ginrummy.evaluator import ActionValue, Evaluation

    m = Match(seed=5)
    view = m.view(m.to_play)
    take, other = view.legal[0], view.legal[1]
    rows = {take: (0.5, 0.4, 0.5, 0.4), other: (0.6, 0.5, 0.6, 0.5)}
    values = tuple(ActionValue(a, sum(rows[a]) / 4, 0.01, 0.0, 1.0) for a in view.legal)
    ev = Evaluation(values, 4, tuple(rows[a] for a in view.legal), preferred=take)
    worse = grade(Moment(0, 0, view.seat, view, take), ev)
    assert worse.loss == pytest.approx(0.1) and worse.unbiased == pytest.approx(0.1)
    assert grade(Moment(0, 0, view.seat, view, other), ev).unbiased == 0.0


def test_stakes_are_relative_to_a_first_hand() -> None:
    # 1.0 at 0-0; higher when the next hands decide a close match; lower when the match
    # is all but lost or won, whichever seat asks (R10, the match-equity table)
    m = Match(Options(target=250), seed=2)
    assert stakes(m.view(0)) == pytest.approx(1.0) == stakes(m.view(1))
    assert _hand_stakes((200, 200)) > 2.0
    assert _hand_stakes((0, 200)) < 0.2 and _hand_stakes((200, 0)) < 0.2
    assert normalize(0.01, 0.001) == 0.1  # the floor: at most ten times the raw loss


def _hand_stakes(scores: tuple[int, int]) -> float:
    deal = _deal(JUNK_SEAT0, GIN_SEAT1, "QD")
    return stakes(Hand(deal, 0, Options(target=250), 0, scores).view(1))


def test_a_blunder_in_a_lost_cause_is_still_a_blunder() -> None:
    # At 0-0 throwing away gin is a blunder by the raw loss alone.
    weight, even = _missed_gin((0, 0), 250)
    assert weight == pytest.approx(1.0)
    assert even.loss >= BLUNDER and even.normalized == even.loss and even.mark == "blunder"
    # At 200-0 against the decider (match to 250) the match is nearly lost whatever it
    # does: the same gin moves its win chance by only a few points, which raw would call
    # an inaccuracy at most. Scaled to the hand's stakes it is a blunder again.
    weight, lost = _missed_gin((200, 0), 250)
    assert weight < 0.2 and lost.stakes == pytest.approx(weight, abs=1e-4)
    assert lost.best.action == Action.parse("discard KH knock")
    assert lost.loss < MISTAKE
    assert lost.normalized == normalize(lost.loss, lost.stakes) >= BLUNDER
    assert lost.mark == "blunder"


def test_expert_play_earns_far_fewer_marks_than_random_play() -> None:
    # Hands of `ginrummy match expert expert` and `ginrummy match random random`
    # (--seed 8 --records DIR, match 1), cut to 44 actions each.
    def tally(name: str) -> tuple[int, int, float, float, float]:
        match = Match.from_record((DATA / f"{name}_hands.json").read_text())
        # the review's default samples: with fewer, a single noisy estimate in these 44
        # decisions can make or unmake a mark
        review = review_match(match, samples=DEFAULT_SAMPLES, budget_ms=None)
        seats = [review.seat_summary(s) for s in (0, 1)]
        n = sum(d["decisions"] for d in seats)
        marks = sum(d["inaccuracies"] + d["mistakes"] + d["blunders"] for d in seats)
        serious = sum(d["mistakes"] + d["blunders"] for d in seats)
        rate = sum(d["error_rate_normalized"] * d["decisions"] for d in seats) / n
        raw = sum(d["error_rate"] * d["decisions"] for d in seats) / n
        unbiased = sum(d["error_rate_unbiased"] * d["decisions"] for d in seats) / n
        return marks, serious, rate, raw, unbiased

    expert, random_ = tally("expert"), tally("random")
    assert random_[0] >= 2 * max(expert[0], 1), (expert, random_)  # marks of any kind
    assert random_[1] >= expert[1], (expert, random_)  # mistakes and blunders
    assert random_[2] > 2 * expert[2], (expert, random_)  # normalized error rate
    assert random_[3] > 2 * expert[3], (expert, random_)  # raw error rate
    assert random_[4] > expert[4] + 0.004, (expert, random_)  # the rating's rate


def test_grading_reads_the_view_only() -> None:
    # Seat 0's view is the same in both deals: its hand, the up-card, and the stock cards
    # it draws. Seat 1's hand and the rest of the stock differ; seat 1 throws back the
    # card it draws. Grading seat 0 must not notice (R11).
    mine = "2C 3C 4C 9D TD KH QS 5S 6H 8H"
    top = "7C AD 9S"  # seat 0 draws 7C and 9S, seat 1 draws AD
    hidden_a = "2H 3H 4H JD JC JS 7S 8S 3D 4D"
    hidden_b = "KC QC QD 5D 6D 7D AH KD TS 2S"
    moves = ["pass", "pass", "draw stock", "discard KH", "draw stock", "discard AD",
             "draw stock", "discard 9S"]
    reviews = []
    for hidden in (hidden_a, hidden_b):
        deal = _deal(mine, hidden, "TC", top)
        record = _record(deal, moves, dealer=1)
        match = Match.from_record(record)
        reviews.append(review_match(match, seats=[0], samples=SAMPLES, budget_ms=None,
                                    seed=5).to_json())
    assert reviews[0]["hands"][0]["decisions"], "seat 0 had decisions to grade"
    assert reviews[0] == reviews[1]


# ----------------------------------------------------------------------------- bad input


def test_illegal_action_exits_1_with_the_error_object(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, review = _review(capsys, DATA / "straight_back.json")
    replay_code = main(["replay", str(DATA / "straight_back.json"), "--json"])
    replayed = json.loads(capsys.readouterr().out)
    assert code == replay_code == 1
    assert review["error"] == replayed["error"]
    assert review["error"]["message"] == "You cannot put that straight back."
    _check_shape(review, json.loads((DATA / "straight_back.json").read_text()))


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('{"format": "other/1", "hands": []}', "Not a ginrummy/1 record"),
    ("[]", "must be a JSON object"),
])
def test_malformed_record_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, review = _review(capsys, path)
    assert code == 1
    assert message in review["error"]["message"]
    assert review["hands"] == [] and review["unit"] == "match"


@pytest.mark.parametrize("args, message", [
    (["--seat", "2"], "--seat must be 0 or 1"),
    (["--hands", "7"], "the record has 4 hands"),
    (["--hands", "a,b"], "--hands takes hand indexes"),
    (["--budget-ms", "0"], "--budget-ms must be a positive number"),
    (["--jobs", "-1"], "--jobs must be a positive number"),
])
def test_bad_options_exit_1(capsys: pytest.CaptureFixture[str], args: list[str],
                            message: str) -> None:
    code = main(["review", str(DATA / "short_match.json"), "--json", *args])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and message in out["error"]["message"]
    assert out["error"]["hand"] is None and out["error"]["action"] is None


def test_missing_file_exits_1_with_a_message(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(tmp_path / "nope.json")]) == 1
    err = capsys.readouterr().err
    assert "Cannot read" in err and "Traceback" not in err


def test_a_record_without_decisions_is_an_empty_review(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _record(_deal(JUNK_SEAT0, GIN_SEAT1, "QD"), [])
    path = tmp_path / "fresh.json"
    path.write_text(json.dumps(record))
    code, review = _review(capsys, path)
    assert code == 0
    assert review["hands"] == [{"index": 0, "decisions": []}]
    assert [s["decisions"] for s in review["seats"]] == [0, 0]
    assert all(s["error_rate"] == 0.0 and s["rating"] is None for s in review["seats"])


def test_luck_of_a_lucky_draw_and_the_luck_adjusted_result() -> None:
    # Seat 1 draws the TS that completes gin and knocks at once (R6, R9).
    record = _record(_deal(JUNK_SEAT0, GIN_SEAT1, "QD", "TS"),
                     ["pass", "pass", "draw stock", "discard KH knock"])
    review = review_match(Match.from_record(record), samples=SAMPLES, budget_ms=None)
    seats = review.to_json()["seats"]
    # the gin card was luck: seat 1's luck is large, seat 0's its negative
    assert seats[1]["luck"] > 0.2 and seats[0]["luck"] == -seats[1]["luck"]
    for s in (0, 1):
        d = seats[s]
        # result = expected at the start + skill + luck, exactly (in 1e-4 units)
        assert round(10_000 * d["result"]) == round(10_000 * (d["expected"] + d["skill"]
                                                               + d["luck"]))
        assert d["luck_adjusted"] == pytest.approx(d["expected"] + d["skill"], abs=1e-9)
    assert seats[0]["skill"] == -seats[1]["skill"]
    assert seats[0]["luck_adjusted"] + seats[1]["luck_adjusted"] == pytest.approx(1.0)
    # the match goes on: the result is the table's chance at 0-82 (R10)
    assert seats[1]["result"] > 0.8
    # reviewing one seat: its own errors, luck with the opponent's errors, no adjustment
    one = review_match(Match.from_record(record), seats=[1], samples=SAMPLES, budget_ms=None)
    s1 = one.to_json()["seats"][1]
    assert s1["luck_adjusted"] is None and s1["skill"] == -s1["errors"]
    assert one.to_json()["seats"][0]["luck"] is None


def test_skill_and_luck_add_up_for_both_seats_of_a_whole_match() -> None:
    """In a finished match reviewed whole, for each seat: result = expected + skill +
    luck; the seats' skills and lucks are each other's negatives (zero-sum), so the
    luck-adjusted results add up to 1 (docs/review.md)."""
    match = Match.from_record((DATA / "short_match.json").read_text())
    seats = review_match(match, samples=SAMPLES, budget_ms=None).to_json()["seats"]
    for d in seats:
        assert round(10_000 * d["result"]) == round(
            10_000 * (d["expected"] + d["skill"] + d["luck"]))
    assert seats[0]["expected"] + seats[1]["expected"] == pytest.approx(1.0)
    assert seats[0]["result"] + seats[1]["result"] == pytest.approx(1.0)
    assert seats[0]["luck"] == pytest.approx(-seats[1]["luck"], abs=2e-4)
    assert seats[0]["skill"] == pytest.approx(-seats[1]["skill"], abs=2e-4)


def test_a_loss_within_its_noise_is_not_marked() -> None:
    """A big loss measured on samples that disagree wildly is not clearly real: no mark,
    while the same loss on steady samples is (CLEAR_Z standard errors)."""
    from ginrummy.evaluator import ActionValue, Evaluation
    from ginrummy.hand import DRAW_DISCARD, PASS

    view = Match(seed=4).view(Match(seed=4).to_play or 0)
    assert set(view.legal) == {PASS, DRAW_DISCARD}
    m = Moment(0, 0, view.seat, view, PASS)
    for rows, marked in ((((0.60,) * 8, (0.40,) * 8), True),
                         (((0.9, 0.3) * 4, (0.1, 0.7) * 4), False)):
        values = (ActionValue(PASS, 0.4, 0.01, 0, 0), ActionValue(DRAW_DISCARD, 0.6, 0.01, 0, 0))
        ev = Evaluation(values, 8, (rows[1], rows[0]))
        g = grade(m, ev)
        assert g.loss == pytest.approx(0.2)
        assert (g.mark is not None) is marked, (g.loss, g.loss_se)


def test_grades_depend_on_the_record_alone_even_with_both_cores_busy() -> None:
    """By default a review decides by sample counts, never by the clock: the same record
    gives the identical JSON on a quiet machine and while two busy processes hold both
    cores (issue: a busy machine used to change a third of the grades)."""
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "ginrummy.cli", "review", str(DATA / "short_match.json"),
           "--json", "--samples", "12", "--jobs", "2", "--hands", "0,1"]
    quiet = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True).stdout
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        busy = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                              check=True).stdout
    finally:
        for p in burners:
            p.kill()
            p.wait()
    assert json.loads(quiet) == json.loads(busy)
    assert not any(d["capped"] for h in json.loads(busy)["hands"] for d in h["decisions"])


def test_the_opponents_habit_is_read_from_the_earlier_hands() -> None:
    """Against a player that knocks as soon as it may (simple), the review learns it
    from the hands before (R11: the knocks it showed) and samples the opponent as a
    quick knocker later in the record; the first hand starts from the review's prior."""
    from ginrummy.arena import play_match
    from ginrummy.bots import make_bot
    from ginrummy.review.grade import REVIEW_PRIOR

    _, match = play_match(make_bot("strong", 3), make_bot("simple", 4), seed=21,
                          first_dealer=0)
    ms = moments(match, range(len(match.hands)), (0,))
    first = [m for m in ms if m.hand == 0]
    late = [m for m in ms if m.hand >= 4]
    assert first and late
    assert first[0].styles == REVIEW_PRIOR[:2]
    assert late[0].styles[0] > 0.8
