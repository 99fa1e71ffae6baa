"""The learned belief: its input is the seat's view only (R11), the shipped model loads
and answers the same twice, its plain-Python inference agrees with the numpy batch the
report scores, training is deterministic for a seed, and a missing or corrupt model file
falls back to the heuristic belief with one warning."""

from __future__ import annotations

import inspect
import json
import random
from pathlib import Path

import pytest

from ginrummy.bots import make_bot
from ginrummy.evaluator import learned
from ginrummy.evaluator.learned import (
    FEATURES,
    card_chances,
    card_features,
    default_model,
    fit_total,
    heuristic_chances,
    load_model,
)
from ginrummy.hand import Action, Deal, Hand, View
from ginrummy.knowledge import Knowledge
from ginrummy.match import Match


def _views(seed: int = 4, hands: int = 1) -> list[View]:
    """Every decision's view of both seats in the first ``hands`` hands of a match."""
    match = Match(seed=seed)
    bots = [make_bot("strong", 1), make_bot("simple", 2)]
    out = []
    while not match.is_over() and len(match.hands) <= hands:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        out.append(view)
        match.play(bots[seat].decide(view), seat)
    return out


def _plain_moves(hand: Hand, rng: random.Random, steps: int) -> list[Action]:
    """Random legal moves, never a knock (so any deal that allows them replays them)."""
    played = []
    for _ in range(steps):
        legal = sorted((a for a in hand.legal_actions() if not a.knock), key=str)
        action = rng.choice(legal)
        hand.play(action, hand.to_play)
        played.append(action)
    return played


def test_r11_the_features_read_nothing_but_the_view() -> None:
    """Structurally: the feature function and the model's answer take a view only."""
    for fn in (card_features, card_chances):
        params = list(inspect.signature(fn).parameters.values())
        assert params[0].name == "view" and params[0].annotation in (View, "View")
    assert [p.name for p in inspect.signature(card_features).parameters.values()] == ["view"]


