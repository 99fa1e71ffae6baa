"""Playing one match to its end at a server's table, as the token's account.

The seat's socket (``/api/matches/{id}/ws``) pushes its STATE after every change; the bot
decides from STATE's ``view`` and ``legal`` (the protocol's VIEW and legal actions, R11)
off the event loop, so the socket keeps answering pings while it thinks; the answer goes
back as an ``action`` message with the version it was based on. Between hands the bot is
told the hand's result, then the seat says ``next``. A dropped connection (a server
restart, a network cut) is reopened after a wait that grows with each failure (a line says
it was lost, and another that it is back once the server answers), and the STATE the
server pushes on reconnecting resumes the match where it stands: nothing is kept here that
the server does not hold.

A bot that fails (an ``exec:`` program that crashes, answers late or illegally) is
reported in one line and the built-in ``simple`` bot plays the rest of that match.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import websockets

from ..bots import Bot, make_bot
from ..hand import View
from ..view import HandResult
from .client import Backoff, Log, Refused, Server, Unreachable, close_reason, off_loop

__all__ = ["SeatPlayer", "describe_end", "stopping"]

CLOSE_BOT_SECONDS = 3.0
"""Longest a match's end waits for its bot to close (an ``exec:`` program is given a
second to say goodbye, then killed)."""


def stopping(what: str) -> None:
    """Raise CancelledError when the running task is being cancelled (Ctrl-C): a reconnect
    loop never goes round again once told to stop, even where a library turned the
    cancellation into a timeout it reported as a failure."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError(f"{what}: stopping")


def describe_end(s: dict[str, Any]) -> str:
    """How a finished match ended, for the seat of STATE ``s``: ``won 104-37`` etc."""
    me, scores = s["seat"], s["scores"]
    score = f"{scores[me]}-{scores[1 - me]}"
    end = s.get("end")
    if end == "aborted":
        return "aborted: no result"
    if s.get("winner") is None:
        return f"tied {score}"
    how = {"resigned": " (a resignation)", "timeout": " (on time)"}.get(end or "", "")
    return f"{'won' if s['winner'] == me else 'lost'} {score}{how}"


