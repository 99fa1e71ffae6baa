"""What migrating at start-up costs: opening a :class:`Store` on a fresh SQLite file (the
schema created by the migrations) and on one already at head (one version check), against
the old start-up's ``create_all`` of the same tables, in the same process.

    python3 benchmarks/db_startup.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from ginrummy.web import migrations  # noqa: E402
from ginrummy.web.store import Store, open_engine  # noqa: E402


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=15, help="databases per figure (default 15)")
    args = p.parse_args(argv)
    migrations.head()  # the revision scripts are read once per process
    fresh, again, reference = [], [], []
    tables = migrations.target_metadata()
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.repeat):
            url = f"sqlite:///{d}/m{i}.sqlite3"
            t = time.perf_counter()
            Store(url).close()
            fresh.append(time.perf_counter() - t)
            t = time.perf_counter()
            Store(url).close()
            again.append(time.perf_counter() - t)
            engine = open_engine(f"sqlite:///{d}/r{i}.sqlite3")
            t = time.perf_counter()
            tables.create_all(engine)
            engine.dispose()
            reference.append(time.perf_counter() - t)
    ref = statistics.median(reference)
    for name, xs in (("fresh database, migrated to head", fresh),
                     ("database already at head", again),
                     ("reference: create_all of the same tables", reference)):
        med = statistics.median(xs)
        print(f"{name:42s} median {med * 1000:7.1f} ms  ({med / ref:.2f} x reference)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
