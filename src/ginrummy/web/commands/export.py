"""``ginrummy export --db URL --month YYYY-MM --out DIR``: a month of the web table's games
as open data (docs/research.md).

The month's (UTC, by the match's end) finished public matches, aborted ones left out, are
read page by page, oldest first, each as the sealed ``ginrummy/1`` record its download
gives (``ginrummy verify`` checks it) with its match id as ``id``, and every decision is
labelled by the coach as ``ginrummy dataset`` labels self-play (:mod:`ginrummy.research`;
the match column is the site's match id). DIR gets ``ginrummy_YYYY-MM.jsonl.zst``,
``decisions_YYYY-MM.parquet``, and the folder's ``index.json`` (every month's counts,
sizes and checksums: the site's open-data page lists them) and ``SHA256SUMS`` (over every
month's files) are brought up to date. At most a page of matches and the
labelling's window are in memory, however long the month.

Exit status: 0 written (a one-line summary); 1 no game ended in that month (nothing is
written); 2 a wrong command line, a bad month, a database (or seed key) that cannot be
used, the research extra missing; 130 stopped with Ctrl-C (no file left half-written).
"""

from __future__ import annotations

import argparse
import calendar
import os
import re
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ... import exits
from ...arena import RAY_INSTALL, RayUnavailable
from ...argtypes import positive_int, whole_int
from ...fairness import seal
from ...record import RecordError
from ...research.files import EXTRA, ExtraMissing, OpenData, require_all
from ...research.labels import DEFAULT_SAMPLES, Decision, label_record, record_line
from ...research.months import add_month
from ...research.work import check_ray, ordered_map
from ..records.games import PAGE
from ..store import Store, StoreError, resolve_db_url, sqlite_path
from ..store.seeds import KEY_ENV, SeedCipher, SeedKeyError, load_key
from ..tables.table import build_match

__all__ = ["build_parser", "file_names", "main", "month_bounds"]

_DB_HELP = ("database URL or SQLite file, as for `ginrummy serve` (default: ginrummy.sqlite3 "
            "in the current directory)")


class MonthError(ValueError):
    """A month that is not YYYY-MM."""


def month_bounds(text: str) -> tuple[float, float]:
    """The month ``YYYY-MM`` as Unix seconds ``[start, end)`` in UTC; MonthError otherwise.

    >>> month_bounds("2025-01")
    (1735689600.0, 1738368000.0)
    >>> month_bounds("2024-12")[1] == month_bounds("2025-01")[0]
    True
    """
    m = re.fullmatch(r"(\d{4})-(\d{2})", text)
    if m is None or not 1 <= int(m.group(2)) <= 12 or int(m.group(1)) < 1970:
        raise MonthError(f"--month is a month as YYYY-MM (e.g. 2025-01), not {text!r}.")
    year, month = int(m.group(1)), int(m.group(2))
    start = datetime(year, month, 1, tzinfo=UTC)
    days = calendar.monthrange(year, month)[1]
    end = datetime.fromtimestamp(start.timestamp() + days * 86400, tz=UTC)
    return start.timestamp(), end.timestamp()


def file_names(month: str) -> tuple[str, str]:
    """The records' and the decisions' file names of a month."""
    return f"ginrummy_{month}.jsonl.zst", f"decisions_{month}.parquet"


def build_parser() -> argparse.ArgumentParser:
    """The ``export`` sub-command's options."""
    p = argparse.ArgumentParser(
        prog="ginrummy export",
        description="A month of the web table's finished public matches as open data: "
        "DIR/ginrummy_YYYY-MM.jsonl.zst (sealed ginrummy/1 records, oldest first), "
        "DIR/decisions_YYYY-MM.parquet (every decision, labelled by the coach with the win "
        "chance of each legal action) and DIR/SHA256SUMS (docs/research.md). Needs the web "
        f"and {EXTRA} extras.",
        epilog=exits.epilog(
            "written (a one-line summary: games, decisions, sizes)",
            "no game ended in that month (nothing written)",
            usage="a wrong command line, a bad month, a database or seed key that cannot "
            f"be used, the {EXTRA} extra missing, an output folder that cannot be written",
            interrupted="stopped with Ctrl-C (no file left half-written)"))
    p.add_argument("--db", default=None, help=_DB_HELP)
    p.add_argument("--month", required=True, metavar="YYYY-MM",
                   help="the month (UTC) the matches ended in")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    p.add_argument("--seed-key-file", default=None,
                   help=f"the seed key, as for `ginrummy serve` (or set {KEY_ENV}; default: "
                   "the key file beside an SQLite database, if there is one)")
    p.add_argument("--samples", type=positive_int, default=DEFAULT_SAMPLES, metavar="K",
                   help=f"sampled deals a decision is labelled on (default {DEFAULT_SAMPLES})")
    p.add_argument("--seed", type=whole_int, default=0,
                   help="the labels' seed (default 0): with the match id and the decision's "
                   "place, it fixes every label")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="J",
                   help="worker processes for the labelling; the same files for any number "
                   "(default 1)")
    p.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="label on a Ray cluster (local: start one here; needs "
                   f"{RAY_INSTALL})")
    return p






