"""The ``ginrummy-bot/1`` protocol (docs/protocol.md): JSON lines over a bot's stdin/stdout.

Both sides live here. :func:`main` is ``ginrummy bot NAME [--seed S]``: it runs one of
the project's bots as a protocol program. :class:`ExternalBot` is the referee side: a
:class:`~ginrummy.bots.Bot` that runs any program speaking the protocol in a subprocess,
with a time limit on every answer; whatever the program does wrong becomes a
:class:`BotFailure` (a ``ValueError``) that names the bot and the problem, and the
subprocess is always cleaned up.

Bot side, on bad input: every line that is not a JSON object of a known ``type`` (or a
``decide`` whose view cannot be read) is reported on stderr as one sentence and skipped;
the bot keeps going and still exits 0 on ``bye`` or end of input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import shlex
import subprocess
import sys
import tempfile
import time
from typing import IO, Any, TextIO

from . import exits
from .bots import Bot, BotError, bot_names, make_bot
from .bots.policy import POLICY_BOTS, PolicyBot
from .cards import CardError, parse_cards
from .hand import Action, HandResult, IllegalActionError, Phase, View, ViewError
from .options import OptionsError

__all__ = [
    "PROTOCOL",
    "BotFailure",
    "ExternalBot",
    "decide_message",
    "hand_over_message",
    "main",
    "serve",
]

PROTOCOL = "ginrummy-bot/1"
DEFAULT_TIME_LIMIT = 10.0
"""Seconds a bot may take for one decision (the referee's default)."""
DEFAULT_START_LIMIT = 20.0
"""Seconds a bot may take to start and answer ``hello``."""
MAX_LINE = 1 << 20
"""Longest answer line (bytes, 1 MiB) the referee accepts; a longer one is a failure
(docs/protocol.md)."""


class BotFailure(BotError):
    """A bot program broke the protocol: crash, timeout, bad JSON, wrong message, illegal
    action. ``bot`` names it and ``problem`` is the sentence saying what went wrong."""

    def __init__(self, bot: str, problem: str) -> None:
        self.bot = bot
        self.problem = problem
        super().__init__(f"Bot {bot!r} failed: {problem}")


# ----------------------------------------------------------------------------- messages


def decide_message(view: View) -> dict[str, Any]:
    """The ``decide`` message for a seat's view: the VIEW and its legal actions (§5)."""
    return {"type": "decide", "view": view.to_json(), "legal": [a.to_json() for a in view.legal]}


def hand_over_message(
    result: HandResult | dict[str, Any] | None, hands: Any = None
) -> dict[str, Any]:
    """The ``hand_over`` message: the hand object of ``replay --json`` and both hands after
    a knock, or null after a dead hand (R7, R11)."""
    res = result.to_json() if isinstance(result, HandResult) else result
    shown = None
    if hands is not None and (res is None or res.get("result") != "dead"):
        shown = [[str(c) for c in h] for h in hands]
    return {"type": "hand_over", "result": res, "hands": shown}


# ----------------------------------------------------------------------------- bot side


def _say(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj) + "\n")
    out.flush()


