"""``ginrummy play``: a game in the terminal against one of the computer bots.

Plain ``input()``/``print`` so it works in any terminal and through a pipe (the tests
drive it with piped stdin). You sit in seat 0; the bot sees only its own view (R11).
Every refused command changes nothing and prints the rules' sentence saying why (R5).
Long lines wrap at word boundaries to fit an 80-column terminal.

After each of the computer's moves the table says why, in a player's words, from the
computer's own view (R11; :mod:`ginrummy.review.reasons`): ``--no-reasons`` turns this
off. The cards the computer took from the discard pile and still holds are shown with
the table, as the web table shows them.

The deals are provably fair (``docs/fairness.md``): the game shows a commitment to its
secret seed before the first deal and reveals the seed and salt at the end;
``--record FILE`` saves the match so ``ginrummy verify FILE`` can check every deal.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence

from . import exits
from .argtypes import add_table_options
from .bots import Bot, BotError, bot_names, make_bot
from .bots.random_bot import RandomBot
from .cards import Card, CardError
from .driver import Driver, reraise
from .fairness import commitment, deals, new_salt, new_seed, seal
from .hand import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Hand,
    HandResult,
    IllegalActionError,
    Operation,
    Phase,
    View,
)
from .knowledge import Knowledge
from .match import Match
from .melds import arrangements_mask, deadwood_by_discard_mask
from .options import Options, OptionsError
from .scoring import GIN_BONUS, UNDERCUT_BONUS
from .words import plural

__all__ = ["Table", "main", "parse_command"]

YOU = 0
BOT = 1

HELP = """Commands:
  take            take the up-card (or the top of the discard pile)
  pass            pass on the up-card (only while it is offered)
  stock / s       draw from the stock
  pile / p        draw from the discard pile
  d KH            discard a card (also: discard KH, or just KH)
  knock KH        discard KH and knock (also: k KH, gin KH)
  hand            show the table again
  discards        show the whole discard pile, bottom to top
  help            this list
  quit            leave the game
Cards are written rank then suit: AS 2C TD JH QS KC (10D also works for TD)."""

WIDTH = 80
"""Terminal width the table's messages are wrapped to."""
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def wrap(text: str, width: int = WIDTH) -> list[str]:
    """Split ``text`` into lines of at most ``width`` visible characters at spaces (colour
    codes take no room); continuation lines keep the first line's indent plus two.

    >>> wrap("You discard TD and knock with four cards left in a rather long line", 30)
    ['You discard TD and knock with', '  four cards left in a rather', '  long line']
    """
    if "\n" in text:
        return [line for part in text.split("\n") for line in wrap(part, width)]
    if len(_ANSI.sub("", text)) <= width:
        return [text]
    indent = " " * (len(text) - len(text.lstrip(" ")) + 2)
    lines: list[str] = []
    line, seen = "", 0
    for word in text.strip(" ").split(" "):
        n = len(_ANSI.sub("", word))
        if line and seen + 1 + n > width:
            lines.append(line)
            line, seen = indent + word, len(indent) + n
        elif line:
            line, seen = line + " " + word, seen + 1 + n
        else:
            line, seen = " " * (len(indent) - 2) + word, len(indent) - 2 + n
    lines.append(line)
    return lines


class Quit(Exception):
    """The player asked to leave: ``quit`` or Ctrl-D (exit 0), or Ctrl-C (exit 130)."""

    def __init__(self, status: int = exits.OK) -> None:
        super().__init__(status)
        self.status = status


