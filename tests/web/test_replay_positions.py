"""A replay step opens the analysis board (issue 38): each step where a seat is to move
carries the hand's moves and the options, and the position the replay page builds from
them (static/js/replay.js ``boardPosition``, mirrored here) is read back by the board
with exactly the seat's legal moves."""

from __future__ import annotations

import random
from typing import Any

from ginrummy.fairness import DEAL_SCHEME, deal_for
from ginrummy.hand import Hand
from ginrummy.options import Options
from ginrummy.training.position import read_position
from ginrummy.web.records.replays import replay_frames


def _position(d: dict[str, Any]) -> dict[str, Any]:
    """What replay.js sends to /analysis for frame ``d``."""
    seat = d["to_play"]
    took, threw, passed = [], [], []
    for a in d["history"]:
        if a["seat"] == seat:
            continue
        if a["act"] == "draw" and a["from"] == "discard":
            took.append(a["card"])
        elif a["act"] == "discard":
            threw.append(a["card"])
        elif a["act"] == "pass":
            passed.append(d["upcard"])
    history = [{k: v for k, v in a.items() if k != "card"}
               if a["seat"] != seat and a["act"] == "draw" and a["from"] == "stock" else a
               for a in d["history"]]
    return {"seat": seat, "dealer": d["dealer"], "upcard": d["upcard"],
            "hand": d["hands"][seat], "pile": d["discards"], "opponent_took": took,
            "opponent_discarded": threw, "opponent_passed": passed,
            "stock": d["stock_count"],
            "to_play": "discard" if d["phase"] == "discard" else "draw",
            "scores": d["scores"], "options": d["options"], "history": history}


def test_every_replay_step_to_move_reads_back_on_the_board() -> None:
    rng = random.Random(7)
    seed, options = 11, Options()
    hand = Hand(deal_for(seed, 0, DEAL_SCHEME), 0, options)
    actions: list[tuple[int, dict[str, Any]]] = []
    while hand.result is None:
        seat = hand.to_play
        legal = list(hand.legal_actions())
        a = next((x for x in legal if x.knock), None) or rng.choice(legal)
        actions.append((seat, a.to_json()))
        hand.play(a, seat)
    frames = replay_frames(options.to_json(), seed, 0, ["Ann", "Bob"], [actions], DEAL_SCHEME)
    checked = 0
    for d in frames:
        if d["result"] is not None:
            continue
        view = read_position(_position(d))
        assert view.seat == d["to_play"]
        assert sorted(map(str, view.hand)) == sorted(d["hands"][d["to_play"]])
        checked += 1
    assert checked == len(frames) - 1
