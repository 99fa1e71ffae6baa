"""New matches, a friend taking the seat, players' names, and the lobby's list of matches.

A new match gets a secret seed and salt from :mod:`ginrummy.fairness` (the one dealer: its
deals follow ``ginrummy-deal/1``, the scheme stored with the match) and is stored, salt
included, before anyone sees a card; the answer carries the public commitment. A friend is
invited with a single-use code stored only as its hash; using it issues seat 1's token
exactly once.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ...fairness import DEAL_SCHEME, commitment, deal_for, new_salt, new_seed
from ...i18n import N_, t
from ...match import Match
from ...options import Options, OptionsError
from ..backends.database import Database
from ..checks import check_tokens, clean_name, unknown_field
from ..errors import CHANGED_ELSEWHERE, TableError
from ..store import NO_TOKEN, StoredMatch, hash_token
from .clock import ClockSettings, parse_clock
from .committer import Committer, Edit, Stale
from .levels import BOT_LEVELS, resolve_bot
from .registry import TableRegistry
from .table import Table

__all__ = ["FRIEND_NAME", "MAX_ACCOUNT_MATCHES", "MAX_LOOKUP_TOKENS", "Lobby", "summary"]

MAX_LOOKUP_TOKENS = 200
MAX_ACCOUNT_MATCHES = 100
"""The most matches an account's list (``GET /api/me/matches``) holds, the latest first."""
FRIEND_NAME = "Friend"


def _no_hands(options: Mapping[str, Any]) -> None:
    """Refuse ``hands`` in a request's options: a fixed number of hands is the daily
    deal's, not a table option (R12)."""
    if "hands" in options:
        raise TableError(400, N_("Unknown option: 'hands' (a fixed number of hands is only "
                                 "played in the daily deal)."))


