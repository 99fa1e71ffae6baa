"""The kernel's play-outs are the core's rules (R4-R9): the kernel's policy driven card by
card through the core's :class:`Hand` (its discard table from the core's solver) ends
every hand as the kernel's play-out does, from the deal and from positions part-way
through, in either build."""

from __future__ import annotations

import random

import pytest

from ginrummy import kernel
from ginrummy.cards import Card
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Deal, Hand, Phase
from ginrummy.kernel import playout, solver
from ginrummy.kernel.builds import PYTHON, Build
from ginrummy.kernel.jit import ints
from ginrummy.kernel.spec import (
    DEAD,
    DISCARD,
    DISTILLED,
    DRAW,
    KNOCK_AT,
    MAX_DISCARDS,
    NPILE,
    NSTOCK,
    OFFER_DEALER,
    OFFER_NON_DEALER,
    QUICK,
    outcome,
)
from ginrummy.kernel.splitmix import Random
from ginrummy.knowledge import in_some_meld
from ginrummy.melds import deadwood_by_discard_mask
from ginrummy.options import Options


def builds() -> list[Build]:
    """The Python build, and the compiled one where numba loads."""
    try:
        return [PYTHON, kernel.backend(kernel.COMPILED)]
    except ValueError:
        return [PYTHON]


BUILDS = builds()


def core_table(mask: int) -> list[int]:
    """The core's deadwood by discard of ``mask`` (R2), as the kernel's 52-cell array."""
    tab = [0] * 52
    for k, v in deadwood_by_discard_mask(mask).items():
        tab[k] = v
    return tab


def drive(hand: Hand, styles: int = 0, turns: tuple[int, int] = (0, 0),
          taken: int = -1) -> int:
    """Play ``hand`` out through the core with the kernel's policy, card by card, each
    seat in its style (``styles``: ``style0 | style1 << 2``; a quick seat takes any
    up-card that melds and discards for the least deadwood; each knocks by its
    schedule); the outcome code."""
    done = list(turns)
    took = [0, 0]  # the pile's cards each seat took in the play-out and holds
    while not hand.is_over():
        seat = hand.to_play
        assert seat is not None
        style = styles >> (2 * seat) & 3
        q = style == QUICK
        mask = hand.mask_of(seat)
        top = hand.top_discard
        if hand.phase is Phase.DISCARD:
            dead = sum(c.mask for c in hand.discards)
            table = core_table(mask)
            if q:
                card, dw = playout.least_discard(mask, table, taken)
            elif style == DISTILLED:
                card, dw = playout.distilled_discard(mask, table, taken, dead, took[1 - seat])
            else:
                card, dw = playout.choose_discard(mask, table, taken, dead)
            schedule = KNOCK_AT[style][min(done[seat], len(KNOCK_AT[style]) - 1)]
            knock = dw <= hand.knock_limit and dw <= schedule
            done[seat] += 1
            took[seat] &= ~(1 << card)
            hand.play(Action.discard(Card.from_index(card), knock))
        elif top is not None and playout.wants_top(mask, top.index, q, ints(52), None):
            taken = top.index
            took[seat] |= 1 << taken
            hand.play(DRAW_DISCARD)
        else:
            taken = -1
            hand.play(PASS if hand.phase is Phase.OFFER else DRAW_STOCK)
    result = hand.result
    assert result is not None
    return outcome(-1 if result.scorer is None else result.scorer, result.points)


def kernel_state(hand: Hand, styles: int, turns: tuple[int, int],
                 taken: int) -> tuple[list[int], list[int], list[int]]:
    """The kernel's state, stock and pile for a hand in play."""
    if hand.phase is Phase.OFFER:
        phase = OFFER_DEALER if hand.to_play == hand.dealer else OFFER_NON_DEALER
    else:
        phase = DISCARD if hand.phase is Phase.DISCARD else DRAW
    assert hand.to_play is not None
    st = playout.new_state(hand.mask_of(0), hand.mask_of(1), hand.to_play, phase,
                       taken if phase == DISCARD else -1, turns[0], turns[1],
                       hand.knock_limit, hand.dealer, styles)
    return st, [c.index for c in reversed(hand.stock)], [c.index for c in hand.discards]


