"""``ginrummy serve``: run the web table with uvicorn and print the address to open."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import socket
import sys
from typing import Any

from .backends.broker import BrokerError
from .computer.driver import ComputerDriver
from .guard import Limits, RedactTokens, Settings
from .store import StoreError, resolve_db_url
from .store.seeds import KEY_ENV, SeedKeyError

__all__ = ["daily_entry", "main", "parse_delay", "resolve_db_url"]


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
                   help="moves, state requests, socket messages, rematches, reviews and hints "
                   f"per client address (default {d.rate_actions})")
    p.add_argument("--rate-reads", default=d.rate_reads,
                   help=f"public reads (records, replays, fairness) per client address "
                   f"(default {d.rate_reads})")
    p.add_argument("--rate-pages", default=d.rate_pages,
                   help=f"pages and their files per client address (default {d.rate_pages})")
    p.add_argument("--rate-sockets", default=d.rate_sockets,
                   help=f"WebSocket connections opened per client address "
                   f"(default {d.rate_sockets})")
    p.add_argument("--rate-messages", default=d.rate_messages,
                   help=f"socket messages per seat, all its sockets together (default "
                   f"{d.rate_messages})")
    p.add_argument("--rate-bot-messages", default=d.rate_bot_messages,
                   help=f"socket messages per seat of a socket opened with an API token (a "
                   f"program, e.g. ginrummy connect) (default {d.rate_bot_messages})")
    p.add_argument("--rate-coach", default=d.rate_coach,
                   help=f"analysis-board requests, hints and reviews started, per account "
                   f"or per guest's address (default {d.rate_coach})")
    p.add_argument("--rate-chat", default=d.rate_chat,
                   help=f"chat messages per seat or spectator (default {d.rate_chat})")
    p.add_argument("--rate-chat-account", default=d.rate_chat_account,
                   help=f"chat messages per account, all its chats together "
                   f"(default {d.rate_chat_account})")
    p.add_argument("--rate-auth", default=d.rate_auth,
                   help=f"refused seat tokens per client address; past it, tokens from there "
                   f"are refused untried (default {d.rate_auth})")
    p.add_argument("--rate-login", default=d.rate_login,
                   help=f"log-in attempts per client address and per username "
                   f"(default {d.rate_login})")
    p.add_argument("--rate-signup", default=d.rate_signup,
                   help=f"new accounts per client address and per username "
                   f"(default {d.rate_signup})")
    p.add_argument("--rate-login-site", default=d.rate_login_site,
                   help=f"log-in attempts across the whole site (default {d.rate_login_site})")
    p.add_argument("--rate-signup-site", default=d.rate_signup_site,
                   help=f"new accounts across the whole site (default {d.rate_signup_site})")
    for name, what in (("password_workers", "threads hashing passwords at once, at a low "
                        "priority"),
                       ("password_queue", "password checks running or waiting at once; more "
                        "get 503")):
        default = getattr(lim, name)
        p.add_argument("--" + name.replace("_", "-"), type=int, default=default,
                       help=f"{what} (default {default})")
    p.add_argument("--allowed-origin", action="append", default=[],
                   help="a WebSocket Origin accepted besides the server's own host (repeat)")
    p.add_argument("--max-tables", type=int, default=lim.max_tables,
                   help=f"matches held in memory at once (default {lim.max_tables})")
    p.add_argument("--max-sockets-per-seat", type=int, default=lim.max_sockets_per_seat,
                   help=f"open WebSockets per seat, across processes "
                   f"(default {lim.max_sockets_per_seat})")
    p.add_argument("--max-sockets-per-address", type=int, default=lim.max_sockets_per_address,
                   help=f"open WebSockets per client address, across processes "
                   f"(default {lim.max_sockets_per_address})")
    p.add_argument("--max-connections-per-address", type=int,
                   default=lim.max_connections_per_address,
                   help=f"open connections per client address, per process (default "
                   f"{lim.max_connections_per_address}; a trusted proxy is not capped)")
    p.add_argument("--abandoned-days", type=float, default=lim.abandoned_days,
                   help=f"delete unfinished matches untouched this long (default "
                   f"{lim.abandoned_days:g}; 0: never)")
    p.add_argument("--header-timeout", type=float, default=d.header_seconds,
                   help=f"seconds to send a request's headers (default {d.header_seconds:g})")
    p.add_argument("--body-timeout", type=float, default=d.body_seconds,
                   help=f"seconds to send a request's body (default {d.body_seconds:g})")
    p.add_argument("--ws-idle-timeout", type=float, default=d.ws_idle_seconds,
                   help=f"close a WebSocket silent this long (default {d.ws_idle_seconds:g})")
    p.add_argument("--ws-heartbeat", type=float, default=d.ws_heartbeat_seconds,
                   help=f"beat a WebSocket sent nothing this long, with the table's version "
                   f"(default {d.ws_heartbeat_seconds:g})")
    p.add_argument("--metrics", choices=["local", "open", "off"], default=d.metrics,
                   help="who may read GET /metrics: clients on this machine (default), "
                   "anyone, or nobody; GINRUMMY_METRICS_TOKEN lets a scraper elsewhere in")
    p.add_argument("--daily-min-days", type=float, default=None,
                   help=f"how old (days) an account must be to play the daily deal (default "
                   f"{d.daily_min_days:g} on a shared database, 0 on an SQLite file: a "
                   "table on one machine has no strangers to scout for; 0: any)")
    p.add_argument("--daily-min-rated", type=int, default=None,
                   help=f"finished rated matches an account needs to play the daily deal "
                   f"(default {d.daily_min_rated} on a shared database, 0 on an SQLite "
                   "file; 0: none)")
    p.add_argument("--open-data", metavar="DIR", default=None,
                   help="the folder `ginrummy export` writes its months to: /open-data lists "
                   "them and serves their files (docs/research.md)")
    p.add_argument("--no-starter-puzzles", action="store_true",
                   help="do not give a site with no public puzzles the starter set (57, "
                   "made from expert self-play; docs/training.md)")
    p.add_argument("--log-level", default="warning",
                   choices=["critical", "error", "warning", "info", "debug"])
    return p


def _starter_puzzles(app: Any) -> None:
    """A site with no public puzzles gets the starter set, so /puzzles and the lessons'
    puzzles have something to show from the first start; a database that cannot take them
    now is told on one line and served anyway (the next start tries again)."""
    from .training.puzzles import add_starter_puzzles

    try:
        added = add_starter_puzzles(app.state.site.store.puzzles)
    except Exception as e:  # noqa: BLE001 - never keep the tables from starting
        print(f"ginrummy serve: the starter puzzles were not added: {e}", file=sys.stderr)
        return
    if added:
        logging.getLogger("ginrummy.web").info("added %d starter puzzles (the site had "
                                               "none)", added)


def _check_rate(text: str) -> str | None:
    """None if ``text`` is a rate the limits library reads (e.g. ``20/minute``)."""
    from limits import parse

    try:
        parse(text)
    except ValueError:
        return f"not a rate like 20/minute: {text!r}"
    return None


def _trusted_proxies() -> frozenset[str]:
    """The addresses uvicorn trusts to forward the client's (``FORWARDED_ALLOW_IPS``)."""
    raw = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
    return frozenset(a.strip() for a in raw.split(",") if a.strip())


