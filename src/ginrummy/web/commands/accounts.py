"""``ginrummy accounts``: what an operator does to accounts from the command line.

``moderator USERNAME [--revoke]`` grants (or takes away) the moderator role: moderators see
the screening's flags and players' reports and mark accounts (docs/fair-play.md). Exit
status: 0 done, 1 no such account, 2 the database or an option cannot be used (one line on
standard error, no traceback), 130 stopped with Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys

from .. import migrations
from ..store import StoreError
from ..store.fairplay import FairPlayStore

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The ``accounts`` sub-command's options."""
    p = argparse.ArgumentParser(
        prog="ginrummy accounts",
        description="Accounts of the web table: the moderator role (docs/fair-play.md).",
        epilog="Exit status: 0 done; 1 no such account; 2 a wrong command line, or a "
        "database that cannot be used; 130 stopped with Ctrl-C.",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    mod = sub.add_parser("moderator", help="grant an account the moderator role (or take "
                         "it away with --revoke)")
    mod.add_argument("username", help="the account's username (any case)")
    mod.add_argument("--revoke", action="store_true", help="take the role away")
    mod.add_argument("--db", default=None, help="database URL or SQLite file, as for "
                     "`ginrummy serve` (default: ginrummy.sqlite3 in the current directory)")
    return p


def main(argv: list[str]) -> int:
    """Run ``ginrummy accounts ACTION``; returns the exit status."""
    from .db import open_existing

    args = build_parser().parse_args(argv)
    try:
        engine = open_existing(args.db)
        try:
            migrations.require_head(engine)
            done = FairPlayStore(engine).set_moderator(args.username.casefold(),
                                                        not args.revoke)
        finally:
            engine.dispose()
    except StoreError as e:
        print(f"ginrummy accounts {args.action}: {e}", file=sys.stderr)
        return 2
    if not done:
        print(f"ginrummy accounts moderator: there is no account {args.username!r}.",
              file=sys.stderr)
        return 1
    what = "is no longer a moderator" if args.revoke else "is a moderator now"
    print(f"{args.username} {what}.")
    return 0
