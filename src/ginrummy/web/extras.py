"""The web table's comforts beyond playing: exact per-seat hints, names, rematches, records.

* :func:`state_extras` adds to a seat's STATE the values the page shows and must not work
  out for itself: the cards the opponent is known to hold (R11), what each discard leaves
  (R2), which discards knock or go gin (R6), computed by the core.
* :func:`join` lets a friend give their name when taking the seat.
* :func:`rematch` / :func:`rematch_status`: "Play again" at the end of a match, same
  opponent and options, the other player dealing first; a friend accepts from their page.
* :func:`player_record`: this browser's finished matches summed up (wins by level, gins,
  undercuts, points per hand, longest winning streak).
* :func:`seal_new`, :func:`fair_deal`, :func:`seal_record`: deals people can trust. A new
  match gets a secret salt and publishes ``SHA-256(seed, salt)`` at once; the seed and
  salt are shown only once the match is over, and the finished record carries them, so
  ``ginrummy verify`` can check every deal (docs/fairness.md).
The routes for all of this (and the How to play and Your record pages) are added to the
app by :mod:`ginrummy.web.extras_app`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, String, Table, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..cards import Card, to_mask
from ..fairness import LEGACY_SCHEME, commitment, new_salt, seal
from ..hand import Phase, View
from ..knowledge import Knowledge
from ..match import Match
from ..melds import deadwood_by_discard_mask
from .store import matches_table as _matches
from .store import metadata

if TYPE_CHECKING:
    from .service import Service
    from .service import Table as WebTable

__all__ = [
    "MAX_RECORD_TOKENS",
    "clean_name",
    "fair_deal",
    "join",
    "match_stats",
    "player_record",
    "rematch",
    "rematch_status",
    "seal_new",
    "seal_record",
    "state_extras",
    "summarize",
]

MAX_RECORD_TOKENS = 200

# ---------------------------------------------------------------------- exact hints


def _cards(mask: int) -> list[str]:
    return [str(Card.from_index(i)) for i in range(52) if mask >> i & 1]


def state_extras(view: View) -> dict[str, Any]:
    """What the page shows beside the view, exactly as the core computes it (R2, R6, R11).

    ``opponent_known``: cards the opponent took from the discard pile and still holds.
    ``discard_options`` (only while this seat is to discard, else null): for each card of
    the 11, the deadwood of the 10 left (``leaves``), whether discarding it is legal (R5),
    knocks (R6) or is gin. ``best_discard``: the legal discard leaving the least deadwood
    (ties: the higher card goes, then the later card in R1 order).

    >>> from ginrummy.match import Match
    >>> from ginrummy.hand import Action
    >>> m = Match(seed=3)
    >>> v = m.view(m.to_play)
    >>> state_extras(v)["discard_options"] is None
    True
    """
    k = Knowledge.of(view)
    out: dict[str, Any] = {
        "opponent_known": _cards(k.opp_known),
        "discard_options": None,
        "best_discard": None,
    }
    if view.phase is not Phase.DISCARD or view.to_play != view.seat or len(view.hand) != 11:
        return out
    leaves = deadwood_by_discard_mask(to_mask(view.hand))
    legal = {a.card for a in view.legal if a.act == "discard" and a.card is not None}
    knocks = {a.card for a in view.legal if a.act == "discard" and a.knock and a.card}
    options = []
    best: tuple[int, int, int] | None = None
    best_card: Card | None = None
    for c in sorted(view.hand, key=lambda c: c.index):
        left = leaves[c.index]
        ok = c in legal
        options.append(
            {
                "card": str(c),
                "leaves": left,
                "legal": ok,
                "knock": c in knocks,
                "gin": c in knocks and left == 0,
            }
        )
        key = (left, -c.points, -c.index)
        if ok and (best is None or key < best):
            best, best_card = key, c
    out["discard_options"] = options
    out["best_discard"] = str(best_card) if best_card is not None else None
    return out


# ---------------------------------------------------------------------- names


def clean_name(value: Any, default: str) -> str:
    """A player's name as the lobby sends it: spaces collapsed, at most 30 printable
    characters; empty or absent gives ``default``. Raises TableError 400 otherwise."""
    from .service import MAX_NAME, TableError

    if value is None:
        return default
    if not isinstance(value, str):
        raise TableError(400, "The name must be text.")
    name = " ".join(value.split())
    if not name:
        return default
    if len(name) > MAX_NAME or any(not ch.isprintable() for ch in name):
        raise TableError(400, f"A name is at most {MAX_NAME} printable characters.")
    return name


_rematches = Table(
    "rematches",
    metadata,
    Column("old_id", String(32), primary_key=True),
    Column("new_id", String(32), nullable=False),
    Column("offered_by", String(1), nullable=False),
    Column("invite", String(64), nullable=True),
)
"""A finished match's rematch: the new match, which old seat asked, and (for a friend
match, until the other player accepts) the new match's single-use invite code, which only
that player can redeem through the old match's seat token. Created by the schema's
migrations (:mod:`.migrations`), like every table of :data:`metadata`."""
_salts = Table(
    "deal_salts",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("salt", String(64), nullable=False),
)
"""Each match's secret salt (revealed with the seed when the match is over)."""


