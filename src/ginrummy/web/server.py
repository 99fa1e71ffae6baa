"""``ginrummy serve``: run the web table with uvicorn and print the address to open."""

from __future__ import annotations

import argparse
import contextlib
import logging
import socket
import sys

from .store import DEFAULT_DB_URL, StoreError

__all__ = ["main", "parse_delay", "resolve_db_url"]


def resolve_db_url(db: str | None) -> str:
    """A database URL from ``--db``: a URL as given, a plain path as an SQLite file."""
    if not db:
        return DEFAULT_DB_URL
    if "://" in db:
        return db
    return f"sqlite:///{db}"


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
    p = argparse.ArgumentParser(
        prog="ginrummy serve", description="Run the Gin Rummy web table."
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
        "--bot-delay",
        type=parse_delay,
        default=(0.6, 1.2),
        help="seconds the computer pauses before each move (default 0.6-1.2)",
    )
    p.add_argument("--log-level", default="warning",
                   choices=["critical", "error", "warning", "info", "debug"])
    return p


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
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s %(message)s")
    url = resolve_db_url(args.db)
    try:
        app = create_app(url, bot_delay=args.bot_delay)
    except StoreError as e:
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
        ws_max_size=16 * 1024,
        # A STATE is a few KiB: compressing every push cost more server CPU (about an
        # eighth under load) than it saves on any real link.
        ws_per_message_deflate=False,
        access_log=args.log_level in ("info", "debug"),
    )
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