def random_position(seed: int) -> tuple[Hand, tuple[int, int], int]:
    """A hand after a random number of random legal moves (never ended), the discards
    each seat has made and the pile card just taken (or -1)."""
    rng = random.Random(seed)
    table = rng.choice([Options(), Options(), Options(gin_only=True), Options(oklahoma=True)])
    hand = Hand(Deal.shuffled(rng), seed % 2, table)
    turns = [0, 0]
    taken = -1
    for _ in range(rng.randrange(0, 40)):
        legal = [a for a in hand.legal_actions() if not a.knock]
        if not legal:
            break
        a = rng.choice(legal)
        probe = hand.copy()
        probe.play(a)
        if probe.is_over():
            break
        seat = hand.to_play
        assert seat is not None
        hand.play(a)
        if a.act == "discard":
            turns[seat] += 1
            taken = -1
        elif a.act == "draw":
            taken = -1 if a.source == "stock" else _last_taken(hand)
    return hand, (turns[0], turns[1]), taken


def _last_taken(hand: Hand) -> int:
    op = hand.history[-1]
    assert op.card is not None
    return op.card.index


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
@pytest.mark.parametrize("seed", range(40))
def test_r4_r9_a_play_out_from_the_deal_matches_the_state_machine(seed: int,
                                                                   build: Build) -> None:
    _check_deal(build, seed, styles=0)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
@pytest.mark.parametrize("seed", range(18))
def test_r4_r9_quick_and_club_knockers_play_out_as_the_state_machine_says(
        seed: int, build: Build) -> None:
    styles = (1 + seed % 8) % 3 | (1 + seed % 8) // 3 << 2  # every pair but both patient
    _check_deal(build, seed, styles=styles)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
@pytest.mark.parametrize("seed", range(24))
def test_r4_r9_a_distilled_seat_plays_out_as_the_state_machine_says(seed: int,
                                                                    build: Build) -> None:
    """Issue 48: a seat discarding by the weights fitted to expert (keeping away from the
    cards the opponent took from the pile) against each other style, from the deal."""
    other = seed % 4
    styles = DISTILLED | other << 2 if seed % 2 else other | DISTILLED << 2
    _check_deal(build, seed, styles=styles)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