def _set_players(
    service: Service, match_id: str, players: list[str], expected_version: int
) -> int | None:
    """Store new names with a version bump (so every process learns of them: a rename
    changes no card, and moves based on the version before stay good); None, changing
    nothing, when the match is no longer at ``expected_version``."""
    import json

    with service.store.engine.begin() as conn:
        res = conn.execute(
            update(_matches)
            .where(_matches.c.id == match_id)
            .where(_matches.c.version == expected_version)
            .values(players=json.dumps(players), version=expected_version + 1)
        )
    return expected_version + 1 if res.rowcount == 1 else None


async def _rename(service: Service, t: WebTable, seat: int, name: str) -> None:
    """Give ``seat`` a new name: stored first, then shown to both seats, and published to
    the other processes as "table changed" (never a view or a card, R11), so seats
    connected elsewhere see it too."""
    from .service import TableError

    async with t.lock:
        for _ in range(3):
            players = list(t.stored.players)
            if players[seat] == name:
                return
            players[seat] = name
            version = await service._db(_set_players, service, t.id, players,
                                        t.stored.version)
            if version is not None:
                break
            await service._refresh_locked(t)  # changed elsewhere first: catch up, retry
        else:
            raise TableError(409, "The table changed elsewhere: reload the page to see it.")
        t.stored.players = players
        t.stored.version = version
        t.match.players = (players[0], players[1])
        t.state_cache.clear()
        service._broadcast(t)
        if service.broker.distributed:
            service._published.put_nowait((t.id, version))


async def join(service: Service, t: WebTable, body: Any) -> dict[str, Any]:
    """``POST .../join`` with an optional ``name``: take the friend's seat (see
    :meth:`Service.join`), then show the friend under that name instead of "Friend"."""
    name = clean_name(body.get("name") if isinstance(body, Mapping) else None, "")
    out = await service.join(t, body)
    if name:
        await _rename(service, t, 1, name)
    return out


# ---------------------------------------------------------------------- rematch


@dataclass(frozen=True, slots=True)
class _Link:
    new_id: str
    offered_by: int
    invite: str | None


def _load_link(service: Service, old_id: str) -> _Link | None:
    with service.store.engine.connect() as conn:
        row = conn.execute(select(_rematches).where(_rematches.c.old_id == old_id)).first()
    if row is None:
        return None
    return _Link(row.new_id, int(row.offered_by), row.invite)


def _save_link(service: Service, old_id: str, link: _Link) -> bool:
    try:
        with service.store.engine.begin() as conn:
            conn.execute(insert(_rematches).values(old_id=old_id, new_id=link.new_id,
                                                   offered_by=str(link.offered_by),
                                                   invite=link.invite))
    except IntegrityError:
        return False
    return True


def _use_invite(service: Service, old_id: str) -> None:
    with service.store.engine.begin() as conn:
        conn.execute(update(_rematches).where(_rematches.c.old_id == old_id).values(invite=None))


async def rematch_status(service: Service, t: WebTable, seat: int) -> dict[str, Any]:
    """``GET .../rematch``: whether a rematch was asked for, by which seat of this match,
    and whether it was accepted (a computer's rematch starts at once)."""
    link = await service._db(_load_link, service, t.id)
    if link is None:
        return {"offered_by": None, "accepted": False}
    return {"offered_by": link.offered_by, "accepted": link.invite is None}


async def _create_with_dealer(service: Service, body: dict[str, Any], dealer: int) -> Any:
    """``Service.create`` with the first dealer fixed (the seed stays secret and fresh)."""
    source = service.seed_source

    def once() -> tuple[int, int]:
        service.seed_source = source
        return source()[0], dealer

    service.seed_source = once  # used before create's first await, so by this call only
    try:
        return await service.create(body)
    finally:
        if service.seed_source is once:
            service.seed_source = source


