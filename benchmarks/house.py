"""The web folder's house, before and after: Python modules and lines of
``src/ginrummy/web`` per package, at each git revision given (default: the last commit
before the regroup into packages, ``7a75fe4^``, when its 33 modules lay flat in
``web/``, and ``HEAD``). Read from git, so the working tree does not matter.

    python3 benchmarks/house.py
    python3 benchmarks/house.py 7a75fe4^ main HEAD --json

Lines are physical lines of the ``.py`` files (the migrations' revisions counted apart:
they are history, not code anyone edits); a package is a folder of ``web/`` with an
``__init__.py`` (``web`` itself: the modules left at the top).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

WEB = "src/ginrummy/web"
BEFORE = "7a75fe4^"
"""The last commit before the regroup (7a75fe4: "regroup the 33 modules into packages")."""


def _git(*args: str) -> str:
    root = Path(__file__).resolve().parent.parent
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          check=True).stdout


def house(ref: str) -> dict[str, dict[str, int]]:
    """Per package of ``web/`` (``web`` for the top): modules (``__init__`` aside) and
    lines (``__init__`` included); the migrations' revisions as ``migrations/versions``."""
    files = [f for f in _git("ls-tree", "-r", "--name-only", ref, WEB).splitlines()
             if f.endswith(".py")]
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"modules": 0, "lines": 0})
    for f in files:
        rel = f[len(WEB) + 1:]
        parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
        package = "web" + (f"/{parent}" if parent else "")
        row = out[package]
        if not f.endswith("/__init__.py"):
            row["modules"] += 1
        row["lines"] += _git("show", f"{ref}:{f}").count("\n")
    return dict(sorted(out.items()))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("refs", nargs="*", default=[BEFORE, "HEAD"], help="git revisions")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    houses = {ref: house(ref) for ref in args.refs}
    if args.json:
        print(json.dumps(houses, indent=2))
        return 0
    packages = sorted({p for h in houses.values() for p in h})
    width = max(len(p) for p in packages)
    print(f"{'package':<{width}}  " + "  ".join(f"{ref:>18}" for ref in args.refs))
    for p in packages:
        cells = []
        for h in houses.values():
            row = h.get(p)
            cells.append(f"{row['modules']:>5} mod {row['lines']:>6} ln" if row else " " * 18)
        print(f"{p:<{width}}  " + "  ".join(f"{c:>18}" for c in cells))
    for label, skip in (("all but migrations", True), ("all", False)):
        cells = []
        for h in houses.values():
            rows = [r for p, r in h.items() if not (skip and p.startswith("web/migrations"))]
            cells.append(f"{sum(r['modules'] for r in rows):>5} mod "
                         f"{sum(r['lines'] for r in rows):>6} ln")
        print(f"{label:<{width}}  " + "  ".join(f"{c:>18}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
