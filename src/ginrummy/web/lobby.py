"""Creating matches, joining them with an invitation, the lobby's lookup, records and replays."""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Iterator, Mapping
from typing import Any

from ..bots import BotError
from ..hand import HandResult
from ..match import Match
from ..options import Options, OptionsError
from .actions import _Stale
from .levels import BOT_LEVELS, resolve_bot
from .store import NO_TOKEN, StoredMatch, hash_token
from .table import Table, TableError, deal_for
from .turns import ComputerTurns

__all__ = ["FRIEND_NAME", "Lobby", "MAX_LOOKUP_TOKENS", "MAX_NAME", "takewhile_revealed"]

MAX_NAME = 30
MAX_LOOKUP_TOKENS = 200
FRIEND_NAME = "Friend"


class Lobby(ComputerTurns):
    """New matches, invitations, the lobby, records and replays."""

    async def create(self, body: Any) -> dict[str, Any]:
        """``POST /api/matches``: a new match against the computer or a friend."""
        if not isinstance(body, Mapping):
            raise TableError(400, "The request body must be a JSON object.")
        unknown = set(body) - {"opponent", "bot", "name", "options"}
        if unknown:
            raise TableError(400, f"Unknown field {sorted(unknown)[0]!r}.")
        opponent = body.get("opponent", "computer")
        if opponent not in ("computer", "friend"):
            raise TableError(400, "The opponent is 'computer' or 'friend'.")
        name = body.get("name", "You")
        if name is None:
            name = "You"
        if not isinstance(name, str):
            raise TableError(400, "The name must be text.")
        name = " ".join(name.split())
        if not name:
            name = "You"
        if len(name) > MAX_NAME or any(not ch.isprintable() for ch in name):
            raise TableError(400, f"A name is at most {MAX_NAME} printable characters.")
        try:
            options = Options.from_json(body.get("options"))
        except OptionsError as e:
            raise TableError(400, str(e)) from None
        level: str | None = None
        bot_name: str | None = None
        if opponent == "computer":
            lv = body.get("bot", "medium")
            if not isinstance(lv, str):
                raise TableError(400, "The computer level must be text, e.g. 'medium'.")
            bot_name = resolve_bot(lv)
            level = lv
            label = next(lb for l_, lb, _ in BOT_LEVELS if l_ == lv)
            players = [name, f"{label} computer"]
        else:
            if body.get("bot") is not None:
                raise TableError(400, "A computer level only applies to a computer opponent.")
            players = [name, FRIEND_NAME]
        token = secrets.token_urlsafe(32)
        # Seat 1: the computer's gets a token nobody knows; a friend's stays free until the
        # single-use invite code is exchanged for a fresh token (join), so the creator
        # never holds the friend's token.
        invite = secrets.token_urlsafe(32) if opponent == "friend" else None
        self._make_room()
        seed, first_dealer = self.seed_source()
        match = Match(
            options, seed=seed, first_dealer=first_dealer,
            players=(players[0], players[1]), auto_deal=False,
        )
        match.start_hand(deal_for(seed, 0))
        sm = StoredMatch(
            id=secrets.token_urlsafe(9),
            token_hash0=hash_token(token),
            token_hash1=(
                NO_TOKEN if invite is not None else hash_token(secrets.token_urlsafe(32))
            ),
            invite_hash=hash_token(invite) if invite is not None else None,
            options=options.to_json(),
            players=players,
            seed=seed,
            first_dealer=first_dealer,
            opponent=opponent,
            bot_level=level,
            bot_name=bot_name,
            version=0,
            status="waiting" if opponent == "friend" else "playing",
            joined=opponent == "computer",
            hands_dealt=1,
            ready=[False, False],
            to_play=match.to_play,
        )
        await self._db(self.store.create, sm)
        t = Table(sm, match, next_seq=0)
        if opponent == "computer":
            try:
                self._attach_bot(t)
            except BotError as e:
                raise TableError(500, str(e)) from None
        self.tables[sm.id] = t
        self._kick_bot(t)
        out: dict[str, Any] = {
            "id": sm.id,
            "seat": 0,
            "token": token,
            "url": f"/play/{sm.id}#token={token}",
        }
        if invite is not None:
            out["invite_url"] = f"/play/{sm.id}#invite={invite}"
        return out

    async def join(self, t: Table, body: Any) -> dict[str, Any]:
        """``POST .../join``: exchange the single-use invite code for a fresh seat-1 token
        (stored hashed); a second use is refused, so only the friend holds that seat."""
        if not isinstance(body, Mapping) or not isinstance(body.get("invite"), str):
            raise TableError(400, "Send the invitation code: {\"invite\": \"...\"}.")
        code = body["invite"]
        if not 0 < len(code) <= 200:
            raise TableError(400, "The invitation code must be non-empty text.")
        for _ in range(2):
            async with t.lock:
                sm = t.stored
                if sm.invite_hash is None or not hmac.compare_digest(
                    hash_token(code), sm.invite_hash
                ):
                    raise TableError(403, "That invitation does not belong to this match.")
                if sm.token_hash1 != NO_TOKEN:
                    raise self._claimed(sm)
                token = secrets.token_urlsafe(32)
                new_hash = hash_token(token)
                joined_before = sm.joined
                sm.joined = True
                now = time.time()
                try:
                    await self._commit(t, 1, token_hash1=new_hash, joined_at=now)
                except _Stale:
                    continue  # changed elsewhere: rebuilt, so check the seat again
                except TableError:
                    sm.joined = joined_before
                    raise
                sm.token_hash1 = new_hash
                sm.joined_at = now
                t.state_cache.clear()
                self._broadcast(t)
            return {
                "id": sm.id,
                "seat": 1,
                "token": token,
                "url": f"/play/{sm.id}#token={token}",
            }
        raise TableError(409, "The table changed elsewhere: try the invitation again.")

    @staticmethod
    def _claimed(sm: StoredMatch) -> TableError:
        """409 for a used invitation, saying when the seat was taken, so a friend whose
        seat someone else claimed (even the creator, from another browser) can tell."""
        e = TableError(409, "This invitation has already been used.")
        if sm.joined_at is not None:
            when = time.strftime("%H:%M UTC", time.gmtime(sm.joined_at))
            e = TableError(409, f"This invitation has already been used. The seat was taken "
                                f"at {when}.")
            e.extra = {"claimed_at": sm.joined_at}
        return e

    # ------------------------------------------------------------------ lobby, records

    async def lookup(self, body: Any) -> dict[str, Any]:
        """``POST /api/matches/lookup``: summaries of the matches these tokens sit at."""
        if not isinstance(body, Mapping) or not isinstance(body.get("tokens"), list):
            raise TableError(400, "Send {\"tokens\": [\"...\", ...]}.")
        tokens = body["tokens"]
        if len(tokens) > MAX_LOOKUP_TOKENS:
            raise TableError(400, f"At most {MAX_LOOKUP_TOKENS} tokens at a time.")
        if not all(isinstance(x, str) and 0 < len(x) <= 200 for x in tokens):
            raise TableError(400, "Each token must be non-empty text.")
        by_hash = {hash_token(x): x for x in tokens}
        rows = await self._db(self.store.find_by_token_hashes, list(by_hash))
        out = []
        for sm in rows:
            for seat in (0, 1):
                tok = by_hash.get(sm.token_hash(seat))
                if tok is None:
                    continue
                out.append(
                    {
                        "id": sm.id,
                        "seat": seat,
                        "url": f"/play/{sm.id}#token={tok}",
                        "players": sm.players,
                        "opponent": sm.opponent,
                        "bot": sm.bot_level,
                        "options": sm.options,
                        "status": sm.status,
                        "scores": sm.scores,
                        "winner": sm.winner,
                        "hands": sm.hands_dealt,
                        "my_turn": sm.status == "playing" and sm.to_play == seat,
                        # between hands, this seat has still to press "Next hand"
                        "next_hand": sm.status == "playing" and sm.to_play is None
                        and not sm.ready[seat],
                        "created_at": sm.created_at,
                        "updated_at": sm.updated_at,
                    }
                )
        return {"matches": out}

    async def record(self, t: Table) -> dict[str, Any]:
        """The ``ginrummy/1`` record: the whole match once finished. Before that it shows no
        hand the rules never revealed (R11): no seed (it would tell the deals to come), no
        hand in play, and no dead hand (R7 shows neither hand); a record is a prefix of
        the match, so it stops at the first dead hand."""
        async with t.lock:
            rec = t.match.to_record()
            if not t.match.is_over():
                rec.pop("seed", None)
                rec["hands"] = list(
                    takewhile_revealed(rec["hands"], [h.result for h in t.match.hands])
                )
        return rec

    async def replay(self, t: Table, step: int | None) -> dict[str, Any]:
        """The whole table at one step of a finished match (both hands shown): all steps
        are built once, off the event loop, and cached (see :mod:`.replays`)."""
        async with t.lock:
            if not t.match.is_over():
                raise TableError(409, "The replay opens once the match is finished.")
            rec = t.match.to_record()
            sm = t.stored
        hands = [[(a["seat"], {k: v for k, v in a.items() if k != "seat"})
                  for a in h["actions"]] for h in rec["hands"]]
        frames = await self.replays.frames(
            sm.id, sm.options, sm.seed, sm.first_dealer, list(sm.players), hands
        )
        last = len(frames) - 1
        if step is None:
            step = 0
        if step < 0 or step > last:
            raise TableError(400, f"The step must be from 0 to {last}.")
        return frames[step]


def takewhile_revealed(
    hands: list[dict[str, Any]], results: list[HandResult | None]
) -> Iterator[dict[str, Any]]:
    """The record's hands up to (not including) the first that is not over or ended dead
    (R7): those are the hands whose cards the rules have shown both players."""
    for h, r in zip(hands, results, strict=True):
        if r is None or r.result == "dead":
            return
        yield h
