"""Make the starter puzzles a new site is given (``ginrummy serve`` adds them to a database
with no public puzzles): decisions of expert self-play that clear the margin rule, found as
``ginrummy puzzles make --self-play`` finds them, then at most ``--per-theme`` of each
theme (every theme the lessons end on among them), so the file stays small.

Usage: python scripts/starter_puzzles.py [--matches 6] [--seed 2026] [--jobs 2]
       [--per-theme 14] [--check]
Writes src/ginrummy/data/starter_puzzles.json (a JSON list, one puzzle a line, in the
order made); the same options make the same file. With --check it only says whether the
file is what the options make (exit status 1 if not).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ginrummy.training.puzzles import find_puzzles  # noqa: E402
from ginrummy.training.sources import self_play  # noqa: E402
from ginrummy.training.themes import THEMES  # noqa: E402

OUT = ROOT / "src" / "ginrummy" / "data" / "starter_puzzles.json"


def choose(found: list[dict[str, Any]], per_theme: int) -> list[dict[str, Any]]:
    """The puzzles kept, in the order made: each while some theme of it has fewer than
    ``per_theme`` kept (a puzzle of two themes counts for both)."""
    counts = dict.fromkeys(THEMES, 0)
    kept = []
    for p in found:
        if any(counts[t] < per_theme for t in p["themes"]):
            kept.append(p)
            for t in p["themes"]:
                counts[t] += 1
    return kept


def text_of(puzzles: list[dict[str, Any]]) -> str:
    """The file: a JSON list, one puzzle a line (a diff shows which changed)."""
    lines = [json.dumps(p, separators=(",", ":"), sort_keys=True) for p in puzzles]
    return "[\n" + ",\n".join(lines) + "\n]\n"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=6, help="self-play matches (default 6)")
    p.add_argument("--seed", type=int, default=2026, help="their seed (default 2026)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--per-theme", type=int, default=14,
                   help="puzzles kept of each theme at most (default 14)")
    p.add_argument("--check", action="store_true",
                   help="only say whether the file is up to date")
    args = p.parse_args(argv)
    start = time.perf_counter()
    found = find_puzzles(self_play(args.matches, args.seed), seed=args.seed, jobs=args.jobs)
    kept = choose([x.to_json() for x in found], args.per_theme)
    text = text_of(kept)
    themes = {t: sum(t in x["themes"] for x in kept) for t in THEMES}
    print(f"{len(found)} puzzles in {args.matches} matches, {len(kept)} kept "
          f"({', '.join(f'{t} {n}' for t, n in themes.items())}) in "
          f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
    if args.check:
        same = OUT.exists() and OUT.read_text("utf-8") == text
        print(f"{OUT.name} is {'up to date' if same else 'out of date'}", file=sys.stderr)
        return 0 if same else 1
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(text.encode()):,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
