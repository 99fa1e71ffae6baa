"""`ginrummy play`: the terminal game driven through piped input (R4, R5, R9, R11)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from ginrummy.bots import make_bot
from ginrummy.cards import Card
from ginrummy.cli import main as cli_main
from ginrummy.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Deal, Hand, Phase, View
from ginrummy.match import Match
from ginrummy.melds import deadwood_by_discard_mask
from ginrummy.tui import Table, main, parse_command


def play_piped(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
               lines: list[str], argv: list[str]) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(x + "\n" for x in lines)))
    rc = main(argv)
    return rc, capsys.readouterr().out


def flat(lines: list[str]) -> str:
    """The table's output with wrapped lines joined and runs of spaces collapsed."""
    return " ".join(" ".join(lines).split())


def norm(text: str) -> str:
    return " ".join(text.split())


def test_parse_command() -> None:
    assert parse_command("take") is DRAW_DISCARD and parse_command("pile") is DRAW_DISCARD
    assert parse_command("pass") is PASS
    assert parse_command("stock") is DRAW_STOCK and parse_command("s") is DRAW_STOCK
    assert parse_command("d KH") == Action.discard("KH")
    assert parse_command("discard 10h") == Action.discard("TH")
    assert parse_command("kh") == Action.discard("KH")
    assert parse_command("knock 7c") == Action.discard("7C", knock=True)
    assert parse_command("d 7c knock") == Action.discard("7C", knock=True)
    assert parse_command("  ") is None
    assert parse_command("help") == "help" and parse_command("quit") == "quit"
    for bad, msg in [("dance", "I do not understand 'dance'"), ("d", "Which card?"),
                     ("d ZZ", "Unknown card 'ZZ'")]:
        with pytest.raises(ValueError, match=msg):
            parse_command(bad)