class Lobby:
    """Creating matches, joining them, naming players, listing one's matches."""

    def __init__(self, registry: TableRegistry, committer: Committer, db: Database) -> None:
        self.registry = registry
        self.committer = committer
        self.db = db
        self.seed_source: Callable[[], tuple[int, int]] = (
            lambda: (new_seed(), secrets.randbelow(2)))
        """(secret seed, first dealer) of a new match; tests may fix it for known deals."""

    @staticmethod
    def check_options(options: Any, default_clock: ClockSettings | None = None
                      ) -> dict[str, Any]:
        """Table options as ``POST /api/matches`` takes them (its ``options`` object, plus
        an optional ``clock``), checked and with every default filled in: what a
        quick-match seek stores and later creates its match with (the seek compares these
        to pair like with like). ``clock`` is kept as ``{"move", "bank"}``, or
        ``default_clock`` where none was asked for (None: no clock). TableError 400 with
        the sentence otherwise."""
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise TableError(400, N_("The options must be a JSON object."))
        _no_hands(options)
        try:
            out = Options.from_json({k: v for k, v in options.items() if k != "clock"})
        except OptionsError as e:
            raise TableError(400, str(e)) from None
        try:
            clock = parse_clock(options.get("clock")) or default_clock
        except ValueError as e:
            raise TableError(400, str(e)) from None
        checked = out.to_json()
        checked["clock"] = clock.to_json() if clock is not None else None
        return checked

    async def create(self, body: Any, first_dealer: int | None = None,
                     invite: bool = True, token_hash0: str | None = None,
                     bot_seats: tuple[bool, bool] = (False, False),
                     deal: tuple[int, str, int] | None = None,
                     hands: int | None = None, no_coach: bool = False) -> dict[str, Any]:
        """``POST /api/matches``: a new match against the computer or a friend (201
        answer), with an optional turn clock ``"clock": {"move": S, "bank": S}``
        (:func:`.clock.parse_clock`; none by default). ``first_dealer`` fixes who deals
        first (a rematch); ``invite=False`` makes a friend's seat that only
        :meth:`claim_seat` can fill (a rematch's or a quick match's); ``token_hash0``
        gives seat 0 the token whose hash it is (a quick match's waiting seek, which
        derives its token itself), instead of a new one; ``bot_seats`` marks the seats BOT
        accounts play (a challenge's or a quick match's); ``deal`` fixes the secret
        (seed, salt, first dealer) instead of new ones, so matches share their deals and
        commitment (the daily deal's), and ``hands`` stops the match after that many hands
        (``Options.hands``: never taken from a request's options); ``no_coach`` makes a
        match the coach stays away from while it is played (rated, arena and daily
        matches: :mod:`ginrummy.web.online.coaching`)."""
        if not isinstance(body, Mapping):
            raise TableError(400, N_("The request body must be a JSON object."))
        unknown = set(body) - {"opponent", "bot", "name", "options", "clock"}
        if unknown:
            raise unknown_field(unknown)
        opponent = body.get("opponent", "computer")
        if opponent not in ("computer", "friend"):
            raise TableError(400, N_("The opponent is 'computer' or 'friend'."))
        name = clean_name(body.get("name"), "You")
        if isinstance(body.get("options"), Mapping):
            _no_hands(body["options"])
        try:
            options = Options.from_json(body.get("options"))
            if hands is not None:
                options = replace(options, hands=hands)
        except OptionsError as e:
            raise TableError(400, str(e)) from None
        try:
            clock = parse_clock(body.get("clock"))
        except ValueError as e:
            raise TableError(400, str(e)) from None
        level: str | None = None
        bot_name: str | None = None
        if opponent == "computer":
            lv = body.get("bot", "medium")
            if not isinstance(lv, str):
                raise TableError(400, N_("The computer level must be text, e.g. 'medium'."))
            bot_name = resolve_bot(lv)
            level = lv
            label = next(lb for l_, lb, _ in BOT_LEVELS if l_ == lv)
            players = [name, f"{label} computer"]
        else:
            if body.get("bot") is not None:
                raise TableError(400, N_("A computer level only applies to a computer "
                                         "opponent."))
            players = [name, FRIEND_NAME]
        token = secrets.token_urlsafe(32)
        # Seat 1: the computer's gets a token nobody knows; a friend's stays free until the
        # single-use invite code is exchanged for a fresh token (join), so the creator
        # never holds the friend's token.
        code = secrets.token_urlsafe(32) if opponent == "friend" and invite else None
        self.registry.make_room()
        seed, dealer = self.seed_source()
        salt = new_salt()
        if deal is not None:
            seed, salt, dealer = deal
        if first_dealer is not None:
            dealer = first_dealer
        match = Match(options, seed=seed, first_dealer=dealer,
                      players=(players[0], players[1]), auto_deal=False)
        match.start_hand(deal_for(seed, 0, DEAL_SCHEME))
        sm = StoredMatch(
            id=secrets.token_urlsafe(9),
            token_hash0=token_hash0 if token_hash0 is not None else hash_token(token),
            token_hash1=(
                hash_token(secrets.token_urlsafe(32)) if opponent == "computer" else NO_TOKEN
            ),
            invite_hash=hash_token(code) if code is not None else None,
            options=options.to_json(),
            players=players,
            seed=seed,
            first_dealer=dealer,
            opponent=opponent,
            bot_level=level,
            bot_name=bot_name,
            version=0,
            status="waiting" if opponent == "friend" else "playing",
            joined=opponent == "computer",
            hands_dealt=1,
            ready=[False, False],
            to_play=match.to_play,
            deal_scheme=DEAL_SCHEME,
            bot_seats=bot_seats,
            no_coach=no_coach,
        )
        if clock is not None:
            sm.clock_move, sm.clock_bank = clock.move, clock.bank
            sm.banks = [float(clock.bank)] * 2
            if sm.status == "playing":  # (a friend's table starts when the friend joins)
                sm.deadline = time.time() + clock.move + clock.bank
        await self.db.run(self.db.store.create, sm, salt)
        t = Table(sm, match, next_seq=0)
        t.bot_seat = 1 if opponent == "computer" else None
        self.registry.add(t)
        out: dict[str, Any] = {
            "id": sm.id,
            "seat": 0,
            "token": token,
            "url": f"/play/{sm.id}#token={token}",
        }
        if code is not None:
            out["invite_url"] = f"/play/{sm.id}#invite={code}"
        out["commitment"] = commitment(seed, salt)
        return out

    async def join(self, t: Table, body: Any) -> dict[str, Any]:
        """``POST .../join``: exchange the single-use invite code for a fresh seat-1 token
        (stored hashed); a second use is refused, so only the friend holds that seat. An
        optional ``name`` shows the friend under it instead of "Friend"."""
        if not isinstance(body, Mapping) or not isinstance(body.get("invite"), str):
            raise TableError(400, N_("Send the invitation code: {\"invite\": \"...\"}."))
        code = body["invite"]
        if not 0 < len(code) <= 200:
            raise TableError(400, N_("The invitation code must be non-empty text."))
        name = clean_name(body.get("name"), "")
        sm = t.stored
        if sm.invite_hash is None or not hmac.compare_digest(hash_token(code), sm.invite_hash):
            raise TableError(403, N_("That invitation does not belong to this match."))
        return await self.claim_seat(t, name or None)

    async def claim_seat(self, t: Table, name: str | None = None,
                         token: str | None = None) -> dict[str, Any]:
        """Give seat 1 of a friend match a fresh token (or ``token``: a quick match's
        seek derives its own) once (409 when it is taken) and, with ``name``, show its
        player under it; the caller has checked who may."""
        for _ in range(2):
            async with t.lock:
                sm = t.stored
                if sm.token_hash1 != NO_TOKEN:
                    raise self._claimed(sm)
                token = token if token is not None else secrets.token_urlsafe(32)
                players = None
                if name and name != sm.players[1]:
                    players = (sm.players[0], name)
                try:
                    await self.committer.commit(t, 1, edit=Edit(
                        joined=True, token_hash1=hash_token(token), joined_at=time.time(),
                        players=players, game=False))
                except Stale:
                    continue  # changed elsewhere: rebuilt, so check the seat again
            return {"id": sm.id, "seat": 1, "token": token,
                    "url": f"/play/{sm.id}#token={token}"}
        raise TableError(409, N_("The table changed elsewhere: try the invitation again."))

    @staticmethod
    def _claimed(sm: StoredMatch) -> TableError:
        """409 for a used invitation, saying when the seat was taken, so a friend whose
        seat someone else claimed (even the creator, from another browser) can tell."""
        e = TableError(409, N_("This invitation has already been used."))
        if sm.joined_at is not None:
            when = time.strftime("%H:%M UTC", time.gmtime(sm.joined_at))
            e = TableError(409, t("This invitation has already been used. The seat was "
                                  "taken at {time}.", time=when))
            e.extra = {"claimed_at": sm.joined_at}
        return e

    async def rename(self, t: Table, seat: int, name: str) -> None:
        """Give ``seat`` a new name: stored with a version bump (so every process learns
        of it; a name changes no card, and moves based on the version before stay good),
        then shown to both seats."""
        for _ in range(3):
            async with t.lock:
                players = [t.stored.players[0], t.stored.players[1]]
                if players[seat] == name:
                    return
                players[seat] = name
                try:
                    await self.committer.commit(t, seat, edit=Edit(
                        players=(players[0], players[1]), game=False))
                except Stale:
                    continue  # changed elsewhere first: rebuilt, try again
                return
        raise TableError(409, CHANGED_ELSEWHERE)

    async def lookup(self, body: Any) -> dict[str, Any]:
        """``POST /api/matches/lookup``: summaries of the matches these tokens sit at."""
        tokens = check_tokens(body, MAX_LOOKUP_TOKENS)
        by_hash = {hash_token(x): x for x in tokens}
        rows = await self.db.read(self.db.store.find_by_token_hashes, list(by_hash))
        out = []
        for sm in rows:
            for seat in (0, 1):
                tok = by_hash.get(sm.token_hash(seat))
                if tok is not None:
                    out.append(summary(sm, seat, f"/play/{sm.id}#token={tok}"))
        return {"matches": out}

    async def account_matches(self, account_id: str) -> dict[str, Any]:
        """``GET /api/me/matches``: summaries of the account's seats (its most recent
        :data:`MAX_ACCOUNT_MATCHES` matches), each linking its table without a token: the
        session is the seat, on any device."""
        seats = await self.db.read(self.db.store.accounts.seats_of, account_id,
                                   MAX_ACCOUNT_MATCHES)
        rows = {sm.id: sm for sm in await self.db.read(self.db.store.find_by_ids,
                                                          [mid for mid, _ in seats])}
        return {"matches": [summary(rows[mid], seat, f"/play/{mid}")
                            for mid, seat in seats if mid in rows]}


def summary(sm: StoredMatch, seat: int, url: str) -> dict[str, Any]:
    """One seat's line in the lobby's list (docs/web-api.md, SUMMARY)."""
    return {
        "id": sm.id,
        "seat": seat,
        "url": url,
        "players": sm.players,
        "bots": list(sm.bot_seats),
        "opponent": sm.opponent,
        "bot": sm.bot_level,
        "options": sm.options,
        "status": sm.status,
        "scores": sm.scores,
        "winner": sm.winner,
        # how it ended once over (the record's ``end``): an aborted match is no tie
        "end": sm.end_reason,
        "hands": sm.hands_dealt,
        "my_turn": sm.status == "playing" and sm.to_play == seat,
        # between hands, this seat has still to press "Next hand"
        "next_hand": sm.status == "playing" and sm.to_play is None and not sm.ready[seat],
        "created_at": sm.created_at,
        "updated_at": sm.updated_at,
    }
