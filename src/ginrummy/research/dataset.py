"""``ginrummy dataset --bots A,B --matches N --seed S --out DIR``: a labelled dataset of
self-play (docs/research.md).

Bot A plays bot B ``N`` times, as ``ginrummy match A B --seed S`` plays its first ``N``
matches: match ``i`` (from 0) is pair ``i // 2``'s, with deals from ``(S, pair)``, the
first dealer alternating from pair to pair, A in seat ``i % 2`` (so seats alternate too)
and the bots seeded from ``(S, i, seat)``. Every decision of every match is labelled by
the coach (:mod:`.labels`, ``--samples`` deals a decision, seeds from ``(S, match,
hand, action)``), and DIR gets:

- ``games.jsonl.zst``: one ``ginrummy/1`` record a line, in match order, each with its
  match id as ``id`` (``000001`` for the first match);
- ``decisions.parquet``: one row a decision (:class:`.labels.Decision`);
- ``README.md``: the data card (what, how, schema, licence, biases);
- ``SHA256SUMS``: the three files' hashes (``sha256sum -c SHA256SUMS`` checks them).

Every match is a pure function of ``(S, i)`` and the files are written in match order, so
the same arguments give byte-identical files with any ``--jobs`` and on Ray (``--ray``,
each match a task, as ``ginrummy match --ray`` runs its pairs).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .. import exits
from ..arena import (
    RAY_INSTALL,
    PlayerSpec,
    RayUnavailable,
    derive_seed,
    make_player,
    play_match,
)
from ..argtypes import add_table_options, positive_int, whole_int
from ..bots import BotError, bot_names
from ..match import Match
from ..options import Options, OptionsError
from .files import EXTRA, ExtraMissing, OpenData, require_all
from .labels import COLUMNS, DEFAULT_SAMPLES, Decision, label_match, record_line
from .work import check_ray, ordered_map

__all__ = [
    "DECISIONS",
    "RECORDS",
    "DatasetJob",
    "DatasetSummary",
    "build_parser",
    "data_card",
    "main",
    "make_dataset",
    "match_id",
    "play_indexed",
]

RECORDS = "games.jsonl.zst"
DECISIONS = "decisions.parquet"
CARD = "README.md"
LICENCE = "CC0 1.0"
"""The data's licence (the code that makes it is the project's MIT): a public-domain
dedication, as lichess's open database, so the data can go anywhere research goes."""


def match_id(index: int) -> str:
    """A dataset match's id: its number from 1, six digits (``000001``)."""
    return f"{index + 1:06d}"


def play_indexed(bots: tuple[str, str], seed: int, index: int,
                 options: Options | None = None) -> Match:
    """Match ``index`` of ``ginrummy match A B --seed S`` (:func:`ginrummy.arena.
    _play_pair`'s seeds, seats and first dealers), played alone."""
    pair, a_seat = divmod(index, 2)
    bot_a = make_player(PlayerSpec(bots[0]), derive_seed(seed, index, a_seat))
    bot_b = make_player(PlayerSpec(bots[1]), derive_seed(seed, index, 1 - a_seat))
    _, match = play_match(bot_a, bot_b, seed=derive_seed(seed, "deals", pair),
                          first_dealer=pair % 2, a_seat=a_seat, options=options,
                          index=index, names=bots)
    return match


@dataclass(frozen=True)
class DatasetJob:
    """What every match of a dataset shares."""

    bots: tuple[str, str]
    seed: int
    options: Options
    samples: int


@dataclass(frozen=True)
class _Played:
    line: bytes
    decisions: list[Decision]
    hands: int
    winner: int | None  # the bot (0 = A, 1 = B) that won, None for none
    ended: bool


