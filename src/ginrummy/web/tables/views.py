"""What each seat is shown: its own STATE (R11), built once per version, and the messages
that carry it to the seat's sockets.

Everything here is a function of a :class:`~.table.Table` (and of whether moves are
paused while the database is away): :func:`state` is one seat's STATE (the bot protocol's
VIEW plus the table's comforts: legal moves, the seat's own arrangement, exact discard
figures, the score sheet, and what the rules reveal at a hand's end), :func:`state_text`
its encoded push. Callers must not modify what these return: each is shared by every
socket of the seat and by the HTTP answer.
"""

from __future__ import annotations

import json
from typing import Any

from ...cards import from_mask
from ...hand import Action, Phase, View
from ...knowledge import Knowledge, Shown
from ...melds import arrangements_mask, deadwood_by_discard_mask
from ...view import HandResult
from ..errors import DB_DOWN
from .clock import clock_json, deal_at, settings_of
from .table import Table

__all__ = ["best_discard", "comforts", "dumps", "seat_arrangements", "state", "state_text",
           "status_of", "view_json"]


def seat_arrangements(r: HandResult) -> list[dict[str, Any]] | None:
    """Both seats' arrangements at a knock's showdown, seat 0 first (R8: a knock shows
    both hands to both seats); None for a hand that did not end in a knock."""
    sd = r.showdown
    if sd is None or r.knocker is None:
        return None
    pair = [sd.knocker_arrangement, sd.defender_arrangement]
    if r.knocker == 1:
        pair.reverse()
    return [a.to_json() for a in pair]

_orjson: Any
try:
    import orjson as _orjson
except ImportError:  # optional: only faster
    _orjson = None


def dumps(obj: Any) -> str:
    """JSON text of a message: with orjson when it is installed (several times faster on
    the STATE pushed to both seats after every action), else the standard library."""
    if _orjson is not None:
        return str(_orjson.dumps(obj).decode())
    return json.dumps(obj, separators=(",", ":"))


def status_of(t: Table) -> str:
    """``waiting`` (friend not joined), ``playing`` or ``finished``."""
    if t.match.is_over():
        return "finished"
    if t.stored.opponent == "friend" and not t.stored.joined:
        return "waiting"
    return "playing"


def state(t: Table, seat: int, paused: bool = False) -> dict[str, Any]:
    """What ``seat`` sees (R11): its view, legal moves, its own arrangement, the score
    sheet, and at a hand's end what the rules reveal (nothing after a dead hand). Every
    change bumps the version, so a seat's STATE is built once per version (the pushes
    and the HTTP answers share it). While the database is away (``paused``) it carries
    the sentence saying that moves are paused."""
    cached = t.state_cache.get(seat)
    if cached is not None and cached[0] == t.stored.version:
        out = cached[1]
    else:
        out = _build_state(t, seat)
        t.state_cache[seat] = (t.stored.version, out)
    if paused:
        return out | {"paused": DB_DOWN}
    return out


def state_text(t: Table, seat: int, paused: bool = False) -> str:
    """The encoded push of ``seat``'s STATE, ``{"type": "state", "version": V, "state":
    STATE}``, encoded once per version for every socket of the seat."""
    if paused:
        return dumps({"type": "state", "version": t.version,
                      "state": state(t, seat, paused=True)})
    cached = t.text_cache.get(seat)
    if cached is not None and cached[0] == t.stored.version:
        return cached[1]
    text = dumps({"type": "state", "version": t.version, "state": state(t, seat)})
    t.text_cache[seat] = (t.stored.version, text)
    return text