class SeatPlayer:
    """One match at one seat (see the module docstring)."""

    def __init__(self, server: Server, match_id: str, make_player: Callable[[], Bot],
                 log: Log) -> None:
        self.server = server
        self.match_id = match_id
        self.make_player = make_player
        self.log = log
        self.bot: Bot | None = None
        self.fallback = False
        self.acted_version = -1
        self.next_version = -1
        self.told_hands: set[int] = set()
        self.opponent = "?"
        self.seat = 0
        self.version = -1

    def _say(self, text: str) -> None:
        self.log(f"match {self.match_id}: {text}")

    async def play(self) -> str:
        """Play until the match is over; how it ended. Raises :class:`Refused` when the
        server refuses the token."""
        backoff = Backoff()
        lost = False
        try:
            while True:
                why = ""
                try:
                    async with self.server.socket(f"/api/matches/{self.match_id}/ws") as ws:
                        async for raw in ws:
                            backoff.reset()
                            if lost:  # the server answers again: say so
                                lost = False
                                self._say("connected again")
                            ended = await self._message(ws, json.loads(raw))
                            if ended is not None:
                                return ended
                    why = "the server closed the connection"
                except websockets.exceptions.ConnectionClosed as e:
                    code, reason = close_reason(e)
                    if code is not None and 4400 <= code < 4500 and code != 4429:
                        raise Refused(reason or f"closed with code {code}") from None
                    why = reason or "the connection dropped"
                except Unreachable as e:
                    why = str(e)
                stopping(self.match_id)
                wait = backoff.next()
                lost = True
                self._say(f"connection lost ({why}); reconnecting in {wait:.1f} s")
                await asyncio.sleep(wait)
        finally:
            # off the loop, and bounded: an exec: bot that will not say goodbye is killed
            with contextlib.suppress(Exception):
                await asyncio.wait_for(off_loop(self._close_bot), CLOSE_BOT_SECONDS)

    def _close_bot(self) -> None:
        close = getattr(self.bot, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()

    async def _message(self, ws: Any, msg: dict[str, Any]) -> str | None:
        kind = msg.get("type")
        if kind == "error":
            status, text = msg.get("status"), str(msg.get("message", ""))
            if status in (401, 403):
                raise Refused(text)
            if status == 404:
                self._say(f"gone: {text}")
                return "gone"
            if "state" not in msg:
                self._say(f"refused: {text}")
                return None
            msg = {"type": "state", "state": msg["state"]}
        if msg.get("type") == "beat":  # a change this socket missed: ask for it
            if isinstance(msg.get("version"), int) and msg["version"] > self.version:
                await ws.send(json.dumps({"type": "state"}))
            return None
        if msg.get("type") != "state":
            return None
        return await self._state(ws, msg["state"])

    async def _state(self, ws: Any, s: dict[str, Any]) -> str | None:
        seat = self.seat = s["seat"]
        self.version = max(self.version, s["version"])
        if self.bot is None:
            self.opponent = s["players"][1 - seat]
            if s["bots"][1 - seat]:
                self.opponent = f"BOT {self.opponent}"
            self.bot = self.make_player()
            self.bot.new_match(seat)
            self._say(f"playing seat {seat} against {self.opponent}")
        ho = s.get("hand_over")
        if ho is not None and ho["hand"] not in self.told_hands:
            self.told_hands.add(ho["hand"])
            await self._hand_over(s)
        if s["status"] == "finished":
            ended = describe_end(s)
            self._say(f"over: {ended}")
            return ended
        if ho is not None:
            if not ho["ready"][seat] and self.next_version != s["version"]:
                self.next_version = s["version"]
                await ws.send(json.dumps({"type": "next", "version": s["version"]}))
            return None
        if s["my_turn"] and s["legal"] and self.acted_version != s["version"]:
            self.acted_version = s["version"]
            action = await self._decide(s)
            await ws.send(json.dumps({"type": "action", "action": action,
                                      "version": s["version"]}))
        return None

    async def _hand_over(self, s: dict[str, Any]) -> None:
        """Tell the bot how the hand ended, and log it."""
        ho = s["hand_over"]
        r = ho["result"]
        names = list(s["players"])
        names[1 - s["seat"]] = self.opponent
        who = names[r["scorer"]] if r.get("scorer") is not None else "nobody"
        self._say(f"hand {ho['hand'] + 1}: {r['result']}, {who} scores {r['points']} "
                  f"({s['scores'][s['seat']]}-{s['scores'][1 - s['seat']]})")
        try:
            view = View.from_json(s["view"])
            result = HandResult.from_json(r)
        except ValueError:
            return
        bot = self.bot
        assert bot is not None
        try:
            await off_loop(bot.hand_over, view, result)
        except Exception as e:  # noqa: BLE001 - a bot's failure is reported, never fatal
            self._failed(e)

    async def _decide(self, s: dict[str, Any]) -> dict[str, Any]:
        """The bot's action for STATE ``s``, as JSON (one of ``legal``)."""
        view = View.from_json(s["view"], s["legal"])
        bot = self.bot
        assert bot is not None
        try:
            action = await off_loop(bot.decide, view)
            if action not in view.legal:
                raise ValueError(f"chose {action}, which is not legal")
        except Exception as e:  # noqa: BLE001 - as above
            self._failed(e)
            assert self.bot is not None
            action = await off_loop(self.bot.decide, view)
        out: dict[str, Any] = action.to_json()
        return out

    def _failed(self, e: Exception) -> None:
        """The bot failed: ``simple`` plays on in its place (once said)."""
        if self.fallback:
            return
        self._say(f"the bot failed ({e}); the simple bot plays the rest of this match")
        self._close_bot()
        self.fallback = True
        self.bot = make_bot("simple", None)
        self.bot.new_match(self.seat)