def _one_match(item: tuple[DatasetJob, int]) -> _Played:
    """Play match ``index`` and label it (a worker's or a Ray task's unit of work)."""
    job, index = item
    match = play_indexed(job.bots, job.seed, index, job.options)
    mid = match_id(index)
    decisions = label_match(match, mid, job.seed, job.samples)
    outcome = match.outcome()
    winner = None
    if outcome is not None and outcome.winner is not None:
        winner = outcome.winner if index % 2 == 0 else 1 - outcome.winner  # seat -> bot
    return _Played(record_line(match.to_record(), mid), decisions, len(match.hands), winner,
                   outcome is not None)


@dataclass
class DatasetSummary:
    """What a dataset holds (the data card's figures) and how long it took."""

    matches: int = 0
    hands: int = 0
    decisions: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    ties: int = 0
    unfinished: int = 0
    seconds: float = 0.0
    sizes: dict[str, int] = field(default_factory=dict)


def command_line(job: DatasetJob, matches: int) -> str:
    """The canonical command that makes the dataset (``--jobs`` and ``--ray`` change no
    byte, so they are left out; DIR is wherever it is written)."""
    words = ["ginrummy", "dataset", "--bots", ",".join(job.bots), "--matches", str(matches),
             "--seed", str(job.seed), "--samples", str(job.samples)]
    if job.options.target != Options().target:
        words += ["--target", str(job.options.target)]
    if job.options.gin_only:
        words.append("--gin-only")
    if job.options.oklahoma:
        words.append("--oklahoma")
    return " ".join(words + ["--out", "DIR"])


def _version() -> str:
    try:
        return importlib.metadata.version("ginrummy")
    except importlib.metadata.PackageNotFoundError:
        from .. import __version__

        return __version__


def data_card(job: DatasetJob, summary: DatasetSummary) -> str:
    """The dataset's ``README.md``: what it is, how it was made, its schema, licence and
    biases (the same text for the same arguments: no date, no path, no timing)."""
    a, b = job.bots
    o = job.options
    rules = f"target {o.target}" + (", gin only" if o.gin_only else "") + \
        (", Oklahoma" if o.oklahoma else "")
    ties = f", {summary.ties} tied" if summary.ties else ""
    if a == b:
        who, they, their = (f"One bot against itself: every decision is `{a}`'s",
                            "it reaches", "its")
    else:
        who = f"Two bots only: every decision is `{a}`'s or `{b}`'s"
        they, their = "they reach", "their"
    unfinished = (f"; {summary.unfinished} stopped before their end (a bot failed)"
                  if summary.unfinished else "")
    return f"""# Gin rummy self-play, labelled by the coach: {a} vs {b}

{summary.matches:,} matches of `{a}` against `{b}` ({summary.hands:,} hands), and each of
their {summary.decisions:,} decisions with two or more legal actions labelled with the
coach's estimate of the chance to win the match after every legal action. Made by
ginrummy {_version()}; its docs/research.md describes the files and how to load them.

## How it was made

```sh
{command_line(job, summary.matches)}
```

(`--jobs` and `--ray` change the speed, never a byte, and DIR is this folder: neither is
part of the command.)

- Bots: `{a}` (A) and `{b}` (B), the project's own (docs/bots.md). Match `i` (from 0) is
  the one `ginrummy match {a} {b} --seed {job.seed}` plays as its match `i + 1`: deals
  from the seed and the pair `i // 2` (both matches of a pair share their deals), the
  first dealer alternating from pair to pair, A in seat `i % 2`, each bot seeded from the
  seed, the match and its seat.
- Rules: {rules} (docs/rules.md).
- Labels: every legal action of the deciding seat's view evaluated by the coach's
  evaluator on {job.samples} sampled deals (shared by the actions), with the opponent
  styles the coach's review uses (what the seat saw of the opponent in the match's
  earlier hands) and a seed from the dataset's seed, the match and the decision's
  place only. The same command gives the same files, byte for byte (with the same
  versions of ginrummy, zstandard and pyarrow).
- Results: `{a}` won {summary.wins[0]:,}, `{b}` won {summary.wins[1]:,}{ties}{unfinished}.

## Files

- `games.jsonl.zst`: zstandard-compressed JSON lines, one `ginrummy/1` record a line
  (docs/records.md) in match order, each with its match id as `id`.
- `decisions.parquet`: one row a decision, in match, hand and action order:

{schema_table("  ")}

- `SHA256SUMS`: `sha256sum -c SHA256SUMS` checks the files.

## Licence

The data is released under {LICENCE} (a public-domain dedication: use it for anything,
no attribution needed); the code that made it is ginrummy's, under the MIT licence.

## Biases and limits

- {who}: the positions are those {they}, and a learner imitating the played
  actions learns {their} habits, blind spots included. No position here comes from
  people's play, and positions after a gross error are as rare as {their} errors.
- One set of rules ({rules}); other table options (docs/rules.md) change the play.
- The labels are estimates, not truths: {job.samples} sampled deals give each win chance a
  standard error of about {_se(job.samples):.3f} (measured: a median of 0.016 at 64 deals,
  0.041 at 8); the actions of a decision share their deals, so their differences are
  surer than that, yet close actions may still be ranked wrongly. The coach's model of
  the opponent (its belief over the hidden cards, its opponent styles) is its own, and
  its errors are in every label.
- Luck is balanced, not removed: the two matches of a pair share their deals with the
  seats swapped, so neither bot is dealt the better cards overall (with an even number of
  matches), but any one match still rests on its deals.
"""


