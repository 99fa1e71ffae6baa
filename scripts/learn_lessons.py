"""Build the lessons after the guided first hand (issue 38), each from the core on a fixed
deal, as scripts/learn_lesson.py builds the first: every figure the lessons show (the
deadwood, what a knock scores, what a discard gives away) is worked out by the rules
engine.

Usage: python scripts/learn_lessons.py [--check]
Writes src/ginrummy/web/static/learn/NAME.json for each lesson; with --check only says
whether they are up to date (exit status 1 if not), as the tests do.

* ``knock``: "When to knock and when to play on": a knock early in the hand wins its
  points; the same hand played on for gin feeds the computer, which goes gin first.
* ``safe-discards``: "Safe discards late in the stock": with a few cards left, a card
  every one of whose meld partners the player has seen is safe; the card that leaves the
  least deadwood is taken and knocked on.
* ``pile-takes``: "What the opponent's pile takes tell you": the computer took a card from
  the pile, so it melds it; the card that joins it is held back, and thrown it is taken.

Both seats play by one fixed rule (:func:`policy`, from the rules engine's deadwood and
melds only): take the face-up card when it joins a meld and lowers the deadwood, discard
the card that leaves the least deadwood (ties: the higher card), and (the computer) knock
as soon as the rules allow. The player's moves in the steps are the lesson's. Each lesson
ends with a link to the puzzles of its themes (ginrummy.training.themes).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import learn_lesson as first  # noqa: E402

from ginrummy import arrange, deadwood  # noqa: E402
from ginrummy.actions import DRAW_DISCARD, DRAW_STOCK, PASS, Action  # noqa: E402
from ginrummy.cards import Card  # noqa: E402
from ginrummy.hand import Deal, Hand, Phase  # noqa: E402
from ginrummy.training.themes import THEMES  # noqa: E402

TARGET_DIR = ROOT / "src" / "ginrummy" / "web" / "static" / "learn"
YOU, COMPUTER = first.YOU, first.COMPUTER
short = first.short

# The deals (R3): the computer deals every one, so the player is offered the up-card first.
DEALS = {
    "knock": Deal.parse(
        "TS 2C 8C 5H 2D JH TC KS QH 7S / TH 3H 9D JD 6D QC 6H 9S 3D 6C / QD / JS 5D KD KH "
        "3S 6S QS 2S 9C 8S JC 4D 2H 5C 7C AD KC 4S 9H 8H AC 8D TD 5S 7D 4C AS 7H 3C AH 4H"),
    "safe-discards": Deal.parse(
        "JD JH 2H AC 5H QC 4S TH 9D TC / 9C 3D AS 6H 3H 7D AH 8D JC 9H / 4H / 6C KD 2D QH "
        "9S TD 6D 4C KH TS 7C 6S AD QS 4D 8C 2C 5C 7S 3S 7H 8S QD 5D 8H 2S KS KC 5S 3C JS"),
    "pile-takes": Deal.parse(
        "AS 2S 8H TH JD 9D QH 3D 6C AH / 4D 7C 3H KC 4S 6S 9C 4C KD 5C / 5H / 6H 2C KH JH "
        "4H QC 7S 9H 3S 9S AC JS 2H 6D TS AD QS KS QD JC 3C 8S 2D 7H 5S 5D TC 7D 8C TD 8D"),
}
ORDER = ["knock", "safe-discards", "pile-takes"]


def cards(cs: Any) -> str:
    """``7♣ 8♣ 9♣``."""
    return " ".join(short(c) for c in cs)


def worded(cs: list[Card]) -> str:
    """``the 7♣``, ``the 7♣ and the 8♣``, ``the 7♣, the 8♣ and the 9♣``."""
    names = [f"the {short(c)}" for c in cs]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# ---------------------------------------------------------------------- the fixed rule


def would_take(hand: Hand, seat: int) -> bool:
    """Whether ``seat`` takes the pile's top: it joins a meld and lowers the deadwood."""
    held = hand.cards_of(seat)
    top = hand.discards[-1]

    def left(x: Card) -> list[Card]:
        return [c for c in [*held, top] if c != x]

    if min(deadwood(left(x)) for x in held) >= deadwood(held):
        return False
    throw = min(held, key=lambda x: (deadwood(left(x)), -x.points, -x.index))
    return any(top in m for m in arrange(left(throw)).melds)


def plain_discard(hand: Hand) -> Action:
    """The legal plain discard leaving the least deadwood (ties: the higher card)."""
    legal = [a for a in hand.legal_actions() if a.act == "discard" and not a.knock]
    best = min(legal, key=lambda a: (hand.deadwood_after(card_of(a)), -card_of(a).points,
                                     -card_of(a).index))
    return best


