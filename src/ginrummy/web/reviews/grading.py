"""Game reviews and hints at the web table: computed in worker processes, stored once.

A review of a web match is built from *parts*, one per (finished hand, seat): each part
is that seat's graded decisions of that hand (:func:`ginrummy.review.review_match`,
graded from the seat's own view only, R11) and its luck. Parts are stored in the
``reviews`` table (one row per match) and reused by every later request, so a hand is
graded once however often it is reviewed. Who may see what:

* while the match is in play, a seat gets only ITS OWN decisions, and only of finished
  hands (never the hand in play, never the opponent's decisions: the opponent's best
  moves would tell which cards they held);
* once the match is over the whole record is public (replays show both hands), and the
  review covers both seats.

At most one review job runs per match, claimed in the database (so any number of server
processes agree); a job's row carries ``beat_at``, renewed while it runs, and a claim whose
heartbeat is older than :attr:`ReviewSettings.stale_seconds` (its process died) is taken
over. Hints (the evaluator's suggestion for the decision at hand, tables against the
computer only) are computed in their own worker and recorded in ``review_hints``, so the
review can show which decisions were hinted.

Reviews and hints are stored through :class:`~.store.ReviewStore` (the ``reviews`` and
``review_hints`` tables of :mod:`.store.schema`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...cards import SUIT_SYMBOLS, Card
from ...hand import Hand, View
from ...i18n import DEFAULT, using
from ...match import Match
from ...review import review_match, said
from ...review.grade import DEFAULT_SAMPLES, moments
from ...review.hints import coach_hint
from ...review.report import (
    Review,
    account,
    action_json,
    action_words,
    rating_range_words,
    rating_words,
    seat_totals,
)
from ..store.engine import open_engine
from ..store.reviews import ReviewStore

__all__ = [
    "REVIEW_SEED",
    "ReviewSettings",
    "assemble",
    "hint_once",
    "review_frames",
    "review_scope",
    "run_job",
    "table_card",
]

log = logging.getLogger("ginrummy.web")

REVIEW_SEED = 0
"""The seed of every web review (``ginrummy review --seed 0``) and of every hint, which is
the review's verdict given early (:func:`hint_once`)."""


@dataclass(frozen=True)
class ReviewSettings:
    """How much work a review and a hint get, and when a running job counts as dead.

    Read from the environment by :meth:`from_env` (``GINRUMMY_REVIEW_BUDGET_MS``,
    ``GINRUMMY_REVIEW_SAMPLES``, ``GINRUMMY_REVIEW_WORKERS``, ``GINRUMMY_REVIEW_STALE_S``)
    so a deployment or a test can make them cheaper. Grades and hints go by sample counts,
    so they depend on the record alone; the time limit per decision (CPU time) is only a
    safety net, and a grade it cut short says so (``capped``). A hint is the review's own
    verdict: it takes the review's samples and limit (``GINRUMMY_HINT_SAMPLES`` is no
    longer read).
    """

    budget_ms: float | None = 30000.0
    samples: int | None = DEFAULT_SAMPLES
    workers: int = 1
    stale_seconds: float = 60.0

    @classmethod
    def from_env(cls) -> ReviewSettings:
        """The defaults, overridden by the environment variables that are set (a bad
        value is logged and the default kept)."""
        env = os.environ
        d = cls()

        def num(name: str, default: float | None) -> float | None:
            raw = env.get(name)
            if raw is None or raw.strip() == "":
                return default
            if raw.strip().lower() == "none":
                return None
            try:
                value = float(raw)
            except ValueError:
                value = -1.0
            if not value > 0:
                log.warning("%s must be a positive number (or none), not %r: using %s.",
                            name, raw, default)
                return default
            return value

        samples = num("GINRUMMY_REVIEW_SAMPLES", d.samples)
        if env.get("GINRUMMY_HINT_SAMPLES"):
            log.warning("GINRUMMY_HINT_SAMPLES is no longer read: a hint is the review's "
                        "verdict, with GINRUMMY_REVIEW_SAMPLES.")
        return cls(
            budget_ms=num("GINRUMMY_REVIEW_BUDGET_MS", d.budget_ms),
            samples=None if samples is None else int(samples),
            workers=int(num("GINRUMMY_REVIEW_WORKERS", d.workers) or 1),
            stale_seconds=num("GINRUMMY_REVIEW_STALE_S", d.stale_seconds) or d.stale_seconds,
        )


# ---------------------------------------------------------------------------- scope


@dataclass(frozen=True)
class Scope:
    """What one request may see: these seats' decisions in these (finished) hands."""

    seats: tuple[int, ...]
    hands: tuple[int, ...]
    over: bool

    def parts(self) -> list[tuple[int, int]]:
        """The (hand, seat) parts the review needs."""
        return [(h, s) for h in self.hands for s in self.seats]


def review_scope(match: Match, seat: int) -> Scope:
    """Once the match is over: both seats, every hand. Before: ``seat``'s own decisions of
    the finished hands only (a hand in play is never reviewed).

    >>> m = Match(seed=1)
    >>> review_scope(m, 0)
    Scope(seats=(0,), hands=(), over=False)
    """
    if match.is_over():
        return Scope((0, 1), tuple(range(len(match.hands))), True)
    done = tuple(i for i, h in enumerate(match.hands) if h.result is not None)
    return Scope((seat,), done, False)


