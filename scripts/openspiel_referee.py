"""Play a bot over ``ginrummy-bot/1`` inside OpenSpiel's gin_rummy against its SimpleGinRummyBot.

An outside check of strength: the game is OpenSpiel's (its engine deals, keeps the
state and scores), the opponent is OpenSpiel's ``SimpleGinRummyBot`` (C++, exposed as
``pyspiel.make_simple_gin_rummy_bot``), and our bot is a separate program (``ginrummy bot
NAME`` by default, or any ``--command``) that sees only the protocol's views. Each deal
is a single hand, played twice with the seats swapped (paired deals), and the figure is
our bot's mean points per hand with a 95% confidence interval over the deal pairs.

    python scripts/openspiel_referee.py strong --deals 300 --seed 1 --jobs 2

Needs ``open_spiel`` (``pip install open_spiel``), which the project does not require.

How the two rule sets are mapped (OpenSpiel's game differs from R1-R12 in places):

- Seats: OpenSpiel's player 0 always acts first, so it is our non-dealer; player 1 is
  the dealer (R3). Hands are single hands at 0-0 to 100 (``hand_index`` 0).
- Our side of the game is mirrored move by move in our own state machine (same deal),
  which builds the views the bot sees; its actions are translated to OpenSpiel actions.
- Up-card offer: after both pass, OpenSpiel's first player must draw from the stock
  (R4 also allows the up-card then), so the bot is offered only the stock there.
- Knocks: our ``discard ... knock`` becomes OpenSpiel's Knock, then the discard, then the
  melds of the least-deadwood arrangement (the referee declares them, as R8 does for
  players); when the opponent knocks, the referee lays off and melds the bot's cards for
  the least deadwood (an exact search over OpenSpiel's lay-off moves, as R8 does).
- Scoring is OpenSpiel's: a tie on deadwood scores 0 for both (R9 gives it to the
  defender as an undercut, 25 points); gin and undercut bonuses are 25 as in R9.
- The wall: when a discard leaves two cards in the stock, R7 ends the hand dead, while
  OpenSpiel lets the next player knock by taking the up-card. The referee takes that
  knock for the bot whenever OpenSpiel allows it, as SimpleGinRummyBot does (the bot
  has no such move in its rules), discarding the card that leaves the least deadwood.
- OpenSpiel lets a player throw back the card just taken (R5 does not). Should the
  opponent ever do that, our mirror cannot follow: the deal is left out of the figures
  and counted as ``left_out``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ginrummy.actions import PASS as OUR_PASS
from ginrummy.actions import Action
from ginrummy.bots import Bot
from ginrummy.cards import Card
from ginrummy.hand import Deal, Hand, Phase
from ginrummy.protocol import BotFailure, ExternalBot

try:
    import pyspiel  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the machine
    pyspiel = None

DRAW_UPCARD, DRAW_STOCK, PASS, KNOCK = 52, 53, 54, 55
GAME_PARAMS: dict[str, Any] = {"knock_card": 10, "gin_bonus": 25, "undercut_bonus": 25}


def _card_maps() -> tuple[dict[int, Card], dict[Card, int]]:
    """OpenSpiel card ids (suit * 13 + rank, suits s c d h) to our cards and back."""
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    to_ours = {i: Card.parse(utils.card_string(i).upper()) for i in range(52)}
    return to_ours, {c: i for i, c in to_ours.items()}


def default_command(name: str, seed: int) -> str:
    """``ginrummy bot NAME --seed S``, with the ``ginrummy`` beside this Python if any."""
    exe = Path(sys.executable).with_name("ginrummy")
    prog = str(exe) if exe.exists() else (shutil.which("ginrummy") or "ginrummy")
    return f"{prog} bot {name} --seed {seed}"


@dataclass
class HandOutcome:
    """One hand: our bot's points (OpenSpiel's returns) and how the hand ended."""

    points: float
    ending: str  # "knock", "gin", "undercut", "tie", "dead", "wall-knock"
    knocker: str | None  # "bot", "simple" or None
    left_out: bool = False
    ours: float | None = None  # the bot's points by R9 on the mirrored hand, if it ended


class Referee:
    """Plays single hands of OpenSpiel's gin_rummy between ``bot`` and SimpleGinRummyBot."""

    def __init__(self, bot: Bot) -> None:
        if pyspiel is None:
            raise RuntimeError("open_spiel is not installed: pip install open_spiel")
        self.bot = bot
        self.game = pyspiel.load_game("gin_rummy", GAME_PARAMS)
        self.to_ours, self.to_os = _card_maps()
        self.card_value = {i: min(i % 13 + 1, 10) for i in range(52)}

    # ------------------------------------------------------------------ one hand

    def play(self, order: list[int], seat: int) -> HandOutcome:
        """Play the deal ``order`` (52 OpenSpiel card ids: player 0's ten, player 1's ten,
        the up-card, then the stock from the top) with our bot in OpenSpiel seat ``seat``."""
        state = self.game.new_initial_state()
        for c in order[:21]:
            state.apply_action(c)
        stock: Iterator[int] = iter(order[21:])
        cards = [self.to_ours[c] for c in order]
        deal = Deal((tuple(cards[:10]), tuple(cards[10:20])), cards[20], tuple(cards[21:]))
        mirror: Hand | None = Hand(deal, dealer=1)  # OpenSpiel's player 0 plays first
        simple = pyspiel.make_simple_gin_rummy_bot(self.game.get_parameters(), 1 - seat)
        knocker: str | None = None
        wall = False
        pending_knock = False
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(next(stock))
                continue
            p = state.current_player()
            phase = state.current_phase()
            P = pyspiel.gin_rummy.Phase
            if p == seat:
                if phase == P.LAYOFF:
                    self._best_defence(state, seat)
                    continue
                if phase == P.WALL:
                    if KNOCK in state.legal_actions():
                        wall, knocker = True, "bot"
                        state.apply_action(KNOCK)
                        self._knock_discard(state, seat)
                        self._declare_melds(state, seat)
                    else:
                        state.apply_action(PASS)
                    continue
                if mirror is None:
                    return HandOutcome(0.0, "left out", None, left_out=True)
                action = self._ask(mirror, state, seat)
                mirror.play(action, seat)
                if action.act == "pass":
                    state.apply_action(PASS)
                elif action.act == "draw":
                    state.apply_action(DRAW_STOCK if action.source == "stock" else DRAW_UPCARD)
                elif action.knock:
                    assert action.card is not None
                    knocker = "bot"
                    state.apply_action(KNOCK)
                    state.apply_action(self.to_os[action.card])
                    self._declare_melds(state, seat)
                else:
                    assert action.card is not None
                    state.apply_action(self.to_os[action.card])
            else:
                a = simple.step(state)
                if mirror is not None and not mirror.is_over():
                    mirror = self._follow(mirror, state, phase, a, 1 - seat, pending_knock)
                if phase == P.DISCARD and a == KNOCK:
                    pending_knock, knocker = True, "simple"
                elif phase == P.WALL and a == KNOCK:
                    wall, knocker = True, "simple"
                state.apply_action(a)
        ours: float | None = None
        if mirror is not None and mirror.is_over():
            self.bot.hand_over(mirror.view(seat))
            res = mirror.result
            if res is not None and not wall:
                pts = float(res.points)
                ours = 0.0 if res.scorer is None else pts if res.scorer == seat else -pts
        points = float(state.returns()[seat])
        return HandOutcome(points, self._ending(state, knocker, wall), knocker, ours=ours)

    def _ask(self, mirror: Hand, state: Any, seat: int) -> Action:
        """The bot's action from its view, offered only what OpenSpiel also allows."""
        view = mirror.view(seat)
        pile = state.discard_pile()
        os_top = state.upcard() if state.upcard() is not None else (pile[-1] if pile else None)
        top = mirror.top_discard
        if ({self.to_os[c] for c in view.hand} != set(state.hands()[seat])
                or (None if top is None else self.to_os[top]) != os_top):
            raise RuntimeError("the mirrored hand and OpenSpiel's disagree (a referee bug)")
        legal = view.legal
        first_upcard = state.current_phase() == pyspiel.gin_rummy.Phase.FIRST_UPCARD
        if view.phase is Phase.DRAW and first_upcard:
            legal = tuple(a for a in legal if a.act != "draw" or a.source == "stock")
            view = view._replace(legal=legal)
        return self.bot.decide(view)

    def _follow(self, mirror: Hand, state: Any, phase: Any, a: int, who: int,
                pending_knock: bool) -> Hand | None:
        """Replay the opponent's OpenSpiel action on our mirror; None if R1-R12 cannot."""
        P = pyspiel.gin_rummy.Phase
        action: Action | None = None
        if phase in (P.FIRST_UPCARD, P.DRAW):
            action = {PASS: OUR_PASS, DRAW_STOCK: Action.draw("stock"),
                      DRAW_UPCARD: Action.draw("discard")}.get(a)
        elif phase == P.DISCARD and a < 52:
            action = Action.discard(self.to_ours[a])
        elif phase == P.KNOCK and a < 52 and pending_knock:
            action = Action.discard(self.to_ours[a], knock=True)
        elif phase == P.DISCARD and a == KNOCK:
            return mirror  # the discard that goes with it follows
        if action is None:
            return mirror
        if not mirror.can_play(action, who):
            return None
        mirror.play(action, who)
        return mirror

    # ------------------------------------------------------------------ showdown moves

    def _knock_discard(self, state: Any, seat: int) -> None:
        """After a wall knock: the discard leaving the least deadwood (highest card on ties)."""
        best: tuple[float, int] | None = None
        for c in state.legal_actions():
            child = state.child(c)
            dw = self._min_melded(child, seat)
            key = (dw, -self.card_value[c])
            if best is None or key < best:
                best, pick = key, c
        state.apply_action(pick)

    def _min_melded(self, state: Any, seat: int) -> int:
        """The least deadwood the knocker can reach by declaring melds from ``state``."""
        return self._meld_search(state, seat, -1)[0]

    def _meld_search(self, state: Any, seat: int, last: int) -> tuple[int, list[int]]:
        """Declare melds in increasing id order (order does not matter), then pass: the
        least deadwood and the moves that reach it."""
        best = (10**6, [PASS])
        legal = state.legal_actions()
        if PASS in legal:
            best = (sum(self.card_value[c] for c in state.hands()[seat]), [PASS])
        for a in legal:
            if a >= 56 and a > last:
                dw, moves = self._meld_search(state.child(a), seat, a)
                if dw < best[0]:
                    best = (dw, [a, *moves])
        return best

    def _declare_melds(self, state: Any, seat: int) -> None:
        """The knocker's melds: the least-deadwood arrangement (R8), then pass."""
        for a in self._meld_search(state, seat, -1)[1]:
            state.apply_action(a)

    def _best_defence(self, state: Any, seat: int) -> None:
        """The defender's lay-offs and melds that leave it the best OpenSpiel return (R8:
        lay-offs and melds chosen together for the least deadwood)."""
        memo: dict[str, tuple[float, list[int]]] = {}

        def search(s: Any, last: int) -> tuple[float, list[int]]:
            if s.is_terminal():
                return float(s.returns()[seat]), []
            key = f"{s}|{last}"
            if key in memo:
                return memo[key]
            best: tuple[float, list[int]] | None = None
            for a in s.legal_actions():
                if a >= 56 and a <= last:
                    continue  # melds in increasing order only
                v, moves = search(s.child(a), a if a >= 56 else last)
                if best is None or v > best[0]:
                    best = (v, [a, *moves])
            assert best is not None
            memo[key] = best
            return best

        for a in search(state, -1)[1]:
            state.apply_action(a)

    def _ending(self, state: Any, knocker: str | None, wall: bool) -> str:
        """How the hand ended, by OpenSpiel's scoring."""
        if knocker is None:
            return "dead"
        who = 0 if state.knocked()[0] else 1
        r = state.returns()[who]
        if wall:
            return "wall-knock"
        if state.deadwood()[who] == 0:
            return "gin"
        return "undercut" if r < 0 else "tie" if r == 0 else "knock"


