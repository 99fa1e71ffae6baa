"""Bot-vs-bot matches with statistics: ``ginrummy match A B --matches N --seed S --json``
(the object is :func:`summarize`'s; ``--ray`` in docs/cluster.md, the bots in docs/bots.md).

Matches come in pairs (duplicate play): both matches of pair ``k`` use the same deals,
derived from ``(seed, k)`` only, with the seats swapped, and the first dealer seat
alternates from pair to pair, so the luck of the deal cancels out. Bot seeds derive
from ``(seed, match index, seat)``. Every match is computed from its index alone, so
the results are identical for any number of worker processes (``--jobs``).

Statistics: ``win_rate`` counts a tie as half a win for A. ``ci95`` is a normal (Wald)
95% interval on the per-pair scores (each pair scores 0, 1/4, ..., 1 for A), which is
honest for duplicate play because the two matches of a pair are correlated; when fewer
than two pairs were played or every pair scored alike, the Wilson interval on the match
scores is used instead. Bots only ever receive ``match.view(seat)`` (R11).

``--ray ADDRESS`` runs the same pairs as Ray tasks (``--ray local`` starts a cluster on
this machine); each pair is the same pure function of ``(seed, pair)``, so the results are
those of ``--jobs``. Ray is an optional extra: ``pip install 'ginrummy[cluster]'``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import multiprocessing
import os
import socket
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import exits
from .argtypes import add_table_options
from .bots import Bot, BotError, bot_names, make_bot
from .driver import Driver, IllegalAnswerError, forfeit
from .hand import Hand, HandResult
from .match import Match
from .options import Options, OptionsError
from .protocol import DEFAULT_TIME_LIMIT, BotFailure, ExternalBot

__all__ = [
    "MatchStats",
    "PlayerSpec",
    "check_player",
    "connect_ray",
    "derive_seed",
    "main",
    "make_player",
    "probe_player",
    "pair_ci95",
    "play_match",
    "run_matches",
    "summarize",
    "wilson_ci95",
]

EXEC_PREFIX = "exec:"
RAY_INSTALL = "pip install 'ginrummy[cluster]'"
"""How to get Ray, the one line ``--ray`` prints when it is missing."""


class RayUnavailable(RuntimeError):
    """``--ray`` was asked for but Ray is not installed or the cluster cannot be reached."""


def derive_seed(*parts: object) -> int:
    """A 63-bit seed derived from ``parts`` (stable across runs, processes and platforms)."""
    text = "ginrummy-arena/" + "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


# ----------------------------------------------------------------------------- players


@dataclass(frozen=True)
class PlayerSpec:
    """How to build a player: a project bot name, or ``exec:COMMAND`` for a §5 program."""

    spec: str
    time_limit: float = DEFAULT_TIME_LIMIT
    name: str | None = None  # shown in reports and records; an exec bot's hello name

    @property
    def display(self) -> str:
        """The name to show: the bot's own (from its hello) or the spec as given."""
        return self.name or self.spec


def check_player(spec: str) -> None:
    """Raise BotError with a clear message unless ``spec`` names a bot or an exec command."""
    if spec.startswith(EXEC_PREFIX):
        if not spec[len(EXEC_PREFIX):].strip():
            raise BotError(f"{spec!r} names no command: write exec:COMMAND.")
        return
    if spec not in bot_names():
        raise BotError(
            f"Unknown bot {spec!r}: choose one of {', '.join(bot_names())}, "
            "or exec:COMMAND for a program speaking ginrummy-bot/1."
        )


def make_player(player: PlayerSpec, seed: int) -> Bot:
    """A fresh bot for one match (an :class:`ExternalBot` for ``exec:`` specs)."""
    if player.spec.startswith(EXEC_PREFIX):
        return ExternalBot(player.spec[len(EXEC_PREFIX):], name=player.display,
                           time_limit=player.time_limit, seed=seed)
    return make_bot(player.spec, seed)


def _clean_name(name: str | None) -> str | None:
    """A bot's self-chosen name made safe to print: printable, one line, 40 characters."""
    if not name:
        return None
    text = "".join(ch for ch in name if ch.isprintable()).strip()[:40]
    return text or None