def serve(bot: Bot, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """Run ``bot`` as a protocol program on the given streams until ``bye`` or end of input.

    Bad lines are reported on ``stderr`` and skipped (see the module docstring)."""
    last_view: View | None = None
    new_match = True
    for lineno, line in enumerate(stdin, 1):
        if not line.strip():
            continue

        def warn(problem: str, lineno: int = lineno) -> None:
            print(f"ginrummy bot: line {lineno}: {problem}; ignored.", file=stderr, flush=True)

        try:
            msg = json.loads(line)
        except json.JSONDecodeError as e:
            warn(f"not valid JSON ({e.msg} at column {e.colno})")
            continue
        if not isinstance(msg, dict):
            warn("a message must be a JSON object")
            continue
        kind = msg.get("type")
        if kind == "hello":
            _say(stdout, {"type": "hello", "name": bot.name})
        elif kind == "decide":
            try:
                view = View.from_json(msg.get("view"), msg.get("legal", ()))
            except ValueError as e:
                warn(f"cannot read the decide message ({e})")
                continue
            if not view.legal:
                warn("the decide message lists no legal actions")
                continue
            if new_match and view.hand_index == 0:
                bot.new_match(view.seat)
            new_match = False
            last_view = view
            action = bot.decide(view)
            _say(stdout, {"type": "action", "action": action.to_json()})
        elif kind == "hand_over":
            new_match = True
            if last_view is not None:
                hands = msg.get("hands")
                try:
                    revealed = (
                        (tuple(parse_cards(hands[0])), tuple(parse_cards(hands[1])))
                        if isinstance(hands, list) and len(hands) == 2 else None
                    )
                except (CardError, TypeError):
                    revealed = None
                final = last_view._replace(phase=Phase.OVER, to_play=None, legal=(),
                                revealed=revealed)
                try:
                    result = HandResult.from_json(msg.get("result"))
                except ViewError:
                    result = None
                bot.hand_over(final, result)
        elif kind == "bye":
            return 0
        else:
            warn(f"unknown message type {kind!r} (expected hello, decide, hand_over or bye)")
    return 0


def main(argv: list[str]) -> int:
    """``ginrummy bot NAME [--seed S]``: one of the project's bots over ``ginrummy-bot/1``."""
    p = argparse.ArgumentParser(
        prog="ginrummy bot",
        description=f"Run a bot as a {PROTOCOL} program: JSON lines on stdin and stdout "
        "(docs/protocol.md).",
        epilog=exits.epilog("bye, or the end of input (the referee went away)",
                            usage="an unknown bot or a wrong command line"),
    )
    p.add_argument("name", help=f"the bot: {', '.join(bot_names())}")
    p.add_argument("--seed", type=int, default=None, help="seed for reproducible play")
    p.add_argument("--policy", metavar="FILE", default=None,
                   help="for the trained bots (ppo, bc): play this policy file, e.g. one "
                   "just written by scripts/train_ppo.py or train_bc.py, instead of the "
                   "shipped one (docs/research.md)")
    args = p.parse_args(argv)
    try:
        if args.policy is not None:
            if args.name not in POLICY_BOTS:
                raise BotError(f"--policy is for the trained bots ({', '.join(POLICY_BOTS)}), "
                               f"not {args.name!r}.")
            bot: Bot = PolicyBot(args.seed, args.policy, name=args.name)
        else:
            bot = make_bot(args.name, args.seed)
    except BotError as e:
        print(f"ginrummy bot: {e}", file=sys.stderr)
        return exits.USAGE
    try:
        return serve(bot, sys.stdin, sys.stdout, sys.stderr)
    except BrokenPipeError:  # the referee stopped reading: as the end of input
        with contextlib.suppress(OSError, ValueError):  # silence the flush at exit too
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return exits.OK
    except KeyboardInterrupt:
        return exits.INTERRUPTED


# ----------------------------------------------------------------------------- referee side


class ExternalBot(Bot):
    """A bot that is a program speaking ``ginrummy-bot/1``, run as a subprocess.

    ``command`` is split with :func:`shlex.split`. The program starts on first use (or
    :meth:`start`), must answer ``hello`` within ``start_limit`` seconds and each
    ``decide`` within ``time_limit`` seconds. Any failure raises :class:`BotFailure` after
    killing the program; :meth:`close` says ``bye`` and reaps it. Use it as a context
    manager to be sure it is cleaned up.
    """

    def __init__(
        self,
        command: str,
        name: str | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT,
        start_limit: float = DEFAULT_START_LIMIT,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.command = command
        self.name = name or f"exec:{command}"
        self.time_limit = time_limit
        self.start_limit = start_limit
        self.reported_name: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._err: IO[bytes] | None = None
        self._buf = bytearray()
        self._failed: BotFailure | None = None

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def running(self) -> bool:
        """Whether the program has been started and not yet cleaned up."""
        return self._proc is not None

    def start(self) -> None:
        """Start the program and do the ``hello`` handshake (no-op if already running)."""
        if self._failed is not None:
            raise self._failed
        if self._proc is not None:
            return
        try:
            args = shlex.split(self.command)
        except ValueError as e:
            raise self._fail(f"cannot read the command {self.command!r} ({e}).") from None
        if not args:
            raise self._fail("the command is empty.")
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _reap
        try:
            self._proc = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
                bufsize=0,
            )
        except OSError as e:
            raise self._fail(f"cannot start {args[0]!r}: {e.strerror or e}.") from None
        assert self._proc.stdin is not None and self._proc.stdout is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        os.set_blocking(self._proc.stdout.fileno(), False)
        msg = self._ask({"type": "hello", "protocol": PROTOCOL}, self.start_limit, "hello")
        if msg.get("type") != "hello":
            raise self._fail(
                f"answered hello with a message of type {msg.get('type')!r} instead of 'hello'."
            )
        name = msg.get("name")
        self.reported_name = name if isinstance(name, str) else None

    def close(self) -> None:
        """Say ``bye`` and reap the program (killing it if it does not exit promptly)."""
        proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(BotFailure):
            self._send({"type": "bye"}, 1.0)
        self._reap(grace=1.0)

    def kill(self) -> None:
        """Kill the program at once, saying nothing (its caller must stop now: Ctrl-C);
        :meth:`close` still reaps it."""
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()

    def _reap(self, grace: float) -> None:
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if self._err is not None:
            self._err.close()
            self._err = None

    def _stderr_tail(self) -> str:
        if self._err is None:
            return ""
        try:
            self._err.seek(0, os.SEEK_END)
            size = self._err.tell()
            self._err.seek(max(0, size - 400))
            tail = self._err.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return tail.splitlines()[-1] if tail else ""

    def _fail(self, problem: str) -> BotFailure:
        """Kill the program and build the failure (also remembered for later calls)."""
        proc = self._proc
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            tail = self._stderr_tail()
            if tail:
                problem += f" Its last error output: {tail}"
            self._reap(grace=0.1)
        self._failed = BotFailure(self.name, problem)
        return self._failed

    def _exit_note(self) -> str:
        """Why the pipe ended: the program's exit status if it has exited."""
        proc = self._proc
        if proc is None:
            return "it is not running."
        try:
            code = proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "it closed its output."
        if code < 0:
            return f"it was killed by signal {-code}."
        return f"it exited with status {code}."

    # ------------------------------------------------------------------ I/O

    def _send(self, obj: dict[str, Any], limit: float) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        data = (json.dumps(obj) + "\n").encode()
        fd = proc.stdin.fileno()
        deadline = time.monotonic() + limit
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while data:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise self._fail(f"did not read its input within {limit:g} seconds.")
                try:
                    n = os.write(fd, data)
                except BlockingIOError:
                    continue
                except (BrokenPipeError, ConnectionResetError):
                    raise self._fail(f"stopped reading its input: {self._exit_note()}") from None
                data = data[n:]

    def _read_line(self, deadline: float, limit: float, waiting_for: str) -> bytes:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                nl = self._buf.find(b"\n")
                if nl >= 0:
                    line = bytes(self._buf[:nl])
                    del self._buf[: nl + 1]
                    if line.strip():
                        return line
                    continue
                if len(self._buf) > MAX_LINE:
                    raise self._fail(f"sent a line longer than {MAX_LINE} bytes.")
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise self._fail(
                        f"gave no answer to {waiting_for} within {limit:g} seconds."
                    )
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise self._fail(
                        f"ended without answering {waiting_for}: {self._exit_note()}"
                    )
                self._buf += chunk

    def _ask(self, obj: dict[str, Any], limit: float, waiting_for: str) -> dict[str, Any]:
        """Send a message and read one JSON-object answer, both within ``limit`` seconds."""
        deadline = time.monotonic() + limit
        self._send(obj, limit)
        line = self._read_line(deadline, limit, waiting_for)
        try:
            msg = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            shown = line[:80].decode("utf-8", "replace")
            raise self._fail(f"answered {waiting_for} with malformed JSON: {shown!r}.") from None
        if not isinstance(msg, dict):
            raise self._fail(f"answered {waiting_for} with JSON that is not an object.")
        return msg

    # ------------------------------------------------------------------ the Bot interface

    def decide(self, view: View) -> Action:
        """Send ``decide`` and return the program's action, which must be one of
        ``view.legal``; anything else raises :class:`BotFailure`."""
        self.start()
        msg = self._ask(decide_message(view), self.time_limit, "decide")
        if msg.get("type") != "action":
            raise self._fail(
                f"answered decide with a message of type {msg.get('type')!r} instead of "
                "'action'."
            )
        raw = msg.get("action")
        try:
            action = Action.from_json(raw)
        except (IllegalActionError, OptionsError) as e:
            raise self._fail(f"answered with an unreadable action {raw!r}: {e}") from None
        if action not in view.legal:
            legal = ", ".join(str(a) for a in view.legal)
            raise self._fail(
                f"chose {str(action)!r}, which is not one of the legal actions ({legal})."
            )
        return action

    def new_match(self, seat: int) -> None:
        """Start the program before the match, so start-up is not timed as a decision."""
        self.start()

    def hand_over(self, view: View, result: HandResult | None = None) -> None:
        """Send ``hand_over``: the result and both hands after a knock, null after a dead
        hand (R7, R11)."""
        if self._proc is None:
            return
        res = result if result is not None else view.result
        self._send(hand_over_message(res, view.revealed), self.time_limit)
