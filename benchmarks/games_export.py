"""Memory and speed of a player's games' export (``GET /api/games/user/{username}``).

Builds an SQLite database holding ``--games`` finished public matches of one account (one
real match of ``strong`` against ``simple``, to 100, dealt as the site deals, stored again
under new ids: the rows are written in bulk, not played), then streams the whole export
through the site's own :class:`~ginrummy.web.records.games.GameExport` with its pacing off,
reading every line,
and reports the records a second and how much the process's memory grew while it ran
(peak resident size, and Python's own allocations' peak from tracemalloc): an export that
held its games would grow with their number, a stream stays flat.

    PYTHONPATH=src python3 benchmarks/games_export.py --games 100000
    PYTHONPATH=src python3 benchmarks/games_export.py --games 1000 --games 10000
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import resource
import secrets
import sys
import tempfile
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

from sqlalchemy import insert

from ginrummy.bots import make_bot
from ginrummy.fairness import DEAL_SCHEME, deal_for, new_salt
from ginrummy.match import Match
from ginrummy.web.backends.database import Database
from ginrummy.web.records.games import GameExport, GameFilters
from ginrummy.web.store import Store, StoredAction, StoredMatch
from ginrummy.web.store.schema import (
    account_matches_table,
    accounts_table,
    actions_table,
    matches_table,
    salts_table,
)


def _rss_mib() -> float:
    """The process's peak resident size so far (MiB; Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(path: Path, games: int) -> str:
    """A database with ``games`` finished public matches of the account ``ann``; its id."""
    store = Store(f"sqlite:///{path}")
    try:
        seed = 7
        match = Match(seed=seed, first_dealer=0, players=("ann", "Simple"),
                      deals=(deal_for(seed, i, DEAL_SCHEME) for i in itertools.count()))
        bots = [make_bot("strong", 1), make_bot("simple", 2)]
        while not match.is_over():
            seat = match.to_play
            assert seat is not None
            match.play(bots[seat].decide(match.view(seat)), seat)
        sm = StoredMatch(id="template", token_hash0="x", token_hash1="y",
                         options=match.options.to_json(), players=["ann", "Simple"],
                         seed=seed, first_dealer=0, opponent="friend", bot_level=None,
                         bot_name=None, status="finished", hands_dealt=len(match.hands),
                         scores=list(match.scores), winner=match.winner,
                         deal_scheme=DEAL_SCHEME)
        moves = [(i, op) for i, h in enumerate(match.hands) for op in h.history]
        actions = [StoredAction(seq=j, hand=i, seat=op.seat, action=op.action.to_json())
                   for j, (i, op) in enumerate(moves)]
        account = secrets.token_hex(8)
        now = time.time()
        with store.engine.begin() as conn:
            conn.execute(insert(accounts_table).values(
                id=account, username="ann", username_key="ann", password_hash="x",
                created_at=now, rating=1500.0, deviation=80.0, volatility=0.06,
                rated_matches=games))
        salt = new_salt()
        step = 500
        for start in range(0, games, step):
            ids = [f"m{i:09d}" for i in range(start, min(games, start + step))]
            rows, acts, salts, links = [], [], [], []
            for k, mid in enumerate(ids):
                at = now - games + start + k  # one a second, the newest last
                m = replace(sm, id=mid)
                rows.append(dict(
                    id=mid, token_hash0=m.token_hash0 + mid, token_hash1=m.token_hash1 + mid,
                    options=json.dumps(m.options), players=json.dumps(m.players),
                    seed=seed, first_dealer=0, opponent="friend", bot_level=None,
                    bot_name=None, version=len(actions), status="finished", joined=True,
                    hands_dealt=m.hands_dealt, ready="00", score0=m.scores[0],
                    score1=m.scores[1], winner=m.winner, to_play=None, created_at=at,
                    updated_at=at, deal_scheme=DEAL_SCHEME))
                acts += [dict(match_id=mid, seq=j, hand=a.hand, seat=a.seat,
                              action=json.dumps(a.action)) for j, a in enumerate(actions)]
                salts.append(dict(match_id=mid, salt=salt, salt_enc=None))
                links.append(dict(match_id=mid, account0=account, account1=None,
                                  rated=True, public=True, settled=True, created_at=at))
            with store.engine.begin() as conn:
                conn.execute(insert(matches_table), rows)
                conn.execute(insert(actions_table), acts)
                conn.execute(insert(salts_table), salts)
                conn.execute(insert(account_matches_table), links)
        return account
    finally:
        store.close()


async def export(path: Path, account: str) -> tuple[int, int, float]:
    """Stream every game; (lines, bytes, seconds)."""
    store = Store(f"sqlite:///{path}")
    db = Database(store)
    try:
        games = GameExport(db)
        games.paced = False
        lines = size = 0
        started = time.perf_counter()
        async for line in games.stream(account, GameFilters(), "bench", 0.0):
            lines += 1
            size += len(line)
        return lines, size, time.perf_counter() - started
    finally:
        db.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, action="append",
                    help="games in the database (repeatable; default 100000)")
    args = ap.parse_args()
    for games in args.games or [100_000]:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "games.sqlite3"
            t0 = time.perf_counter()
            account = build(path, games)
            built = time.perf_counter() - t0
            before = _rss_mib()
            tracemalloc.start()
            lines, size, seconds = asyncio.run(export(path, account))
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            after = _rss_mib()
            print(f"{games} games (database built in {built:.0f} s, "
                  f"{path.stat().st_size / 2**20:.0f} MiB): {lines} records streamed, "
                  f"{size / 2**20:.1f} MiB of NDJSON in {seconds:.1f} s "
                  f"({lines / seconds:.0f} records a second); peak resident size "
                  f"{before:.0f} MiB before, {after:.0f} MiB after; Python's allocations' "
                  f"peak while streaming {peak / 2**20:.1f} MiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