def parse_command(text: str) -> Action | str | None:
    """Read one line of input: an :class:`Action`, a word for a table command
    (``help``, ``hand``, ``quit``), or None for an empty line. Raises ValueError (with a
    sentence for the player) for input it cannot read."""
    raw = text.strip().split()
    words = [w.lower() for w in raw]
    if not words:
        return None
    head, rest = words[0], words[1:]
    if head in ("help", "?", "h"):
        return "help"
    if head in ("quit", "q", "exit"):
        return "quit"
    if head in ("hand", "show", "look", "l"):
        return "hand"
    if head in ("discards", "pile?", "history") and not rest:
        return "discards"
    if not rest:
        if head in ("take", "t", "pile", "p", "discard-pile"):
            return DRAW_DISCARD
        if head == "pass":
            return PASS
        if head in ("stock", "s", "draw"):
            return DRAW_STOCK
        if head in ("d", "discard", "knock", "k", "gin"):
            raise ValueError(f"Which card? For example: {head} KH.")
        try:
            return Action.discard(Card.parse(head))
        except CardError:
            pass
        raise ValueError(_not_understood(text))
    if head == "draw" and len(rest) == 1 and rest[0] in ("stock", "pile", "discard"):
        return DRAW_STOCK if rest[0] == "stock" else DRAW_DISCARD
    if head in ("d", "discard", "knock", "k", "gin") and len(rest) in (1, 2):
        knock = head in ("knock", "k", "gin")
        if len(rest) == 2:
            if rest[1] not in ("knock", "k"):
                raise ValueError(_not_understood(text))
            knock = True
        try:
            card = Card.parse(raw[1])
        except CardError as e:
            raise ValueError(str(e)) from None
        return Action.discard(card, knock)
    raise ValueError(_not_understood(text))


COMMAND_WORDS = ("take", "pass", "stock", "pile", "draw", "discard", "discards", "knock", "gin",
                 "hand", "help", "quit")


def _not_understood(text: str) -> str:
    """The refusal for an unreadable line, naming the command a typo most likely meant."""
    head = text.strip().split()[0].lower() if text.strip() else ""
    guess = difflib.get_close_matches(head, COMMAND_WORDS, n=1, cutoff=0.6)
    hint = f" Did you mean {guess[0]!r}?" if guess else ""
    return f"I do not understand {text.strip()!r}.{hint} Type help for the commands."


