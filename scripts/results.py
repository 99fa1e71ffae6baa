"""Regenerate docs/results.md and docs/results.svg: every bot against every bot.

Each pairing is played with ``ginrummy match`` semantics (duplicate pairs on the same
deals with seats swapped, the first dealer alternating), so the figures can be checked
one by one with the command printed beside them.

    python scripts/results.py --matches 200 --jobs 2          # every pairing
    python scripts/results.py --matches 2000 --only strong    # just strong's rows
    python scripts/results.py --matches 300 --only expert     # expert's rows (slower bot)
    python scripts/results.py --ray auto --matches 2000       # on a Ray cluster
    python scripts/results.py --matches 20 --out /tmp/try.md  # a quick table elsewhere

``--out`` is a folder (``results.md``, ``results.svg`` and the ``results.json`` cache go
there) or a file ending in ``.md`` (the picture and the cache go beside it, named after
it). Bad options are one line on stderr and exit status 2, before any match is played.

Run it with the project's environment active (``. .venv/bin/activate``) or as
``.venv/bin/python scripts/results.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

try:
    from ginrummy.arena import RayUnavailable, connect_ray, run_matches, summarize
    from ginrummy.bots import bot_names
except ModuleNotFoundError as e:  # run by a Python without the package
    sys.exit(f"results.py: {e}. Activate the project's environment first "
             "(. .venv/bin/activate) or run .venv/bin/python scripts/results.py.")

ROOT = Path(__file__).resolve().parents[1]
BOTS = ["expert", "strong", "marjj", "simple", "random"]


def pairings(only: str | None, bots: list[str] | None = None) -> list[tuple[str, str]]:
    """Every unordered pairing, the stronger-listed bot first."""
    bots = bots or BOTS
    out = []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            if only is None or only in (a, b):
                out.append((a, b))
    return out


def run(matches: int, seed: int, jobs: int, only: str | None, cache: Path,
        ray: str | None = None, bots: list[str] | None = None) -> list[dict[str, Any]]:
    """Play every pairing (reusing rows already in ``cache`` for the same settings), on
    ``jobs`` local processes or as tasks on the Ray cluster ``ray``."""
    rows: dict[str, dict[str, Any]] = {}
    if cache.exists():
        rows = {f"{r['players'][0]}-{r['players'][1]}": r for r in json.loads(cache.read_text())}
    for k, (a, b) in enumerate(pairings(only, bots)):
        key = f"{a}-{b}"
        print(f"{a} vs {b}: {matches} matches ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        pair_seed = seed + k
        results = run_matches(a, b, matches, pair_seed, jobs=jobs, ray_address=ray)
        s = summarize([a, b], results, time.perf_counter() - t, seed=pair_seed)
        s["command"] = f"ginrummy match {a} {b} --matches {matches} --seed {pair_seed} --json"
        rows[key] = s
        cache.write_text(json.dumps(list(rows.values()), indent=1))
        print(f"  win rate {s['win_rate']:.3f} {s['ci95']}", file=sys.stderr)
    return list(rows.values())


def _rate(n: int, hands: int) -> str:
    return f"{n / hands:.3f}" if hands else "-"


def write_markdown(rows: list[dict[str, Any]], path: Path, picture: str = "results.svg"
                   ) -> None:
    """The results table with CIs, points per hand, gin and undercut rates, times;
    ``picture`` is the win-rate matrix's file name, beside ``path``."""
    most = max((r["matches"] for r in rows), default=0)
    small = sorted({r["players"][0] for r in rows if r["matches"] < most})
    lines = [
        "# Bot results",
        "",
        "Every bot against every bot in duplicate pairs (same deals, seats swapped, first",
        "dealer alternating), matches to 100 under [rules.md](rules.md). Win rate counts a "
        "tie as half;",
        "the 95% interval is a normal interval on per-pair scores. Rates are per hand played.",
        "Regenerate with `python3 scripts/results.py` (see its docstring); each row's own",
        "command reproduces it exactly.",
        "",
        f"![win-rate matrix]({picture})",
        *(["", f"Rows differ in size (the matches column): {', '.join(small)} played "
           "fewer matches, being slower to run; their intervals are wider."]
          if small else []),
        "",
        "| A | B | matches | A win rate | 95% CI | points/hand A - B | gin/hand A - B "
        "| undercuts won/hand A - B | median / max decision ms A | command |",
        "| --- | --- | ---: | ---: | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        a, b = r["players"]
        h = r["hands"]
        dm = r["decision_ms"]
        lines.append(
            f"| {a} | {b} | {r['matches']} | {r['win_rate']:.3f} "
            f"| {r['ci95'][0]:.3f} - {r['ci95'][1]:.3f} "
            f"| {r['points_per_hand'][0]:.2f} - {r['points_per_hand'][1]:.2f} "
            f"| {_rate(r['gins'][0], h)} - {_rate(r['gins'][1], h)} "
            f"| {_rate(r['undercuts'][0], h)} - {_rate(r['undercuts'][1], h)} "
            f"| {dm['median'][0]} / {dm['max'][0]} | `{r['command']}` |"
        )
    path.write_text("\n".join(lines) + "\n")


def write_plot(rows: list[dict[str, Any]], path: Path) -> None:
    """A heat map of the row bot's win rate against the column bot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(p for r in rows for p in r["players"]))
    idx = {n: i for i, n in enumerate(names)}
    grid = [[float("nan")] * len(names) for _ in names]
    for r in rows:
        a, b = r["players"]
        grid[idx[a]][idx[b]] = r["win_rate"]
        grid[idx[b]][idx[a]] = 1 - r["win_rate"]
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            v = grid[i][j]
            if v == v:  # not NaN
                ax.text(j, i, f"{v:.0%}", ha="center", va="center", fontsize=10)
    ax.set_title("Row bot's match win rate against column bot")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def outputs(out: str) -> tuple[Path, Path, Path]:
    """The table, picture and cache files for ``--out`` (a folder, or a file ending in
    .md); the folder is made if missing. Raises ValueError saying what is wrong."""
    path = Path(out)
    if path.suffix.lower() == ".md":
        folder, md = path.parent, path
        svg, cache = path.with_suffix(".svg"), path.with_suffix(".json")
    elif path.exists() and not path.is_dir():
        raise ValueError(f"--out {out}: not a folder; give a folder or a file ending in .md.")
    else:
        folder = path
        md, svg, cache = path / "results.md", path / "results.svg", path / "results.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--out {out}: cannot make the folder {folder}: "
                         f"{e.strerror or e}.") from None
    if not os.access(folder, os.W_OK):
        raise ValueError(f"--out {out}: cannot write in {folder}.")
    return md, svg, cache


def build_parser() -> argparse.ArgumentParser:
    """The script's options, each with its help and default."""
    p = argparse.ArgumentParser(
        prog="scripts/results.py", description=__doc__.splitlines()[0],
        epilog="Exit status: 0 written; 2 a wrong command line or an --out that cannot be "
        "written (nothing played); 130 stopped with Ctrl-C.")
    p.add_argument("--matches", type=int, default=200,
                   help="matches per pairing, even: duplicate pairs (default %(default)s)")
    p.add_argument("--seed", type=int, default=2026,
                   help="seed of the first pairing; pairing k uses seed + k "
                   "(default %(default)s)")
    p.add_argument("--jobs", type=int, default=2,
                   help="worker processes on this machine (default %(default)s)")
    p.add_argument("--only", metavar="BOT",
                   help="play only the pairings of this bot (rows already in the cache "
                   "are kept)")
    p.add_argument("--out", metavar="FOLDER|FILE.md", default=str(ROOT / "docs"),
                   help="where to write: a folder (results.md, results.svg, results.json) "
                   "or a .md file (the .svg and .json beside it) (default: docs/)")
    p.add_argument("--bots", default=",".join(BOTS),
                   help="comma-separated bots, strongest first (default: %(default)s)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="play on a Ray cluster: local, auto, or the cluster's address")
    return p


def main(argv: list[str] | None = None) -> int:
    """Play every pairing and write the table; returns the exit status."""
    args = build_parser().parse_args(argv)

    def usage(msg: str) -> int:
        print(f"results.py: {msg}", file=sys.stderr)
        return 2

    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in bot_names()]
    if unknown or len(bots) < 2:
        return usage(f"--bots needs two or more of {', '.join(bot_names())}"
                     + (f"; unknown: {', '.join(unknown)}." if unknown else "."))
    if args.only is not None and args.only not in bots:
        return usage(f"--only {args.only}: not one of --bots ({', '.join(bots)}).")
    if args.matches <= 0 or args.matches % 2:
        return usage(f"--matches must be a positive even number, not {args.matches}.")
    if args.jobs < 1:
        return usage(f"--jobs must be at least 1, not {args.jobs}.")
    try:
        md, svg, cache = outputs(args.out)
    except ValueError as e:
        return usage(str(e))
    try:  # the picture needs matplotlib: say so now, not after the matches
        import matplotlib  # noqa: F401
    except ImportError:
        return usage("the picture needs matplotlib: pip install 'ginrummy[plot]'.")
    ray = None
    if args.ray is not None:  # one connection for every pairing
        try:
            ray, started = connect_ray(args.ray, args.jobs)
        except RayUnavailable as e:
            return usage(str(e))
    try:
        rows = run(args.matches, args.seed, args.jobs, args.only, cache, args.ray, bots)
    finally:
        if ray is not None and started:
            ray.shutdown()
    order = {f"{a}-{b}": k for k, (a, b) in enumerate(pairings(None, bots))}
    rows.sort(key=lambda r: order.get(f"{r['players'][0]}-{r['players'][1]}", 99))
    write_markdown(rows, md, picture=svg.name)
    write_plot(rows, svg)
    print(f"wrote {md} and {svg}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: the shell's status, no traceback
        print(file=sys.stderr)
        sys.exit(130)
