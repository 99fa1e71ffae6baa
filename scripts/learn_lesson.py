"""Build the web table's Learn to play lesson from the core: one fixed deal, played step
by step, with every figure the lesson shows worked out by the rules engine.

Usage: python scripts/learn_lesson.py [--check]
Writes src/ginrummy/web/static/learn/lesson.json; with --check only says whether it is
up to date (exit status 1 if not), as the tests do.

The lesson is one hand against the computer (R3-R9) on a prepared deal. The player (seat
0) passes the up-card, draws, discards, takes a discard that makes a set, knocks, and
sees the computer lay off two cards and undercut; then the lesson takes the knock back
and the player plays on to gin. The page (static/js/learn.js) shows each step's STATE (the
seat's view, shaped as the server's STATE, docs/web-api.md) and waits for the step's move.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ginrummy import arrange, deadwood_by_discard  # noqa: E402
from ginrummy.actions import DRAW_DISCARD, DRAW_STOCK, PASS, Action  # noqa: E402
from ginrummy.cards import Card  # noqa: E402
from ginrummy.hand import Deal, Hand, Phase  # noqa: E402

TARGET = ROOT / "src" / "ginrummy" / "web" / "static" / "learn" / "lesson.json"

YOU, COMPUTER = 0, 1
PLAYERS = ["You", "Computer"]

# The deal (R3): the computer deals, so the player is offered the up-card first (R4).
# Stock, top first: the player's first draw, the computer's first draw (thrown at once),
# the computer's second draw (thrown too), then the card that gives the player gin.
DEAL = Deal.build(
    "5H 6H 7H 4C 4D 4S 9C 9D 8D KC",
    "QC QD QH 6C 6D 6S 4H 8H AD 3C",
    "JS",
    "7C 9S TC 9H "
    "2C 5C 8C JC KD 2D 3D 5D 7D TD JD 2H 3H TH JH KH AS 2S 3S 5S 7S 8S TS QS KS AC AH",
)
DEALER = COMPUTER

SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def short(card: Card | str) -> str:
    """``7♣``, ``10♦``: as the table writes cards in its sentences (cards.js cardShort)."""
    text = str(card)
    return ("10" if text[0] == "T" else text[0]) + SUITS[text[1]]


# ---------------------------------------------------------------------- STATEs


def state(hand: Hand, version: int) -> dict[str, Any]:
    """The player's STATE at this point of the hand, as the server builds it (the fields
    the table page reads)."""
    v = hand.view(YOU)
    legal = list(v.legal)
    knock = sorted({a.card for a in legal if a.knock and a.card is not None},
                   key=lambda c: c.index)
    arr = arrange(list(v.hand))
    options: list[dict[str, Any]] | None = None
    best: str | None = None
    if v.phase is Phase.DISCARD and v.to_play == YOU:
        leaves = {str(c): n for c, n in deadwood_by_discard(list(v.hand)).items()}
        ok = {str(a.card) for a in legal if a.act == "discard" and a.card is not None}
        knocks = {str(c) for c in knock}
        options = []
        key_best: tuple[int, int, int] | None = None
        for c in sorted(v.hand, key=lambda c: c.index):
            s = str(c)
            options.append({"card": s, "leaves": leaves[s], "legal": s in ok,
                            "knock": s in knocks, "gin": s in knocks and leaves[s] == 0})
            key = (leaves[s], -c.points, -c.index)
            if s in ok and (key_best is None or key < key_best):
                key_best, best = key, s
    r = hand.result
    hand_over: dict[str, Any] | None = None
    sheet: list[dict[str, Any]] = []
    scores = [0, 0]
    if r is not None:
        sd = r.showdown
        assert sd is not None and r.knocker is not None and r.scorer is not None
        pair = [sd.knocker_arrangement, sd.defender_arrangement]
        if r.knocker == 1:
            pair.reverse()
        assert v.revealed is not None
        hand_over = {
            "hand": 0,
            "result": r.to_json(),
            "hands": [[str(c) for c in h] for h in v.revealed],
            "arrangements": [a.to_json() for a in pair],
            "layoffs": [{"card": str(c), "meld": i} for c, i in sd.layoffs],
            "ready": [False, True],
        }
        scores[r.scorer] = r.points
        sheet = [{"hand": 0, "result": r.result.value, "scorer": r.scorer, "points": r.points,
                  "scores": list(scores)}]
    return {
        "id": "learn",
        "seat": YOU,
        "version": version,
        "status": "playing",
        "players": PLAYERS,
        "opponent": "computer",
        "bot": None,
        "options": v.options.to_json(),
        "scores": scores,
        "winner": None,
        "end_reason": None,
        "view": v.to_json(),
        "legal": [a.to_json() for a in legal],
        "my_turn": bool(legal),
        "arrangement": arr.to_json(),
        "knock_discards": [str(c) for c in knock],
        "hand_over": hand_over,
        "score_sheet": sheet,
        "waiting_for_opponent": v.to_play == COMPUTER,
        "opponent_known": [],
        "discard_options": options,
        "best_discard": best,
    }


class Lesson:
    """Plays the deal and collects the states and the steps that show them."""

    def __init__(self) -> None:
        self.hand = Hand(DEAL, dealer=DEALER)
        self.states: list[dict[str, Any]] = []
        self.steps: list[dict[str, Any]] = []

    def snap(self) -> int:
        """Record the current position as a state; its index."""
        self.states.append(state(self.hand, len(self.states)))
        return len(self.states) - 1

    def step(self, title: str, text: str, at: int, *, highlight: list[str] | None = None,
             spots: list[str] | None = None, wait: dict[str, Any] | None = None,
             rewind: bool = False, via: list[int] | None = None) -> None:
        """A step showing state ``at`` (after the states ``via``, shown a moment each, when
        the player's move leads to it) and waiting for the move ``wait`` or for Next."""
        self.steps.append({
            "title": title,
            "text": text,
            "state": at,
            "via": via or [],
            "highlight": highlight or [],
            "spots": spots or [],
            "await": wait,
            "rewind": rewind,
        })

    def play(self, seat: int, action: Action) -> None:
        self.hand.play(action, seat)


def build() -> dict[str, Any]:
    """The lesson: its states and steps, every figure from the engine."""
    L = Lesson()
    h = L.hand
    start = L.snap()
    first = arrange(list(h.cards_of(YOU)))
    melds = [[str(c) for c in m] for m in first.melds]
    run = next(m for m in melds if m[0][1] == m[1][1])
    group = next(m for m in melds if m[0][0] == m[1][0])
    loose = [str(c) for c in first.deadwood_cards]
    up = str(DEAL.upcard)
    L.step("Welcome to Gin Rummy",
           "You and the computer each hold ten cards. The aim: put yours into melds, and "
           "keep the points of the cards left over low. Press Next to go on.",
           start, spots=["hand"])
    L.step("Melds",
           f"A run is three or more cards in a row of one suit, like your "
           f"{' '.join(map(short, run))}. A set is three or four cards of one rank, like "
           f"your {' '.join(map(short, group))}. The table groups your melds for you.",
           start, highlight=run + group)
    L.step("Deadwood",
           "Cards in no meld are deadwood. They count their points: an ace 1, two to ten "
           f"their number, jack, queen and king 10. Yours add up to {first.deadwood}, shown "
           "on the badge above your hand. Less is better.",
           start, highlight=loose, spots=["badge"])
    L.step("The up-card",
           f"Each hand starts with the up-card on the discard pile. The {short(up)} does "
           "not help you: press Pass.",
           start, highlight=[up], spots=["pass"], wait=PASS.to_json())
    L.play(YOU, PASS)
    passed = L.snap()
    L.play(COMPUTER, PASS)
    turn = L.snap()
    L.step("Your turn: draw",
           "The computer passed too. A turn starts with a draw: the top card of the stock "
           "(face down) or of the discard pile. Click the stock.",
           turn, spots=["stock"], wait=DRAW_STOCK.to_json(), via=[passed])
    L.play(YOU, DRAW_STOCK)
    drawn = str(h.history[-1].card)
    eleven = L.snap()
    throw = "KC"
    left = h.deadwood_after(Card.parse(throw))
    L.step("Then discard",
           f"You drew the {short(drawn)}. Now end your turn by discarding one card. Throw "
           f"your highest deadwood, the {short(throw)}: click it. The badge shows what each "
           f"card would leave ({left} for this one).",
           eleven, highlight=[throw], spots=["badge"],
           wait=Action.discard(throw).to_json())
    L.play(YOU, Action.discard(throw))
    thrown_by_you = L.snap()
    L.play(COMPUTER, DRAW_STOCK)
    thinking = L.snap()
    thrown = str(h.history[-1].card)
    L.play(COMPUTER, Action.discard(thrown))
    after_computer = L.snap()
    L.step("The computer's turn",
           f"The computer drew from the stock and threw the {short(thrown)}.",
           after_computer, highlight=[thrown], spots=["pile"], via=[thrown_by_you, thinking])
    nines = [c for c in (str(x) for x in h.cards_of(YOU)) if c[0] == thrown[0]]
    L.step("Take a discard",
           f"The {short(thrown)} makes a set with your {' '.join(map(short, nines))}. Take "
           "it: click the discard pile.",
           after_computer, highlight=[thrown] + nines, spots=["pile"],
           wait=DRAW_DISCARD.to_json())
    L.play(YOU, DRAW_DISCARD)
    took = L.snap()
    knock_card = "8D"
    knock_with = h.deadwood_after(Card.parse(knock_card))
    assert knock_with <= h.knock_limit, "the lesson's knock must be allowed (R6)"
    keep = [str(c) for c in h.cards_of(YOU) if str(c) != knock_card]
    last_loose = [c for c in arrange(keep).deadwood_cards]
    L.step("Knock",
           f"Three melds! Discard the {short(knock_card)} and only the "
           f"{' '.join(map(short, last_loose))} is left: {knock_with} deadwood. With 10 or "
           "less you may knock, ending the hand; the cards marked K allow it. Click the "
           f"{short(knock_card)} and choose Knock.",
           took, highlight=[knock_card], spots=["badge"],
           wait=Action.discard(knock_card, knock=True).to_json())
    before_knock = h.copy()
    L.play(YOU, Action.discard(knock_card, knock=True))
    r = h.result
    assert r is not None and r.showdown is not None and r.result == "undercut"
    laid = [str(c) for c in r.layoffs]
    shown = L.snap()
    sd = r.showdown
    defender_left = [str(c) for c in sd.defender_arrangement.deadwood_cards]
    onto = {"run" if m[0].rank != m[1].rank else "set"
            for m in (sd.knocker_arrangement.melds[i] for _, i in sd.layoffs)}
    L.step("The showdown and lay-offs",
           "You knock, and both hands are shown. The computer lays off its "
           f"{' and '.join(map(short, laid))} on your {' and '.join(sorted(onto))}: a "
           "defender's cards that fit the knocker's melds are laid off and no longer count.",
           shown, highlight=laid)
    assert r.deadwood is not None
    than = "less than" if r.deadwood[COMPUTER] < r.deadwood[YOU] else "as little as"
    L.step("Undercut!",
           f"After lay-offs the computer has {r.deadwood[COMPUTER]} deadwood "
           f"({' '.join(map(short, defender_left))}), {than} your {r.deadwood[YOU]}: "
           f"an undercut. The computer scores {r.deadwood[YOU]} − {r.deadwood[COMPUTER]} + 25 "
           f"= {r.points}. Knock with little deadwood, or wait for gin.",
           shown, highlight=defender_left)
    # Take the knock back: the same position, played on for gin.
    L.hand = h = before_knock
    L.step("Once more, for gin",
           "Let's take that knock back and play on. Click the "
           f"{short(knock_card)} again, and this time choose Just discard.",
           took, highlight=[knock_card], rewind=True,
           wait=Action.discard(knock_card).to_json())
    L.play(YOU, Action.discard(knock_card))
    played_on = L.snap()
    L.play(COMPUTER, DRAW_STOCK)
    thinking2 = L.snap()
    thrown2 = str(h.history[-1].card)
    L.play(COMPUTER, Action.discard(thrown2))
    again = L.snap()
    L.step("Draw again",
           f"The computer drew and threw the {short(thrown2)}, no use to you. Your turn: draw "
           "from the stock.",
           again, spots=["stock"], wait=DRAW_STOCK.to_json(), via=[played_on, thinking2])
    L.play(YOU, DRAW_STOCK)
    gin_card = str(h.history[-1].card)
    ready = L.snap()
    gins = [str(c) for c in h.knock_discards() if h.deadwood_after(c) == 0]
    assert len(gins) == 1, gins
    L.step("Gin",
           f"The {short(gin_card)} makes a set of four. Discard the {short(gins[0])} and all "
           "ten cards meld: that is gin. It is marked GIN: click it.",
           ready, highlight=[gins[0], gin_card],
           wait=Action.discard(gins[0], knock=True).to_json())
    L.play(YOU, Action.discard(gins[0], knock=True))
    g = h.result
    assert g is not None and g.result == "gin" and g.deadwood is not None
    won = L.snap()
    L.step("Gin scores more",
           f"Gin! You score the computer's {g.deadwood[COMPUTER]} deadwood plus 25: "
           f"{g.points}. After gin nothing is laid off, and gin is never undercut.",
           won)
    L.step("You know the game",
           "Hands go on until a player reaches 100 points (or the target the table is set "
           "to), and that player wins the match. Play the computer now, or read How to play "
           "for every rule.",
           won)
    return {"format": "ginrummy-lesson/1", "deal": str(DEAL), "dealer": DEALER,
            "steps": L.steps, "states": L.states}


def text() -> str:
    """The lesson file's exact contents."""
    return json.dumps(build(), ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv: list[str]) -> int:
    out = text()
    if "--check" in argv:
        ok = TARGET.exists() and TARGET.read_text(encoding="utf-8") == out
        print("up to date" if ok else f"{TARGET.name} is out of date: run scripts/learn_lesson.py")
        return 0 if ok else 1
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(out, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