def _build_state(t: Table, seat: int) -> dict[str, Any]:
    m = t.match
    sm = t.stored
    hand = m.hand
    v = m.view(seat)
    legal = [a.to_json() for a in v.legal]
    knock = sorted({a.card for a in v.legal if a.knock and a.card is not None})
    mask = v.hand.mask
    arr = t.arrangements.get(seat)
    if arr is None or arr[0] != mask:
        arr = t.arrangements[seat] = (mask, arrangements_mask(mask)[0].to_json())
    status = status_of(t)
    hand_over: dict[str, Any] | None = None
    r = hand.result
    if r is not None:
        arrangements = seat_arrangements(r)
        sd = r.showdown
        layoffs: list[dict[str, Any]] = (
            [{"card": str(c), "meld": i} for c, i in sd.layoffs] if arrangements and sd else [])
        hand_over = {
            "hand": hand.hand_index,
            "result": r.to_json(),
            "hands": [[str(c) for c in h] for h in v.revealed] if v.revealed else None,
            "arrangements": arrangements,
            "layoffs": layoffs,
            "ready": list(sm.ready),
            # a timed table deals the next hand at this moment anyway (Unix seconds)
            "deal_at": deal_at(settings_of(sm.clock_move, sm.clock_bank), sm.deadline, m),
        }
    sheet = []
    running = [0, 0]
    for h in m.hands:
        if h.result is None:
            continue
        if h.result.scorer is not None:
            running[h.result.scorer] += h.result.points
        sheet.append(
            {
                "hand": h.hand_index,
                "result": h.result.result,
                "scorer": h.result.scorer,
                "points": h.result.points,
                "scores": list(running),
            }
        )
    other = 1 - seat
    waiting = status == "waiting" or (
        status == "playing"
        and (
            m.to_play == other
            or (hand_over is not None and sm.ready[seat] and not sm.ready[other])
        )
    )
    outcome = m.outcome()
    return comforts(v, _opp_known(t, v)) | {
        "id": sm.id,
        "seat": seat,
        "version": sm.version,
        "status": status,
        "players": list(sm.players),
        "bots": list(sm.bot_seats),
        "coach": not sm.no_coach,
        "opponent": sm.opponent,
        "bot": sm.bot_level,
        "options": m.options.to_json(),
        "scores": list(m.scores),
        "winner": outcome.winner if outcome else None,
        "end_reason": outcome.reason if outcome else None,
        "end": outcome.end if outcome else None,
        "ended_by": outcome.by if outcome else None,
        "can_abort": m.can_abort(seat) and status != "finished",
        "clock": clock_json(settings_of(sm.clock_move, sm.clock_bank), sm.banks,
                            sm.deadline, m),
        "view": view_json(t, v),
        "legal": legal,
        "my_turn": bool(legal),
        "arrangement": arr[1],
        "knock_discards": [str(c) for c in knock],
        "hand_over": hand_over,
        "score_sheet": sheet,
        "waiting_for_opponent": waiting,
        "friend_joined_at": sm.joined_at,
        "paused": None,
    }


def view_json(t: Table, v: View) -> dict[str, Any]:
    """``v.to_json()`` (the bot protocol's VIEW plus ``to_play``), with the history entries
    of ``t``'s current hand encoded once per seat, not once per STATE (a hand's history
    grows to sixty entries, and a STATE is built for both seats at every change).
    tests/web/test_views.py checks it equals ``v.to_json()``."""
    d: dict[str, Any] = {
        "seat": v.seat,
        "dealer": v.dealer,
        "hand_index": v.hand_index,
        "scores": list(v.scores),
        "options": v.options.to_json(),
        "knock_limit": v.knock_limit,
        "phase": v.phase.value,
        "to_play": v.to_play,
        "hand": [str(c) for c in v.hand],
        "upcard": str(v.upcard),
        "discards": [str(c) for c in v.discards],
        "stock_count": v.stock_count,
        "history": _history_json(t, v),
    }
    if v.result is not None:
        d["result"] = v.result.to_json()
    if v.revealed is not None:
        d["revealed"] = [[str(c) for c in h] for h in v.revealed]
    return d


def _history_json(t: Table, v: View) -> list[dict[str, Any]]:
    """The view's history as JSON (a fresh list of shared entries: callers must not
    modify them)."""
    cached = t.history_json.get(v.seat)
    hist = v.history
    if cached is None or cached[0] != v.hand_index or len(cached[1]) > len(hist):
        cached = (v.hand_index, [])
        t.history_json[v.seat] = cached
    entries = cached[1]
    m = t.match
    for k in range(len(entries), len(hist)):
        entry = hist[k].to_json(v.seat)
        if m.timed_out(v.hand_index, k):
            entry["timeout"] = True  # played by the table: the seat's time was out
        entries.append(entry)
    return entries[:]


