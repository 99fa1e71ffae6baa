"""The coach never contradicts itself (issue 36): a hint is the review's own verdict, given
before the move, so a move made on the hint is never marked by the review of the same
record, and "either is fine" names two moves the review marks neither of."""

from __future__ import annotations

from ginrummy.bots import make_bot
from ginrummy.match import Match
from ginrummy.review import review_match
from ginrummy.review.grade import moments, styles_at
from ginrummy.review.hints import Hint, coach_hint, suggest

SAMPLES = 12
"""Few samples: noisy estimates, so a hint computed any other way than the review's
would soon disagree with it."""


def _play_on_hints(seed: int, hands: int) -> tuple[Match, dict[tuple[int, int], Hint]]:
    """Seat 0 plays every decision as the coach says (the best move, or the runner-up
    where either is fine), seat 1 is ``strong-fast``, for ``hands`` hands."""
    m = Match(seed=seed)
    bot = make_bot("strong-fast", seed)
    bot.new_match(1)
    hinted: dict[tuple[int, int], Hint] = {}
    while not m.is_over() and len(m.hands) <= hands:
        if m.awaiting_deal():
            if len(m.hands) == hands:
                break
            m.start_hand()
            continue
        seat = m.to_play
        assert seat is not None
        view = m.view(seat)
        if seat == 1:
            m.play(bot.decide(view), 1)
            continue
        if len(view.legal) < 2:
            m.play(view.legal[0], 0)
            continue
        hint = coach_hint(view, styles=styles_at(m, 0), samples=SAMPLES)
        hinted[(len(m.hands) - 1, len(m.hand.history))] = hint
        either = len(hinted) % 2 == 0 and hint.either and hint.second is not None
        m.play(hint.second.action if either and hint.second else hint.best.action, 0)
    return m, hinted


def test_no_hinted_move_is_ever_marked_by_the_review() -> None:
    match, hinted = _play_on_hints(seed=3, hands=2)
    done = [i for i, h in enumerate(match.hands) if h.result is not None]
    assert done, "no hand finished"
    review = review_match(match, seats=(0,), hands=done, samples=SAMPLES, seed=0)
    graded = {(g.moment.hand, g.moment.action): g for g in review.graded}
    asked = [k for k in hinted if k[0] in done]
    assert len(asked) >= 10 and set(asked) == set(graded)
    for key in asked:
        g, h = graded[key], hinted[key]
        assert g.mark is None, (key, g, h)
        # the review's verdict is the hint's: the same best move and the same estimates
        assert g.best.action == h.best.action and g.best.win == h.best.win
    either = [k for k in asked if hinted[k].either]
    assert either, "no 'either is fine' was played"
    assert any(graded[k].played.action != graded[k].best.action for k in either)


def test_either_is_fine_names_both_moves_and_a_plain_hint_the_runner_up() -> None:
    match, hinted = _play_on_hints(seed=3, hands=1)
    words = {h.words() for h in hinted.values()}
    assert any(w.startswith("either is fine: ") and " or " in w for w in words)
    assert any("; next best " in w for w in words)
    assert all("to win the match" in w for w in words)


def test_the_hint_is_the_reviews_moment() -> None:
    """The hint's view, decision place and opponent model are those the review grades."""
    match, hinted = _play_on_hints(seed=8, hands=2)
    for mo in moments(match, range(len(match.hands)), (0,)):
        if mo.hand == len(match.hands) - 1:
            continue
        assert (mo.hand, mo.action) in hinted
        assert mo.view.hand_index == mo.hand and len(mo.view.history) == mo.action


def test_suggest_writes_cards_as_it_is_told() -> None:
    m = Match(seed=4)
    while True:  # a discard: a card to write
        assert m.to_play is not None
        v = m.view(m.to_play)
        if v.phase.value == "discard":
            break
        m.play(v.legal[0])
    text = suggest(v, samples=4, card=lambda c: f"<{c}>")
    assert text.startswith(("discard <", "knock with <", "either is fine: ")) and "<" in text
