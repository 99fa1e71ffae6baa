"""A finished review: per-seat summaries (error rate, marks, rating, skill and luck), the
JSON ``ginrummy review --json`` prints (docs/review.md) and the readable text.

Skill and luck add up, in one unit (the chance to win the match): for each seat,

    result = expected at the start + skill + luck

where *expected at the start* is the match-equity table's chance before the first deal
(:mod:`ginrummy.equity`), *skill* is the win chance the opponent's graded decisions gave
away minus what the seat's own gave away (each loss measured from the deciding seat's
own view, R11), and *luck* is the rest: the deals, the draws, and what neither seat could
see. The two seats' skills and lucks are each other's negatives, so the luck-adjusted
results (expected at the start + skill) add up to 1, as the results do. With one seat
reviewed, or some hands only, the opponent's errors are not measured: the figures are
the seat's own errors and "luck and the opponent's errors" together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import Card
from ..equity import win_chance
from ..hand import Action
from ..i18n import N_, t
from ..match import Match
from ..record import RecordError
from .explain import CardWords
from .grade import CLEAR_Z, SYMBOLS, Graded

__all__ = [
    "PLAYS_LIKE",
    "account",
    "RATINGS",
    "Review",
    "action_json",
    "action_words",
    "rating_for",
    "rating_range",
    "rating_range_words",
    "rating_words",
    "seat_totals",
]

# Rating words by the error rate (the mean normalized loss per decision: the losses the
# review shows, each scaled to a first hand's stakes), best first: a seat whose rate is
# below a bound earns its word, and plays about as accurately as the bots named in
# PLAYS_LIKE. From reviews of the project's bots against a common opponent, independent
# runs pooled (docs/review.md: the data, how they were made, and what they cannot tell
# apart): each bound lies halfway between neighbouring bands' bots. `strong` and `marjj`
# review within each other's noise and share a band. The best band is the strongest
# bot's: the review grades with that bot's own evaluator, so it cannot tell a player more
# accurate than `expert` from `expert` (one match of `expert` itself reviews anywhere
# below its bound), and it names no band above it.
# The words are the JSON's (in English, as ``ginrummy review --json`` gives them) and are
# said in a reader's language where a page shows them (:func:`rating_words`).
RATINGS: tuple[tuple[float, str], ...] = (
    (0.0041, N_("Expert")),
    (0.0075, N_("Advanced")),
    (0.0095, N_("Intermediate")),
    (0.0137, N_("Beginner")),
    (float("inf"), N_("Awful")),
)
PLAYS_LIKE: dict[str, str] = {
    "Expert": "expert",
    "Advanced": "strong or marjj",
    "Intermediate": "simple",
    "Beginner": "easy",
    "Awful": "random",
}
"""The bot whose review falls in each rating's band."""


ALTERNATIVES = 2
"""Runner-up actions listed with each decision (with their win chance and margin)."""


def rating_for(error_rate: float) -> str:
    """The rating word for an error rate.

    >>> rating_for(0.001), rating_for(0.003), rating_for(0.006), rating_for(0.009)
    ('Expert', 'Expert', 'Advanced', 'Intermediate')
    >>> rating_for(0.012), rating_for(0.02)
    ('Beginner', 'Awful')
    """
    for bound, word in RATINGS:
        if error_rate < bound:
            return word
    return RATINGS[-1][1]  # pragma: no cover - the last bound is infinite