def _se(samples: int) -> float:
    """About a label's standard error at ``samples`` deals: the median measured on expert
    self-play, 0.016 at 64 deals and 0.041 at 8, is close to ``0.125 / sqrt(samples)``."""
    return 0.125 / math.sqrt(samples)


def schema_table(indent: str = "") -> str:
    """The decisions file's columns as a Markdown table."""
    rows = ["| column | type | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{name}` | {kind} | {meaning} |" for name, kind, meaning in COLUMNS]
    return "\n".join(indent + r for r in rows)


def make_dataset(job: DatasetJob, matches: int, out: str | Path, *, jobs: int = 1,
                 ray_address: str | None = None,
                 progress: Callable[[DatasetSummary], None] | None = None) -> DatasetSummary:
    """Play, label and write the dataset (see the module docstring); the summary.

    Raises :class:`ExtraMissing` without the research extra, :class:`RayUnavailable` when
    Ray cannot be used, ``OSError`` when ``out`` cannot be written. A stopped or failed
    run leaves no half-written file under a final name.
    """
    start = time.monotonic()
    summary = DatasetSummary()
    data = OpenData(out, RECORDS, DECISIONS)
    try:
        items: Iterator[tuple[DatasetJob, int]] = ((job, i) for i in range(matches))
        for _, played in ordered_map(_one_match, items, jobs=jobs, ray_address=ray_address):
            data.add(played.line, played.decisions)
            summary.matches += 1
            summary.hands += played.hands
            summary.decisions += len(played.decisions)
            if not played.ended:
                summary.unfinished += 1
            elif played.winner is None:
                summary.ties += 1
            else:
                summary.wins[played.winner] += 1
            if progress is not None:
                summary.seconds = time.monotonic() - start
                progress(summary)
        (Path(out) / CARD).write_text(data_card(job, summary), encoding="utf-8")
        summary.sizes = data.finish([CARD])
    except BaseException:
        data.abandon()
        raise
    summary.seconds = time.monotonic() - start
    return summary


# ----------------------------------------------------------------------------- the command