async def rematch(service: Service, t: WebTable, seat: int) -> dict[str, Any]:
    """``POST .../rematch``: play again once the match is over: same opponent, same options,
    and the other player deals first. Against the computer the new match starts at once.
    Between friends the first to ask sits at seat 0 of the new match (so seats swap when
    the friend asks) and waits; the other accepts with the same call and takes seat 1.
    Returns ``{"id", "seat", "token", "url"}`` for the caller's seat in the new match."""
    from .service import TableError

    if not t.match.is_over():
        raise TableError(409, "A rematch can be asked for once the match is over.")
    async with t.lock:
        link = await service._db(_load_link, service, t.id)
        if link is not None:
            if link.offered_by == seat:
                raise TableError(409, "You have already asked for a rematch: it is waiting "
                                 "for your opponent.")
            if link.invite is None:
                raise TableError(409, "This rematch has already been accepted.")
            new = await service.table(link.new_id)
            out = await service.join(new, {"invite": link.invite})
            await service._db(_use_invite, service, t.id)
            if new.stored.players[1] != t.stored.players[seat]:
                await _rename(service, new, 1, t.stored.players[seat])
            return out
        sm = t.stored
        other = 1 - seat
        first_person = sm.first_dealer  # old seat of the person who dealt first
        body: dict[str, Any] = {"opponent": sm.opponent, "name": sm.players[seat],
                                "options": dict(sm.options)}
        if sm.opponent == "computer":
            if seat != 0:
                raise TableError(403, "The computer does not ask for rematches.")
            body["bot"] = sm.bot_level or "medium"
            new_dealer = 1 - first_person
        else:
            # The caller takes seat 0: the person who dealt first now deals second.
            new_dealer = 0 if first_person == other else 1
        made = await seal_new(service, await _create_with_dealer(service, body, new_dealer))
        invite = None
        if sm.opponent == "friend":
            invite = str(made.pop("invite_url")).split("#invite=", 1)[1]
            new = await service.table(made["id"])
            await _rename(service, new, 1, sm.players[other])
        if not await service._db(_save_link, service, t.id, _Link(made["id"], seat, invite)):
            raise TableError(409, "Your opponent asked for a rematch at the same moment: "
                             "reload to accept it.")
        return dict(made)


# ---------------------------------------------------------------------- fair deals


def _save_salt(service: Service, match_id: str, salt: str) -> None:
    with service.store.engine.begin() as conn:
        conn.execute(insert(_salts).values(match_id=match_id, salt=salt))


def _load_salt(service: Service, match_id: str) -> str | None:
    with service.store.engine.connect() as conn:
        row = conn.execute(select(_salts.c.salt).where(_salts.c.match_id == match_id)).first()
    return None if row is None else str(row[0])


async def seal_new(service: Service, made: dict[str, Any]) -> dict[str, Any]:
    """Right after a match is created, before anyone has seen a card: draw its secret salt,
    store it, and add the public ``commitment`` to the creation answer."""
    salt = new_salt()
    await service._db(_save_salt, service, made["id"], salt)
    t = await service.table(made["id"])
    made["commitment"] = commitment(t.stored.seed, salt)
    return made


async def fair_deal(service: Service, t: WebTable) -> dict[str, Any]:
    """``GET .../fairness``: the commitment from the start; the seed and salt (and the
    scheme the deals follow) once the match is over, never before (R11: they would tell
    the deals to come)."""
    salt = await service._db(_load_salt, service, t.id)
    if salt is None:
        return {"commitment": None, "deal_scheme": None, "seed": None, "seed_text": None,
                "salt": None, "over": t.match.is_over()}
    over = t.match.is_over()
    return {
        "commitment": commitment(t.stored.seed, salt),
        "deal_scheme": LEGACY_SCHEME,
        "seed": t.stored.seed if over else None,
        "seed_text": str(t.stored.seed) if over else None,  # exact in JavaScript too
        "salt": salt if over else None,
        "over": over,
    }


async def seal_record(service: Service, t: WebTable, record: dict[str, Any]) -> dict[str, Any]:
    """A finished match's record with its salt, commitment and deal scheme added, so
    ``ginrummy verify`` can check it; unfinished records are returned as they are."""
    if "seed" not in record or not t.match.is_over():
        return record
    salt = await service._db(_load_salt, service, t.id)
    if salt is None:
        return record
    return seal(record, salt, LEGACY_SCHEME)