def seat_totals(decisions: Sequence[tuple[float, float, str | None, float]]) -> dict[str, Any]:
    """A seat's §7 totals from its decisions' ``(loss, loss_normalized, mark,
    loss_unbiased)``: count, error rates (raw, normalized and cross-fitted), marks, the
    rating and the bot that plays alike. The rating goes by the normalized rate, the mean
    of the losses the review shows, which ordered the bots as their strength does in
    every calibration run (docs/review.md); the cross-fitted rate is its lower bound. One
    place for every front end that sums decisions (the command line, the web table).

    >>> t = seat_totals([(0.0, 0.0, None, -0.004), (0.02, 0.04, "inaccuracy", 0.03)])
    >>> t["error_rate"], t["error_rate_normalized"], t["error_rate_unbiased"]
    (0.01, 0.02, 0.013)
    >>> t["inaccuracies"], t["rating"], t["plays_like"]
    (1, 'Awful', 'random')
    >>> seat_totals([(0.006, 0.006, None, 0.004)])["rating"]
    'Advanced'
    >>> seat_totals([])["rating"] is None
    True
    """
    n = len(decisions)
    rate = round(sum(d[0] for d in decisions) / n, 5) if n else 0.0
    norm = round(sum(d[1] for d in decisions) / n, 5) if n else 0.0
    unbiased = round(sum(d[3] for d in decisions) / n, 5) if n else 0.0
    marks = [d[2] for d in decisions]
    rating = rating_for(norm) if n else None
    lo, hi = _interval([d[1] for d in decisions])
    return {
        "decisions": n,
        "error_rate": rate,
        "inaccuracies": marks.count("inaccuracy"),
        "mistakes": marks.count("mistake"),
        "blunders": marks.count("blunder"),
        "rating": rating,
        "error_rate_normalized": norm,
        "error_rate_unbiased": unbiased,
        "plays_like": None if rating is None else PLAYS_LIKE[rating],
        "error_rate_interval": [lo, hi] if n else None,
        "rating_interval": rating_range(lo, hi) if n else None,
    }


def _interval(losses: Sequence[float]) -> tuple[float, float]:
    """A 95% interval of the mean of ``losses`` (normal, from their spread; one decision
    gives no spread, so its interval is the whole scale)."""
    n = len(losses)
    if n < 2:
        return 0.0, 1.0
    mean = sum(losses) / n
    var = sum((x - mean) ** 2 for x in losses) / (n - 1)
    half = 1.96 * (var / n) ** 0.5
    return round(max(0.0, mean - half), 5), round(mean + half, 5)


def rating_range(lo: float, hi: float) -> str:
    """The ratings an error-rate interval spans, in words: ``Advanced`` when it lies in
    one band, else ``Intermediate to Expert`` (worst to best).

    >>> rating_range(0.005, 0.007), rating_range(0.003, 0.010)
    ('Advanced', 'Beginner to Expert')
    """
    best, worst = rating_for(lo), rating_for(hi)
    return best if best == worst else f"{worst} to {best}"


def rating_words(rating: str) -> str:
    """A rating word (:data:`RATINGS`) in the language of the moment."""
    return t(rating)


def rating_range_words(lo: float, hi: float) -> str:
    """:func:`rating_range` in the language of the moment.

    >>> rating_range_words(0.003, 0.010)
    'Beginner to Expert'
    """
    best, worst = rating_for(lo), rating_for(hi)
    if best == worst:
        return t(best)
    return t("{worst} to {best}", worst=t(worst), best=t(best))


def _rating_words(rating: str | None, plays_like: str | None) -> str:
    """``Beginner (easy)``, ``Expert (expert)`` or ``-``."""
    if rating is None:
        return "-"
    return f"{rating} ({plays_like})" if plays_like else rating


def action_json(action: Action) -> dict[str, Any]:
    """The §7/§5 action object (a discard always carries its ``knock``)."""
    d = action.to_json()
    if action.act == "discard":
        d["knock"] = bool(action.knock)
    return d


def action_words(action: Action, card: CardWords = str) -> str:
    """``discard KH``, ``knock with 9C``, ``draw from the stock``, ``take the discard``:
    an action in words, each card written by ``card`` (R1 by default), in the language of
    the moment."""
    if action.act == "pass":
        return t("pass")
    if action.act == "draw":
        return t("draw from the stock") if action.source == "stock" else t("take the discard")
    assert action.card is not None
    c: Card = action.card
    return t("knock with {card}", card=card(c)) if action.knock \
        else t("discard {card}", card=card(c))