def test_piped_game_shows_the_table_and_refuses_bad_input(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = play_piped(monkeypatch, capsys,
                         ["help", "dance", "stock", "pass", "pass", "stock", "quit"],
                         ["--vs", "random", "--seed", "3"])
    assert rc == 0
    assert "Gin Rummy against Random" in out  # the bot's name begins sentences
    assert "knock KH" in out  # help text
    assert "I do not understand 'dance'" in out
    assert "While the up-card is offered you may only take it or pass." in out  # R4
    assert "Your hand:" in out and "deadwood" in out and "Stock: " in out
    assert "\x1b[" not in out  # no colour when stdout is not a terminal
    assert "Goodbye." in out
    assert "Traceback" not in out


def test_end_of_input_leaves_cleanly(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = play_piped(monkeypatch, capsys, [], ["--vs", "random", "--seed", "1"])
    assert rc == 0 and "Goodbye." in out


def test_unknown_bot_exits_2(monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["--vs", "nobody"]) == 2
    assert "Unknown bot 'nobody'" in capsys.readouterr().err


def scripted_table(lines: list[str], deal: Deal, first_dealer: int) -> tuple[Table, list[str]]:
    out: list[str] = []
    feed = iter(lines)

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    match = Match(seed=1, first_dealer=first_dealer, deals=[deal])
    return Table(match, make_bot("random", 0), "Random", False, read, out.append), out


def test_straight_back_is_refused_with_the_exact_sentence() -> None:
    """R5: the up-card just taken may not be discarded on the same turn."""
    deal = Deal.build("2C 3C 4C 9D 9H JS QS KS 5H 7D", "AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "KH")
    table, out = scripted_table(["take", "d KH", "d 5h"], deal, first_dealer=1)
    table.play()
    text = "\n".join(out)
    assert "You take K♥ from the discard pile." in text
    assert "You cannot put that straight back." in text
    hand = table.match.hands[0]
    assert hand.history[1].action == Action.discard("5H")  # refused command changed nothing


def test_knock_not_allowed_and_showdown_after_a_knock() -> None:
    """R6 refusal sentence, then a knock with its showdown (R8, R9) shown to the player."""
    deal = Deal.build("2C 3C 4C 9D 9H 9S JS QS KS 5H", "AH 2H 3H 6D 7D 8S TC JC QD KD", "4D")
    table, out = scripted_table(["take", "knock 2c", "knock 5h"], deal, first_dealer=1)
    table.play()
    text = flat(out)
    assert ("You cannot knock: discarding 2C leaves 16 deadwood, more than the knock limit "
            "of 10.") in text
    assert "Showdown:" in text
    assert norm("You (knocker): [9♦ 9♥ 9♠]  [2♣ 3♣ 4♣]  [J♠ Q♠ K♠]   deadwood 4♦ = 4") in text
    assert "Random: [A♥ 2♥ 3♥]" in text and "= 61" in text
    assert "Knock: You score 61 - 4 = 57 points." in text  # R9: the difference
    assert "Score: You 57 - 0 Random" in text
    assert table.match.scores == (57, 0)


def test_a_whole_match_through_the_table() -> None:
    """Drive a full match with a simple scripted player: every hand's showdown and the
    match result are shown (R9, R10)."""
    out: list[str] = []
    match = Match(seed=7)
    table_ref: list[Table] = []

    def read(prompt: str) -> str:
        m = table_ref[0].match
        v = m.view(0)
        if v.phase is Phase.OFFER:
            return "pass"
        if v.phase is Phase.DRAW:
            return "stock"
        by = deadwood_by_discard_mask(sum(c.mask for c in v.hand))
        best = min((i for i in by if Action.discard(Card.from_index(i)) in v.legal),
                   key=lambda i: by[i])
        card = Card.from_index(best)
        knock = Action.discard(card, True) in v.legal
        return ("knock " if knock else "d ") + str(card).lower()

    table = Table(match, make_bot("random", 3), "random", False, read, out.append)
    table_ref.append(table)
    assert table.play() == 0
    assert match.is_over()
    text = "\n".join(out)
    assert text.count("Showdown:") == sum(1 for h in match.hands
                                          if h.result and h.result.result != "dead")
    assert "You win the match" in text or "random wins the match" in text
    assert "You cannot" not in text and "I do not understand" not in text


def test_colour_marks_red_suits() -> None:
    table, _ = scripted_table([], Deal.build("2C 3C 4C 9D 9H 9C JH QS KS 5H",
                                             "AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "KH"), 0)
    table.color = True
    assert table.card(Card.parse("KH")) == "\x1b[31mK♥\x1b[0m"
    assert "\x1b[31m" not in table.card(Card.parse("KS"))


def test_discard_tip_never_suggests_the_card_just_taken() -> None:
    """R5: the tip names the best discard the player may make, not the up-card just taken
    (throwing K♥ back would leave 30, but the best allowed discard leaves 31)."""
    deal = Deal.build("2C 3C 4C 9D 9H JS QS KS 5H 7D", "AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "KH")
    table, out = scripted_table(["take"], deal, first_dealer=1)
    table.play()
    tips = [line for line in out if line.startswith("Lowest deadwood after a discard")]
    assert tips == ["Lowest deadwood after a discard: 31 (type d 9D)."]


def test_typos_get_a_suggestion_and_card_errors_keep_the_spelling() -> None:
    """A mistyped command names the nearest command; nothing is played."""
    with pytest.raises(ValueError, match="Did you mean 'discard'"):
        parse_command("dsicard KH")
    with pytest.raises(ValueError, match="Did you mean 'stock'"):
        parse_command("stokc")
    with pytest.raises(ValueError) as e:
        parse_command("xyzzy")
    assert "Did you mean" not in str(e.value)
    with pytest.raises(ValueError, match="Unknown card 'Q7'"):
        parse_command("knock Q7")


def test_gin_score_line_shows_the_bonus() -> None:
    """R9: gin scores the defender's whole deadwood plus 25, and no lay-offs are shown."""
    deal = Deal.build("2C 3C 4C 9D 9H 9S JS QS KS 5H", "AH 2H 3H 6D 7D 8S TC JC QD KD", "5C")
    table, out = scripted_table(["take", "gin 5h"], deal, first_dealer=1)
    table.play()
    text = "\n".join(out)
    assert "Gin: You score 61 deadwood + 25 gin bonus = 86 points." in text
    assert "lays off" not in text
    assert table.match.scores == (86, 0)


def test_undercut_score_line_shows_the_bonus() -> None:
    """R9: a defender at or under the knocker's deadwood scores the difference plus 25."""
    deal = Deal.build("2C 3C 4C 9D 9H 9S JS QS 4H 5H", "AH 2H 3H 6D 7D 8D TC JC QC AD", "KS")
    table, out = scripted_table(["take", "knock 5h"], deal, first_dealer=1)
    table.play()
    text = flat(out)
    assert ("Undercut (Random has 1, not more than 4): Random scores 4 - 1 + 25 undercut "
            "bonus = 28 points.") in text
    assert table.match.scores == (0, 28)


def test_ctrl_c_at_the_prompt_leaves_with_the_score_and_exit_130() -> None:
    """Ctrl-C while the player is asked for a move ends the game as quit does (the score),
    but exits 130 like every command stopped with Ctrl-C; Ctrl-D is a plain leave, 0."""
    out: list[str] = []

    def read(prompt: str) -> str:
        raise KeyboardInterrupt

    table = Table(Match(seed=2), make_bot("random", 0), "Random", False, read, out.append)
    assert table.play() == 130
    assert out[-1] == "You leave the table. Score: You 0 - 0 Random. Goodbye."

    def eof(prompt: str) -> str:
        raise EOFError

    table = Table(Match(seed=2), make_bot("random", 0), "Random", False, eof, out.append)
    assert table.play() == 0


def test_ctrl_c_saves_the_record_first_and_exits_130(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """Interrupted at a move or while the computer thinks: the record is saved, and it
    verifies (the seed is revealed on leaving)."""
    path = tmp_path / "game.json"

    class Keyboard(io.StringIO):
        """Piped moves, then Ctrl-C."""

        def readline(self, size: int = -1, /) -> str:  # type: ignore[override]
            line = super().readline()
            if not line:
                raise KeyboardInterrupt
            return line

    monkeypatch.setattr("sys.stdin", Keyboard("pass\nstock\n"))
    assert main(["--vs", "random", "--seed", "4", "--record", str(path)]) == 130
    assert "Goodbye." in capsys.readouterr().out
    assert cli_main(["verify", str(path)]) == 0

    def bot_interrupted(self: object, view: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("ginrummy.bots.random_bot.RandomBot.decide", bot_interrupted)
    monkeypatch.setattr("sys.stdin", io.StringIO("pass\n" + "stock\n" * 5))
    path.unlink()
    assert main(["--vs", "random", "--seed", "5", "--record", str(path)]) == 130
    assert capsys.readouterr().out.rstrip().endswith("Goodbye.")
    assert cli_main(["verify", str(path)]) == 0


def test_long_messages_wrap_at_word_boundaries_within_80_columns() -> None:
    out: list[str] = []
    table = Table(Match(seed=2), make_bot("random", 0), "A-rather-long-computer-name", True,
                  lambda prompt: "quit", out.append)
    table.write("You cannot knock: discarding 2C leaves 16 deadwood, more than the knock "
                "limit of 10, and " + table.cards([Card.parse(c) for c in ("TD", "JD", "QD", "KD")])
                + " are red.")
    assert len(out) == 2 and out[1].startswith("  ")
    visible = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in out]
    assert all(len(v) <= 80 for v in visible)
    assert " ".join(v.strip() for v in visible).endswith("T♦ J♦ Q♦ K♦ are red.")
    assert all(not v.endswith("-") for v in visible)  # no word was cut


def test_a_bots_gin_is_announced_once_as_gin() -> None:
    deal = Deal.build("AH 2H 3H 6D 7D 8S TC JC QD KD", "2C 3C 4C 9D 9H 9S JS QS KS 5H", "5C")
    match = Match(seed=1, first_dealer=0, deals=[deal])
    table = Table(match, make_bot("random", 0), "Random", False, lambda p: "quit",
                  lambda s: None)
    hand = match.hand
    match.play(DRAW_DISCARD, 1)
    gin = Action.discard("5H", knock=True)
    match.play(gin, 1)
    assert table.describe(1, gin, hand) == "Random discards 5♥ and goes gin!"


def test_the_discards_command_shows_the_whole_pile() -> None:
    deal = Deal.build("2C 3C 4C 9D 9H JS QS KS 5H 7D", "AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "KH")
    table, out = scripted_table(["help", "pass", "discards"], deal, first_dealer=1)
    table.play()
    assert "  discards        show the whole discard pile, bottom to top" in out  # help
    pile = table.match.view(0).discards
    assert f"Discard pile, bottom to top ({len(pile)}): {table.cards(pile)}" in out


def test_a_gin_only_table_says_gin_only() -> None:
    from ginrummy.options import Options

    out: list[str] = []
    table = Table(Match(Options(gin_only=True), seed=2, first_dealer=1), make_bot("random", 0),
                  "Random", False, lambda prompt: "quit", out.append)
    table.play()
    text = flat(out)
    assert "gin only" in text and "knock limit 0" not in text


def test_a_hand_the_bot_ends_before_the_player_moves_is_told_in_order() -> None:
    """The play driver ends the hand on the bot's gin (R6) before the human is asked: the
    opening line, the bot's two actions and the showdown still come in that order."""
    deal = Deal.build("AH 2H 3H 6D 7D 8S TC JC QD KD", "2C 3C 4C 9D 9H 9S JS QS KS 5H", "5C")
    out: list[str] = []
    match = Match(seed=1, first_dealer=0, deals=[deal])
    table = Table(match, make_bot("strong", 0), "Strong", False, lambda p: "quit", out.append)
    table.play()
    start = out.index("--- Hand 1: You deal; the up-card is 5♣. ---")
    assert out[start + 1:start + 5] == [
        "Strong takes 5♣ from the discard pile: it gives gin.",
        "Strong discards 5♥ and goes gin: the ten cards left all meld!", "", "Showdown:"]
    assert match.hands[0].result is not None and match.hands[0].result.result == "gin"


# ---------------------------------------------------------------- the computer explained


def test_each_computer_move_comes_with_its_reason_and_no_reasons_turns_them_off() -> None:
    """The reason follows the move's own words, and is the one
    :func:`ginrummy.review.reasons.reason` gives from the computer's view (R11)."""
    from ginrummy.review.reasons import reason

    deal = Deal.build("AH 2H 3H 6D 7D 8S TC JC QD KD", "2C 3C 4C 9D 9H 9S JS QS KS 5H", "5C")
    hand = Hand(deal, dealer=0)
    expected = reason(hand.view(1), DRAW_DISCARD, card=lambda c: c.symbol)
    assert expected == "it gives gin"
    out: list[str] = []
    Table(Match(seed=1, first_dealer=0, deals=[deal]), make_bot("strong", 0), "Strong", False,
          lambda p: "quit", out.append, reasons=False).play()
    assert "Strong takes 5♣ from the discard pile." in out
    assert "Strong discards 5♥ and goes gin!" in out


def test_a_random_mover_gives_no_reasons(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = play_piped(monkeypatch, capsys, ["pass", "pass", "stock", "quit"],
                         ["--vs", "random", "--seed", "3"])
    lines = [line for line in out.splitlines() if line.startswith("Random ")]
    assert rc == 0 and lines and not any(":" in line for line in lines)


def test_the_evaluators_figures_are_read_from_the_bot() -> None:
    """A bot that consulted the evaluator keeps its figures in ``last`` and its first
    choice in ``default`` (as ``expert`` does): the reason says what they say."""
    from ginrummy.bots import Bot
    from ginrummy.evaluator import ActionValue, Evaluation

    class Weighing(Bot):
        last: Evaluation | None = None
        default: Action | None = None

        def decide(self, view: View) -> Action:
            if DRAW_DISCARD not in view.legal:
                raise AssertionError("the test stops after the first move")
            rows = {PASS: (0.5, 0.5, 0.5, 0.5), DRAW_DISCARD: (0.6, 0.62, 0.58, 0.6)}
            self.last = Evaluation(
                tuple(ActionValue(a, sum(r) / 4, 0, 0, 0) for a, r in rows.items()), 4,
                tuple(rows.values()), tuple((0.0,) * 4 for _ in rows))
            self.default = PASS
            return DRAW_DISCARD

    deal = Deal.build("AS 3S 5S 7S 9S JS 2H 4H 6H 8H", "7C 8C 2D 4D 6D 9H JH KS QS 3H", "9C")
    out: list[str] = []
    table = Table(Match(seed=1, first_dealer=0, deals=[deal]), Weighing(), "Weighing", False,
                  lambda p: "quit", out.append)
    with pytest.raises(AssertionError, match="stops"):
        table.play()
    table.catch_up(table.match.hand)
    assert ("Weighing takes 9♣ from the discard pile: it makes the 7-8-9 of clubs, deadwood "
            "down from 69 to 44; the evaluator gives it 10.0% more match wins than its first "
            "choice, passing.") in flat(out)


def test_play_help_documents_no_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = norm(capsys.readouterr().out)
    assert "--no-reasons" in text and "why the computer makes each move" in text


def _strong_player(table_ref: list[Table], seed: int) -> Callable[[str], str]:
    """The human's seat played by ``strong-fast`` through typed commands."""
    me = make_bot("strong-fast", seed)

    def read(prompt: str) -> str:
        v = table_ref[0].match.view(0)
        if table_ref[0].match.hand.hand_index >= 3:
            return "quit"
        a = me.decide(v)
        if a.act == "pass":
            return "pass"
        if a.act == "draw":
            return "stock" if a.source == "stock" else "take"
        return ("knock " if a.knock else "d ") + str(a.card)

    return read


SYMBOL = re.compile(r"\b([A2-9TJQK])([♣♦♥♠])")
SUITS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}


@pytest.mark.parametrize(("bot", "seed"), [("strong", 11), ("marjj", 12), ("expert-fast", 13)])
def test_reasons_and_held_cards_never_show_the_humans_hidden_cards(bot: str, seed: int) -> None:
    """R11 at the table: in every line with a computer's reason, each card named is the
    computer's, in the pile, or taken from it by the human; the "holds" line lists
    exactly the pile cards the computer took and still holds."""
    from ginrummy.knowledge import Knowledge

    table_ref: list[Table] = []
    checked = {"reasons": 0, "holds": 0}
    lines: list[str] = []
    name = bot.split("-")[0].capitalize()

    def write(line: str) -> None:
        lines.append(line)
        hand = table_ref[0]._told[0]
        if hand is None:
            return
        me, it = hand.view(0), hand.view(1)
        took_back = set(me.opponent_took) - set(me.discards) - set(me.hand)
        if line.startswith(f"{name} holds "):
            shown = {Card.parse(r + SUITS[s]) for r, s in SYMBOL.findall(line)}
            assert shown == took_back == {Card.from_index(i) for i in range(52)
                                          if Knowledge.of(me).opp_known >> i & 1}, line
            checked["holds"] += 1
        elif line.startswith(f"{name} ") and ": " in line:
            named = {Card.parse(r + SUITS[s]) for r, s in SYMBOL.findall(line)}
            mine_known = set(it.opponent_took) - set(it.discards) - set(it.hand)
            hidden = set(me.hand) - mine_known
            assert not named & hidden, line
            checked["reasons"] += 1

    match = Match(seed=seed)
    table = Table(match, make_bot(bot, seed), name, False, _strong_player(table_ref, seed),
                  write)
    table_ref.append(table)
    table.play()
    assert checked["reasons"] > 10 and checked["holds"] > 5
    assert ("the evaluator" in flat(lines)) == (bot == "expert-fast")
