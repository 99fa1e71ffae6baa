"""The ``expert`` bot: registered (and the ``hard`` level), legal and reproducible, gin
without search (R6), a real evaluation otherwise, and playable over the bot protocol."""

from __future__ import annotations

import json
import subprocess
import sys

from ginrummy.bots import make_bot
from ginrummy.bots.expert import ExpertBot
from ginrummy.cards import Card, deck, parse_cards
from ginrummy.hand import DRAW_STOCK, PASS, Action, Deal, Hand
from ginrummy.match import Match
from ginrummy.protocol import PROTOCOL, decide_message


def test_registered_as_expert_and_hard() -> None:
    assert isinstance(make_bot("expert", 1), ExpertBot)
    assert isinstance(make_bot("hard", 1), ExpertBot)
    assert make_bot("expert").name == "expert"


def test_expert_max_is_expert_racing_further_within_a_second() -> None:
    """``expert-max`` (issue 40, item 3): the same search, up to 16,384 deals a candidate
    within about a second of CPU a decision, where ``expert`` stops at 1,024."""
    bot, plain = make_bot("expert-max", 1), make_bot("expert", 1)
    assert isinstance(bot, ExpertBot) and isinstance(plain, ExpertBot)
    assert (bot.samples, bot.evaluator.budget_ms) == (16384, 1000.0)
    assert plain.samples == 1024 and bot.samples > plain.samples
    assert bot.evaluator.sampler == plain.evaluator.sampler  # one belief (the coach's)


def _play(seed: int) -> list[Action]:
    bots = [ExpertBot(seed, samples=4), make_bot("strong", seed)]
    match = Match(seed=seed)
    actions = []
    while not match.is_over() and len(match.hands) <= 2:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        action = bots[seat].decide(view)
        assert action in view.legal
        actions.append(action)
        match.play(action, seat)
    return actions


def test_legal_and_deterministic_for_a_seed() -> None:
    assert _play(5) == _play(5)


def test_gin_is_knocked_without_search_r6() -> None:
    mine = "2C 3C 4C 7D 8D 9D KS KH KD 5S"
    other = "AD 2D 3D 4D 5D 6D TS JS QS 9C"
    used = set(parse_cards(mine + " " + other + " 6C KC"))
    stock = [Card.parse("KC")] + [c for c in deck() if c not in used]
    hand = Hand(Deal.build(other, mine, "6C", stock), dealer=0)
    for a in (PASS, PASS, DRAW_STOCK):
        hand.play(a)
    bot = ExpertBot(1, samples=8)
    assert bot.decide(hand.view(1)) == Action.discard("5S", knock=True)
    assert bot.last is None


def test_a_real_choice_is_evaluated() -> None:
    match = Match(seed=8)
    bot = ExpertBot(2, samples=6)
    for _ in range(40):
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        action = bot.decide(view)
        if bot.last is not None:
            assert action in [v.action for v in bot.last.values]
            assert bot.last.samples == 6
            return
        match.play(action, seat)
    raise AssertionError("no evaluated decision in 40 moves")


def test_ginrummy_bot_expert_over_the_protocol() -> None:
    match = Match(seed=11)
    seat = match.to_play
    assert seat is not None
    view = match.view(seat)
    lines = [{"type": "hello", "protocol": PROTOCOL}, decide_message(view), {"type": "bye"}]
    proc = subprocess.run(
        [sys.executable, "-m", "ginrummy.cli", "bot", "expert", "--seed", "2"],
        input="".join(json.dumps(x) + "\n" for x in lines), capture_output=True, text=True,
        timeout=60, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(x) for x in proc.stdout.splitlines()]
    assert answers[0] == {"type": "hello", "name": "expert"}
    assert answers[1]["action"] in [a.to_json() for a in view.legal]