@dataclass
class Review:
    """The graded decisions of a record for some seats and hands."""

    match: Match | None
    seats: tuple[int, ...]
    hands: tuple[int, ...]
    graded: list[Graded]
    error: RecordError | None = None
    budget_ms: float | None = None

    @property
    def complete(self) -> bool:
        """Whether every hand and both seats were reviewed (needed for a luck-adjusted
        result)."""
        return (self.match is not None and self.seats == (0, 1)
                and self.hands == tuple(range(len(self.match.hands))))

    def of_seat(self, seat: int) -> list[Graded]:
        """The seat's graded decisions, in record order."""
        return [g for g in self.graded if g.moment.seat == seat]

    # ------------------------------------------------------------------ skill and luck

    def errors(self, seat: int) -> float:
        """The win chance ``seat``'s reviewed decisions gave away (the sum of its losses)."""
        return sum(g.loss for g in self.of_seat(seat))

    def expected(self, seat: int) -> float | None:
        """``seat``'s chance to win the match before its first deal (the match-equity
        table's, R10), or None without a match."""
        m = self.match
        if m is None:
            return None
        return win_chance((0, 0), seat, m.first_dealer, m.options)

    def accounting(self, seat: int) -> dict[str, float] | None:
        """``{"expected", "skill", "luck", "result"}`` for ``seat``, adding up exactly:
        result = expected + skill + luck (module docstring), or None when the seat was
        not reviewed. ``skill`` counts the opponent's errors only when :attr:`complete`."""
        result = self.result(seat)
        expected = self.expected(seat)
        if result is None or expected is None or seat not in self.seats:
            return None
        return account(expected, result, self.errors(seat),
                       self.errors(1 - seat) if self.complete else None)

    def luck(self, seat: int) -> float:
        """``seat``'s luck (see :meth:`accounting`); 0.0 when it was not reviewed."""
        acc = self.accounting(seat)
        return 0.0 if acc is None else acc["luck"]

    def result(self, seat: int) -> float | None:
        """1 won, 0 lost, 0.5 tied; for an unfinished match the table's chance now."""
        m = self.match
        if m is None:
            return None
        out = m.outcome()
        if out is not None:
            return 0.5 if out.winner is None else float(out.winner == seat)
        if not m.hands:
            return win_chance((0, 0), seat, m.first_dealer, m.options)
        last = m.hands[-1]
        if last.result is None:
            return win_chance(last.scores, seat, last.dealer, m.options)
        return win_chance(m.scores, seat, m.next_dealer(), m.options)

    # ------------------------------------------------------------------ summaries

    def seat_summary(self, seat: int) -> dict[str, Any]:
        """The ``seats`` entry (docs/review.md): the totals, the normalized and
        cross-fitted error rates (the rating goes by the former), the bot that plays alike,
        and the accounting: expected at the start + skill + luck = result; the
        luck-adjusted result is expected + skill (both seats reviewed, every hand)."""
        gs = self.of_seat(seat)
        acc = self.accounting(seat)
        return {
            **seat_totals([(g.loss, g.normalized, g.mark, g.unbiased) for g in gs]),
            "errors": round(self.errors(seat), 4) if acc is not None else None,
            "expected": None if acc is None else acc["expected"],
            "skill": None if acc is None else acc["skill"],
            "luck": None if acc is None else acc["luck"],
            "result": None if acc is None else acc["result"],
            "luck_adjusted": round(acc["expected"] + acc["skill"], 4)
            if acc is not None and self.complete else None,
            "capped": sum(1 for g in gs if g.capped),
        }

    def to_json(self) -> dict[str, Any]:
        """The ``ginrummy review --json`` object (docs/review.md)."""
        hands = []
        for i in self.hands:
            ds = []
            for g in self.graded:
                if g.moment.hand != i:
                    continue
                ds.append({
                    "action": g.moment.action,
                    "seat": g.moment.seat,
                    "played": action_json(g.moment.played),
                    "best": action_json(g.best.action),
                    "equity": {"played": round(g.played.win, 4),
                               "best": round(g.best.win, 4)},
                    "loss": g.loss,
                    "loss_se": g.loss_se,
                    "loss_normalized": g.normalized,
                    "loss_unbiased": g.unbiased,
                    "stakes": g.stakes,
                    "mark": g.mark,
                    "why": g.why,
                    "alternatives": [
                        {"action": action_json(v.action), "equity": round(v.win, 4),
                         "margin": round(v.win - g.played.win, 4)}
                        for v in g.alternatives[:ALTERNATIVES]],
                    "capped": g.capped,
                })
            hands.append({"index": i, "decisions": ds})
        out: dict[str, Any] = {
            "unit": "match",
            "hands": hands,
            "seats": [self.seat_summary(s) for s in (0, 1)],
        }
        if self.error is not None:
            out["error"] = self.error.to_json()
        return out

    # ------------------------------------------------------------------ text

    def name(self, seat: int) -> str:
        """``ann (seat 0)`` or ``seat 0``."""
        m = self.match
        if m is not None and m.players:
            return f"{m.players[seat]} (seat {seat})"
        return f"seat {seat}"

    def to_text(self, all_decisions: bool = True) -> str:
        """The readable review: each hand's decisions with marks and reasons, then a
        summary per seat."""
        lines: list[str] = []
        m = self.match
        if m is not None:
            o = m.options
            who = " and ".join(self.name(s) for s in self.seats)
            lines.append(f"Review of {who}: target {o.target}"
                         + (", gin only" if o.gin_only else "")
                         + (", Oklahoma" if o.oklahoma else "")
                         + "; win chances are for the whole match, from the player's view.")
        for i in self.hands:
            assert m is not None
            hand = m.hands[i]
            gs = [g for g in self.graded if g.moment.hand == i]
            lines.append("")
            lines.append(f"Hand {i + 1}: {self.name(hand.dealer)} deals, up-card "
                         f"{hand.deal.upcard}, score {hand.scores[0]}-{hand.scores[1]}")
            for g in gs:
                if not all_decisions and g.mark is None:
                    continue
                lines += _decision_lines(g, self.name(g.moment.seat))
            r = hand.result
            if r is None:
                lines.append("  (unfinished)")
            elif r.scorer is None:
                lines.append("  Dead hand: nobody scores.")
            else:
                lines.append(f"  {r.result.capitalize()}: {self.name(r.scorer)} scores "
                             f"{r.points}.")
        lines.append("")
        lines.append("Summary")
        head = (f"  {'player':<22}{'decisions':>10}{'error rate':>12}{'?!':>5}{'?':>4}"
                f"{'??':>4}  {'rating (plays like)':<34}{'start':>7}{'skill':>8}"
                f"{'luck':>8}{'result':>8}")
        lines.append(head)
        for s in self.seats:
            d = self.seat_summary(s)
            lines.append(
                f"  {self.name(s):<22}{d['decisions']:>10}"
                f"{100 * d['error_rate_normalized']:>11.2f}%"
                f"{d['inaccuracies']:>5}{d['mistakes']:>4}{d['blunders']:>4}  "
                f"{_rating_words(d['rating'], d['plays_like']):<34}"
                f"{_pct(d['expected']):>7}{_pct(d['skill'], True):>8}"
                f"{_pct(d['luck'], True):>8}{_pct(d['result']):>8}")
        for s in self.seats:
            d = self.seat_summary(s)
            if d["rating_interval"] and d["rating_interval"] != d["rating"]:
                lo, hi = d["error_rate_interval"]
                lines.append(f"  {self.name(s)}: from this many decisions the error rate lies "
                             f"between {100 * lo:.2f}% and {100 * hi:.2f}% (95%): "
                             f"{d['rating_interval']}.")
        lines.append("")
        lines.append("Error rate: win chance lost per decision, each loss scaled to the stakes of "
                     "a match's first hand (the rating goes by it). Marks: ?! inaccuracy, "
                     "? mistake, ?? blunder, given only where the loss is clearly more than "
                     "the estimate's noise (the figure after ±). Start + skill + luck = "
                     "result, in chances to win the match: skill is what the opponent's "
                     "errors gave minus what the player's own cost"
                     + ("" if self.complete else " (here the player's own only: the "
                        "opponent's errors count as luck)")
                     + "; luck is the rest (the cards).")
        capped = sum(1 for g in self.graded if g.capped)
        if capped:
            lines.append(f"The time limit stopped {capped} evaluation"
                         f"{'' if capped == 1 else 's'} short of its samples: those grades "
                         "depend on the machine's speed (run without --budget-ms for grades "
                         "that depend on the record alone).")
        if self.error is not None:
            lines.append(f"The record is invalid from there on: {self.error.message}")
        return "\n".join(lines)


