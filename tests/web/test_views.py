"""A seat's STATE is built fast (each history entry encoded once per seat) and exactly as
the core shows it: ``views.view_json`` equals the core's ``View.to_json`` at every step of
whole matches, for both seats, results and revealed hands included."""

from __future__ import annotations

import random

from ginrummy.fairness import deal_for
from ginrummy.match import Match
from ginrummy.web.store import StoredMatch
from ginrummy.web.tables.table import Table
from ginrummy.web.tables.views import view_json


def test_view_json_is_the_cores_view_at_every_step() -> None:
    rng = random.Random(5)
    for seed in range(3):
        m = Match(seed=seed, first_dealer=seed % 2, players=("A", "B"), auto_deal=False)
        sm = StoredMatch(id=f"m{seed}", token_hash0="", token_hash1="", options={},
                         players=["A", "B"], seed=seed, first_dealer=seed % 2,
                         opponent="friend", bot_level=None, bot_name=None)
        t = Table(sm, m, next_seq=0)
        steps = 0
        while not m.is_over() and steps < 400:
            m.start_hand(deal_for(seed, len(m.hands)))
            while not m.hand.is_over():
                for s in (0, 1):
                    v = m.view(s)
                    assert view_json(t, v) == v.to_json()
                legal = m.legal_actions()
                knocks = [a for a in legal if a.knock]
                m.play(knocks[0] if knocks and rng.random() < 0.7 else rng.choice(legal),
                       m.to_play)
                steps += 1
            for s in (0, 1):  # the hand's end: result, and both hands unless dead
                v = m.view(s)
                assert view_json(t, v) == v.to_json()
            if steps % 3 == 0:
                t.forget_views(history=True)  # a rebuild starts the entries afresh


def test_state_reads_what_the_core_reads_with_takebacks() -> None:
    """STATE's comforts come from the table's caches (the hand's Shown brought forward,
    each seat's arrangement by its cards): the same as computing them afresh from the
    view (Knowledge.of, the core's arrangement), at every step, a move taken back and
    another played in its place included."""
    from ginrummy.knowledge import Knowledge
    from ginrummy.melds import arrangements_mask
    from ginrummy.web.tables.views import _build_state

    rng = random.Random(8)
    for seed in range(3):
        m = Match(seed=seed, first_dealer=seed % 2, players=("A", "B"), auto_deal=False)
        sm = StoredMatch(id=f"m{seed}", token_hash0="", token_hash1="", options={},
                         players=["A", "B"], seed=seed, first_dealer=seed % 2,
                         opponent="friend", bot_level=None, bot_name=None)
        t = Table(sm, m, next_seq=0)
        for _ in range(3):
            if m.is_over():
                break
            m.start_hand(deal_for(seed, len(m.hands)))
            while not m.hand.is_over():
                for s in (0, 1):
                    v = m.view(s)
                    got = _build_state(t, s)
                    known = Knowledge.of(v).opp_known
                    assert got["opponent_known"] == [str(c) for c in sorted(
                        (c for c in m.hand.deal.hands[0] + m.hand.deal.hands[1]
                         + (m.hand.upcard,) + m.hand.deal.stock if known >> c.index & 1),
                        key=lambda c: c.index)]
                    assert got["arrangement"] == arrangements_mask(v.hand.mask)[0].to_json()
                legal = [a for a in m.legal_actions() if not a.knock]
                if rng.random() < 0.2 and len(m.hand.history) > 1:
                    m.pop()  # a commit that failed: then another move (or the same)
                    legal = [a for a in m.legal_actions() if not a.knock]
                m.play(rng.choice(legal), m.to_play)