def probe_player(player: PlayerSpec) -> PlayerSpec:
    """Start an ``exec:`` program once, before any match, and name it from its ``hello``.

    Raises :class:`BotFailure` (one sentence) when it cannot start or does not answer, so a
    broken command stops the run instead of forfeiting every match. Project bots are made
    once (a :class:`BotError` when one cannot be, e.g. ``ppo`` without numpy) and
    returned unchanged.
    """
    if not player.spec.startswith(EXEC_PREFIX):
        make_bot(player.spec)
        return player
    with ExternalBot(player.spec[len(EXEC_PREFIX):], name=player.spec,
                     time_limit=player.time_limit) as bot:
        bot.start()
        hello = _clean_name(bot.reported_name)
    return PlayerSpec(player.spec, player.time_limit, hello)


# ----------------------------------------------------------------------------- one match


@dataclass
class MatchStats:
    """One match's outcome, from the point of view of players A and B (index 0 and 1)."""

    index: int
    a_seat: int
    winner: int | None  # player (0 = A, 1 = B) or None for a tie
    scores: list[int]  # by player
    hands: int  # finished hands
    points: list[int] = field(default_factory=lambda: [0, 0])
    knocks: list[int] = field(default_factory=lambda: [0, 0])  # hands ended by their knock
    gins: list[int] = field(default_factory=lambda: [0, 0])  # of which gin
    undercuts: list[int] = field(default_factory=lambda: [0, 0])  # undercuts they scored
    dead_hands: int = 0
    forfeit: int | None = None  # player who forfeited
    message: str | None = None  # the forfeit's reason
    times: list[list[float]] = field(default_factory=lambda: [[], []])  # decision seconds

    @property
    def score_a(self) -> float:
        """A's score for this match: 1 win, 1/2 tie, 0 loss."""
        return 0.5 if self.winner is None else float(self.winner == 0)


def _tally(stats: MatchStats, result: HandResult, seat_to_player: Sequence[int]) -> None:
    stats.hands += 1
    if result.result == "dead":
        stats.dead_hands += 1
        return
    if result.knocker is not None:
        k = seat_to_player[result.knocker]
        stats.knocks[k] += 1
        if result.result == "gin":
            stats.gins[k] += 1
    if result.scorer is not None:
        s = seat_to_player[result.scorer]
        stats.points[s] += result.points
        if result.result == "undercut":
            stats.undercuts[s] += 1


def play_match(
    bot_a: Bot,
    bot_b: Bot,
    *,
    seed: int,
    first_dealer: int,
    a_seat: int = 0,
    options: Options | None = None,
    index: int = 0,
    names: tuple[str, str] | None = None,
) -> tuple[MatchStats, Match]:
    """Play one match of ``bot_a`` (in seat ``a_seat``) against ``bot_b``.

    Deals come from ``seed`` alone (so two matches with one seed share their deals).
    A :class:`BotFailure` (or an illegal action from a project bot) forfeits the match
    for that bot; the match stops there and the other player wins. External bots are
    closed before returning.
    """
    by_seat = [bot_a, bot_b] if a_seat == 0 else [bot_b, bot_a]
    seat_to_player = [0, 1] if a_seat == 0 else [1, 0]
    player_names = names or (bot_a.name, bot_b.name)
    seat_names = (player_names[seat_to_player[0]], player_names[seat_to_player[1]])
    match = Match(options, seed=seed, first_dealer=first_dealer, players=seat_names)
    stats = MatchStats(index, a_seat, None, [0, 0], 0)
    current = -1

    def timed(seat: int, seconds: float) -> None:
        stats.times[seat_to_player[seat]].append(seconds)

    def tally(hand: Hand) -> None:
        assert hand.result is not None
        _tally(stats, hand.result, seat_to_player)

    try:
        for s in (0, 1):
            current = s
            by_seat[s].new_match(s)
        failure = Driver(match, by_seat, on_failure=forfeit, on_decision=timed,
                         on_hand_over=tally).run()
        if failure is not None:  # the driver stopped the match: that bot forfeits
            current = failure.seat
            if isinstance(failure.error, IllegalAnswerError):
                raise BotFailure(by_seat[current].name, str(failure.error))
            raise failure.error
    except Exception as e:  # noqa: BLE001 - any bot failure forfeits; the runner goes on
        loser = seat_to_player[current]
        stats.forfeit = loser
        stats.winner = 1 - loser
        stats.message = str(e) if isinstance(e, BotError) else (
            f"Bot {by_seat[current].name!r} failed: it raised {type(e).__name__}: {e}")
    finally:
        for b in by_seat:
            if isinstance(b, ExternalBot):
                b.close()
    scores = match.scores
    stats.scores = [scores[seat_to_player.index(0)], scores[seat_to_player.index(1)]]
    if stats.forfeit is None:
        outcome = match.outcome()
        assert outcome is not None
        stats.winner = None if outcome.winner is None else seat_to_player[outcome.winner]
    return stats, match