def account(expected: float, result: float, errors: float,
            opponent_errors: float | None) -> dict[str, float]:
    """Skill and luck that add up (module docstring): ``{"expected", "skill", "luck",
    "result"}`` rounded to 4 places, with result = expected + skill + luck to those places;
    ``opponent_errors`` None when the opponent's decisions were not reviewed.

    >>> account(0.5, 1.0, 0.1, 0.04)
    {'expected': 0.5, 'skill': -0.06, 'luck': 0.56, 'result': 1.0}
    """
    skill = -errors + (opponent_errors or 0.0)
    expected, skill, result = round(expected, 4), round(skill, 4), round(result, 4)
    return {"expected": expected, "skill": skill, "luck": round(result - expected - skill, 4),
            "result": result}


def _pct(value: float | None, sign: bool = False) -> str:
    """``53%`` / ``+3%`` or ``-``."""
    return "-" if value is None else format(value, "+.0%" if sign else ".0%")


def _stakes_words(g: Graded) -> str:
    """How the score changes what a loss counts for, in a player's words."""
    if abs(g.stakes - 1) < 0.25 or not g.loss:
        return ""
    if g.stakes < 1:
        return (f"; the score leaves this hand less to decide than the match's first, so "
                f"it counts as {100 * g.normalized:.1f}%")
    return (f"; at this score the hand decides more than the match's first, so it counts "
            f"as {100 * g.normalized:.1f}%")


