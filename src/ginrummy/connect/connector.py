"""The account's side of ``ginrummy connect``: its notice socket (``/api/me/ws``), the
challenges it accepts or declines, and one :class:`~.seat.SeatPlayer` per match it plays.

The notice socket pushes the account's whole picture whenever it changes: the challenges
to it and the matches it is playing. Every match it is playing is played to the end (so
matches in progress when ``connect`` started, or when the connection came back, are
resumed). A challenge is accepted when it is of a kind it was told to accept (casual,
rated) and there is room (fewer than ``concurrent`` matches in play, fewer than
``max_matches`` taken on); otherwise it is declined with the matching reason. The notice
socket reconnects after a failure like the seats'; a refused token stops everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import websockets

from ..bots import Bot
from .client import Backoff, Log, Refused, Server, Unreachable, close_reason
from .seat import SeatPlayer, stopping

__all__ = ["Connector", "describe_challenge"]


def describe_challenge(c: dict[str, Any]) -> str:
    """A challenge in a few words: who, rated or casual, the target and the clock."""
    who = f"BOT {c['from']}" if c.get("from_bot") else c["from"]
    o = c.get("options", {})
    extras = "".join(f", {name}" for key, name in (("gin_only", "gin only"),
                                                     ("oklahoma", "Oklahoma")) if o.get(key))
    clock = c.get("clock") or {}
    timed = f", {clock['move']} s + {clock['bank']} s" if clock else ""
    return (f"challenge {c['id']} from {who} ({'rated' if c.get('rated') else 'casual'}, "
            f"to {o.get('target', 100)}{extras}{timed})")


class Connector:
    """One account connected (see the module docstring)."""

    def __init__(self, server: Server, make_player: Callable[[], Bot], log: Log,
                 accept: frozenset[str], max_matches: int | None = None,
                 concurrent: int = 1) -> None:
        self.server = server
        self.make_player = make_player
        self.log = log
        self.accept = accept
        self.max_matches = max_matches
        self.concurrent = concurrent
        self.playing: dict[str, asyncio.Task[None]] = {}
        self.ended: set[str] = set()
        self.seen: set[str] = set()
        self.taken = 0
        self.fatal: Refused | None = None
        self._done = asyncio.Event()

    async def run(self) -> None:
        """Connect, then answer challenges and play until ``max_matches`` matches are
        over (for ever without it); raises :class:`Refused` when the token is refused."""
        me = await self._me()
        kinds = " and ".join(sorted(self.accept)) or "no"
        n = self.max_matches
        limit = f", at most {n} match{'es' if n != 1 else ''}" if n else ""
        self.log(f"connected to {self.server.base} as "
                 f"{'BOT ' if me.get('bot') else ''}{me['username']}; accepting {kinds} "
                 f"challenges{limit}")
        watcher = asyncio.create_task(self._watch())
        try:
            await self._done.wait()
        finally:
            watcher.cancel()
            tasks = [watcher, *self.playing.values()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self.fatal is not None:
            raise self.fatal

    async def _me(self) -> dict[str, Any]:
        """``GET /api/me``, tried until the server answers."""
        backoff = Backoff()
        while True:
            try:
                status, me = await self.server.call("GET", "/api/me")
                if status == 200 and isinstance(me, dict):
                    return me
                why = f"the server answered {status}"
            except Unreachable as e:
                why = str(e)
            stopping("connecting")
            wait = backoff.next()
            self.log(f"cannot reach {self.server.base} ({why}); trying again in {wait:.1f} s")
            await asyncio.sleep(wait)

    def _stop(self, fatal: Refused | None = None) -> None:
        if fatal is not None and self.fatal is None:
            self.fatal = fatal
        self._done.set()

    # ------------------------------------------------------------------ notices

    async def _watch(self) -> None:
        """The notice socket, reconnected after every failure; a line when it is lost and
        one when the server answers on it again."""
        backoff = Backoff()
        lost = False
        while True:
            why = ""
            try:
                async with self.server.socket("/api/me/ws") as ws:
                    async for raw in ws:
                        backoff.reset()
                        if lost:
                            lost = False
                            self.log("notices: connected again")
                        await self._notice(json.loads(raw))
                why = "the server closed the connection"
            except websockets.exceptions.ConnectionClosed as e:
                code, reason = close_reason(e)
                if code is not None and 4400 <= code < 4500 and code != 4429:
                    self._stop(Refused(reason or f"closed with code {code}"))
                    return
                why = reason or "the connection dropped"
            except Unreachable as e:
                why = str(e)
            except Refused as e:
                self._stop(e)
                return
            stopping("notices")
            wait = backoff.next()
            lost = True
            self.log(f"notices: connection lost ({why}); reconnecting in {wait:.1f} s")
            await asyncio.sleep(wait)

    async def _notice(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "error":
            if msg.get("status") in (401, 403):
                raise Refused(str(msg.get("message", "")))
            return
        if msg.get("type") != "notices":
            return
        for m in msg.get("playing", []):
            if m["id"] not in self.playing and m["id"] not in self.ended:
                self.log(f"match {m['id']}: resuming")
                self._start(m["id"])
        for c in msg.get("in", []):
            if c.get("status") == "open" and c["id"] not in self.seen:
                self.seen.add(c["id"])
                await self._answer(c)

    def _room(self) -> bool:
        if self.max_matches is not None and self.taken >= self.max_matches:
            return False
        return len(self.playing) < self.concurrent

    async def _answer(self, c: dict[str, Any]) -> None:
        """Accept the challenge, or decline it with the reason that fits."""
        what = describe_challenge(c)
        kind = "rated" if c.get("rated") else "casual"
        reason = None
        if kind not in self.accept:
            reason = "casual" if kind == "rated" else "rated"
        elif not self._room():
            reason = "later"
        try:
            if reason is not None:
                status, body = await self.server.call(
                    "POST", f"/api/challenges/{c['id']}/decline", {"reason": reason})
                self.log(f"{what}: declined ({reason})" if status == 200
                         else f"{what}: could not decline: {_sentence(body)}")
                return
            status, body = await self.server.call("POST", f"/api/challenges/{c['id']}/accept")
        except Unreachable as e:
            self.seen.discard(c["id"])  # answered at the next push
            self.log(f"{what}: no answer from the server ({e}); trying again later")
            return
        if status != 200 or not isinstance(body, dict) or "match" not in body:
            self.log(f"{what}: could not accept: {_sentence(body)}")
            return
        mid = body["match"]["id"]
        self.log(f"{what}: accepted: match {mid}")
        self._start(mid)

    # ------------------------------------------------------------------ matches

    def _start(self, match_id: str) -> None:
        self.taken += 1
        seat = SeatPlayer(self.server, match_id, self.make_player, self.log)
        self.playing[match_id] = asyncio.create_task(self._play(match_id, seat))

    async def _play(self, match_id: str, seat: SeatPlayer) -> None:
        try:
            await seat.play()
        except Refused as e:
            self._stop(e)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - one match's surprise never stops the rest
            self.log(f"match {match_id}: stopped playing it ({type(e).__name__}: {e})")
        finally:
            self.playing.pop(match_id, None)
            self.ended.add(match_id)
            if self.max_matches is not None and self.taken >= self.max_matches \
                    and not self.playing:
                with contextlib.suppress(RuntimeError):
                    self._stop()


def _sentence(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return str(body["error"])
    return "no reason given"
