"""Practise your own mistakes in the terminal: ``ginrummy review FILE --practise`` offers
each marked decision of the review as a puzzle, one at a time (docs/review.md).

The position is shown as the deciding seat saw it (R11): its hand, the pile, what the
opponent took, threw and passed, the stock and the score. An answer is read from a line of
standard input: a move's number in the list shown, or the move in words (``discard KH``,
``knock 9C``, ``draw stock``, ``take``, ``pass``, or just a card to discard it); ``skip``
goes to the next, ``quit`` (or the end of input) stops. The answer is checked against a
fresh measure of every legal move (:func:`~ginrummy.training.puzzles.measure`, the same
the web's puzzles use), so a move as good as the best counts as right.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from ..actions import DRAW_DISCARD, DRAW_STOCK, PASS, Action, IllegalActionError
from ..cards import Card, CardError
from ..hand import Phase, View
from ..melds import arrange
from ..review.grade import Graded
from ..review.report import action_words
from .puzzles import PUZZLE_SAMPLES, Answer, measure, source_seed, with_reasons

__all__ = ["describe", "parse_answer", "practise"]


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards) or "-"


def describe(view: View) -> list[str]:
    """The position as lines of text, from the seat's view only (R11)."""
    o = view.options
    arr = arrange(list(view.hand))
    what = {Phase.OFFER: "take the up-card or pass (R4)", Phase.DRAW: "draw",
            Phase.DISCARD: "discard"}.get(view.phase, "wait")
    return [
        f"Hand {view.hand_index + 1}, score {view.scores[view.seat]}-"
        f"{view.scores[1 - view.seat]} (you first; target {o.target}"
        + (", gin only" if o.gin_only else "") + (", Oklahoma" if o.oklahoma else "")
        + f"); you are seat {view.seat}" + (", the dealer" if view.dealer == view.seat
                                             else "") + ".",
        f"  Your hand:   {_cards(sorted(view.hand))}  (deadwood {arr.deadwood})",
        f"  The pile:    {_cards(view.discards)}  (top last)",
        f"  Opponent took {_cards(view.opponent_took)}; threw {_cards(view.opponent_discarded)}"
        f"; passed {_cards(view.opponent_passed)}.",
        f"  Stock: {view.stock_count} cards. Knock limit {view.knock_limit}. You are to "
        f"{what}.",
    ]


def parse_answer(text: str, legal: Sequence[Action]) -> Action | str:
    """The legal move a typed answer names (module docstring), or a sentence saying why
    it names none.

    >>> from ginrummy.hand import DRAW_STOCK, DRAW_DISCARD
    >>> parse_answer("2", [DRAW_STOCK, DRAW_DISCARD]) is DRAW_DISCARD
    True
    >>> parse_answer("discard KH", [DRAW_STOCK, DRAW_DISCARD])
    'That move is not legal here: choose one of the moves listed.'
    """
    words = text.strip().lower().split()
    if not words:
        return "Type a move, its number, 'skip' or 'quit'."
    if len(words) == 1 and words[0].isdigit():
        i = int(words[0])
        if 1 <= i <= len(legal):
            return legal[i - 1]
        return f"Choose a number from 1 to {len(legal)}."
    short = {"take": DRAW_DISCARD, "stock": DRAW_STOCK, "pass": PASS}
    action: Action | None = short.get(" ".join(words))
    try:
        if action is None and len(words) == 2 and words[0] == "knock":
            action = Action.discard(Card.parse(words[1]), True)
        elif action is None and len(words) == 1:
            action = Action.discard(Card.parse(words[0]))
        elif action is None:
            action = Action.parse(" ".join(words))
    except (CardError, IllegalActionError) as e:
        return str(e)
    if action not in legal:
        return "That move is not legal here: choose one of the moves listed."
    return action


def _result_lines(answer: Answer, action: Action, why: str) -> list[str]:
    right = answer.correct(action)
    best = answer.best
    lines = ["Right!" if right else f"Not quite: the best is to {action_words(best)}."]
    lines.append(f"  {why}")
    mistake = answer.value_of(action).why if not right else None
    if mistake:
        lines.append(f"  To {action_words(action)}: {mistake}.")
    lines.append(f"  Every move, win chance for the match ± its standard error "
                 f"({answer.samples} deals):")
    for v in answer.values:
        mark = "  <- yours" if v.action == action else ""
        lines.append(f"    {action_words(v.action):<22} {100 * v.win:5.1f}% "
                     f"± {100 * v.se:.1f}{mark}")
    return lines


def practise(graded: Sequence[Graded], stdin: TextIO, stdout: TextIO, *,
             samples: int = PUZZLE_SAMPLES, seed: int = 0) -> tuple[int, int]:
    """Offer each marked decision of ``graded`` as a puzzle (module docstring); returns
    (answered right, offered)."""
    marked = [g for g in graded if g.mark is not None]
    write = stdout.write
    if not marked:
        write("\nNo marked decisions to practise.\n")
        return 0, 0
    write(f"\nPractise: {len(marked)} marked decision"
          f"{'' if len(marked) == 1 else 's'} as puzzles. Answer with a move's number or "
          "words (discard KH, knock 9C, draw stock, take, pass), 'skip' or 'quit'.\n")
    right = offered = 0
    for n, g in enumerate(marked, 1):
        view = g.moment.view
        answer, why = with_reasons(view, measure(view, samples, source_seed(
            seed, "practise", g.moment.hand, g.moment.action)))
        legal = list(view.legal)
        write(f"\nPuzzle {n} of {len(marked)} (hand {g.moment.hand + 1}, move "
              f"{g.moment.action + 1}):\n")
        write("\n".join(describe(view)) + "\n")
        for i, a in enumerate(legal, 1):
            write(f"  {i:>2}. {action_words(a)}\n")
        offered += 1
        while True:
            write("Your move: ")
            stdout.flush()
            line = stdin.readline()
            if not line or line.strip().lower() == "quit":
                write("\n" if not line else "")
                return right, offered
            if line.strip().lower() == "skip":
                break
            got = parse_answer(line, legal)
            if isinstance(got, str):
                write(got + "\n")
                continue
            right += answer.correct(got)
            write("\n".join(_result_lines(answer, got, why)) + "\n")
            break
    write(f"\nPractised {offered}: {right} right.\n")
    return right, offered