def _decision_lines(g: Graded, who: str) -> list[str]:
    """One graded decision as text: the move, its mark, the loss with its noise, the
    better moves with their win chances, and why."""
    mark = SYMBOLS.get(g.mark or "", "")
    head = f"  {g.moment.action + 1:>3}. {who}: {action_words(g.moment.played)} {mark}"
    if g.capped:
        head += " [time limit]"
    if g.loss == 0:
        best = g.played.action == g.best.action
        return [f"{head} ({'best' if best else 'as good as the best'}, {g.best.win:.1%})"]
    noise = "" if g.mark else ", within the noise: no mark" \
        if g.loss < CLEAR_Z * g.loss_se else ""
    lines = [f"{head} loses {100 * g.loss:.1f}% ± {100 * g.loss_se:.1f}% win chance "
             f"({g.played.win:.1%}{noise}{_stakes_words(g)})"]
    better = [v for v in g.alternatives if v.win > g.played.win][:ALTERNATIVES]
    if better:
        lines.append("       better: " + "; ".join(
            f"{action_words(v.action)} {v.win:.1%} (+{100 * (v.win - g.played.win):.1f})"
            for v in better))
    if g.why:
        lines.append(f"       why: {g.why}")
    return lines


def pick(items: Sequence[int], allowed: Sequence[int]) -> tuple[int, ...]:
    """``items`` kept in order, without duplicates, limited to ``allowed``."""
    seen: list[int] = []
    for i in items:
        if i in allowed and i not in seen:
            seen.append(i)
    return tuple(seen)
