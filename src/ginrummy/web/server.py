"""``ginrummy serve``: run the web table with uvicorn and print the address to open."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import socket
import sys
from typing import Any

from .broker import BrokerError
from .computer import ComputerDriver
from .guard import RedactTokens, Settings
from .seeds import KEY_ENV, SeedKeyError
from .service import Limits
from .store import StoreError, resolve_db_url

__all__ = ["main", "parse_delay", "resolve_db_url"]


def parse_delay(text: str) -> float | tuple[float, float]:
    """``--bot-delay``: seconds, or ``LOW-HIGH`` for a natural random pause per move."""
    try:
        if "-" in text.strip("-"):
            lo, hi = text.split("-", 1)
            a, b = float(lo), float(hi)
            if not 0 <= a <= b <= 60:
                raise ValueError
            return (a, b)
        v = float(text)
        if not 0 <= v <= 60:
            raise ValueError
        return v
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected seconds (e.g. 0.8) or a range LOW-HIGH (e.g. 0.6-1.2), not {text!r}"
        ) from None


def build_parser() -> argparse.ArgumentParser:
    """The ``serve`` sub-command's options."""
    d = Settings()
    lim = Limits()
    p = argparse.ArgumentParser(
        prog="ginrummy serve", description="Run the Gin Rummy web table.",
        epilog="Exit status: 0 stopped with Ctrl-C, a server's normal stop (open requests "
        "finish first, and SIGTERM stops it the same way, then ends by that signal: 143 in a "
        "shell, as service managers expect); 2 a wrong command line, or a database, broker, "
        "seed key or port that cannot be used (one line, nothing started).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--db",
        default=None,
        help="database URL or SQLite file (default: ginrummy.sqlite3 in the current "
        "directory; PostgreSQL: postgresql+psycopg://user:pass@host/dbname)",
    )
    p.add_argument(
        "--no-migrate",
        action="store_true",
        help="do not upgrade the database schema at start-up; refuse to start unless it is "
        "at this version's revision (for deployments that run `ginrummy db upgrade` first)",
    )
    p.add_argument(
        "--broker",
        default=None,
        help="Redis URL (redis://HOST:PORT/N) shared by several serve processes on one "
        "PostgreSQL database (docs/deploy.md); default: this process alone",
    )
    p.add_argument(
        "--seed-key-file",
        default=None,
        help=f"file holding the key that encrypts seeds (or set {KEY_ENV}); default with "
        "one process: made beside the SQLite file",
    )
    p.add_argument(
        "--bot-delay",
        type=parse_delay,
        default=(0.6, 1.2),
        help="seconds the computer pauses before each move (default 0.6-1.2)",
    )
    p.add_argument("--computer-workers", type=int, default=None,
                   help="worker processes for searching computer players (default: CPUs)")
    p.add_argument("--rate-create", default=d.rate_create,
                   help=f"new matches per client address (default {d.rate_create})")
    p.add_argument("--rate-join", default=d.rate_join,
                   help=f"invite uses per client address (default {d.rate_join})")
    p.add_argument("--rate-lookup", default=d.rate_lookup,
                   help=f"lobby look-ups per client address (default {d.rate_lookup})")
    p.add_argument("--rate-actions", default=d.rate_actions,
                   help=f"moves and state requests per client address (default {d.rate_actions})")
    p.add_argument("--allowed-origin", action="append", default=[],
                   help="a WebSocket Origin accepted besides the server's own host (repeat)")
    p.add_argument("--max-tables", type=int, default=lim.max_tables,
                   help=f"matches held in memory at once (default {lim.max_tables})")
    p.add_argument("--max-sockets-per-seat", type=int, default=lim.max_sockets_per_seat,
                   help=f"open WebSockets per seat (default {lim.max_sockets_per_seat})")
    p.add_argument("--abandoned-days", type=float, default=lim.abandoned_days,
                   help=f"delete unfinished matches untouched this long (default "
                   f"{lim.abandoned_days:g}; 0: never)")
    p.add_argument("--header-timeout", type=float, default=d.header_seconds,
                   help=f"seconds to send a request's headers (default {d.header_seconds:g})")
    p.add_argument("--ws-idle-timeout", type=float, default=d.ws_idle_seconds,
                   help=f"close a WebSocket silent this long (default {d.ws_idle_seconds:g})")
    p.add_argument("--log-level", default="warning",
                   choices=["critical", "error", "warning", "info", "debug"])
    return p


