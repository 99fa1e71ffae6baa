"""The ``ginrummy`` command: analyze, replay and verify, and the faces built on the core
(serve, play, match, review, bot, bench, db, dataset, export, ...), each loaded only when
asked for. Exit statuses are :mod:`ginrummy.exits`'s, the same for every command."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from . import exits
from .cards import SUIT_SYMBOLS, Card, CardError, format_cards, parse_cards
from .fairness import Verification, verify_record
from .files import read_input
from .hand import Action, Hand
from .match import TIMEOUT_LIMIT, Match, Termination
from .melds import arrangements_mask, deadwood_by_discard_mask
from .record import RecordError, loads, read_partial, summary
from .words import every, plural

# Sub-commands that live in other modules: name -> (module, help). Each module has
# ``main(argv: list[str]) -> int``.
EXTERNAL = {
    "serve": ("ginrummy.web.server", "run the web table in the browser (docs/web-api.md)"),
    "db": ("ginrummy.web.commands.db", "the web table's database schema: upgrade, current, "
           "history (docs/deploy.md)"),
    "play": ("ginrummy.tui", "play in the terminal against the computer"),
    "match": ("ginrummy.arena", "bot-vs-bot matches with statistics (docs/bots.md)"),
    "bot": ("ginrummy.protocol", "run a bot over the ginrummy-bot/1 protocol (docs/protocol.md)"),
    "bench": ("ginrummy.bench", "solver and state-machine benchmarks"),
    "review": ("ginrummy.training.command",
               "grade every decision of a record, as a coach would"),
    "connect": ("ginrummy.connect", "play online with a bot, as the account of an API token "
                "(docs/protocol.md)"),
    "accounts": ("ginrummy.web.commands.accounts", "accounts of the web table: the moderator "
                 "role (docs/fair-play.md)"),
    "puzzles": ("ginrummy.web.commands.puzzles", "make puzzles from matches into the web "
                "table's database, and check them (docs/training.md)"),
    "dataset": ("ginrummy.research.dataset", "self-play labelled by the coach, as open data "
                "files (docs/research.md)"),
    "export": ("ginrummy.web.commands.export", "a month of the web table's finished public "
               "matches, labelled, as open data files (docs/research.md)"),
}
# Sub-commands that need an optional extra: name -> extra.
EXTRAS = {"serve": "web", "db": "web", "puzzles": "web", "accounts": "web",
          "dataset": "research", "export": "web"}


def _pretty(cards: Sequence[Card]) -> str:
    return format_cards(cards, symbols=True)


# ----------------------------------------------------------------------------- analyze

_SYMBOL_SUITS = {sym: suit for suit, sym in SUIT_SYMBOLS.items()} | {
    "\u2667": "C", "\u2662": "D", "\u2661": "H", "\u2664": "S"}  # the white suits too
"""Suit symbols read as suit letters: what analyze prints (7♣) can be pasted back."""


def read_cards(text: str) -> list[Card]:
    """Cards as typed at the command line: R1 notation (``7C 10D``) or the suit symbols the
    commands print (``7♣ 10♦``), separated by spaces or commas; raises CardError naming
    the card as it was typed."""
    cards = []
    for token in text.replace(",", " ").split():
        plain = "".join(_SYMBOL_SUITS.get(ch, ch) for ch in token.replace("\ufe0f", ""))
        try:
            cards.append(Card.parse(plain))
        except CardError:
            raise CardError(
                f"Unknown card {token!r}: use a rank (A 2-9 T J Q K) then a suit (C D H S, "
                "or \u2663 \u2666 \u2665 \u2660), e.g. 'AS', '10D' or '7\u2663'.") from None
    return parse_cards(cards)  # refuses a duplicate


def _by_rank(cards: Sequence[str]) -> list[str]:
    """Cards in rank order (suit order among equal ranks): how a reader counts deadwood."""
    return sorted(cards, key=lambda c: (Card.parse(c).rank_index, Card.parse(c).suit_index))


def analyze(text: str) -> dict[str, Any]:
    """The ``analyze --json`` object for a card string: ``cards``, ``deadwood``, ``melds``,
    ``deadwood_cards`` (in rank order) and, for 11 cards, ``discards`` (each card -> the
    deadwood left after discarding it); raises CardError."""
    cards = read_cards(text)
    if len(cards) > 11:
        raise CardError(f"Expected 0 to 11 cards, got {len(cards)}.")
    mask = sum(c.mask for c in cards)
    arr = arrangements_mask(mask)[0]
    out: dict[str, Any] = {"cards": [str(c) for c in cards], **arr.to_json()}
    out["deadwood_cards"] = _by_rank(out["deadwood_cards"])
    if len(cards) == 11:
        by = deadwood_by_discard_mask(mask)
        out["discards"] = {str(c): by[c.index] for c in cards}
    return out


def _print_analysis(a: dict[str, Any]) -> None:
    cards = parse_cards(a["cards"])
    print(f"Hand:     {_pretty(cards)}  ({len(cards)} cards)")
    for m in a["melds"]:
        ms = parse_cards(m)
        kind = "set" if len({c.rank for c in ms}) == 1 else "run"
        print(f"Meld:     {_pretty(ms):<24} {kind}")
    dead = parse_cards(a["deadwood_cards"])
    print(f"Deadwood: {_pretty(dead) or '-':<24} {plural(a['deadwood'], 'point')}")
    if "discards" in a:
        print("Discards (deadwood of the 10 cards left):")
        ranked = sorted(a["discards"].items(), key=lambda kv: (kv[1], kv[0]))
        best = ranked[0][1]
        for card, dw in ranked:
            note = "  <- best" if dw == best else ""
            note += "  knock" if dw <= 10 and dw > 0 else ("  gin" if dw == 0 else "")
            print(f"  {_pretty([Card.parse(card)]):<4} {dw:>3}{note}")


def _refuse(args: argparse.Namespace, error: Exception, status: int) -> int:
    """``analyze``'s refusal: one line on stderr and, with --json, ``{"error": {"message":
    ...}}`` on stdout; returns ``status``."""
    print(f"ginrummy analyze: {error}", file=sys.stderr)
    if args.json:
        print(json.dumps({"error": {"message": str(error)}}))
    return status


def cmd_analyze_position(args: argparse.Namespace) -> int:
    """``ginrummy analyze --position FILE [--json]``: every legal action of the position
    in FILE (INTERFACES section 12) with its win chance, points and standard error, best
    first. A file that cannot be read, is not JSON or holds an impossible position is
    refused: exit 1, one line on stderr (with --json also ``{"error": {"message"}}`` on
    stdout)."""
    from .training.analysis import analyze_position
    from .training.position import PositionError

    try:
        try:
            obj = json.loads(read_input(args.position))
        except OSError as e:
            raise PositionError(f"Cannot read {args.position}: {e.strerror}.") from None
        except (ValueError, RecursionError):
            raise PositionError(f"{args.position} is not a JSON position.") from None
        out = analyze_position(obj)
    except PositionError as e:
        return _refuse(args, e, exits.REFUSED)
    if args.json:
        print(json.dumps(out))
        return exits.OK
    print(f"{len(out['actions'])} legal actions ({out['phase']}), best first: win chance "
          f"for the match ± its standard error, expected points this hand; "
          f"{out['samples']} sampled deals, seed {out['seed']}.")
    from .review.report import action_words

    for a in out["actions"]:
        words = action_words(Action.from_json(a["action"]))
        print(f"  {words:<24} {100 * a['win']:5.1f}% ± {100 * a['se']:.1f}   "
              f"{a['points']:+6.2f} points")
    return exits.OK


def cmd_analyze(args: argparse.Namespace) -> int:
    """``ginrummy analyze CARDS [--json]``: bad cards are a wrong command line (exit 2,
    the message on stderr and, with --json, as ``{"error": {"message": ...}}`` on stdout)."""
    if args.position is not None:
        return cmd_analyze_position(args)
    try:
        a = analyze(args.cards)
    except CardError as e:
        return _refuse(args, e, exits.USAGE)
    if args.json:
        print(json.dumps(a))
    else:
        _print_analysis(a)
    return exits.OK


# ----------------------------------------------------------------------------- replay


def _seat_name(match: Match, seat: int) -> str:
    if match.players:
        return f"{match.players[seat]} (seat {seat})"
    return f"Seat {seat}"


def _hand_story(match: Match, hand: Hand, index: int) -> list[str]:
    """A readable history of one hand: the deal, each move, the showdown, the score."""
    def name(seat: int) -> str:
        return _seat_name(match, seat)

    limit = "gin only" if hand.knock_limit == 0 else f"knock limit {hand.knock_limit}"
    lines = [f"Hand {index + 1}: {name(hand.dealer)} deals. "
             f"Up-card {_pretty([hand.deal.upcard])}, {limit}."]
    for s in (0, 1):
        lines.append(f"  {name(s)} holds {_pretty(sorted(hand.deal.hands[s]))}")
    for j, op in enumerate(hand.history):
        a = op.action
        if a.act == "pass":
            text = "passes on the up-card"
        elif a.act == "draw":
            where = "the stock" if a.source == "stock" else "the discard pile"
            text = f"draws {_pretty([op.card])} from {where}" if op.card else f"draws from {where}"
        else:
            assert a.card is not None
            text = f"discards {_pretty([a.card])}" + (" and knocks" if a.knock else "")
        if match.timed_out(index, j):
            text += " (out of time: played by the table)"
        lines.append(f"  {name(op.seat)} {text}")
    r = hand.result
    if r is None:
        lines.append("  (the hand is unfinished)")
        return lines
    lines += ["  " + line for line in r.describe((name(0), name(1)), symbols=True)]
    return lines


def cmd_replay(args: argparse.Namespace) -> int:
    """``ginrummy replay FILE [--json]``: exit 1 on a record that cannot be read, is
    malformed or breaks the rules (docs/records.md)."""
    try:
        text = read_input(args.file)
    except OSError as e:
        msg = f"Cannot read {args.file}: {e.strerror}."
        if args.json:
            print(json.dumps({"hands": [], "scores": [0, 0], "finished": False, "winner": None,
                              "error": {"hand": None, "action": None, "message": msg}}))
        else:
            print(f"ginrummy replay: {msg} Records come from `ginrummy match --records DIR`, "
                  "`ginrummy play --record FILE` or the web table's download; "
                  "docs/example-record.json is one to try.", file=sys.stderr)
        return exits.REFUSED
    match: Match | None
    try:
        match, error = read_partial(loads(text))
    except RecordError as e:
        match, error = None, e
    if args.json:
        out = summary(match)
        if error is not None:
            out["error"] = error.to_json()
        print(json.dumps(out))
    else:
        if match is not None and match.hands:
            _print_match(match)
        if error is not None:
            where = ""
            if error.hand is not None:
                where = f" (hand {error.hand + 1}" + (
                    f", action {error.action + 1})" if error.action is not None else ")")
            print(f"ginrummy replay: invalid record{where}: {error.message}", file=sys.stderr)
    return exits.REFUSED if error is not None else exits.OK


def _print_match(match: Match) -> None:
    if match.players:
        print(f"{match.players[0]} vs {match.players[1]}")
    o = match.options
    print(f"Target {o.target}" + (", gin only" if o.gin_only else "")
          + (", Oklahoma" if o.oklahoma else ""))
    running = [0, 0]
    for i, h in enumerate(match.hands):
        print()
        print("\n".join(_hand_story(match, h, i)))
        if h.result and h.result.scorer is not None:
            running[h.result.scorer] += h.result.points
        print(f"  Score: {running[0]} - {running[1]}")
    print()
    out = match.outcome()
    if out is None:
        print("The match is not over.")
    elif out.reason is Termination.ABORTED:
        print(f"The match was aborted after {plural(out.hands, 'hand')}: no result.")
    elif out.reason is Termination.RESIGNED and out.by is not None:
        print(f"{_seat_name(match, out.by)} resigns: {_seat_name(match, 1 - out.by)} wins "
              f"({out.scores[0]} - {out.scores[1]} after {plural(out.hands, 'hand')}).")
    elif out.reason is Termination.TIMEOUT and out.by is not None:
        print(f"{_seat_name(match, out.by)} lost {TIMEOUT_LIMIT} turns in a row to the clock: "
              f"{_seat_name(match, 1 - out.by)} wins ({out.scores[0]} - {out.scores[1]} "
              f"after {plural(out.hands, 'hand')}).")
    elif out.winner is None:
        print(f"The match ends tied at {out.scores[0]} after {plural(out.hands, 'hand')}.")
    else:
        print(f"{_seat_name(match, out.winner)} wins {out.scores[0]} - {out.scores[1]} "
              f"after {plural(out.hands, 'hand')}.")


# ----------------------------------------------------------------------------- verify


def cmd_verify(args: argparse.Namespace) -> int:
    """``ginrummy verify FILE [--json]``: 0 verified (the commitment, every deal and the
    play), 1 not verified, whatever the reason: the proof fails, the play breaks the
    rules, or the record cannot be read or checked (``problem``)."""
    where = f"cannot check {args.file}: "
    try:
        record = loads(read_input(args.file))
    except OSError as e:
        v, where = Verification(problem=f"Cannot read {args.file}: {e.strerror}."), ""
    except RecordError as e:
        v = Verification(problem=e.message)
    else:
        v = verify_record(record)
    if args.json:
        print(json.dumps(v.to_json()))
    elif v.problem is not None:
        print(f"ginrummy verify: {where}{v.problem}", file=sys.stderr)
    else:
        _print_verification(v, record, args.file)
    return exits.OK if v.ok else exits.REFUSED


def _print_verification(v: Verification, record: dict[str, Any], file: str) -> None:
    """The readable report: the commitment, each deal, the play, the verdict."""
    state = "matches" if v.commitment_ok else "DOES NOT MATCH"
    print(f"Commitment {record['commitment']}: {state} SHA-256 of seed {v.seed} "
          f"and salt {record['salt']}.")
    for i, ok in enumerate(v.hands_ok):
        print(f"Hand {i + 1}: " + ("the deal is the one the seed gives." if ok else
                                   "NOT the deal the seed gives."))
    for m in v.mismatches:
        print(f"  {m}")
    if v.play_ok:
        print("Play: every action follows the rules.")
    else:
        e = v.play_error or {}
        where = "" if e.get("hand") is None else f"hand {e['hand'] + 1}" + (
            "" if e.get("action") is None else f", action {e['action'] + 1}")
        print(f"Play: NOT legal{' (' + where + ')' if where else ''}: {e.get('message')} "
              f"`ginrummy replay {file}` shows the game up to there.")
    n = len(v.hands_ok)
    if v.ok:
        print(f"Verified: the seed was fixed before the first deal, and {every(n, 'deal')} "
              f"came from it ({v.scheme}).")
    else:
        print("NOT VERIFIED: see above.")


# ----------------------------------------------------------------------------- main


def _version() -> str:
    """The installed package's version (or the source tree's, when run uninstalled)."""
    try:
        return importlib.metadata.version("ginrummy")
    except importlib.metadata.PackageNotFoundError:
        from . import __version__

        return __version__


EXIT_STATUSES = (
    "Exit statuses, the same for every command: 0 done; 1 the input refused (a record "
    "that cannot be read, is malformed or breaks the rules, a proof that fails); 2 a wrong "
    "command line (unknown option, bad value, unknown bot), nothing done; 130 stopped with "
    "Ctrl-C (serve: Ctrl-C is its normal stop, 0). Each command's --help says what its "
    "statuses mean.")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser (external sub-commands are parsed by their own modules)."""
    p = argparse.ArgumentParser(
        prog="ginrummy",
        description="Gin Rummy: play in the terminal or serve the web table, bot-vs-bot "
        "matches, review a game as a coach, analyze a hand, replay and verify a record.",
        epilog=f"Each command has its own --help. {EXIT_STATUSES} Documentation: the "
        "README and docs/.")
    p.add_argument("--version", action="version", version=f"ginrummy {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    a = sub.add_parser(
        "analyze", help="best melds and deadwood of 0-11 cards, or every move of a position",
        description="Best melds and deadwood of 0 to 11 cards; for 11, the deadwood left "
        "after each discard. With --position FILE instead: every legal move of the "
        "position in FILE (a JSON object: hand, pile, opponent_took, opponent_discarded, "
        "opponent_passed, stock, to_play, scores, options, seed, samples; "
        "docs/training.md) with its chance to win the match, expected points and standard "
        "error, best first, as POST /api/analysis answers.",
        epilog=exits.epilog("analysed", "--position: the file cannot be read, is not JSON "
                            "or holds an impossible position (one line on stderr, and with "
                            "--json an error object on stdout)",
                            usage="bad cards (unknown, repeated, more than 11; "
                            "with --json also as {\"error\": {\"message\": ...}} on "
                            "stdout) or a wrong command line"))
    a.add_argument("cards", nargs="?",
                   help='0-11 cards in one argument, rank then suit, as written '
                   '("7C 8C 9C 9D 9H 9S KD QH 4S 2H"; TD or 10D for the ten) or as printed '
                   '("7\u2663 8\u2663 9\u2663")')
    a.add_argument("--position", metavar="FILE",
                   help="a position's JSON file (or - for standard input): evaluate every "
                        "legal move instead")
    a.add_argument("--json", action="store_true", help="print JSON")
    r = sub.add_parser(
        "replay", help="replay a game record hand by hand (docs/records.md)",
        description="Replay a ginrummy/1 game record under the rules, hand by hand. Records "
        "come from `ginrummy match --records DIR`, `ginrummy play --record FILE` and the web "
        "table's download button; docs/example-record.json is a small one to try.",
        epilog=exits.epilog("a legal record replayed", "the record cannot be read, is "
                            "malformed or has an illegal action (the hands before it are "
                            "still shown, and with --json an error member says where)"))
    r.add_argument("file", help="record file, or - for standard input")
    r.add_argument("--json", action="store_true", help="print JSON")
    v = sub.add_parser(
        "verify", help="check a record's fair-deal proof: its commitment, every deal and "
        "the play (docs/fairness.md)",
        description="Check a ginrummy/1 record's fair-deal proof: that the commitment is the "
        "hash of the revealed seed and salt, that every deal is the one the seed gives, and "
        "that the play follows the rules (docs/fairness.md).",
        epilog=exits.epilog("verified", "not verified: the commitment or a deal does not "
                            "match, an action breaks the rules, or the record cannot be "
                            "read or carries no proof"))
    v.add_argument("file", help="record file, or - for standard input")
    v.add_argument("--json", action="store_true", help="print JSON")
    for name, (_, help_text) in EXTERNAL.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ginrummy`` console script: no traceback for a closed pipe
    (``ginrummy replay game.json | head``) or Ctrl-C."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away; silence the flush at exit as well
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(file=sys.stderr)  # end the line after ^C (and any progress bar)
        return exits.INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in EXTERNAL:
        command = args_list[0]
        try:
            module = importlib.import_module(EXTERNAL[command][0])
        except ImportError as e:
            missing = e.name or ""
            if missing.split(".")[0] == "ginrummy" or command not in EXTRAS:
                raise
            extra = EXTRAS[command]
            print(f"ginrummy {command}: the {extra} extra is not installed (no module "
                  f"{missing!r}): pip install 'ginrummy[{extra}]'", file=sys.stderr)
            return exits.USAGE
        return int(module.main(args_list[1:]))
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command == "analyze":
        if (args.cards is None) == (args.position is None):
            parser.error("analyze takes CARDS or --position FILE (one of them)")
        return cmd_analyze(args)
    if args.command == "replay":
        return cmd_replay(args)
    if args.command == "verify":
        return cmd_verify(args)
    parser.print_help()
    return exits.OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