def build_parser() -> argparse.ArgumentParser:
    """The ``ginrummy dataset`` argument parser."""
    p = argparse.ArgumentParser(
        prog="ginrummy dataset",
        description="Self-play of bot A against bot B, every decision labelled by the "
        "coach with the win chance of each legal action: DIR/games.jsonl.zst (the records), "
        "DIR/decisions.parquet (one row a decision), DIR/README.md (the data card) and "
        "DIR/SHA256SUMS. The same arguments give byte-identical files, whatever --jobs or "
        f"--ray (docs/research.md). Needs the {EXTRA} extra: pip install "
        f"'ginrummy[{EXTRA}]'.",
        epilog=exits.epilog(
            "written (a one-line summary)",
            usage="a wrong command line (unknown option, bad value, unknown bot), the "
            f"{EXTRA} extra missing, an output folder that cannot be written, Ray missing "
            "or unreachable",
            interrupted="stopped with Ctrl-C (no file left half-written; workers end "
            "quietly)"))
    p.add_argument("--bots", required=True, metavar="A,B",
                   help="the two bots, project bots by name (e.g. expert,expert)")
    p.add_argument("--matches", type=positive_int, required=True, metavar="N",
                   help="matches to play")
    p.add_argument("--seed", type=whole_int, required=True, metavar="S",
                   help="the seed of the deals, the bots and the labels")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    p.add_argument("--samples", type=positive_int, default=DEFAULT_SAMPLES, metavar="K",
                   help=f"sampled deals a decision is labelled on (default {DEFAULT_SAMPLES})")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="J",
                   help="worker processes; the same files for any number (default 1)")
    p.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="label the matches as tasks on a Ray cluster (local: start one "
                   f"here; needs {RAY_INSTALL})")
    add_table_options(p)
    return p


def parse_bots(text: str) -> tuple[str, str]:
    """``A,B`` as two project bot names; BotError in one sentence otherwise."""
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2 or not all(names):
        raise BotError(f"--bots takes two bot names separated by a comma (A,B), not {text!r}.")
    for name in names:
        if name not in bot_names():
            raise BotError(f"Unknown bot {name!r}: choose one of {', '.join(bot_names())}.")
    return names[0], names[1]


class _Progress:
    """A one-line progress bar on stderr (only on a terminal)."""

    def __init__(self, total: int) -> None:
        self.total = total

    def __call__(self, s: DatasetSummary) -> None:
        width = 30
        filled = width * s.matches // self.total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {s.matches}/"
                         f"{self.total} matches, {s.decisions:,} decisions, {s.seconds:.0f}s")
        if s.matches == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def main(argv: list[str]) -> int:
    """``ginrummy dataset ...``; exit 2 on a wrong command line (one line, no traceback)."""
    args = build_parser().parse_args(argv)

    def usage(msg: str) -> int:
        print(f"ginrummy dataset: {msg}", file=sys.stderr)
        return exits.USAGE

    try:
        bots = parse_bots(args.bots)
        options = Options(target=args.target, gin_only=args.gin_only, oklahoma=args.oklahoma)
    except (BotError, OptionsError) as e:
        return usage(str(e))
    if args.ray is not None and not args.ray.strip():
        return usage("--ray needs an address: local, auto, or HOST:PORT of a Ray cluster.")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        return usage(f"--out {args.out} is a file, not a folder.")
    try:
        require_all()
        if args.ray is not None:
            check_ray()
    except (ExtraMissing, RayUnavailable) as e:
        return usage(str(e))
    job = DatasetJob(bots, args.seed, options, args.samples)
    progress = _Progress(args.matches) if sys.stderr.isatty() else None
    try:
        with exits.interrupts_to_parent():
            s = make_dataset(job, args.matches, out, jobs=args.jobs, ray_address=args.ray,
                             progress=progress)
    except RayUnavailable as e:
        return usage(str(e))
    except OSError as e:
        return usage(f"cannot write to {args.out}: {e.strerror or e}.")
    rate = s.decisions / s.seconds if s.seconds > 0 else 0.0
    print(f"Wrote {s.matches:,} matches ({s.hands:,} hands, {s.decisions:,} decisions) to "
          f"{args.out} in {s.seconds:.1f} s ({rate:.1f} decisions a second): {RECORDS} "
          f"{s.sizes[RECORDS]:,} bytes, {DECISIONS} {s.sizes[DECISIONS]:,} bytes.")
    return exits.OK