def _check_rate(text: str) -> str | None:
    """None if ``text`` is a rate the limits library reads (e.g. ``20/minute``)."""
    from limits import parse

    try:
        parse(text)
    except ValueError:
        return f"not a rate like 20/minute: {text!r}"
    return None


def _http_protocol(header_seconds: float) -> Any:
    """uvicorn's HTTP protocol with a deadline for each request's head: a connection that
    trickles its headers (or sends none) is closed after ``header_seconds``."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools missing: uvicorn's default (no head deadline)
        return "auto"

    class HeadDeadline(HttpToolsProtocol):
        _head_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(header_seconds, self._head_expired)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_expired(self) -> None:
            self._head_timer = None
            if self.transport is not None and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.transport is not None and not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeadDeadline


def main(argv: list[str]) -> int:
    """Start the server; returns when it stops (exit 2 on a bad option or database)."""
    args = build_parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"ginrummy serve: the port must be 0-65535, not {args.port}.", file=sys.stderr)
        return 2
    try:
        import uvicorn

        from .app import create_app
    except ImportError as e:
        print(
            f"ginrummy serve: the web extras are not installed ({e.name}): "
            "pip install 'ginrummy[web]'",
            file=sys.stderr,
        )
        return 2
    for opt in ("rate_create", "rate_join", "rate_lookup", "rate_actions"):
        bad = _check_rate(getattr(args, opt))
        if bad:
            print(f"ginrummy serve: --{opt.replace('_', '-')}: {bad}", file=sys.stderr)
            return 2
    if args.broker and not (args.db and "://" in args.db and not args.db.startswith("sqlite")):
        print("ginrummy serve: --broker needs a shared database: --db postgresql+psycopg://...",
              file=sys.stderr)
        return 2
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s %(message)s")
    url = resolve_db_url(args.db)
    settings = Settings(
        rate_create=args.rate_create, rate_join=args.rate_join, rate_lookup=args.rate_lookup,
        rate_actions=args.rate_actions, allowed_origins=tuple(args.allowed_origin),
        ws_idle_seconds=args.ws_idle_timeout, header_seconds=args.header_timeout,
    )
    limits = Limits(max_tables=args.max_tables, max_sockets_per_seat=args.max_sockets_per_seat,
                    abandoned_days=args.abandoned_days)
    try:
        app = create_app(
            url, bot_delay=args.bot_delay, broker_url=args.broker, settings=settings,
            seed_key_file=args.seed_key_file, limits=limits,
            driver=ComputerDriver(workers=args.computer_workers), migrate=not args.no_migrate,
        )
    except (StoreError, BrokerError, SeedKeyError) as e:
        print(f"ginrummy serve: {e}", file=sys.stderr)
        return 2
    host = args.host
    try:  # listen before the app starts: a busy port is one line, before any match resumes
        sock = listen(host, args.port)
    except OSError as e:
        print(f"ginrummy serve: cannot listen on {host} port {args.port}: "
              f"{e.strerror or e} (another server there? try --port)", file=sys.stderr)
        return 2
    shown = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    print(f"Gin Rummy table: http://{shown}:{sock.getsockname()[1]}/  (Ctrl-C to stop)",
          flush=True)
    config = uvicorn.Config(
        app,
        host=host,
        port=args.port,
        log_level=args.log_level,
        http=_http_protocol(args.header_timeout),
        # Messages up to 64 KiB reach the app, which answers those over 16 KiB with the
        # documented 413 error (and keeps the socket); only larger ones close it (1009).
        ws_max_size=64 * 1024,
        # A STATE is a few KiB: compressing every push cost more server CPU (about an
        # eighth under load) than it saves on any real link.
        ws_per_message_deflate=False,
        access_log=args.log_level in ("info", "debug"),
    )
    redact = RedactTokens()  # after uvicorn set up its loggers: no token is ever logged
    for name in ("", "uvicorn.access", "uvicorn.error", "uvicorn", "ginrummy.web"):
        logger = logging.getLogger(name)
        logger.addFilter(redact)
        for handler in logger.handlers:  # records of child loggers (websockets) too
            handler.addFilter(redact)
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])
    return 0


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (raises OSError, e.g. when the port is busy)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock
