"""``ginrummy puzzles``: make puzzles into the web table's database, and check them.

``make`` finds puzzles (docs/training.md: the margin rule, themes) in matches of expert
self-play (``--self-play N``, deterministic for ``--seed``), in the database's finished
public matches (``--from-db``) and in record files (``--records DIR``), and stores them
(a decision stored before is left as it is, so making twice adds nothing twice).
``check`` measures stored puzzles afresh, on ``--factor`` times their samples with another
seed, and reports those whose best move flips (``--drop`` deletes them).

Exit status: 0 done; 1 a record or a stored match could not be read; 2 a wrong command
line or a database (or seed key) that cannot be used; 130 stopped with Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ... import exits
from ...argtypes import positive_int, whole_int
from ...match import Match
from ...record import RecordError
from ...training.puzzles import (
    PUZZLE_SAMPLES,
    SCREEN_SAMPLES,
    Answer,
    find_puzzles,
    measure,
    source_seed,
)
from ...training.sources import SELF_PLAY_BOT, records_in, self_play
from ...view import View
from ..store import Store, StoreError, resolve_db_url, sqlite_path
from ..store.seeds import SeedCipher, SeedKeyError, load_key
from ..tables.table import build_match
from ..training.puzzles import new_puzzle

__all__ = ["build_parser", "main"]

_DB_HELP = ("database URL or SQLite file, as for `ginrummy serve` (default: ginrummy.sqlite3 "
            "in the current directory)")






def build_parser() -> argparse.ArgumentParser:
    """The ``puzzles`` sub-command's options."""
    p = argparse.ArgumentParser(
        prog="ginrummy puzzles",
        description="Make puzzles from matches into the web table's database, and check "
        "them (docs/training.md).",
        epilog=exits.epilog("done", "a record or a stored match could not be read",
                            usage="a wrong command line, or a database or seed key that "
                            "cannot be used"))
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    mk = sub.add_parser(
        "make", help="find puzzles in matches and store them",
        description="Find puzzles in matches: decisions where the best move beats every "
        "other by more than three paired standard errors on at least 4,096 shared deals, "
        "by at least three points of win chance; store them with their themes.",
        epilog=exits.epilog("made (the count is printed)", "a record or a stored match "
                            "could not be read", usage="a wrong command line, no source, "
                            "or a database or seed key that cannot be used"))
    mk.add_argument("--db", default=None, help=_DB_HELP)
    mk.add_argument("--seed-key-file", default=None,
                    help="the seed key (as for `ginrummy serve`), to replay stored matches")
    mk.add_argument("--self-play", type=whole_int, default=0, metavar="N",
                    help="play N matches of --bot against itself and look in them")
    mk.add_argument("--bot", default=SELF_PLAY_BOT,
                    help=f"the self-play bot (default {SELF_PLAY_BOT})")
    mk.add_argument("--from-db", action="store_true",
                    help="look in the database's finished public matches")
    mk.add_argument("--matches", type=positive_int, default=None, metavar="N",
                    help="with --from-db: the N most recent (default all)")
    mk.add_argument("--records", default=None, metavar="DIR",
                    help="look in the finished matches of the *.json records in DIR")
    mk.add_argument("--seed", type=whole_int, default=0,
                    help="seed of the self-play and of the evaluations (default 0)")
    mk.add_argument("--samples", type=positive_int, default=PUZZLE_SAMPLES,
                    help=f"shared deals a puzzle is measured on (default {PUZZLE_SAMPLES}; "
                    "fewer only for trying things: such puzzles are stored too)")
    mk.add_argument("--screen", type=whole_int, default=SCREEN_SAMPLES,
                    help=f"deals of the first look at each decision (default "
                    f"{SCREEN_SAMPLES}; 0 measures every decision in full)")
    mk.add_argument("--jobs", type=positive_int, default=1, help="worker processes")
    mk.add_argument("--limit", type=positive_int, default=None, help="stop after N puzzles")
    mk.add_argument("--json", action="store_true", help="also print each puzzle as a line "
                    "of JSON")
    mk.add_argument("--dry-run", action="store_true", help="store nothing")
    ck = sub.add_parser(
        "check", help="measure stored puzzles afresh; report the best moves that flip",
        description="Measure each stored public puzzle afresh on --factor times its "
        "samples with another seed, and report the ones whose best move is not confirmed.",
        epilog=exits.epilog("checked (the counts are printed)",
                            usage="a wrong command line, or a database that cannot be used"))
    ck.add_argument("--db", default=None, help=_DB_HELP)
    ck.add_argument("--factor", type=positive_int, default=4,
                    help="samples of the check per the puzzle's (default 4)")
    ck.add_argument("--seed", type=whole_int, default=1, help="the check's seed (default 1)")
    ck.add_argument("--limit", type=positive_int, default=None, help="check the first N only")
    ck.add_argument("--drop", action="store_true", help="delete the puzzles that flip")
    ck.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def _store(db: str | None, key_file: str | None, need_key: bool) -> Store:
    url = resolve_db_url(db)
    cipher = None
    if need_key:
        path = sqlite_path(url)
        default = Path(path + ".key") if path else None
        cipher = SeedCipher(load_key(key_file, default))
    return Store(url, cipher)