def part_key(hand: int, seat: int) -> str:
    """The key of a part in the stored JSON."""
    return f"{hand}:{seat}"


# ---------------------------------------------------------------------------- the job


_ENGINES: dict[str, ReviewStore] = {}


def _worker_store(db_url: str) -> ReviewStore:
    store = _ENGINES.get(db_url)
    if store is None:
        store = _ENGINES[db_url] = ReviewStore(open_engine(db_url))
    return store


def part_of(review: Review, hand: int, seat: int) -> dict[str, Any]:
    """The stored part of one (hand, seat): its graded decisions (as docs/review.md shows
    them, with the reason) and the seat's luck in that hand. A reason is stored twice: in
    English (``why``, as ``ginrummy review --json`` gives it) and as the sentence still to
    be said (``why_said``, :mod:`ginrummy.review.said`), which :func:`assemble` says in
    each reader's language."""
    hands = review.to_json()["hands"]
    decisions = hands[0]["decisions"] if hands else []
    graded = [g for g in review.graded if g.moment.hand == hand]
    for d, g in zip(decisions, graded, strict=True):
        if g.said is not None and not isinstance(g.said, str):
            d["why_said"] = said.to_json(g.said)
    return {"decisions": decisions, "luck": round(review.luck(seat), 5)}


def told(d: dict[str, Any]) -> dict[str, Any]:
    """A stored decision as a reader gets it: its reason said in the language of the
    moment (a part stored before reasons were kept as sentences keeps its English)."""
    if "why_said" not in d:
        return d
    out = {k: v for k, v in d.items() if k != "why_said"}
    out["why"] = str(said.from_json(d["why_said"]))
    return out


def run_job(db_url: str, match_id: str, job: str, record: dict[str, Any],
            parts: Sequence[tuple[int, int]], budget_ms: float | None,
            samples: int | None) -> int:
    """Grade the missing ``parts`` of a match (in a worker process) and store each as it
    is done, with progress; returns how many decisions were graded. Stops early when the
    job has lost its claim (it was taken over as stale)."""
    store = _worker_store(db_url)
    match = Match.from_record(record)
    todo = [(h, s, len(moments(match, (h,), (s,)))) for h, s in parts]
    total = sum(n for _, _, n in todo)
    store.update_job(match_id, job, total=total, done=0, beat_at=time.time())
    done = 0
    last = time.monotonic()
    for hand, seat, n in todo:
        base = done

        def progress(k: int, _total: int, base: int = base) -> None:
            nonlocal last
            if time.monotonic() - last >= 0.5:
                last = time.monotonic()
                if not store.beat(match_id, job, base + k):
                    raise _Lost()

        try:
            review = review_match(match, seats=(seat,), hands=(hand,), budget_ms=budget_ms,
                                  samples=samples, seed=REVIEW_SEED, jobs=1,
                                  progress=progress, card=table_card)
        except _Lost:
            return done
        done += n
        if not store.save_part(match_id, job, part_key(hand, seat),
                               part_of(review, hand, seat), done):
            return done
    store.finish(match_id, job)
    return done


class _Lost(Exception):
    """The job's claim was taken over."""


# ---------------------------------------------------------------------------- assembly


def as_hinted(d: dict[str, Any], hint_best: Any) -> dict[str, Any]:
    """A hinted decision with the hint's verdict. The hint measured the screen's shortlist
    (:func:`hint_once`); the review measures the same shortlist on the same samples (the
    same figures) and the move played besides. So they differ only where the player took
    a move the screen had left out and it then measured best: the review named that move
    its best, against the hint ("one hint in 30 disagreed"). It lost nothing and stays
    unmarked; the best move shown is the hint's, with its figure from the review's own
    runners-up."""
    if not isinstance(hint_best, dict) or d["best"] == hint_best or d["loss"] != 0:
        return d
    alt = next((a for a in d.get("alternatives", []) if a["action"] == hint_best), None)
    if alt is None:
        return d
    return d | {"best": hint_best, "equity": {**d["equity"], "best": alt["equity"]}}