def open_store(db: str | None, key_file: str | None) -> Store:
    """The site's database, read as it is (no migration, no file made): StoreError or
    SeedKeyError in one line when it cannot be used. The seed key (to replay matches
    whose seeds are encrypted) comes from ``key_file``, else the environment, else the key
    file beside an SQLite database when there is one; without any, encrypted seeds are
    refused when met."""
    url = resolve_db_url(db)
    path = sqlite_path(url)
    if path is not None and not os.path.exists(path):
        raise StoreError(f"There is no database file {path!r}.")
    default = Path(path + ".key") if path else None
    cipher = None
    if key_file or os.environ.get(KEY_ENV) or (default is not None and default.exists()):
        cipher = SeedCipher(load_key(key_file, default))
    return Store(url, cipher, migrate=False)


def _records(store: Store, start: float, end: float,
             skipped: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(match id, sealed record) of the month's games, oldest first, a page of ids read at
    a time; a stored match that no longer replays is skipped and named in ``skipped``."""
    after: tuple[float, str] | None = None
    while True:
        page = store.games.finished_public_between(start, end, after, PAGE)
        for mid, ended in page:
            after = (ended, mid)
            stored = store.load(mid)
            if stored is None:
                continue
            try:
                record = build_match(stored).to_record()
            except (RecordError, ValueError) as e:
                skipped.append(f"{mid} ({getattr(e, 'message', None) or e})")
                continue
            salt = store.salt(mid)
            if salt is not None and "seed" in record:
                record = seal(record, salt, stored.deal_scheme)
            yield mid, record
        if len(page) < PAGE:
            return


def export(store: Store, month: str, out: str | Path, *, samples: int = DEFAULT_SAMPLES,
           seed: int = 0, jobs: int = 1, ray_address: str | None = None
           ) -> tuple[int, int, dict[str, int], list[str]]:
    """Write the month's files (see the module docstring): (games, decisions, the files'
    sizes by name, the matches skipped). With no game, nothing is left in ``out``."""
    start, end = month_bounds(month)
    names = file_names(month)
    skipped: list[str] = []
    games = decisions = 0
    data = OpenData(out, *names)
    try:
        items = ((mid, record, seed, samples)
                 for mid, record in _records(store, start, end, skipped))
        done: Iterator[tuple[tuple[str, dict[str, Any], int, int], list[Decision]]] = \
            ordered_map(label_record, items, jobs=jobs, ray_address=ray_address)
        for (mid, record, _, _), rows in done:
            data.add(record_line(record, mid), rows)
            games += 1
            decisions += len(rows)
        if games == 0:
            data.abandon()
            return 0, 0, {}, skipped
        sizes = data.finish(sums=False)
        add_month(out, month, games=games, decisions=decisions, files=names)
    except BaseException:
        data.abandon()
        raise
    return games, decisions, sizes, skipped


def main(argv: list[str]) -> int:
    """Run ``ginrummy export``; returns the exit status."""
    args = build_parser().parse_args(argv)

    def usage(msg: str) -> int:
        print(f"ginrummy export: {msg}", file=sys.stderr)
        return exits.USAGE

    try:
        month_bounds(args.month)
        require_all()
        if args.ray is not None:
            if not args.ray.strip():
                return usage("--ray needs an address: local, auto, or HOST:PORT of a Ray "
                             "cluster.")
            check_ray()
    except (MonthError, ExtraMissing, RayUnavailable) as e:
        return usage(str(e))
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        return usage(f"--out {args.out} is a file, not a folder.")
    t0 = time.monotonic()
    try:
        store = open_store(args.db, args.seed_key_file)
    except (StoreError, SeedKeyError) as e:
        return usage(str(e))
    try:
        with exits.interrupts_to_parent():
            games, decisions, sizes, skipped = export(
                store, args.month, out, samples=args.samples, seed=args.seed, jobs=args.jobs,
                ray_address=args.ray)
    except (StoreError, SeedKeyError, RayUnavailable) as e:
        return usage(str(e))
    except OSError as e:
        return usage(f"cannot write to {args.out}: {e.strerror or e}.")
    finally:
        store.close()
    for s in skipped:
        print(f"ginrummy export: skipped match {s}: it does not replay.", file=sys.stderr)
    if games == 0:
        print(f"ginrummy export: no finished public match ended in {args.month} (UTC): "
              "nothing written.", file=sys.stderr)
        return exits.REFUSED
    records, labelled = file_names(args.month)
    seconds = time.monotonic() - t0
    print(f"{args.month}: {games:,} games, {decisions:,} decisions in {seconds:.1f} s: "
          f"{records} {sizes[records]:,} bytes, {labelled} {sizes[labelled]:,} bytes, "
          f"SHA256SUMS, in {args.out}.")
    return exits.OK