# ----------------------------------------------------------------------------- many matches


@dataclass(frozen=True)
class _Job:
    players: tuple[PlayerSpec, PlayerSpec]
    seed: int
    options: Options
    records: str | None


def _play_pair(job: _Job, pair: int) -> list[MatchStats]:
    """Both matches of pair ``pair``: same deals, seats swapped (duplicate play)."""
    deal_seed = derive_seed(job.seed, "deals", pair)
    first_dealer = pair % 2
    out = []
    for a_seat in (0, 1):
        index = 2 * pair + a_seat
        bot_a = make_player(job.players[0], derive_seed(job.seed, index, a_seat))
        bot_b = make_player(job.players[1], derive_seed(job.seed, index, 1 - a_seat))
        stats, match = play_match(
            bot_a, bot_b, seed=deal_seed, first_dealer=first_dealer, a_seat=a_seat,
            options=job.options, index=index,
            names=(job.players[0].display, job.players[1].display),
        )
        if job.records is not None:
            path = os.path.join(job.records, f"match-{index + 1:05d}.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(match.to_record(), f)
                f.write("\n")
        out.append(stats)
    return out


_WORKER_JOB: _Job | None = None


def _init_worker(job: _Job) -> None:
    """A pool worker: the job to play, and Ctrl-C left to the parent (which ends the pool),
    so an interrupted ``--jobs 2`` prints no worker tracebacks."""
    global _WORKER_JOB
    _WORKER_JOB = job
    exits.ignore_interrupts()


def _worker_pair(pair: int) -> list[MatchStats]:
    assert _WORKER_JOB is not None
    return _play_pair(_WORKER_JOB, pair)


def _import_ray() -> Any:
    """The ``ray`` module, or :class:`RayUnavailable` saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise RayUnavailable(f"--ray needs Ray: {RAY_INSTALL}") from None


def connect_ray(address: str, jobs: int = 1) -> tuple[Any, bool]:
    """Connect to Ray: ``(ray, started)``, where ``started`` says this call connected.

    ``address`` ``local`` starts a cluster on this machine with ``jobs`` CPUs when more
    than one is asked for (else all of them); any other address joins that cluster (``auto``
    for the one ``ray start`` began on this machine). An existing connection is reused.
    """
    ray = _import_ray()
    if ray.is_initialized():
        return ray, False
    if address not in ("local", "auto"):
        _check_reachable(address)
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address == "local":
        kwargs["logging_level"] = "ERROR"
        if jobs > 1:
            kwargs["num_cpus"] = jobs
    else:
        kwargs["logging_level"] = "WARNING"
        kwargs["address"] = address
    try:
        ray.init(**kwargs)
    except Exception as e:  # noqa: BLE001 - Ray raises many kinds; report one line
        detail = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise RayUnavailable(f"cannot start or reach the Ray cluster {address!r}: "
                             f"{detail}") from None
    return ray, True


def _check_reachable(address: str) -> None:
    """Fail in one line, within seconds, when a cluster address is malformed or nothing
    answers there (Ray itself keeps retrying for minutes)."""
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise RayUnavailable(f"--ray {address!r}: expected local, auto, HOST:PORT or "
                             "ray://HOST:PORT.")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
            pass
    except OSError as e:
        raise RayUnavailable(f"cannot reach the Ray cluster at {address}: "
                             f"{e.strerror or e}.") from None


def _ray_pairs(job: _Job, pairs: range, address: str, jobs: int) -> Iterator[list[MatchStats]]:
    """Each pair as a Ray task, yielded in pair order as the results arrive (so the
    progress bar moves as with ``--jobs``). A connection made here is closed at the end."""
    ray, started = connect_ray(address, jobs)
    try:
        task = ray.remote(_play_pair)
        job_ref = ray.put(job)
        refs = [task.remote(job_ref, k) for k in pairs]
        for ref in refs:
            yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def run_matches(
    player_a: str | PlayerSpec,
    player_b: str | PlayerSpec,
    matches: int,
    seed: int,
    options: Options | None = None,
    jobs: int = 1,
    records: str | None = None,
    on_result: Callable[[MatchStats], None] | None = None,
    ray_address: str | None = None,
) -> list[MatchStats]:
    """Play ``matches`` (even) matches in pairs; results in match order, identical for any
    ``jobs`` and on Ray (``ray_address``, see :func:`_ray_pairs`; records are then written
    by the workers, so DIR must be shared by the nodes). ``on_result`` is called for each
    match as it is gathered (in order)."""
    if matches <= 0 or matches % 2:
        raise ValueError(f"The number of matches must be a positive even number, not {matches}.")
    pa = player_a if isinstance(player_a, PlayerSpec) else PlayerSpec(player_a)
    pb = player_b if isinstance(player_b, PlayerSpec) else PlayerSpec(player_b)
    check_player(pa.spec)
    check_player(pb.spec)
    if records is not None:
        records = os.path.abspath(records)  # workers (Ray's too) may run elsewhere
        os.makedirs(records, exist_ok=True)
    job = _Job((pa, pb), seed, options or Options(), records)
    pairs = range(matches // 2)
    results: list[MatchStats] = []

    def gather(it: Iterator[list[MatchStats]]) -> None:
        for pair_stats in it:
            for st in pair_stats:
                results.append(st)
                if on_result is not None:
                    on_result(st)

    if ray_address is not None:
        gather(_ray_pairs(job, pairs, ray_address, jobs))
    elif jobs <= 1 or len(pairs) <= 1:
        gather(_play_pair(job, k) for k in pairs)
    else:
        ctx = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
        with ctx.Pool(min(jobs, len(pairs)), initializer=_init_worker, initargs=(job,)) as pool:
            gather(pool.imap(_worker_pair, pairs))
    return results


# ----------------------------------------------------------------------------- statistics


def wilson_ci95(successes: float, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval for ``successes`` out of ``n``."""
    if n <= 0:
        return (0.0, 1.0)
    z = 1.959963984540054
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def pair_ci95(results: Sequence[MatchStats]) -> tuple[float, float]:
    """95% interval of A's win rate from per-pair scores (see the module docstring)."""
    scores = [r.score_a for r in results]
    pairs = [(scores[i] + scores[i + 1]) / 2 for i in range(0, len(scores) - 1, 2)]
    if len(pairs) >= 2:
        sd = statistics.stdev(pairs)
        if sd > 0:
            mean = statistics.fmean(pairs)
            half = 1.959963984540054 * sd / math.sqrt(len(pairs))
            return (max(0.0, mean - half), min(1.0, mean + half))
    return wilson_ci95(sum(scores), len(scores))


def summarize(
    players: Sequence[str], results: Sequence[MatchStats], seconds: float,
    seed: int | None = None, options: Options | None = None,
) -> dict[str, Any]:
    """The ``ginrummy match --json`` object: ``players``, ``matches``, ``wins``, ``ties``,
    ``win_rate``, ``ci95``, ``hands``, ``points_per_hand``, ``seconds`` (other programs read
    these: never rename or drop one), and extra optional members."""
    n = len(results)
    wins = [sum(1 for r in results if r.winner == p) for p in (0, 1)]
    ties = sum(1 for r in results if r.winner is None)
    hands = sum(r.hands for r in results)
    points = [sum(r.points[p] for r in results) for p in (0, 1)]
    lo, hi = pair_ci95(results)
    times = [[t for r in results for t in r.times[p]] for p in (0, 1)]
    out: dict[str, Any] = {
        "players": list(players),
        "matches": n,
        "wins": wins,
        "ties": ties,
        "win_rate": round((wins[0] + 0.5 * ties) / n, 6) if n else 0.0,
        "ci95": [round(lo, 6), round(hi, 6)],
        "hands": hands,
        "points_per_hand": [round(p / hands, 4) if hands else 0.0 for p in points],
        "seconds": round(seconds, 3),
        # Extra optional members (§6 allows new ones).
        "ci95_method": "normal on per-pair scores (Wilson on matches if degenerate)",
        "knocks": [sum(r.knocks[p] for r in results) for p in (0, 1)],
        "gins": [sum(r.gins[p] for r in results) for p in (0, 1)],
        "undercuts": [sum(r.undercuts[p] for r in results) for p in (0, 1)],
        "dead_hands": sum(r.dead_hands for r in results),
        "forfeits": [sum(1 for r in results if r.forfeit == p) for p in (0, 1)],
        "decision_ms": {
            "median": [round(statistics.median(t) * 1000, 3) if t else None for t in times],
            "max": [round(max(t) * 1000, 3) if t else None for t in times],
        },
    }
    if seed is not None:
        out["seed"] = seed
    if options is not None:
        out["options"] = options.to_json()
    return out


# ----------------------------------------------------------------------------- the command


def _plot(path: str, results: Sequence[MatchStats], players: Sequence[str]) -> None:
    """Running win rate of A with its interval; needs the ``plot`` extra (matplotlib)."""
    matplotlib: Any = importlib.import_module("matplotlib")
    matplotlib.use("Agg")
    plt: Any = importlib.import_module("matplotlib.pyplot")

    xs, rate, lo, hi = [], [], [], []
    for i in range(2, len(results) + 1, 2):
        part = results[:i]
        xs.append(i)
        rate.append(sum(r.score_a for r in part) / i)
        a, b = pair_ci95(part)
        lo.append(a)
        hi.append(b)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.fill_between(xs, lo, hi, alpha=0.25, label="95% interval")
    ax.plot(xs, rate, label=f"{players[0]} win rate")
    ax.axhline(0.5, color="grey", linewidth=0.8)
    ax.set_xlabel("matches")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title(f"{players[0]} vs {players[1]}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


class _Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.start = time.monotonic()

    def __call__(self, _st: MatchStats) -> None:
        self.done += 1
        width = 30
        filled = width * self.done // self.total
        elapsed = time.monotonic() - self.start
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
                         f" {elapsed:.0f}s")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def build_parser() -> argparse.ArgumentParser:
    """The ``ginrummy match`` argument parser."""
    p = argparse.ArgumentParser(
        prog="ginrummy match",
        description="Play bot-vs-bot matches in duplicate pairs and report statistics.",
        epilog=exits.epilog(
            "played (a bot's forfeit is a result, not an error)",
            usage="a wrong command line (unknown option, bad value, unknown bot), an exec: "
            "bot that does not start, a records folder that cannot be written, Ray missing "
            "or unreachable",
            interrupted="stopped with Ctrl-C (no report; workers end quietly)"),
    )
    p.add_argument("a", metavar="A", help="player A: a bot name or exec:COMMAND")
    p.add_argument("b", metavar="B", help="player B: a bot name or exec:COMMAND")
    p.add_argument("--matches", type=int, default=2,
                   help="number of matches, even: pairs with seats swapped (default 2)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed (default: a random one, reported)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_table_options(p)
    p.add_argument("--jobs", type=int, default=1,
                   help="parallel worker processes; same results for any number (default 1)")
    p.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="run the pairs as tasks on a Ray cluster (local: start one here; "
                   f"needs {RAY_INSTALL})")
    p.add_argument("--records", metavar="DIR", help="write every match as a ginrummy/1 record")
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT,
                   help="seconds an exec: bot may take per decision "
                   f"(default {DEFAULT_TIME_LIMIT:g})")
    p.add_argument("--plot", metavar="FILE", help="plot the running win rate (needs matplotlib)")
    return p