def card_of(a: Action) -> Card:
    assert a.card is not None
    return a.card


def policy(hand: Hand, knock: bool = True) -> Action:
    """The rule both seats play by (the module docstring)."""
    seat = hand.to_play
    assert seat is not None
    if hand.phase is Phase.OFFER:
        return DRAW_DISCARD if would_take(hand, seat) else PASS
    if hand.phase is Phase.DRAW:
        return DRAW_DISCARD if would_take(hand, seat) else DRAW_STOCK
    if knock:
        knocks = [a for a in hand.legal_actions() if a.act == "discard" and a.knock]
        if knocks:
            return min(knocks, key=lambda a: (hand.deadwood_after(card_of(a)), -card_of(a).index))
    return plain_discard(hand)


def meld_partners(card: Card, seen: set[Card]) -> list[Card]:
    """The cards not in ``seen`` that could share a meld with ``card``: its rank, or its
    suit within two ranks (R2)."""
    out = []
    for i in range(52):
        x = Card.from_index(i)
        if x == card or x in seen:
            continue
        if x.rank_index == card.rank_index or (
                x.suit == card.suit and abs(x.rank_index - card.rank_index) <= 2):
            out.append(x)
    return out


def harmless(hand: Hand, card: Card) -> bool:
    """Whether discarding ``card`` lets the computer neither take it nor end the hand on
    its turn (played out on a copy, by :func:`policy`)."""
    if not any(a.act == "discard" and a.card == card and not a.knock
               for a in hand.legal_actions()):
        return False  # the card just taken from the pile (R5)
    t = hand.copy()
    t.play(Action.discard(card), YOU)
    if would_take(t, COMPUTER):
        return False
    while t.result is None and t.to_play == COMPUTER:
        t.play(policy(t), COMPUTER)
    return t.result is None


# ---------------------------------------------------------------------- lessons


class Lesson(first.Lesson):
    """A lesson on one of :data:`DEALS`; its states show what the computer took from the
    pile and still holds (public, R11), as the table does."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.hand = Hand(DEALS[name], dealer=COMPUTER)

    def snap(self) -> int:
        at = super().snap()
        h = self.hand
        took = [op.card for op in h.history if op.seat == COMPUTER
                and op.action.act == "draw" and op.action.source == "discard"]
        held = set(h.cards_of(COMPUTER))
        self.states[at]["opponent_known"] = [str(c) for c in took if c in held]
        return at

    def auto(self, until: Callable[[Hand], bool], you_knock: bool = False) -> None:
        """Play both seats by :func:`policy` until ``until`` holds."""
        h = self.hand
        while h.result is None and not until(h):
            seat = h.to_play
            assert seat is not None
            self.play(seat, policy(h, knock=seat == COMPUTER or you_knock))

    def computer_turn(self) -> list[int]:
        """The computer's moves to the end of its turn, a state after each."""
        shown = []
        while self.hand.result is None and self.hand.to_play == COMPUTER:
            self.play(COMPUTER, policy(self.hand))
            shown.append(self.snap())
        return shown


def draw_words(hand: Hand) -> tuple[str, Action, list[str], list[str]]:
    """The step text, move, highlight and spots of the player's draw by the rule."""
    move = policy(hand)
    if move == DRAW_STOCK:
        return "Draw from the stock: click it.", move, [], ["stock"]
    top = hand.discards[-1]
    return (f"Take the {short(top)}: it joins a meld of yours. Click the discard pile.", move,
            [str(top)], ["pile"])


def finish(themes: list[str]) -> dict[str, Any]:
    for t in themes:
        assert t in THEMES, t
    return {"href": f"/puzzles?theme={themes[0]}", "themes": themes,
            "text": "Puzzles on this"}


