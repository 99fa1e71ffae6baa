#!/usr/bin/env python3
"""A complete minimal ginrummy-bot/1 bot using only the standard library.

It takes no up-card, always draws from the stock, and discards its highest card that
is in no obvious meld (a crude stand-in for deadwood), knocking whenever the referee
lists a knock as legal. Run it against a project bot with:

    ginrummy match exec:"python3 docs/example_bot.py" simple --matches 2 --seed 1
"""

import json
import sys

RANKS = "A23456789TJQK"


def points(card):
    """Deadwood points of a card such as "KH": ace 1, face cards 10 (R1)."""
    return min(RANKS.index(card[0]) + 1, 10)


def in_meld(card, hand):
    """Whether the card is in a set of 3+ or a run of 3+ within the hand (R2)."""
    rank, suit = RANKS.index(card[0]), card[1]
    if sum(1 for c in hand if c[0] == card[0]) >= 3:
        return True
    have = {RANKS.index(c[0]) for c in hand if c[1] == suit}
    return any(all(r in have for r in range(lo, lo + 3)) for lo in range(rank - 2, rank + 1))


def choose(view, legal):
    """Pick one action from `legal`, returned unchanged as the protocol requires."""
    acts = {json.dumps(a, sort_keys=True): a for a in legal}
    if view["phase"] == "offer":
        return acts.get(json.dumps({"act": "pass"}, sort_keys=True), legal[0])
    if view["phase"] == "draw":
        return acts.get(json.dumps({"act": "draw", "from": "stock"}, sort_keys=True), legal[0])
    discards = [a for a in legal if a["act"] == "discard"]
    knocks = [a for a in discards if a.get("knock")]
    pool = knocks or discards
    hand = view["hand"]
    return max(pool, key=lambda a: (not in_meld(a["card"], hand), points(a["card"])))


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            answer = {"type": "hello", "name": "example"}
        elif msg["type"] == "decide":
            answer = {"type": "action", "action": choose(msg["view"], msg["legal"])}
        elif msg["type"] == "bye":
            break
        else:  # hand_over: nothing to answer
            continue
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