def test_r11_two_deals_that_look_the_same_to_a_seat_give_the_same_features() -> None:
    """Swap one of the opponent's unseen cards with a card still in the stock: the hidden
    state differs, seat 0's view is the same, and so are its features and chances."""
    rng = random.Random(7)
    deal = Deal.shuffled(random.Random(11))
    hand = Hand(deal, dealer=0)
    moves = _plain_moves(hand, rng, 18)
    view = hand.view(0)
    k = Knowledge.of(view)
    hidden = [c for c in hand.cards_of(1) if not k.opp_known & c.mask]
    x, y = hidden[0], hand.stock[0]

    def swap(cards: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(y if c == x else x if c == y else c for c in cards)

    twin_deal = Deal((swap(deal.hands[0]), swap(deal.hands[1])),  # type: ignore[arg-type]
                     deal.upcard, swap(deal.stock))  # type: ignore[arg-type]
    twin = Hand(twin_deal, dealer=0)
    for action in moves:
        twin.play(action, twin.to_play)
    assert twin.mask_of(1) != hand.mask_of(1)  # another opponent hand ...
    twin_view = twin.view(0)
    assert twin_view.to_json() == view.to_json()  # ... the same view
    assert card_features(twin_view) == card_features(view)
    assert card_chances(twin_view) == card_chances(view)


def test_the_features_are_one_small_row_per_unseen_card() -> None:
    for view in _views()[::7]:
        k = Knowledge.of(view)
        cards, rows, total = card_features(view)
        assert cards == [c for c in range(52) if k.unseen >> c & 1]
        assert len(rows) == len(cards) * len(FEATURES) and total == k.opp_unknown
        assert all(type(v) is int and 0 <= v <= 255 for v in rows)


def test_the_shipped_model_loads_and_answers_the_same_twice() -> None:
    model = default_model()
    assert model is not None, "src/ginrummy/data/belief_model.json must load"
    assert load_model() == model
    for view in _views()[::5]:
        first, second = card_chances(view), card_chances(view)
        assert first == second
        k = Knowledge.of(view)
        assert len(first) == 52 and abs(sum(first) - 10) < 1e-9  # 10 cards in its hand
        for c in range(52):
            if k.opp_known >> c & 1:
                assert first[c] == 1.0
            elif not k.unseen >> c & 1:
                assert first[c] == 0.0
            else:
                assert 0.0 < first[c] < 1.0


def test_fit_total_adds_up_to_the_unknown_cards() -> None:
    z = [0.3, -1.0, 2.5, 0.0, -4.0, 1.1]
    for total in range(7):
        p = fit_total(z, total)
        assert abs(sum(p) - total) < 1e-9
        assert all(0.0 <= q <= 1.0 for q in p)
    # the order of the scores is kept: a higher score, a higher chance
    p = fit_total(z, 3)
    assert sorted(range(6), key=lambda i: p[i]) == sorted(range(6), key=lambda i: z[i])


def test_the_python_inference_agrees_with_the_numpy_batch() -> None:
    np = pytest.importorskip("numpy")
    from ginrummy.evaluator.learned_train import Data, chances

    model = default_model()
    assert model is not None
    views = _views(seed=9)[::3]
    feats = [card_features(v) for v in views]
    data = Data(np.array([r for _, rows, _ in feats for r in rows], dtype=np.uint8)
                .reshape(-1, len(FEATURES)),
                np.zeros(sum(len(c) for c, _, _ in feats), dtype=np.uint8),
                np.array([len(c) for c, _, _ in feats]), np.array([n for _, _, n in feats]))
    batch = chances(model, data)
    i = 0
    for view, (cards, _, _) in zip(views, feats, strict=True):
        one = card_chances(view)
        for c in cards:
            assert one[c] == pytest.approx(batch[i], abs=1e-9)
            i += 1


def _tiny_data() -> object:
    np = pytest.importorskip("numpy")
    from ginrummy.evaluator.learned_train import Data

    xs: list[int] = []
    ys: list[int] = []
    count: list[int] = []
    n: list[int] = []
    match = Match(seed=21)
    bots = [make_bot("simple", 3), make_bot("strong", 4)]
    while not match.is_over() and len(match.hands) <= 1:
        seat = match.to_play
        assert seat is not None
        view = match.view(seat)
        cards, rows, total = card_features(view)
        opp = match.hand.mask_of(1 - seat)
        xs += rows
        ys += [opp >> c & 1 for c in cards]
        count.append(len(cards))
        n.append(total)
        match.play(bots[seat].decide(view), seat)
    return Data(np.array(xs, dtype=np.uint8).reshape(-1, len(FEATURES)),
                np.array(ys, dtype=np.uint8), np.array(count), np.array(n))


def test_training_is_deterministic_for_a_seed() -> None:
    pytest.importorskip("numpy")
    from ginrummy.evaluator.learned_train import TrainSettings, model_json, train

    data = _tiny_data()
    runs = [train(data, TrainSettings(hidden=4, epochs=2, batch=16, seed=s))  # type: ignore[arg-type]
            for s in (5, 5, 6)]
    assert runs[0] == runs[1]
    assert runs[0].w1 != runs[2].w1
    text, back = model_json(runs[0], {"seed": 5})
    assert model_json(runs[1], {"seed": 5})[0] == text  # the same file, byte for byte
    assert back.hidden == 4 and len(back.w1) == 4 * len(FEATURES)


@pytest.fixture
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not read the model file nor warned yet."""
    monkeypatch.setattr(learned, "_state", {"model": None, "loaded": False, "warned": False})


@pytest.mark.parametrize("content", [None, "{not json", json.dumps({"format": "other"}),
                                     json.dumps({"format": learned.FORMAT, "features": []})])
def test_a_missing_or_corrupt_model_falls_back_with_one_warning(
        content: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], fresh_state: None) -> None:
    path = tmp_path / "belief_model.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    monkeypatch.setattr(learned, "load_model", lambda p=None, _l=load_model: _l(path))
    views = _views()[10:13]
    for view in views:
        assert card_chances(view) == heuristic_chances(view)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "learned belief" in line]
    assert len(lines) == 1, err
    assert "heuristic belief stands in" in lines[0]
    assert load_model(path) is None and capsys.readouterr().err == ""  # warned once only


def test_a_good_model_file_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({
        "format": learned.FORMAT, "features": list(FEATURES), "hidden": 0,
        "scale": [1.0] * len(FEATURES), "w1": [], "b1": [], "w2": [0.0] * len(FEATURES),
        "b2": 0.0}), encoding="utf-8")
    model = load_model(path)
    assert model is not None
    view = _views()[12]
    chances = card_chances(view, model)
    k = Knowledge.of(view)
    unseen = [c for c in range(52) if k.unseen >> c & 1]
    # no weights: every unseen card equally likely
    assert all(chances[c] == pytest.approx(k.opp_unknown / len(unseen)) for c in unseen)


def test_the_conditional_draw_follows_the_product_of_the_odds() -> None:
    """Each set of n cards comes up with chance proportional to the product of its odds
    (the exact law, checked on 20,000 draws against the enumeration)."""
    from itertools import combinations

    from ginrummy.evaluator.learned_sampler import cb_draw, cb_table
    from ginrummy.kernel.splitmix import Random

    items, odds, n = [3, 8, 20, 33, 51], [1.0, 3.0, 0.5, 2.0, 0.2], 2
    law = {sum(1 << items[i] for i in s): odds[s[0]] * odds[s[1]]
           for s in combinations(range(5), n)}
    total = sum(law.values())
    table = cb_table(odds, n)
    rng = Random(3)
    draws = 20000
    seen: dict[int, int] = {}
    for _ in range(draws):
        h = cb_draw(items, odds, table, n, rng)
        seen[h] = seen.get(h, 0) + 1
    assert set(seen) <= set(law)
    for h, w in law.items():
        assert seen.get(h, 0) / draws == pytest.approx(w / total, abs=0.012)


def test_the_tilt_meets_the_target_chances() -> None:
    from ginrummy.evaluator.learned_sampler import draw_by_weight, tilt
    from ginrummy.kernel.splitmix import Random

    rng = random.Random(4)
    items = list(range(10, 22))
    pool = [sum(1 << c for c in rng.sample(items, 4)) for _ in range(400)]
    # a reachable target: the chances under some other weighting of the same pool
    other = [1.0 + (h >> 10 & 1) * 3.0 + (h >> 15 & 1) * 0.5 for h in pool]
    target = [sum(w for h, w in zip(pool, other, strict=True) if h >> c & 1) / sum(other)
              for c in items]
    weights = tilt(pool, items, target, rounds=30)
    total = sum(weights)
    for c, t in zip(items, target, strict=True):
        got = sum(w for h, w in zip(pool, weights, strict=True) if h >> c & 1) / total
        assert got == pytest.approx(t, abs=1e-3)
    picks = draw_by_weight(weights, 1000, Random(5))
    assert len(picks) == 1000 and all(0 <= i < len(pool) for i in picks)