def assemble(match: Match, scope: Scope, parts: dict[str, Any],
             hinted: Mapping[tuple[int, int], Any]) -> dict[str, Any]:
    """The review object (docs/review.md) of ``scope`` from stored parts, each decision
    with its ``hinted`` flag (``hinted``: each hinted decision's recorded best move; such
    a decision is told with the hint's verdict, :func:`as_hinted`); the per-seat summaries
    as ``ginrummy review --json`` gives them."""
    hands = []
    by_seat: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    for i in scope.hands:
        ds: list[dict[str, Any]] = []
        for s in scope.seats:
            part = parts.get(part_key(i, s))
            if part is None:
                continue
            for d in part["decisions"]:
                key = (i, d["action"])
                d = dict(told(d), hinted=key in hinted)
                if key in hinted:
                    d = as_hinted(d, hinted[key])
                ds.append(d)
                by_seat[s].append(d)
        ds.sort(key=lambda d: int(d["action"]))
        hands.append({"index": i, "decisions": ds})
    rev = Review(match, scope.seats, scope.hands, [])
    errors = {s: sum(float(d["loss"]) for d in by_seat[s]) for s in (0, 1)}
    seats = []
    for s in (0, 1):
        ds = by_seat[s]
        reviewed = s in scope.seats
        result = rev.result(s) if reviewed else None
        expected = rev.expected(s)
        acc = None if result is None or expected is None else account(
            expected, result, errors[s], errors[1 - s] if rev.complete else None)
        # the same totals, rating and "plays like" as the command line (one place); a part
        # stored before losses were normalized (or before the cross-fitted figure) counts
        # what it has
        totals = seat_totals([
            (float(d["loss"]), float(d.get("loss_normalized", d["loss"])), d["mark"],
             float(d.get("loss_unbiased", d.get("loss_normalized", d["loss"]))))
            for d in ds
        ])
        interval = totals["error_rate_interval"]
        seats.append({
            **totals,
            # the words a page shows, in the reader's language ("plays_like" names bots)
            "rating": None if totals["rating"] is None else rating_words(totals["rating"]),
            "rating_interval": None if interval is None else rating_range_words(*interval),
            "errors": round(errors[s], 4) if reviewed else None,
            "expected": None if acc is None else acc["expected"],
            "skill": None if acc is None else acc["skill"],
            "luck": None if acc is None else acc["luck"],
            "result": None if acc is None else acc["result"],
            "luck_adjusted": round(acc["expected"] + acc["skill"], 4)
            if acc is not None and rev.complete else None,
            "capped": sum(1 for d in ds if d.get("capped")),
            "hinted": sum(1 for d in ds if d["hinted"]),
        })
    return {"unit": "match", "hands": hands, "seats": seats}


def review_frames(match: Match, scope: Scope, viewer: int) -> list[dict[str, Any]]:
    """The step-by-step positions of the reviewed hands as ``viewer`` may see them: its
    own cards and what the rules revealed to it (R11) while the match is in play; both
    hands once the match is over. One frame per position, before each action and after
    the last."""
    out = []
    for i in scope.hands:
        played = match.hands[i]
        hand = Hand(played.deal, played.dealer, played.options, played.hand_index,
                    played.scores)
        frames = []
        ops = list(played.history)
        for j in range(len(ops) + 1):
            v = hand.view(viewer)
            frame: dict[str, Any] = {
                "hand": [str(c) for c in v.hand],
                "pile": [str(c) for c in v.discards],
                "stock": v.stock_count,
                "to_play": v.to_play,
                "phase": v.phase.value,
            }
            if scope.over:
                frame["opp"] = [str(c) for c in hand.cards_of(1 - viewer)]
            elif v.revealed is not None:
                frame["opp"] = [str(c) for c in v.revealed[1 - viewer]]
            else:
                frame["opp_took"] = [str(c) for c in v.opponent_took]
            frames.append(frame)
            if j < len(ops):
                hand.play(ops[j].action, ops[j].seat)
        actions = []
        for op in ops:  # after the match every drawn card is public; before, R11
            a = op.to_json(op.seat if scope.over else viewer)
            a["words"] = action_words(op.action, table_card)
            actions.append(a)
        r = played.result
        out.append({
            "index": i,
            "dealer": played.dealer,
            "scores": list(played.scores),
            "actions": actions,
            "frames": frames,
            "result": None if r is None else r.to_json(),
        })
    return out


# ---------------------------------------------------------------------------- hints


def table_card(c: Card) -> str:
    """A card as the web table shows it: ``7♦``, ``10♣`` (the coach's words use it, so a
    hint or a reason names a card as the cards on the table do).

    >>> from ginrummy.cards import parse_cards
    >>> [table_card(c) for c in parse_cards("7D TC")]
    ['7♦', '10♣']
    """
    return ("10" if c.rank == "T" else c.rank) + SUIT_SYMBOLS[c.suit]


def hint_once(view: View, styles: tuple[float, float], samples: int | None,
              budget_ms: float | None, lang: str = DEFAULT) -> dict[str, Any]:
    """The coach's verdict at ``view`` (a seat's view only, R11; run in a worker): the
    review's own (:func:`ginrummy.review.hints.coach_hint` with the review's samples,
    budget and seed, and the opponent ``styles`` the review samples this decision with),
    so a move made on the hint is never marked by the review. The best action, its win
    chance, the runner-up, whether either is fine, and the sentence the page shows, in
    ``lang`` (the asker's: a worker process has no request of its own)."""
    hint = coach_hint(view, styles=styles, samples=samples, seed=REVIEW_SEED,
                      budget_ms=budget_ms)
    with using(lang):
        text = hint.sentence(table_card)
    return {
        "best": action_json(hint.best.action),
        "win": round(hint.best.win, 4),
        "next": action_json(hint.second.action) if hint.second is not None else None,
        "either": hint.either,
        "text": text,
    }