# ---------------------------------------------------------------------- records


def match_stats(m: Match, seat: int) -> dict[str, Any]:
    """One finished match from ``seat``'s side: won, points, hands, gins and undercuts
    scored (R9)."""
    hands = [r for r in m.results() if r is not None]
    mine = [r for r in hands if r.scorer == seat]
    outcome = m.outcome()
    winner = outcome.winner if outcome else None
    return {
        "won": winner == seat,
        "tie": outcome is not None and winner is None,
        "points": m.scores[seat],
        "against": m.scores[1 - seat],
        "hands": len(hands),
        "gins": sum(1 for r in mine if r.result == "gin"),
        "undercuts": sum(1 for r in mine if r.result == "undercut"),
        "knocks": sum(1 for r in hands if r.knocker == seat and r.result != "gin"),
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over finished matches in time order (oldest first): wins by opponent level,
    gins, undercuts, average points per hand, longest and current winning streak.

    >>> r = [{"level": "easy", "won": True, "tie": False, "points": 100, "hands": 4,
    ...       "gins": 1, "undercuts": 0},
    ...      {"level": "easy", "won": False, "tie": False, "points": 20, "hands": 6,
    ...       "gins": 0, "undercuts": 1}]
    >>> s = summarize(r)
    >>> s["by_level"]["easy"], s["points_per_hand"], s["longest_streak"]
    ({'played': 2, 'won': 1, 'lost': 1, 'tied': 0}, 12.0, 1)
    """
    by_level: dict[str, dict[str, int]] = {}
    streak = longest = 0
    for r in rows:
        b = by_level.setdefault(r["level"], {"played": 0, "won": 0, "lost": 0, "tied": 0})
        b["played"] += 1
        if r["won"]:
            b["won"] += 1
            streak += 1
            longest = max(longest, streak)
        else:
            b["tied" if r["tie"] else "lost"] += 1
            streak = 0
    hands = sum(r["hands"] for r in rows)
    return {
        "played": len(rows),
        "won": sum(1 for r in rows if r["won"]),
        "by_level": by_level,
        "gins": sum(r["gins"] for r in rows),
        "undercuts": sum(r["undercuts"] for r in rows),
        "hands": hands,
        "points_per_hand": round(sum(r["points"] for r in rows) / hands, 2) if hands else None,
        "longest_streak": longest,
        "current_streak": streak,
    }


def _replay(sm: Any) -> Match:
    """A stored match rebuilt from its seed and actions (its deals are the seed's)."""
    from .table import build_match

    return build_match(sm)


def _record_rows(service: Service, tokens: list[str]) -> list[dict[str, Any]]:
    from .store import hash_token

    hashes = {hash_token(x) for x in tokens}
    out = []
    for row in service.store.find_by_token_hashes(hashes):
        if row.status != "finished":
            continue
        full = service.store.load(row.id)
        if full is None:
            continue
        m = _replay(full)
        for seat in (0, 1):
            if full.token_hash(seat) in hashes:
                level = full.bot_level if full.opponent == "computer" else "friend"
                out.append({"id": full.id, "seat": seat, "opponent": full.opponent,
                            "level": level or "computer", "players": full.players,
                            "finished_at": full.updated_at, **match_stats(m, seat)})
    out.sort(key=lambda r: float(r["finished_at"]))
    return out


async def player_record(service: Service, body: Any) -> dict[str, Any]:
    """``POST /api/record``: ``{"tokens": [...]}`` (this browser's seats) -> the finished
    matches they sat at, oldest first, and their totals (see :func:`summarize`)."""
    from .service import TableError

    if not isinstance(body, Mapping) or not isinstance(body.get("tokens"), list):
        raise TableError(400, "Send {\"tokens\": [\"...\", ...]}.")
    tokens = body["tokens"]
    if len(tokens) > MAX_RECORD_TOKENS:
        raise TableError(400, f"At most {MAX_RECORD_TOKENS} tokens at a time.")
    if not all(isinstance(x, str) and 0 < len(x) <= 200 for x in tokens):
        raise TableError(400, "Each token must be non-empty text.")
    rows = await service._db(_record_rows, service, tokens)
    return {"matches": rows, "summary": summarize(rows)}