def knock_lesson() -> dict[str, Any]:
    L = Lesson("knock")
    h = L.hand

    def before_knock(x: Hand) -> bool:
        # the player's draw, after which a knock is allowed
        if x.to_play != YOU or x.phase is not Phase.DRAW:
            return False
        t = x.copy()
        t.play(policy(t), YOU)
        return bool(t.knock_discards())

    L.auto(before_knock)
    pre = L.snap()
    arr = arrange(h.cards_of(YOU))
    turns = sum(1 for op in h.history if op.seat == YOU and op.action.act == "discard")
    text, move, lit, spots = draw_words(h)
    L.step("When to knock",
           f"{turns} turns into the hand, with {h.stock_count} cards left in the stock. You "
           f"hold {len(arr.melds)} melds and {arr.deadwood} deadwood. Knocking ends the hand "
           "at once: the question is when. Press Next.", pre, spots=["badge"])
    L.step("Draw", text, pre, highlight=lit, spots=spots, wait=move.to_json())
    L.play(YOU, move)
    drawn = str(h.history[-1].card)
    ready = L.snap()
    knocks = h.knock_discards()
    kc = min(knocks, key=lambda c: (h.deadwood_after(c), -c.index))
    left = h.deadwood_after(kc)
    rest = [c for c in h.cards_of(YOU) if c != kc]
    loose = list(arrange(rest).deadwood_cards)
    L.step("You may knock",
           f"The {short(drawn)} completes a meld. Discard the {short(kc)} and only "
           f"{worded(loose)} is left: {left} deadwood, within the {h.knock_limit} a knock "
           "allows. Early in a hand the computer's cards are still loose, so knock now: "
           f"click the {short(kc)} and choose Knock.",
           ready, highlight=[str(kc)], spots=["badge"],
           wait=Action.discard(kc, knock=True).to_json())
    saved = h.copy()
    L.play(YOU, Action.discard(kc, knock=True))
    r = h.result
    assert r is not None and r.result == "knock" and r.scorer == YOU and r.deadwood is not None
    assert r.showdown is not None
    shown = L.snap()
    theirs = list(r.showdown.defender_arrangement.deadwood_cards)
    laid = [str(c) for c in r.layoffs]
    laid_text = (f"after laying off {cards(laid)}" if laid else "with nothing to lay off")
    L.step("The knock scores",
           f"The computer is caught {laid_text}: {r.deadwood[COMPUTER]} deadwood "
           f"({cards(theirs)}) against your {r.deadwood[YOU]}. You score "
           f"{r.deadwood[COMPUTER]} − {r.deadwood[YOU]} = {r.points}.",
           shown, highlight=[str(c) for c in theirs])
    # the same moment, played on for gin
    L.hand = h = saved
    L.step("Or play on?",
           "Now take the knock back and play on, hoping for gin: click the "
           f"{short(kc)} again, and this time choose Just discard.",
           ready, highlight=[str(kc)], rewind=True, wait=Action.discard(kc).to_json())
    L.play(YOU, Action.discard(kc))
    via = [L.snap()]
    via += L.computer_turn()
    took = [op for op in h.history[-2:] if op.seat == COMPUTER and op.action.act == "draw"]
    assert took and took[0].action.source == "discard" and took[0].card == kc
    assert h.result is None and h.to_play == YOU
    thrown = h.history[-1].card if h.history[-1].card else h.history[-1].action.card
    again = via.pop()
    L.step("The computer takes it",
           f"The computer took your {short(kc)} from the pile and threw the "
           f"{short(thrown)}: your discard fed its meld. Draw from the stock.",
           again, highlight=[str(kc)], spots=["stock"], wait=DRAW_STOCK.to_json(), via=via)
    L.play(YOU, DRAW_STOCK)
    got = h.history[-1].card
    assert got is not None
    mine = L.snap()
    assert h.deadwood_after(got) == left and got in h.knock_discards()
    L.step("Still playing for gin",
           f"The {short(got)} does not help. You could knock again, but you are playing for "
           f"gin: click the {short(got)} and choose Just discard.",
           mine, highlight=[str(got)], wait=Action.discard(got).to_json())
    L.play(YOU, Action.discard(got))
    via = [L.snap()]
    via += L.computer_turn()
    g = h.result
    assert g is not None and g.result == "gin" and g.scorer == COMPUTER
    end = via.pop()
    L.step("Gin for the computer",
           f"The computer took the {short(got)} too and went gin: it scores {g.points}. "
           f"Knocking when you could was worth {r.points} to you; playing on cost you "
           f"{g.points}.",
           end, highlight=[str(kc), str(got)], via=via)
    L.step("Knock early",
           "Knock early, while the opponent's hand is loose: every turn you wait is a turn "
           "for the opponent to knock first, and every discard may feed it. Play on when "
           "your knock would be undercut, or when gin is one card away late in the hand. "
           "Now try the puzzles on knocking.",
           end)
    return done(L, "When to knock and when to play on",
                ["knock-or-play-on", "gin-or-knock", "undercut-danger"])