# ----------------------------------------------------------------------------- runs


def deal_order(seed: int, index: int) -> list[int]:
    """The ``index``-th deal of a run: a reproducible shuffle of OpenSpiel's 52 card ids."""
    order = list(range(52))
    random.Random(f"openspiel-referee/{seed}/{index}").shuffle(order)
    return order


def play_deals(command: str, seed: int, indices: list[int], time_limit: float
               ) -> list[tuple[int, HandOutcome, HandOutcome]]:
    """Each deal twice, our bot in each seat: (index, as player 0, as player 1)."""
    out = []
    with ExternalBot(command, time_limit=time_limit) as bot:
        ref = Referee(bot)
        for i in indices:
            order = deal_order(seed, i)
            out.append((i, ref.play(order, 0), ref.play(order, 1)))
    return out


def _job(args: tuple[str, int, list[int], float]
         ) -> list[tuple[int, HandOutcome, HandOutcome]] | str:
    """One worker's deals, or the bot's failure as a sentence (exceptions with required
    arguments do not cross process boundaries)."""
    try:
        return play_deals(*args)
    except BotFailure as e:
        return str(e)


def summarise(results: list[tuple[int, HandOutcome, HandOutcome]]) -> dict[str, Any]:
    """Mean points per hand for our bot, 95% CI over deal pairs, and how hands ended."""
    kept = [(a, b) for _, a, b in results if not (a.left_out or b.left_out)]
    pair_means = [(a.points + b.points) / 2 for a, b in kept]
    n = len(pair_means)
    mean = sum(pair_means) / n if n else 0.0
    var = sum((x - mean) ** 2 for x in pair_means) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n) if n > 1 else 0.0
    endings: dict[str, int] = {}
    for a, b in kept:
        for h in (a, b):
            key = f"{h.ending} by {h.knocker}" if h.knocker else h.ending
            endings[key] = endings.get(key, 0) + 1
    same = sum(1 for a, b in kept for h in (a, b) if h.ours == h.points)
    return {"deals": n, "hands": 2 * n, "left_out": len(results) - n,
            "same_score_by_our_rules": same,
            "points_per_hand": round(mean, 3), "ci95": [round(mean - half, 3),
                                                        round(mean + half, 3)],
            "endings": dict(sorted(endings.items()))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bot", help="a project bot name for `ginrummy bot NAME`")
    p.add_argument("--command", help="run this bot program instead of `ginrummy bot NAME`")
    p.add_argument("--deals", type=int, default=100, help="paired deals (two hands each)")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals and the bot")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--time-limit", type=float, default=10.0, help="seconds per decision")
    args = p.parse_args(argv)
    if pyspiel is None:
        print("openspiel_referee: open_spiel is not installed (pip install open_spiel).",
              file=sys.stderr)
        return 2
    if args.deals < 1 or args.jobs < 1:
        print("openspiel_referee: --deals and --jobs must be at least 1.", file=sys.stderr)
        return 2
    command = args.command or default_command(args.bot, args.seed)
    chunks = [list(range(j, args.deals, args.jobs)) for j in range(args.jobs)]
    tasks = [(command, args.seed, c, args.time_limit) for c in chunks if c]
    if len(tasks) == 1:
        parts = [_job(tasks[0])]
    else:
        with multiprocessing.get_context("fork").Pool(len(tasks)) as pool:
            parts = pool.map(_job, tasks)
    results = []
    for part in parts:
        if isinstance(part, str):
            print(f"openspiel_referee: {part}", file=sys.stderr)
            return 1
        results += part
    results.sort(key=lambda r: r[0])
    summary = {"bot": args.bot, "command": command, "seed": args.seed, **summarise(results)}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