def _progress(done: int, total: int, found: int) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\rLooking: {done}/{total} decisions, {found} puzzles")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _make(args: argparse.Namespace) -> int:
    if not (args.self_play or args.from_db or args.records):
        print("ginrummy puzzles make: name a source: --self-play N, --from-db or --records "
              "DIR.", file=sys.stderr)
        return exits.USAGE
    store = _store(args.db, args.seed_key_file, args.from_db)
    try:
        matches: list[tuple[str, Match]] = []
        ids: dict[str, str] = {}
        try:
            if args.records:
                matches += list(records_in(args.records))
            if args.from_db:
                for mid in store.puzzles.finished_public_matches(args.matches):
                    stored = store.load(mid)
                    if stored is not None:
                        matches.append((f"match/{mid}", build_match(stored)))
                        ids[f"match/{mid}"] = mid
        except (RecordError, OSError, ValueError) as e:
            print(f"ginrummy puzzles make: {getattr(e, 'message', None) or e}",
                  file=sys.stderr)
            return exits.REFUSED
        start = time.perf_counter()
        if args.self_play:
            matches += self_play(args.self_play, args.seed, args.bot)
        with exits.interrupts_to_parent():
            found = find_puzzles(matches, samples=args.samples, screen=args.screen,
                                 seed=args.seed, jobs=args.jobs, limit=args.limit,
                                 progress=_progress)
        added = 0 if args.dry_run else store.puzzles.add(
            new_puzzle(p, ids.get(p.source)) for p in found)
        if args.json:
            for p in found:
                print(json.dumps(p.to_json()))
        print(f"{len(found)} puzzles in {len(matches)} matches ({added} new stored) in "
              f"{time.perf_counter() - start:.0f} s.", file=sys.stderr if args.json
              else sys.stdout)
    finally:
        store.close()
    return exits.OK


def check_puzzle(body: dict[str, Any], samples: int, seed: int) -> tuple[bool, Answer]:
    """Whether a stored puzzle's best move is the best again on ``samples`` fresh deals
    (seed ``seed``), with the fresh answer."""
    view = View.from_json(body["view"], [a for a in body["legal"]])
    answer = measure(view, samples, seed)
    return answer.best == Answer.from_json(body).best, answer


def _check(args: argparse.Namespace) -> int:
    store = _store(args.db, None, False)
    try:
        rows = store.puzzles.public(args.limit)
        flipped: list[dict[str, Any]] = []
        with exits.interrupts_to_parent():
            for row in rows:
                samples = args.factor * int(row.body["samples"])
                ok, fresh = check_puzzle(row.body, samples, source_seed(
                    args.seed, "check/" + row.key, row.hand, row.action))
                if not ok:
                    flipped.append({"id": row.id, "key": row.key,
                                    "best": row.body["best"],
                                    "fresh": fresh.to_json()["best"],
                                    "margin": round(fresh.margin, 4)})
        dropped = store.puzzles.remove(f["id"] for f in flipped) if args.drop else 0
    finally:
        store.close()
    report = {"checked": len(rows), "confirmed": len(rows) - len(flipped),
              "flipped": flipped, "dropped": dropped, "factor": args.factor}
    if args.json:
        print(json.dumps(report))
    else:
        share = report["confirmed"] / len(rows) if rows else 1.0
        print(f"{report['confirmed']} of {len(rows)} puzzles confirmed ({share:.1%}) on "
              f"{args.factor} times their samples with seed {args.seed}; {len(flipped)} "
              f"flipped{f', {dropped} dropped' if args.drop else ''}.")
        for f in flipped:
            print(f"  {f['id']} {f['key']}: best {f['best']} -> {f['fresh']}")
    return exits.OK


def main(argv: list[str]) -> int:
    """Run ``ginrummy puzzles ACTION``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return _make(args) if args.action == "make" else _check(args)
    except (StoreError, SeedKeyError) as e:
        print(f"ginrummy puzzles {args.action}: {e}", file=sys.stderr)
        return exits.USAGE