class Table:
    """One terminal game: the match, the bot, and how to show cards."""

    def __init__(self, match: Match, bot: Bot, bot_name: str, color: bool,
                 read: Callable[[str], str] = input, write: Callable[[str], None] = print,
                 salt: str | None = None, record_path: str | None = None,
                 hints: bool = False, budget_ms: float | None = None,
                 review: str = "no", reasons: bool = True) -> None:
        self.hints = hints
        # why the computer made each move (a random mover has no reasons to give)
        self.reasons = reasons and not isinstance(bot, RandomBot)
        self._why: dict[tuple[int, int], str] = {}  # (hand index, history index) -> reason
        self.review = review  # after the match: "no", "ask" the player, or "yes"
        self.budget_ms = budget_ms  # the coach's time per decision (hints and the review)
        self.match = match
        self.bot = bot
        self.bot_name = bot_name
        self.color = color
        self.read = read
        self._write = write
        self.salt = salt  # set when the deals are committed (docs/fairness.md)
        self.record_path = record_path
        self._told: tuple[Hand | None, int] = (None, 0)  # the hand narrated, actions told
        self._ended: Hand | None = None  # the hand that just ended

    def write(self, text: str) -> None:
        """Print one message, wrapped at word boundaries to the terminal width."""
        for line in wrap(text):
            self._write(line)

    # ------------------------------------------------------------------ showing cards

    def card(self, c: Card) -> str:
        """A card with its suit symbol, red for hearts and diamonds on a colour terminal."""
        text = c.symbol  # tens as T everywhere, as R1 prints them
        if self.color:
            code = "31" if c.suit in "DH" else "1"
            return f"\x1b[{code}m{text}\x1b[0m"
        return text

    def cards(self, cs: Sequence[Card]) -> str:
        """Several cards, space separated (``-`` for none)."""
        return " ".join(self.card(c) for c in cs) or "-"

    def grouped(self, cs: Iterable[Card]) -> str:
        """Cards with melds bracketed, then the loose cards, and the deadwood (R2)."""
        mask = sum(c.mask for c in cs)
        arr = arrangements_mask(mask)[0]
        melds = "  ".join("[" + self.cards(m) + "]" for m in arr.melds)
        loose = self.cards(sorted(arr.deadwood_cards, key=lambda c: (c.rank_index, c.suit)))
        parts = [p for p in (melds, loose if arr.deadwood_cards else "") if p]
        return "  ".join(parts) + f"   deadwood {arr.deadwood}"

    def name(self, seat: int) -> str:
        """``You`` or the bot's name."""
        return "You" if seat == YOU else self.bot_name

    # ------------------------------------------------------------------ the table

    def show(self) -> None:
        """The table as the human sees it (their view only, R11)."""
        m = self.match
        v = m.view(YOU)
        self.write("")
        limit = "gin only" if v.knock_limit == 0 else f"knock limit {v.knock_limit}"
        self.write(f"Hand {v.hand_index + 1}   You {v.scores[YOU]} - {v.scores[BOT]} "
                   f"{self.bot_name}   (target {m.options.target}, {limit},"
                   f" {self.name(v.dealer).lower() if v.dealer == YOU else self.bot_name} dealt)")
        top = v.discards[-1] if v.discards else None
        pile = self.card(top) if top else "empty"
        n = len(v.discards)
        self.write(f"Discard pile top: {pile}   ({plural(n, 'card')})   "
                   f"Stock: {v.stock_count} cards")
        held = self.opponent_holds(v)
        if held:
            self.write(f"{self.bot_name} holds {self.cards(held)}, taken from the discard pile.")
        self.write(f"Your hand: {self.grouped(v.hand)}")
        if v.phase is Phase.DISCARD and v.to_play == YOU:
            by = deadwood_by_discard_mask(sum(c.mask for c in v.hand))
            allowed = [c for c in v.hand if Action.discard(c) in v.legal]  # not straight back
            pick = min(allowed, key=lambda c: (by[c.index], -c.points))
            best = by[pick.index]
            knockable = [c for c in allowed if Action.discard(c, True) in v.legal]
            tip = f"Lowest deadwood after a discard: {best} (type d {pick})"
            if knockable:
                tip += ("; you can go gin" if best == 0 else "; you can knock") + \
                    f" (e.g. knock {min(knockable, key=lambda c: by[c.index])})"
            self.write(tip + ".")

    @staticmethod
    def opponent_holds(v: View) -> list[Card]:
        """The cards the opponent took from the discard pile and has not thrown back
        (public, R11), in rank order."""
        mask = Knowledge.of(v).opp_known
        return sorted((Card.from_index(i) for i in range(52) if mask >> i & 1),
                      key=lambda c: (c.rank_index, c.suit))

    def prompt(self) -> str:
        """What the human may do now."""
        ph = self.match.hand.phase
        if ph is Phase.OFFER:
            return f"Take the up-card {self.card(self.match.hand.upcard)} or pass? > "
        if ph is Phase.DRAW:
            return "Draw from the stock or the pile? > "
        return "Discard a card (d KH, or knock KH)? > "

    def describe(self, seat: int, action: Action, hand: Hand) -> str:
        """One line telling the human what the bot did as the hand's last action (stock
        draws stay hidden, R11)."""
        line = self.narrate_op(Operation(seat, action, hand.history[-1].card), hand.result)
        return line or ""

    def narrate_op(self, op: Operation, result: HandResult | None,
                   why: str | None = None) -> str | None:
        """The line telling the human about one action (``result``: the hand's, if that
        action ended it): all the bot does (its stock draws hidden, R11), with ``why`` it
        did it if given, and the card the human drew; None for the human's other actions,
        which they typed themselves."""
        line = self._narrate(op, result)
        if line is None or not why:
            return line
        return f"{line[:-1]}: {why}{line[-1]}"

    def _narrate(self, op: Operation, result: HandResult | None) -> str | None:
        action = op.action
        if op.seat == YOU:
            if action.act != "draw":
                return None
            assert op.card is not None
            where = "the stock" if action.source == "stock" else "the discard pile"
            return f"You take {self.card(op.card)} from {where}."
        who = self.name(op.seat)
        if action.act == "pass":
            return f"{who} passes on the up-card."
        if action.act == "draw":
            if action.source == "stock":
                return f"{who} draws from the stock."
            assert op.card is not None
            return f"{who} takes {self.card(op.card)} from the discard pile."
        assert action.card is not None
        if action.knock and result is not None and result.result == "gin":
            return f"{who} discards {self.card(action.card)} and goes gin!"
        if action.knock:
            return f"{who} discards {self.card(action.card)} and knocks!"
        return f"{who} discards {self.card(action.card)}."

    def showdown(self, r: HandResult) -> None:
        """After a hand: both arrangements, the lay-offs and the score (R7-R9)."""
        if r.result == "dead":
            self.write("Only two cards are left in the stock: a dead hand. Nobody scores, and "
                       "the same dealer deals again.")
            return
        sd = r.showdown
        assert sd is not None and r.knocker is not None and r.scorer is not None
        k, d = r.knocker, 1 - r.knocker
        ka, da = sd.knocker_arrangement, sd.defender_arrangement

        def melds(ms: Sequence[Sequence[Card]]) -> str:
            return "  ".join("[" + self.cards(m) + "]" for m in ms) or "no melds"

        self.write("")
        self.write("Showdown:")
        self.write(f"  {self.name(k)} (knocker): {melds(ka.melds)}   deadwood "
                   f"{self.cards(ka.deadwood_cards)} = {sd.knocker_deadwood}")
        self.write(f"  {self.name(d)}: {melds(da.melds)}   deadwood "
                   f"{self.cards(da.deadwood_cards)} = {sd.defender_deadwood}")
        if sd.layoffs:
            lays = ", ".join(f"{self.card(c)} on [{self.cards(ka.melds[i])}]"
                             for c, i in sd.layoffs)
            self.write(f"  {self.name(d)} lays off {lays}")
        self.write("  " + self.score_line(r.result, k, r.scorer, sd.knocker_deadwood,
                                          sd.defender_deadwood, r.points))
        s = self.match.scores
        self.write(f"  Score: You {s[YOU]} - {s[BOT]} {self.bot_name}")

    def score_line(self, result: str, knocker: int, scorer: int, kd: int, dd: int,
                   points: int) -> str:
        """The hand's score with its arithmetic (R9), e.g. ``Knock: 16 - 10 = 6 ...``."""
        who = "You score" if scorer == YOU else f"{self.bot_name} scores"
        pts = "point" if points == 1 else "points"
        if result == "gin":
            return f"Gin: {who} {dd} deadwood + {GIN_BONUS} gin bonus = {points} {pts}."
        defender = "you" if knocker == BOT else self.bot_name
        if result == "undercut":
            return (f"Undercut ({defender} {'have' if knocker == BOT else 'has'} {dd}, "
                    f"not more than {kd}): {who} {kd} - {dd} + {UNDERCUT_BONUS} undercut "
                    f"bonus = {points} {pts}.")
        return f"Knock: {who} {dd} - {kd} = {points} {pts}."

    # ------------------------------------------------------------------ play

    def human_turn(self) -> Action:
        """Read commands until one is a legal action now, and return it (not yet played)."""
        while True:
            try:
                line = self.read(self.prompt())
            except EOFError:  # Ctrl-D at the prompt: leave
                raise Quit from None
            except KeyboardInterrupt:  # Ctrl-C: leave too, but say it was an interruption
                raise Quit(exits.INTERRUPTED) from None
            try:
                cmd = parse_command(line)
            except ValueError as e:
                self.write(str(e))
                continue
            if cmd is None:
                continue
            if cmd == "help":
                self.write(HELP)
                continue
            if cmd == "quit":
                raise Quit
            if cmd == "hand":
                self.show()
                continue
            if cmd == "discards":
                pile = self.match.view(YOU).discards
                self.write(f"Discard pile, bottom to top ({len(pile)}): {self.cards(pile)}")
                continue
            assert isinstance(cmd, Action)
            try:
                self.match.verify(cmd, YOU)
            except IllegalActionError as e:
                self.write(str(e))
                continue
            return cmd

    # The human's seat as a player of the core's play driver: the driver asks the bot and
    # the human in turn, plays their actions and tells both seats when a hand ends.

    def decide(self, view: View) -> Action:
        """The human's move: tell what happened since their last one, show the table,
        and read commands until one is legal."""
        self.catch_up(self.match.hand)
        self.show()
        if self.hints:
            self.hint()
        return self.human_turn()

    def hand_over(self, view: View, result: HandResult | None = None) -> None:
        """A hand ended: tell its last actions, then the showdown and the score."""
        assert self._ended is not None and result is not None
        self.catch_up(self._ended)
        self.showdown(result)

    def _hand_ended(self, hand: Hand) -> None:
        self._ended = hand  # the driver's news of a finished hand, before the players'

    def catch_up(self, hand: Hand) -> None:
        """Write the lines for ``hand``'s actions not told yet (and its opening line)."""
        if hand is not self._told[0]:
            self._told = (hand, 0)
            self.write("")
            self.write(f"--- Hand {hand.hand_index + 1}: {self.name(hand.dealer)} "
                       f"{'deal' if hand.dealer == YOU else 'deals'}; the up-card is "
                       f"{self.card(hand.upcard)}. ---")
        history = hand.history
        for i in range(self._told[1], len(history)):
            last = i == len(history) - 1
            why = self._why.pop((hand.hand_index, i), None)
            line = self.narrate_op(history[i], hand.result if last else None, why)
            if line is not None:
                self.write(line)
        self._told = (hand, len(history))

    def play(self) -> int:
        """Play to the end of the match (or until the player quits); returns the exit code."""
        m = self.match
        self.bot.new_match(BOT)
        self.write(f"Gin Rummy against {self.bot_name}. Type help for the commands.")
        if self.salt is not None and m.seed is not None:
            self.write(f"Fair deals: before the first deal the seed is committed as SHA-256 "
                       f"{commitment(m.seed, self.salt)}; the seed and salt are shown at the "
                       "end.")
        try:
            return self._play()
        finally:
            self.reveal()

    def reveal(self) -> None:
        """After the match (or on leaving): show the seed and salt, and save the record."""
        m = self.match
        if self.salt is None or m.seed is None:
            return
        self.write(f"Fair deals: seed {m.seed}, salt {self.salt}.")
        if self.record_path is None:
            self.write("(Save the game with --record FILE to check it with ginrummy verify.)")
            return
        try:
            with open(self.record_path, "w", encoding="utf-8") as f:
                json.dump(seal(m.to_record(), self.salt), f)
                f.write("\n")
        except OSError as e:
            self.write(f"Cannot save the record to {self.record_path}: {e.strerror or e}.")
            return
        self.write(f"Saved to {self.record_path}: check it with ginrummy verify "
                   f"{self.record_path}")

    def note_reason(self, view: View, action: Action) -> None:
        """Work out why the bot plays ``action`` from its own ``view`` (R11) and keep it
        for the line that tells the move: the evaluator's figures when the bot consulted
        it (``expert`` keeps them in ``last``, its first choice in ``default``)."""
        from .evaluator.evaluation import Evaluation
        from .review.reasons import reason

        ev = getattr(self.bot, "last", None)
        first = getattr(self.bot, "default", None)
        self._why[(view.hand_index, len(view.history))] = reason(
            view, action, ev if isinstance(ev, Evaluation) else None,
            first_choice=first if isinstance(first, Action) else None, card=self.card)

    def _play(self) -> int:
        m = self.match
        bot: Bot | _Explained = _Explained(self) if self.reasons else self.bot
        players = (self, bot)  # seats YOU and BOT
        try:  # a bot's error is raised as it is; so is the human's Quit
            Driver(m, players, on_failure=reraise, on_hand_over=self._hand_ended).run()
        except Quit as q:
            self.write("")
            self.write(f"You leave the table. Score: You {m.scores[YOU]} - {m.scores[BOT]} "
                       f"{self.bot_name}. Goodbye.")
            return q.status
        out = m.outcome()
        assert out is not None
        self.write("")
        if out.winner is None:
            self.write(f"The match ends in a tie at {out.scores[0]} after "
                       f"{plural(out.hands, 'hand')}.")
        elif out.winner == YOU:
            self.write(f"You win the match {out.scores[YOU]} - {out.scores[BOT]} "
                       f"after {plural(out.hands, 'hand')}!")
        else:
            self.write(f"{self.bot_name} wins the match {out.scores[BOT]} - {out.scores[YOU]} "
                       f"after {plural(out.hands, 'hand')}.")
        self.offer_review()
        return 0

    # ------------------------------------------------------------------ the coach

    def hint(self) -> None:
        """The coach's suggestion from the human's view only (R11): the end-of-match
        review's own verdict (the same samples, seed and opponent model), so a move made
        on the hint is never marked by it."""
        from .review.grade import styles_at
        from .review.hints import suggest

        self.write("Hint: " + suggest(self.match.view(YOU), styles=styles_at(self.match, YOU),
                                      card=self.card, budget_ms=self.budget_ms))

    def offer_review(self) -> None:
        """Review the human's decisions once the match is over (asking first if so set)."""
        if self.review == "no":
            return
        if self.review == "ask":
            try:
                answer = self.read("Review your decisions? [y/N] > ")
            except EOFError:
                return
            if answer.strip().lower() not in ("y", "yes"):
                return
        from .review import review_match
        from .review.command import ProgressBar

        review = review_match(self.match, seats=(YOU,), budget_ms=self.budget_ms,
                              progress=ProgressBar(sys.stderr))
        self.write(review.to_text(all_decisions=False))