def safe_lesson() -> dict[str, Any]:
    L = Lesson("safe-discards")
    h = L.hand
    # play on (nobody knocks) to the player's discard with at most 7 cards in the stock
    L.auto(lambda x: x.to_play == YOU and x.phase is Phase.DRAW and x.stock_count <= 8)
    pre = L.snap()
    text, move, lit, spots = draw_words(h)
    L.step("Late in the stock",
           f"Only {h.stock_count} cards are left in the stock. The hand dies, with no "
           "score, when a discard leaves two (R7); until then the computer needs just one "
           f"good card to knock. {text}", pre, highlight=lit, spots=spots, wait=move.to_json())
    L.play(YOU, move)
    ready = L.snap()
    assert not h.knock_discards()
    risky = card_of(plain_discard(h))
    seen = set(h.cards_of(YOU)) | set(h.discards)
    partners = meld_partners(risky, seen)
    # the safe card: no meld partner unseen, the computer does not take it
    safe = next(c for c in sorted(h.cards_of(YOU), key=lambda c: (h.deadwood_after(c), c.index))
                if c != risky and not meld_partners(c, seen) and harmless(h, c))
    dead = [c for c in (Card.from_index(i) for i in range(52))
            if c != safe and (c.rank_index == safe.rank_index
                              or (c.suit == safe.suit
                                  and abs(c.rank_index - safe.rank_index) <= 2))]
    in_pile = [c for c in dead if c in set(h.discards)]
    in_hand = [c for c in dead if c in set(h.cards_of(YOU))]
    L.step("The tempting discard",
           f"The {short(risky)} leaves you the least deadwood: {h.deadwood_after(risky)}. "
           f"But you have not seen {len(partners)} cards that could meld with it "
           f"({cards(partners)}): the computer may hold some of them.",
           ready, highlight=[str(risky)], spots=["badge"])
    where = []
    if in_pile:
        where.append(f"{cards(in_pile)} on the pile")
    if in_hand:
        where.append(f"{cards(in_hand)} in your hand")
    extra = h.deadwood_after(safe) - h.deadwood_after(risky)
    kept = next(([c for c in m if c != safe] for m in arrange(h.cards_of(YOU)).melds
                 if safe in m and len(m) >= 4), None)
    still = f" Your {cards(kept)} still meld without it." if kept else ""
    L.step("A safe discard",
           f"Every card that could meld with the {short(safe)} is one you have seen "
           f"({' and '.join(where)}): no meld of the computer's can use it.{still} It "
           f"leaves {h.deadwood_after(safe)}, {extra} more, and that is cheap now. Click the "
           f"{short(safe)}.",
           ready, highlight=[str(safe)], wait=Action.discard(safe).to_json())
    saved = h.copy()
    L.play(YOU, Action.discard(safe))
    via = [L.snap()]
    via += L.computer_turn()
    assert h.result is None and h.history[-2].action == DRAW_STOCK
    after = via.pop()
    L.step("Nothing for the computer",
           f"The computer could not use the {short(safe)}: it drew from the stock and threw "
           f"the {short(card_of(h.history[-1].action))}.",
           after, via=via)
    L.hand = h = saved
    L.step("And the tempting one?",
           f"Take that back and throw the {short(risky)} instead, to see what it would "
           f"have done: click the {short(risky)}.",
           ready, highlight=[str(risky)], rewind=True, wait=Action.discard(risky).to_json())
    L.play(YOU, Action.discard(risky))
    via = [L.snap()]
    via += L.computer_turn()
    r = h.result
    assert r is not None and r.scorer == COMPUTER and r.deadwood is not None
    assert h.history[-2].action == DRAW_DISCARD and h.history[-2].card == risky
    end = via.pop()
    word = "went gin" if r.result == "gin" else "knocked"
    L.step("Taken, and knocked",
           f"The computer took the {short(risky)} into a meld and {word}: it scores "
           f"{r.points}. The safe card cost you {extra} points of deadwood; the tempting "
           "one cost the hand.",
           end, highlight=[str(risky)], via=via)
    L.step("Safe discards",
           "Late in the stock, count what you have seen: a card whose meld partners are all "
           "on the pile or in your hand is safe. Throw it, even at a few points of "
           "deadwood, rather than the card the opponent is waiting for. Now try the "
           "puzzles on safe discards.",
           end)
    return done(L, "Safe discards late in the stock", ["safe-discard", "last-cards"])