def test_the_play_out_opponent_adapts_to_the_knocking_habit_shown() -> None:
    """Against `simple` (knocks as soon as it may) the share of quick-knocking opponents in
    the search's play-outs rises above the prior 0.75; against `strong` (late knocks only
    with gin) it falls below it; a new match starts from the prior again."""
    from ginrummy.arena import play_match

    bot = ExpertBot(1, samples=2)
    play_match(bot, make_bot("simple", 2), seed=5, first_dealer=0)
    assert bot.seen_quick >= 2 and bot.seen_patient == 0
    assert bot.evaluator.quick > 0.8
    bot.new_match(0)
    assert bot.evaluator.quick == 0.75 and bot.seen_quick == 0
    play_match(bot, make_bot("strong", 2), seed=5, first_dealer=0)
    assert bot.seen_quick == 0 and bot.seen_patient >= 2 and bot.evaluator.quick < 0.5
    fixed = ExpertBot(1, samples=2, adapt=0)
    play_match(fixed, make_bot("simple", 2), seed=5, first_dealer=0)
    assert fixed.evaluator.quick == 0.75


def _strong_hand(seed: int) -> Hand:
    """A hand of `strong` against `strong`, played to its end."""
    import random

    hand = Hand(Deal.shuffled(random.Random(seed)), dealer=0)
    bots = [make_bot("strong", seed), make_bot("strong", seed + 1)]
    while not hand.is_over():
        seat = hand.to_play
        assert seat is not None
        hand.play(bots[seat].decide(hand.view(seat)), seat)
    return hand


def test_a_late_gin_and_a_dead_hand_say_the_opponent_waits_r7() -> None:
    """A quick knocker seldom plays on long enough to go gin late or to let the hand die
    (R7), so each counts as a waiting hand; an early knock says nothing."""
    from ginrummy.actions import HandEnd

    late_gin, dead, early = _strong_hand(1), _strong_hand(35), _strong_hand(15)
    assert late_gin.result is not None and late_gin.result.result == HandEnd.GIN
    assert late_gin.result.knocker == 1
    assert dead.result is not None and dead.result.result == HandEnd.DEAD
    assert early.result is not None and early.result.knocker == 1
    bot = ExpertBot(1, samples=2)
    bot.hand_over(early.view(0), early.result)
    assert (bot.seen_quick, bot.seen_patient, bot.evaluator.quick) == (0, 0, 0.75)
    bot.hand_over(late_gin.view(0), late_gin.result)
    assert (bot.seen_quick, bot.seen_patient) == (0, 1)
    bot.hand_over(dead.view(0), dead.result)
    assert (bot.seen_quick, bot.seen_patient) == (0, 2)
    assert bot.evaluator.quick == 1.5 / 4


def test_the_search_weighs_knocks_where_strong_plays_on_r6() -> None:
    """Where a knock short of gin is legal and `strong` plays on, the search weighs the
    least-deadwood knock beside the plain discards (the calibrated belief values knocks
    without bias); with ``add_knocks=False`` only plain discards are weighed."""
    from ginrummy.knowledge import Knowledge
    from ginrummy.melds import deadwood_by_discard_mask

    match = Match(seed=3)
    strong = make_bot("strong", 3)
    bot = ExpertBot(3, samples=4)
    plain = ExpertBot(3, samples=4, add_knocks=False)
    for _ in range(400):
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        default = strong.decide(view)
        knocks = [a for a in view.legal if a.knock]
        if knocks and not default.knock:
            k = Knowledge.of(view)
            table = deadwood_by_discard_mask(k.mine)
            cands = bot._discard_candidates(view, k, default)
            weighed = [a for a in cands if a.knock]
            assert weighed and all(a in view.legal for a in weighed)
            least = min(table[a.card.index] for a in knocks if a.card is not None)
            assert any(a.card is not None and table[a.card.index] == least for a in weighed)
            assert not any(a.knock for a in plain._discard_candidates(view, k, default))
            return
        match.play(default, seat)
        if match.awaiting_deal():
            match.start_hand()
    raise AssertionError("no position where strong played on past a legal knock")
