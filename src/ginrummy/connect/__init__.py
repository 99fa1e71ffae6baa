"""``ginrummy connect URL --token TOKEN BOT``: play online as an account, with a bot.

Runs a built-in bot, or any program speaking ``ginrummy-bot/1`` (``exec:CMD``,
docs/protocol.md), as the account of an API token on a ginrummy server: it accepts the
challenges it is told to (``--accept casual,rated``), plays each match to the end on the
table's clock, survives a server restart or a network cut (it reconnects, with waits
that grow, and resumes its matches), logs one line per event on standard output, and
stops on Ctrl-C with status 130. It is a client of the documented HTTP and WebSocket API
(docs/web-api.md) and nothing more: httpx and websockets, from the ``web`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import os
import re
import signal
import sys
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import exits
from ..bots import Bot, BotError, bot_names, make_bot

if TYPE_CHECKING:  # (the web extra may be missing: main says so before importing it)
    from .client import Log

__all__ = ["main"]

STOP_SECONDS = 3.0
"""Longest Ctrl-C waits for the matches' sockets and bots to close before the process
ends anyway (status 130): stopping never waits on a bot, a server or a thread."""
TOKEN_ENV = "GINRUMMY_TOKEN"
_TOKEN_RE = re.compile(r"^ginrummy\.[A-Za-z0-9_-]{43}$")
KINDS = ("casual", "rated")


def build_parser() -> argparse.ArgumentParser:
    """The ``connect`` sub-command's options."""
    p = argparse.ArgumentParser(
        prog="ginrummy connect",
        description="Play online as the account of an API token (made on the server's "
        "account page): answer its challenges and play its matches with a bot, until "
        "stopped (docs/protocol.md, \"Play online\").",
        epilog=exits.epilog(
            "--max-matches matches were played to their end",
            "the server refused the token (unknown, revoked, or its account closed)",
            usage="a wrong command line, an unknown bot, an exec: bot that does not start, "
            "or the web extra missing"))
    p.add_argument("url", help="the server, e.g. https://gin.example or http://127.0.0.1:8000")
    p.add_argument("bot", help=f"the bot: {', '.join(bot_names())}, or exec:CMD for a "
                   "program speaking ginrummy-bot/1")
    p.add_argument("--token", default=os.environ.get(TOKEN_ENV),
                   help=f"the account's API token (default: ${TOKEN_ENV}, which keeps it "
                   "out of the process list)")
    p.add_argument("--accept", default="casual,rated",
                   help="which challenges to accept: casual, rated or both, comma-separated "
                   "(default casual,rated); the others are declined with a reason")
    p.add_argument("--max-matches", type=int, default=None, metavar="N",
                   help="take on N matches, play them to their end, then stop (default: "
                   "run until stopped)")
    p.add_argument("--concurrent", type=int, default=1, metavar="K",
                   help="matches played at once; a challenge beyond them is declined "
                   "'later' (default 1)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of a built-in bot's choices (default: a random one)")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="SECONDS",
                   help="seconds an exec: bot may take for one decision (default 10)")
    return p


def _check(p: argparse.ArgumentParser, args: argparse.Namespace) -> frozenset[str]:
    """The accepted kinds; exits 2 (through ``p.error``) on a wrong value."""
    if not args.url.startswith(("http://", "https://")):
        p.error(f"the URL must start with http:// or https://, not {args.url!r}")
    if not args.token:
        p.error(f"--token is required (or set ${TOKEN_ENV})")
    if not _TOKEN_RE.match(args.token):
        p.error("--token: an API token is 'ginrummy.' and 43 more characters, as the "
                "server's account page showed it")
    kinds = frozenset(k.strip() for k in args.accept.split(",") if k.strip())
    if not kinds <= set(KINDS):
        p.error(f"--accept takes casual, rated or both, not {args.accept!r}")
    if args.max_matches is not None and args.max_matches < 1:
        p.error("--max-matches must be 1 or more")
    if args.concurrent < 1:
        p.error("--concurrent must be 1 or more")
    if not args.time_limit > 0:
        p.error("--time-limit must be more than 0")
    return kinds


_PROGRAMS: weakref.WeakSet[Any] = weakref.WeakSet()
"""The ``exec:`` bots running: killed when Ctrl-C cannot wait for them to close."""