def pile_lesson() -> dict[str, Any]:
    L = Lesson("pile-takes")
    h = L.hand

    def after_take(x: Hand) -> bool:
        ops = [op for op in x.history if op.seat == COMPUTER
               and op.action.act == "draw" and op.action.source == "discard"]
        return bool(ops) and x.to_play == YOU and x.phase is Phase.DRAW

    L.auto(after_take)
    took = [card_for(op) for op in h.history if op.seat == COMPUTER
            and op.action.act == "draw" and op.action.source == "discard"]
    t = took[0]
    thrown = card_of(h.history[-1].action)
    pre = L.snap()
    L.step("The computer took a card",
           f"The computer took the {short(t)} from the discard pile and threw the "
           f"{short(thrown)}. A player takes a face-up card to meld it: the computer "
           f"now holds cards that go with the {short(t)}, other {rank_name(t)}s or "
           f"{suit_name(t)} next to it.",
           pre, highlight=[str(t)])
    text, move, lit, spots = draw_words(h)
    L.step("Your draw", text, pre, highlight=lit, spots=spots, wait=move.to_json())
    L.play(YOU, move)
    ready = L.snap()
    risky = card_of(plain_discard(h))
    assert risky.rank_index == t.rank_index or (
        risky.suit == t.suit and abs(risky.rank_index - t.rank_index) <= 2)
    safe = next(c for c in sorted(h.cards_of(YOU), key=lambda c: (h.deadwood_after(c), c.index))
                if c != risky and c.rank_index != t.rank_index
                and not (c.suit == t.suit and abs(c.rank_index - t.rank_index) <= 2)
                and harmless(h, c))
    cost = h.deadwood_after(safe) - h.deadwood_after(risky)
    L.step("Hold what it wants",
           f"The {short(risky)} leaves the least deadwood ({h.deadwood_after(risky)}), but "
           f"it would go with the computer's {short(t)}. The {short(safe)} leaves "
           f"{h.deadwood_after(safe)}, {cost} more, and fits nothing the computer showed. "
           f"Click the {short(safe)}.",
           ready, highlight=[str(risky), str(safe)], spots=["badge"],
           wait=Action.discard(safe).to_json())
    saved = h.copy()
    L.play(YOU, Action.discard(safe))
    via = [L.snap()]
    via += L.computer_turn()
    assert h.result is None and h.history[-2].action == DRAW_STOCK
    after = via.pop()
    L.step("The computer draws",
           f"The computer left the {short(safe)} and drew from the stock.",
           after, via=via)
    L.hand = h = saved
    L.step("What if?",
           f"Take that back and throw the {short(risky)}, to see what the computer would do "
           f"with it: click the {short(risky)}.",
           ready, highlight=[str(risky)], rewind=True, wait=Action.discard(risky).to_json())
    L.play(YOU, Action.discard(risky))
    via = [L.snap()]
    via += L.computer_turn()
    r = h.result
    assert r is not None and r.scorer == COMPUTER and r.showdown is not None
    assert h.history[-2].action == DRAW_DISCARD and h.history[-2].card == risky
    meld = next(m for m in r.showdown.knocker_arrangement.melds if risky in m)
    assert t in meld
    end = via.pop()
    word = "went gin" if r.result == "gin" else "knocked"
    L.step("Taken",
           f"The computer took the {short(risky)} at once: with its {short(t)} it makes "
           f"{cards(meld)}. It {word} and scores {r.points}.",
           end, highlight=[str(c) for c in meld], via=via)
    L.step("Reading pile takes",
           "Each card the opponent takes from the pile tells you part of its hand: do not "
           "throw the cards of the same rank, or of the same suit close by, while it may "
           "still use them. Now try the puzzles on pile takes.",
           end)
    return done(L, "What the opponent's pile takes tell you", ["reading-pile-takes"])


def card_for(op: Any) -> Card:
    assert op.card is not None
    card: Card = op.card
    return card


def rank_name(c: Card) -> str:
    return {"A": "ace", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}.get(
        str(c)[0], {"2": "two", "3": "three", "4": "four", "5": "five", "6": "six",
                    "7": "seven", "8": "eight", "9": "nine"}.get(str(c)[0], str(c)[0]))


def suit_name(c: Card) -> str:
    return {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[str(c)[1]]


def done(L: Lesson, title: str, themes: list[str]) -> dict[str, Any]:
    return {"format": "ginrummy-lesson/1", "name": L.name, "title": title,
            "deal": str(DEALS[L.name]), "dealer": COMPUTER, "finish": finish(themes),
            "steps": L.steps, "states": L.states}


BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "knock": knock_lesson, "safe-discards": safe_lesson, "pile-takes": pile_lesson,
}


def text(name: str) -> str:
    """A lesson file's exact contents."""
    return json.dumps(BUILDERS[name](), ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv: list[str]) -> int:
    stale = []
    for name in ORDER:
        out = text(name)
        target = TARGET_DIR / f"{name}.json"
        if "--check" in argv:
            if not target.exists() or target.read_text(encoding="utf-8") != out:
                stale.append(target.name)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(out, encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT)}")
    if "--check" in argv:
        print(f"out of date: {', '.join(stale)}: run scripts/learn_lessons.py" if stale
              else "up to date")
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
