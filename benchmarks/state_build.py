"""CPU microseconds to build a seat's STATE (``views.state_text``: built and encoded, as
the server does after every move), on tables in play: each pass plays one random legal
move (no knock) at each table, or deals its next hand, then builds both seats' STATEs.
Run it with each version's ``src`` on ``PYTHONPATH`` to compare them.

    PYTHONPATH=src python3 benchmarks/state_build.py
    PYTHONPATH=/tmp/before/src python3 benchmarks/state_build.py
"""

from __future__ import annotations

import argparse
import random
import sys
import time


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--passes", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    from ginrummy.match import Match
    from ginrummy.web.store.rows import StoredMatch
    from ginrummy.web.tables import views
    from ginrummy.web.tables.table import Table

    rng = random.Random(args.seed)
    tables = []
    for i in range(args.tables):
        m = Match(seed=i, auto_deal=False, players=("A", "B"))
        m.start_hand()
        n = rng.randrange(5, 40)
        for _ in range(n):
            if m.hand.is_over():
                break
            m.play(rng.choice([a for a in m.legal_actions() if not a.knock]))
        sm = StoredMatch(id=f"m{i}", token_hash0="", token_hash1="", options={},
                         players=["A", "B"], seed=i, first_dealer=0, opponent="friend",
                         bot_level=None, bot_name=None)
        tables.append(Table(stored=sm, match=m, next_seq=n))

    def one_pass() -> None:
        for t in tables:
            m = t.match
            if m.is_over():
                continue
            if m.hand.is_over():
                m.start_hand()
            else:
                m.play(rng.choice([a for a in m.legal_actions() if not a.knock]))
            t.stored.version += 1
            for seat in (0, 1):
                views.state_text(t, seat)

    one_pass()
    start = time.process_time()
    for _ in range(args.passes):
        one_pass()
    took = time.process_time() - start
    print(f"{took / args.passes / len(tables) / 2 * 1e6:.1f} us of CPU per seat's STATE")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