class _Explained:
    """The computer's seat as the play driver sees it: the bot decides from its view, and
    the table notes why before the move is played (:meth:`Table.note_reason`)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def decide(self, view: View) -> Action:
        action = self.table.bot.decide(view)
        if action in view.legal:  # an illegal answer is the driver's to report
            self.table.note_reason(view, action)
        return action

    def hand_over(self, view: View, result: HandResult | None = None) -> None:
        self.table.bot.hand_over(view, result)


def _default_bot() -> str:
    names = bot_names()
    for n in ("medium", "simple", "random"):
        if n in names:
            return n
    return names[0]


def main(argv: list[str]) -> int:
    """``ginrummy play [--vs BOT] [--seed S] [--target T] [--gin-only] [--oklahoma]``."""
    p = argparse.ArgumentParser(
        prog="ginrummy play", description="Play Gin Rummy in the terminal against a bot.",
        epilog=exits.epilog("the match ended, or you left (quit or Ctrl-D)",
                            interrupted="stopped with Ctrl-C (the score is shown and "
                            "--record saved first)"))
    p.add_argument("--vs", default=None, help=f"the opponent: {', '.join(bot_names())} "
                   f"(default {_default_bot()})")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the deals and the bot (default: a fresh secret one, shown "
                   "when the match ends)")
    add_table_options(p)
    p.add_argument("--no-color", action="store_true", help="no ANSI colours")
    p.add_argument("--record", metavar="FILE",
                   help="save the match as a ginrummy/1 record (check it with ginrummy verify)")
    p.add_argument("--hints", action="store_true",
                   help="show the coach's suggestion before each of your decisions")
    p.add_argument("--review", action="store_true",
                   help="review your decisions at the end of the match without asking "
                        "(on a terminal you are asked)")
    p.add_argument("--no-reasons", action="store_false", dest="reasons",
                   help="do not say why the computer makes each move (by default each of "
                   "its moves comes with a reason worked out from its own view, which names "
                   "some of its cards; a random mover gives none)")
    p.add_argument("--budget-ms", type=float, default=None, dest="budget_ms",
                   help="a time limit per decision in ms for the end-of-match review (default "
                   "none: the review depends on the match alone; hints always do)")
    args = p.parse_args(argv)
    if args.budget_ms is not None and not 0 < args.budget_ms < float("inf"):
        print("ginrummy play: --budget-ms must be a positive number.", file=sys.stderr)
        return exits.USAGE
    name = args.vs or _default_bot()
    try:
        options = Options(target=args.target, gin_only=args.gin_only, oklahoma=args.oklahoma)
        bot = make_bot(name, args.seed)
    except (OptionsError, BotError) as e:
        print(f"ginrummy play: {e}", file=sys.stderr)
        return exits.USAGE
    seed = args.seed if args.seed is not None else new_seed()
    if seed < 0:
        print(f"ginrummy play: --seed must not be negative, not {seed}.", file=sys.stderr)
        return exits.USAGE
    match = Match(options, seed=seed, players=("you", name), deals=deals(seed))
    color = sys.stdout.isatty() and not args.no_color
    try:
        return Table(match, bot, name.capitalize(), color, salt=new_salt(),
                     record_path=args.record, hints=args.hints, budget_ms=args.budget_ms,
                     review="yes" if args.review else "ask" if sys.stdin.isatty() else "no",
                     reasons=args.reasons).play()
    except KeyboardInterrupt:  # while the computer thinks, or at the review's question
        print("\nGoodbye.")
        return exits.INTERRUPTED
