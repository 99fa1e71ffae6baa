"""``ginrummy review FILE``: options, input errors as ``replay``'s (docs/review.md), a
progress bar, and a quiet Ctrl-C with ``--jobs``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from .. import exits
from ..files import read_input
from ..match import Match
from ..record import RecordError, loads, read_partial
from .grade import DEFAULT_BUDGET_MS, DEFAULT_SAMPLES

__all__ = ["ProgressBar", "build_parser", "parse_hands", "run"]


class ProgressBar:
    """``Reviewing [#######.......] 120/250 decisions, 14 s`` redrawn on one line of a
    stream (stderr); silent unless the stream is a terminal or ``force``."""

    def __init__(self, stream: TextIO, force: bool = False, width: int = 30) -> None:
        self.stream = stream
        self.on = force or stream.isatty()
        self.width = width
        self.start = time.monotonic()
        self.last = -1.0

    def __call__(self, done: int, total: int) -> None:
        if not self.on:
            return
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        filled = self.width * done // total if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\rReviewing [{bar}] {done}/{total} decisions, "
                          f"{now - self.start:.0f} s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def build_parser() -> argparse.ArgumentParser:
    """The review's options (values are checked by :func:`run`, as §3 errors)."""
    p = argparse.ArgumentParser(
        prog="ginrummy review",
        description="Grade every decision of a ginrummy/1 record from what the deciding "
                    "seat could see; marks, error rate, rating and luck per seat "
                    "(docs/review.md).",
        epilog=exits.epilog(
            "reviewed", "the record cannot be read, is malformed or has an illegal action "
            "(the hands before it are still reviewed), or --seat, --hands, --budget-ms, "
            "--samples, --jobs or --seed has a bad value (with --json, an error member "
            "says what)", usage="an unknown option or a missing FILE",
            interrupted="stopped with Ctrl-C (workers end quietly)"))
    p.add_argument("file", help="record file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object for programs")
    p.add_argument("--seat", help="review one seat only (0 or 1)")
    p.add_argument("--hands", help="comma-separated hand indexes (0-based), e.g. 0,2")
    p.add_argument("--budget-ms", dest="budget_ms",
                   help="a safety net: at most this much evaluation time per decision, in "
                        "ms (default none: the grades depend on the record and --seed alone; "
                        "a decision the limit cut short says so)")
    p.add_argument("--samples", help="at most this many screening samples per decision "
                                     f"(default {DEFAULT_SAMPLES}; the best few actions are "
                                     "then measured on four times as many)")
    p.add_argument("--jobs", default="1", help="worker processes (default 1)")
    p.add_argument("--seed", default="0", help="evaluator seed (default 0)")
    p.add_argument("--marks-only", action="store_true",
                   help="text: list only the marked decisions")
    p.add_argument("--progress", action="store_true",
                   help="draw the progress bar even when stderr is not a terminal")
    p.add_argument("--practise", action="store_true",
                   help="after the review, offer each marked decision as a puzzle, one at "
                        "a time: type a move's number or words (discard KH, knock 9C, draw "
                        "stock, take, pass) on standard input, 'skip' or 'quit'")
    p.add_argument("--practise-samples", dest="practise_samples",
                   help="deals each practised decision is measured on (default 4096)")
    return p


def parse_hands(text: str, count: int) -> list[int]:
    """``"0,2"`` -> ``[0, 2]``, each a hand of the record; ValueError with the reason."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit():
            raise ValueError(f"--hands takes hand indexes like 0,2, not {text!r}.")
        i = int(part)
        if i >= count:
            raise ValueError(f"--hands {i}: the record has {count} hand"
                             f"{'' if count == 1 else 's'}"
                             + (f" (0 to {count - 1})." if count else "."))
        if i not in out:
            out.append(i)
    return out


def _number(text: str | None, name: str, kind: type, default: Any) -> Any:
    if text is None:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise ValueError(f"{name} must be a positive number, not {text!r}.") from None
    if not value > 0 or value != value or value == float("inf"):
        raise ValueError(f"{name} must be a positive number, not {text!r}.")
    return value


def _fail(args: argparse.Namespace, message: str, hand: int | None = None,
          action: int | None = None) -> int:
    from .report import Review

    if args.json:
        out = Review(None, (), (), []).to_json()
        out["error"] = {"hand": hand, "action": action, "message": message}
        print(json.dumps(out))
    else:
        print(f"ginrummy review: {message}", file=sys.stderr)
    return 1


def run(argv: list[str], practise: Callable[..., object] | None = None) -> int:
    """Run the command; exit 0, or 1 with §3's error object on bad input. ``practise`` is
    what ``--practise`` runs after the review (``ginrummy.training.practise.practise``,
    given by the ``ginrummy review`` command: the review itself knows nothing of puzzles,
    which sit above it)."""
    from .reviewing import review_match

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.practise and args.json:
        parser.error("--practise is interactive: use it without --json")
    if args.practise and practise is None:
        parser.error("--practise is the 'ginrummy review' command's: run that")
    try:
        seat = None if args.seat is None else int(args.seat)
        if seat not in (None, 0, 1):
            raise ValueError
    except ValueError:
        return _fail(args, f"--seat must be 0 or 1, not {args.seat!r}.")
    try:
        budget = _number(args.budget_ms, "--budget-ms", float, DEFAULT_BUDGET_MS)
        samples = _number(args.samples, "--samples", int, DEFAULT_SAMPLES)
        jobs = _number(args.jobs, "--jobs", int, 1)
        practise_samples = _number(args.practise_samples, "--practise-samples", int, 4096)
        seed = int(args.seed)
    except ValueError as e:
        msg = str(e) if "--" in str(e) else f"--seed must be a whole number, not {args.seed!r}."
        return _fail(args, msg)
    try:
        text = read_input(args.file)
    except OSError as e:
        return _fail(args, f"Cannot read {args.file}: {e.strerror}.")
    match: Match | None
    try:
        match, error = read_partial(loads(text))
    except RecordError as e:
        match, error = None, e
    if match is None:
        assert error is not None
        return _fail(args, error.message, error.hand, error.action)
    try:
        hands = None if args.hands is None else parse_hands(args.hands, len(match.hands))
    except ValueError as e:
        return _fail(args, str(e))
    with exits.interrupts_to_parent():  # Ctrl-C: no traceback from --jobs workers
        review = review_match(
            match, seats=(0, 1) if seat is None else (seat,), hands=hands, budget_ms=budget,
            samples=samples, seed=seed, jobs=jobs,
            progress=ProgressBar(sys.stderr, force=args.progress), error=error)
    if args.json:
        print(json.dumps(review.to_json()))
    else:
        print(review.to_text(all_decisions=not args.marks_only))
        if args.practise and practise is not None:
            practise(review.graded, sys.stdin, sys.stdout, samples=practise_samples,
                     seed=seed)
        if error is not None:
            where = f" (hand {error.hand + 1}" if error.hand is not None else ""
            if where:
                where += f", action {error.action + 1})" if error.action is not None else ")"
            print(f"ginrummy review: invalid record{where}: {error.message}", file=sys.stderr)
    return 1 if error is not None else 0