def _opp_known(t: Table, v: View) -> int:
    """The cards ``v``'s opponent took from the pile and still holds (R11: what
    :class:`~ginrummy.knowledge.Knowledge` reads from the history), from the table's
    :class:`~ginrummy.knowledge.Shown` of the hand brought forward by the new actions
    only (both seats' views show the same actions, a stock draw's card aside, which
    Shown does not read)."""
    hist = v.history
    cached = t.shown
    if cached is None or cached[0] != v.hand_index or cached[1] > len(hist):
        cached = (v.hand_index, 0, Shown(v.upcard.index))
    elif cached[1] and hist[cached[1] - 1].action is not t.shown_last:
        cached = (v.hand_index, 0, Shown(v.upcard.index))  # (taken back and played anew)
    index, seen, shown = cached
    if seen < len(hist):
        shown.replay(hist[k] for k in range(seen, len(hist)))
        cached = (index, len(hist), shown)
        t.shown_last = hist[len(hist) - 1].action
    t.shown = cached
    return shown.known[1 - v.seat]


def _cards(mask: int) -> list[str]:
    return [str(c) for c in from_mask(mask)]


def comforts(view: View, opp_known: int | None = None) -> dict[str, Any]:
    """What the page shows beside the view, exactly as the core computes it (R2, R6, R11).

    ``opponent_known``: cards the opponent took from the discard pile and still holds.
    ``discard_options`` (only while this seat is to discard, else null): for each card of
    the 11, the deadwood of the 10 left (``leaves``), whether discarding it is legal (R5),
    knocks (R6) or is gin. ``best_discard``: the legal discard leaving the least deadwood
    (ties: the higher card goes, then the later card in R1 order). ``opp_known``: the
    opponent's known cards if already worked out (else read from the view's history).

    >>> from ginrummy.match import Match
    >>> from ginrummy.hand import Action
    >>> m = Match(seed=3)
    >>> v = m.view(m.to_play)
    >>> comforts(v)["discard_options"] is None
    True
    """
    if opp_known is None:
        opp_known = Knowledge.of(view).opp_known
    out: dict[str, Any] = {
        "opponent_known": _cards(opp_known),
        "discard_options": None,
        "best_discard": None,
    }
    if view.phase is not Phase.DISCARD or view.to_play != view.seat or len(view.hand) != 11:
        return out
    leaves = deadwood_by_discard_mask(view.hand.mask)
    legal = {a.card for a in view.legal if a.act == "discard" and a.card is not None}
    knocks = {a.card for a in view.legal if a.act == "discard" and a.knock and a.card}
    options = []
    for c in sorted(view.hand, key=lambda c: c.index):
        left = leaves[c.index]
        options.append(
            {
                "card": str(c),
                "leaves": left,
                "legal": c in legal,
                "knock": c in knocks,
                "gin": c in knocks and left == 0,
            }
        )
    out["discard_options"] = options
    best = best_discard(view, leaves)
    out["best_discard"] = str(best.card) if best is not None else None
    return out


def best_discard(view: View, leaves: dict[int, int] | None = None) -> Action | None:
    """The seat's best plain discard now: of its legal discards, the one leaving the least
    deadwood (ties: the higher card goes, then the later card in R1 order), never a knock;
    None unless the seat is to discard. The STATE's ``best_discard`` names its card, and
    the clock plays it for a seat whose time is out (:mod:`~ginrummy.web.computer.timeouts`).
    ``leaves``: the deadwood left by each discard, by card index, if already known.

    >>> from ginrummy.match import Match
    >>> from ginrummy.hand import DRAW_STOCK, PASS
    >>> m = Match(seed=3)
    >>> best_discard(m.view(m.to_play)) is None  # the up-card is offered: no discard
    True
    >>> _ = m.play(PASS), m.play(PASS), m.play(DRAW_STOCK)
    >>> v = m.view(m.to_play)
    >>> best = best_discard(v)
    >>> best in v.legal, best.knock, str(best.card) == comforts(v)["best_discard"]
    (True, False, True)
    """
    if view.phase is not Phase.DISCARD or view.to_play != view.seat:
        return None
    if leaves is None:
        leaves = deadwood_by_discard_mask(view.hand.mask)
    best: Action | None = None
    best_key = (0, 0, 0)
    for a in view.legal:
        c = a.card
        if c is None or a.knock:
            continue
        key = (leaves[c.index], -c.points, -c.index)
        if best is None or key < best_key:
            best, best_key = a, key
    return best