def _text_report(s: dict[str, Any]) -> str:
    a, b = s.get("names", s["players"])
    lines = [
        f"{a} vs {b}: {s['matches']} matches, {s['hands']} hands, {s['seconds']:.1f}s"
        + (f", seed {s['seed']}" if "seed" in s else ""),
        f"  wins {s['wins'][0]} - {s['wins'][1]}, ties {s['ties']}",
        f"  {a} win rate {s['win_rate']:.3f}  (95% CI {s['ci95'][0]:.3f} - {s['ci95'][1]:.3f})",
        f"  points per hand {s['points_per_hand'][0]:.2f} - {s['points_per_hand'][1]:.2f}",
        f"  knocks {s['knocks'][0]} - {s['knocks'][1]}, gins {s['gins'][0]} - {s['gins'][1]}, "
        f"undercuts {s['undercuts'][0]} - {s['undercuts'][1]}, dead hands {s['dead_hands']}",
    ]
    if any(s["forfeits"]):
        lines.append(f"  forfeits {s['forfeits'][0]} - {s['forfeits'][1]}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """``ginrummy match A B --matches N --seed S [--json] ...``; exit 2 on bad usage."""
    args = build_parser().parse_args(argv)

    def usage(msg: str) -> int:
        print(f"ginrummy match: {msg}", file=sys.stderr)
        return exits.USAGE

    if args.matches <= 0 or args.matches % 2:
        return usage(f"--matches must be a positive even number (matches come in pairs "
                     f"with seats swapped), not {args.matches}.")
    if args.jobs < 1:
        return usage(f"--jobs must be at least 1, not {args.jobs}.")
    if args.ray is not None:
        if not args.ray.strip():
            return usage("--ray needs an address: local, auto, or HOST:PORT of a Ray cluster.")
        try:
            _import_ray()
        except RayUnavailable as e:
            return usage(str(e))
    if args.time_limit <= 0:
        return usage(f"--time-limit must be positive, not {args.time_limit:g}.")
    try:
        options = Options(target=args.target, gin_only=args.gin_only, oklahoma=args.oklahoma)
        check_player(args.a)
        check_player(args.b)
    except (OptionsError, BotError) as e:
        return usage(str(e))
    if args.plot is not None:
        try:
            importlib.import_module("matplotlib")
        except ImportError:
            return usage("--plot needs matplotlib: pip install 'ginrummy[plot]'.")
    seed = args.seed if args.seed is not None else derive_seed(time.time_ns(), os.getpid())
    try:
        players = (probe_player(PlayerSpec(args.a, args.time_limit)),
                   probe_player(PlayerSpec(args.b, args.time_limit)))
    except BotError as e:
        return usage(f"{e} No match was played.")
    progress = _Progress(args.matches) if sys.stderr.isatty() and not args.json else None

    def on_result(st: MatchStats) -> None:
        if st.forfeit is not None:
            if progress is not None:
                sys.stderr.write("\n")
            who = players[st.forfeit].display
            print(f"ginrummy match: match {st.index + 1}: {who} forfeits. {st.message}",
                  file=sys.stderr, flush=True)
        if progress is not None:
            progress(st)

    t0 = time.monotonic()
    try:
        results = run_matches(players[0], players[1], args.matches, seed, options, args.jobs,
                              args.records, on_result, ray_address=args.ray)
    except OSError as e:
        return usage(f"cannot write records to {args.records}: {e.strerror or e}.")
    except RayUnavailable as e:
        return usage(str(e))
    summary = summarize((args.a, args.b), results, time.monotonic() - t0, seed, options)
    if any(p.name for p in players):
        summary["names"] = [p.display for p in players]  # exec bots' own names (optional)
    if args.plot is not None:
        _plot(args.plot, results, (players[0].display, players[1].display))
    if args.json:
        print(json.dumps(summary))
    else:
        print(_text_report(summary))
    return exits.OK