def _player_factory(spec: str, seed: int | None,
                    time_limit: float) -> Callable[[], Bot]:
    """What makes a fresh player for each match; raises BotError (an unknown bot, an
    exec: program that does not start or answer hello)."""
    if spec.startswith("exec:"):
        from ..protocol import ExternalBot

        command = spec.removeprefix("exec:")
        with ExternalBot(command, time_limit=time_limit) as probe:
            probe.start()  # it starts and says hello, once, before anything is accepted

        def external() -> Bot:
            bot = ExternalBot(command, time_limit=time_limit)
            _PROGRAMS.add(bot)
            bot.start()
            return bot

        return external
    make_bot(spec, seed)  # an unknown name fails here
    return lambda: make_bot(spec, seed)


def main(argv: list[str]) -> int:
    """Run ``ginrummy connect``; returns the exit status."""
    p = build_parser()
    args = p.parse_args(argv)
    kinds = _check(p, args)
    for module in ("httpx", "websockets"):
        try:
            importlib.import_module(module)
        except ImportError:
            print(f"ginrummy connect: the web extra is not installed (no module {module!r}): "
                  "pip install 'ginrummy[web]'", file=sys.stderr)
            return exits.USAGE
    try:
        make_player = _player_factory(args.bot, args.seed, args.time_limit)
    except BotError as e:
        print(f"ginrummy connect: {e}", file=sys.stderr)
        return exits.USAGE
    from .client import Log, Refused, Server
    from .connector import Connector

    log = Log()
    stop = Stop(log)

    async def run() -> None:
        stop.catch(asyncio.get_running_loop(), asyncio.current_task())
        server = Server(args.url, args.token)
        try:
            await Connector(server, make_player, log, kinds, args.max_matches,
                            args.concurrent).run()
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.close(), 1.0)

    try:
        asyncio.run(run())
    except Refused as e:
        print(f"ginrummy connect: the server refused the token: {e}", file=sys.stderr)
        return exits.REFUSED
    except (KeyboardInterrupt, asyncio.CancelledError):
        stop.said()
        return exits.INTERRUPTED
    finally:
        stop.done()
    log("done: every match taken on is over")
    return exits.OK


STOPPED = ("stopped (Ctrl-C); matches in play go on at the table: connect again to resume "
           "them")


class Stop:
    """Ctrl-C (SIGINT): the first cancels the main task, so every match's socket and bot
    close and ``main`` returns 130; a watchdog thread ends the process with 130 anyway
    :data:`STOP_SECONDS` later (killing the ``exec:`` bots), and a second Ctrl-C ends it
    at once. Whatever ``connect`` was waiting on (a bot's decision, a socket, a server
    that does not answer, a reconnect's wait, a thread), it stops promptly, on a loaded
    machine too: bots think in daemon threads (:func:`.client.off_loop`), which the
    interpreter does not wait for, and no wait of the shutdown is unbounded."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self.asked = threading.Event()
        self._said = threading.Lock()
        self._told = False
        self._over = threading.Event()

    def catch(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any] | None) -> None:
        """Handle SIGINT on ``loop`` by cancelling ``task`` (the main one)."""
        def on_signal() -> None:
            if self.asked.is_set():
                self.now()  # a second Ctrl-C: at once
                return
            self.asked.set()
            threading.Thread(target=self._watchdog, name="ginrummy-stop", daemon=True).start()
            if task is not None:
                task.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, on_signal)  # (not on every platform)

    def said(self) -> None:
        """Say once that ``connect`` stopped."""
        with self._said:
            if self._told:
                return
            self._told = True
        self.log(STOPPED)

    def done(self) -> None:
        """``main`` is returning: the watchdog has nothing left to do."""
        self._over.set()

    def _watchdog(self) -> None:
        if not self._over.wait(STOP_SECONDS):
            self.now()

    def now(self) -> None:
        """End the process at once with 130: kill the ``exec:`` bots, say so, exit."""
        for bot in list(_PROGRAMS):
            with contextlib.suppress(Exception):
                bot.kill()
        with contextlib.suppress(Exception):
            self.said()
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(exits.INTERRUPTED)
