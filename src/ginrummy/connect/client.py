"""Talking to a ginrummy server as an account: its HTTP API (httpx) and its sockets
(websockets), with the account's API token; the waits between reconnections; one log line
per event.

Nothing here knows the server's code: it speaks the documented API (docs/web-api.md) as
any outside program would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TextIO, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

__all__ = ["CLOSE_SECONDS", "Backoff", "Log", "Refused", "Server", "Unreachable",
           "close_reason", "off_loop"]

T = TypeVar("T")

CLOSE_SECONDS = 2.0
"""Longest a socket waits for the server's answer to its close (Ctrl-C never waits on a
slow server longer)."""


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a daemon thread of its own, awaited without blocking the event
    loop: a bot thinking (or an ``exec:`` program that never answers) can be left behind
    when the task is cancelled, and never keeps the process from exiting, unlike the
    loop's default executor, whose threads are waited for at exit (Ctrl-C must stop
    ``connect`` at once, whatever it is waiting on)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not done.done():  # cancelled meanwhile: the answer is dropped
            if ok:
                done.set_result(value)
            else:
                done.set_exception(value)

    def work() -> None:
        try:
            out: Any = fn(*args)
            ok = True
        except BaseException as e:  # noqa: BLE001 - handed to the awaiting task
            out, ok = e, False
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody awaits it
            loop.call_soon_threadsafe(settle, ok, out)

    threading.Thread(target=work, name="ginrummy-bot", daemon=True).start()
    return await done


class Refused(Exception):
    """The server refused the token (revoked, unknown, malformed, its account closed):
    nothing more can be done with it. The message is the server's sentence."""


class Unreachable(Exception):
    """The server could not be reached or answered unexpectedly: try again later."""


class Log:
    """One line per event, with the time, on ``out``."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out

    def __call__(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", file=self.out, flush=True)


class Backoff:
    """Waits before each new try: 0.5 s, doubling up to ``most`` seconds, with a little
    jitter (so that many clients cut off together do not all come back together); back to
    the start once a connection works."""

    def __init__(self, first: float = 0.5, most: float = 15.0) -> None:
        self.first = first
        self.most = most
        self.tries = 0

    def next(self) -> float:
        """The next wait in seconds."""
        wait = min(self.most, self.first * 2.0 ** self.tries)
        self.tries += 1
        return wait * random.uniform(0.8, 1.2)

    def reset(self) -> None:
        """A connection worked: start from the shortest wait again."""
        self.tries = 0


def close_reason(e: websockets.exceptions.ConnectionClosed) -> tuple[int | None, str]:
    """The close code and reason the server sent (None: the connection just dropped)."""
    if e.rcvd is None:
        return None, ""
    return e.rcvd.code, e.rcvd.reason


class Server:
    """One server, as the account of ``token``."""

    def __init__(self, url: str, token: str, timeout: float = 15.0) -> None:
        parts = urlsplit(url.rstrip("/"))
        self.base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        ws_scheme = "wss" if parts.scheme == "https" else "ws"
        self.ws_base = urlunsplit((ws_scheme, parts.netloc, parts.path, "", ""))
        self.token = token
        self.http = httpx.AsyncClient(base_url=self.base, timeout=timeout,
                                      headers={"Authorization": f"Bearer {token}"})

    async def close(self) -> None:
        """Release the HTTP connections."""
        await self.http.aclose()

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, JSON answer) of one request; :class:`Refused` for a 401 (the token),
        :class:`Unreachable` when there is no answer."""
        try:
            r = await self.http.request(method, path, json=body)
        except httpx.HTTPError as e:
            raise Unreachable(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__) \
                from None
        try:
            data = r.json()
        except ValueError:
            data = None
        if r.status_code == 401:
            raise Refused(_sentence(data) or "the token was refused (401).")
        if r.status_code >= 500 or (r.status_code == 429 and data is None):
            raise Unreachable(_sentence(data) or f"the server answered {r.status_code}")
        return r.status_code, data

    @asynccontextmanager
    async def socket(self, path: str) -> AsyncIterator[ClientConnection]:
        """A WebSocket at ``path``, authenticated with the token (its first message)."""
        try:
            ws = await websockets.connect(self.ws_base + path, open_timeout=10,
                                          ping_interval=10, ping_timeout=10,
                                          close_timeout=CLOSE_SECONDS, max_size=2 ** 22)
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as e:
            raise Unreachable(str(e) or type(e).__name__) from None
        try:
            await ws.send(json.dumps({"type": "auth", "token": self.token}))
            yield ws
        finally:
            await ws.close()


def _sentence(data: Any) -> str:
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        return str(data["error"])
    return ""