@pytest.mark.parametrize("seed", range(60))
def test_r4_r9_a_play_out_from_any_position_matches_the_state_machine(seed: int,
                                                                       build: Build) -> None:
    """From positions part-way through a hand (every phase, gin-only and Oklahoma-like
    knock limits): the kernel's play-out ends as the core's Hand does."""
    hand, turns, taken = random_position(seed)
    styles = seed % 3 | (seed // 3) % 3 << 2
    st, stock, pile = kernel_state(hand, styles, turns, taken)
    assert build.finish(st, stock, pile, -1) == drive(hand, styles, turns, taken)


def test_r4_r9_every_action_then_the_play_out_matches_the_state_machine() -> None:
    """The deciding seat's action applied first, as the evaluator does, on 300 positions:
    each build's outcome is the core Hand's after that action and the same play-out."""
    for seed in range(300):
        hand, turns, taken = random_position(20_000 + seed)
        styles = seed % 3 | (seed // 3) % 3 << 2
        st, stock, pile = kernel_state(hand, styles, turns, taken)
        for a in hand.legal_actions():
            after = hand.copy()
            seat = after.to_play
            assert seat is not None
            after.play(a)
            done = list(turns)
            done[seat] += a.act == "discard"
            pile_card = _last_taken(after) if a.act == "draw" and a.source == "discard" \
                else -1
            want = _result(after) if after.is_over() \
                else drive(after, styles, (done[0], done[1]), pile_card)
            for build in BUILDS:
                assert build.finish(st, stock, pile, kernel.action_code(a)) == want, \
                    (seed, a, build.name)


def _result(hand: Hand) -> int:
    result = hand.result
    assert result is not None
    return outcome(-1 if result.scorer is None else result.scorer, result.points)


def _check_deal(build: Build, seed: int, styles: int) -> None:
    rng = random.Random(seed)
    deal = Deal.shuffled(rng)
    dealer = seed % 2
    hand = Hand(deal, dealer)
    st, stock, pile = kernel_state(hand, styles, (0, 0), -1)
    assert build.finish(st, stock, pile, -1) == drive(Hand(deal, dealer), styles)


def test_r5_a_quick_knockers_discard_leaves_the_least_deadwood() -> None:
    """A quick seat throws the card leaving the least deadwood, never the card it just took
    from the pile (R5), ties to the higher card."""
    rng = random.Random(11)
    for _ in range(200):
        h = sum(1 << i for i in rng.sample(range(52), 11))
        table = deadwood_by_discard_mask(h)
        taken = rng.choice([-1, *table])
        card, dw = playout.least_discard(h, core_table(h), taken)
        assert card != taken and dw == table[card]
        assert dw == min(v for k, v in table.items() if k != taken)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_r5_a_network_discard_is_the_linear_rule_when_it_is_one_linear_unit(
        build: Build) -> None:
    """Issue 48: a discard network (the kernel's ``DISTILLED_NET`` layout) of one unit that
    is always on, weighing the deadwood past the margin without end, picks what the linear
    rule with the same weights picks; and any network throws a card of the hand, never
    the card just taken (R5), reporting the deadwood it leaves."""
    rng = random.Random(48)
    for _ in range(300):
        h = sum(1 << i for i in rng.sample(range(52), 11))
        took = sum(1 << i for i in rng.sample(range(52), 3)) & ~h
        dead = sum(1 << i for i in rng.sample(range(52), 8)) & ~h & ~took
        table = core_table(h)
        taken = rng.choice([-1, *(k for k in range(52) if h >> k & 1)])
        w = [100, *(rng.randrange(-200, 200) for _ in range(5))]
        one = [*w[:4], 10**6, *w[4:], 10**9, 1]  # (a row: seven weights, bias, output)
        want = playout.weighted_discard(h, table, taken, dead, took, w)
        assert build.k.net_discard(h, build.ints(table), taken, dead, took,
                                   build.ints(one), 1) == want
        net = [rng.randrange(-2000, 2000) for _ in range(3 * 9)]
        card, dw = build.k.net_discard(h, build.ints(table), taken, dead, took,
                                       build.ints(net), 3)
        assert h >> card & 1 and card != taken and dw == table[card]


def test_r2_completers_are_exactly_the_meld_completing_cards() -> None:
    rng = random.Random(3)
    for _ in range(200):
        h = sum(1 << i for i in rng.sample(range(52), 10))
        want = sum(1 << c for c in range(52) if not h >> c & 1 and in_some_meld(h | 1 << c, c))
        assert solver.completers(h) == want


def test_r7_a_play_out_that_cycles_ends_as_a_dead_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """R5-R7 set no limit on a hand: when both seats always take the discard the stock never
    shrinks. A play-out then stops after MAX_DISCARDS discards with no result."""
    import signal

    monkeypatch.setattr(playout, "wants_top", lambda h, top, quick, tab, memo: True)

    def too_long(*_: object) -> None:
        raise AssertionError("the play-out did not end")

    deck = list(range(52))
    random.Random(7).shuffle(deck)
    # knock limit -1: nobody ever knocks, not even with gin
    st = playout.new_state(sum(1 << c for c in deck[:10]), sum(1 << c for c in deck[10:20]),
                           0, DRAW, -1, 0, 0, -1, 1, 0)
    st[NSTOCK], st[NPILE] = 31, 1
    stock, pile = deck[21:] + [0] * 21, [deck[20]] + [0] * 51
    old = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(20)
    try:
        result = playout.play_out(st, stock, pile, -1, ints(52), None)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert result == DEAD
    assert st[5] + st[6] == MAX_DISCARDS
    assert st[NSTOCK] == 31  # every draw was a take from the pile


def test_the_random_numbers_are_splitmix64() -> None:
    """The published first outputs of SplitMix64 from seed 0 (both builds draw these)."""
    r = Random(0)
    assert [r.next64() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