def _http_protocol(header_seconds: float, per_address: int) -> Any:
    """uvicorn's HTTP protocol with a deadline for each request's head (a connection that
    trickles its headers, or sends none, is closed after ``header_seconds``) and a cap on
    open connections per client address (one past ``per_address`` is closed at once; a
    trusted proxy's own address is not capped: its clients are, by their forwarded
    address, in the app). A connection upgraded to a WebSocket leaves this count (the
    app counts sockets per address itself)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools missing: uvicorn's default (no head deadline)
        return "auto"
    trusted = _trusted_proxies()
    open_by_address: dict[str, int] = {}

    class GuardedHttp(HttpToolsProtocol):
        _head_timer: asyncio.TimerHandle | None = None
        _counted: str | None = None

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

        def _uncount(self) -> None:
            if self._counted is not None:
                n = open_by_address.get(self._counted, 1) - 1
                if n > 0:
                    open_by_address[self._counted] = n
                else:
                    open_by_address.pop(self._counted, None)
                self._counted = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = peer[0] if isinstance(peer, tuple) and peer else None
            if address is not None and "*" not in trusted and address not in trusted:
                n = open_by_address.get(address, 0)
                open_by_address[address] = n + 1
                self._counted = address
                if n >= per_address:
                    transport.close()
                    return
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.transport is not None and not self.transport.is_closing():
                self._arm()

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            self._uncount()
            super().handle_websocket_upgrade()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._uncount()
            super().connection_lost(exc)

    return GuardedHttp


def daily_entry(db: str | None, days: float | None, rated: int | None
                ) -> tuple[float, int]:
    """The daily deal's entry rule (days, rated matches): as given, else the default of a
    site on a shared database, and none for an SQLite file (a table on one machine has no
    strangers to scout for).

    >>> daily_entry("games.sqlite3", None, None), daily_entry("postgresql://x/y", None, 2)
    ((0.0, 0), (7.0, 2))
    """
    laptop = resolve_db_url(db).startswith("sqlite")
    d = Settings()
    return ((0.0 if laptop else d.daily_min_days) if days is None else days,
            (0 if laptop else d.daily_min_rated) if rated is None else rated)


def main(argv: list[str]) -> int:
    """Start the server; returns when it stops (exit 2 on a bad option or database)."""
    args = build_parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"ginrummy serve: the port must be 0-65535, not {args.port}.", file=sys.stderr)
        return 2
    if args.password_workers < 1 or args.password_queue < 1:
        print("ginrummy serve: --password-workers and --password-queue must be at least 1.",
              file=sys.stderr)
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
    for opt in ("rate_create", "rate_join", "rate_lookup", "rate_actions", "rate_reads",
                "rate_pages", "rate_sockets", "rate_auth", "rate_login", "rate_signup",
                "rate_login_site", "rate_signup_site", "rate_messages", "rate_bot_messages",
                "rate_coach", "rate_chat", "rate_chat_account"):
        bad = _check_rate(getattr(args, opt))
        if bad:
            print(f"ginrummy serve: --{opt.replace('_', '-')}: {bad}", file=sys.stderr)
            return 2
    args.daily_min_days, args.daily_min_rated = daily_entry(args.db, args.daily_min_days,
                                                            args.daily_min_rated)
    for opt in ("daily_min_days", "daily_min_rated"):
        value = getattr(args, opt)
        if not 0 <= value < 1e6:
            print(f"ginrummy serve: --{opt.replace('_', '-')}: it is 0 or more (and under "
                  f"a million), not {value:g}.", file=sys.stderr)
            return 2
    if args.open_data is not None and not os.path.isdir(args.open_data):
        print(f"ginrummy serve: --open-data {args.open_data}: no such folder (make it, or "
              "let `ginrummy export --out` make it).", file=sys.stderr)
        return 2
    if args.broker and not (args.db and "://" in args.db and not args.db.startswith("sqlite")):
        print("ginrummy serve: --broker needs a shared database: --db postgresql+psycopg://...",
              file=sys.stderr)
        return 2
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s %(message)s")
    url = resolve_db_url(args.db)
    settings = Settings(
        rate_create=args.rate_create, rate_join=args.rate_join, rate_lookup=args.rate_lookup,
        rate_actions=args.rate_actions, rate_reads=args.rate_reads, rate_pages=args.rate_pages,
        rate_sockets=args.rate_sockets, rate_auth=args.rate_auth,
        rate_login=args.rate_login, rate_signup=args.rate_signup,
        rate_login_site=args.rate_login_site, rate_signup_site=args.rate_signup_site,
        rate_messages=args.rate_messages, rate_bot_messages=args.rate_bot_messages,
        rate_coach=args.rate_coach, rate_chat=args.rate_chat,
        rate_chat_account=args.rate_chat_account,
        allowed_origins=tuple(args.allowed_origin), ws_idle_seconds=args.ws_idle_timeout,
        ws_heartbeat_seconds=args.ws_heartbeat, header_seconds=args.header_timeout,
        body_seconds=args.body_timeout, metrics=args.metrics,
        metrics_token=os.environ.get("GINRUMMY_METRICS_TOKEN") or None,
        daily_min_days=args.daily_min_days, daily_min_rated=args.daily_min_rated,
        open_data=args.open_data,
    )
    limits = Limits(max_tables=args.max_tables, max_sockets_per_seat=args.max_sockets_per_seat,
                    max_sockets_per_address=args.max_sockets_per_address,
                    max_connections_per_address=args.max_connections_per_address,
                    abandoned_days=args.abandoned_days,
                    password_workers=args.password_workers, password_queue=args.password_queue)
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
    if not args.no_starter_puzzles:
        _starter_puzzles(app)
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
        http=_http_protocol(args.header_timeout, args.max_connections_per_address),
        # Messages up to 64 KiB reach the app, which answers those over 16 KiB with the
        # documented 413 error (and keeps the socket); only larger ones close it (1009).
        ws_max_size=64 * 1024,
        # Protocol pings: a peer that stops answering (a dead link, a sleeping laptop) is
        # dropped within about 40 s even when no message is due.
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
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
