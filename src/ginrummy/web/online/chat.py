"""The chat of a match (docs/web-api.md, "People"; INTERFACES section 14).

Each match has two rooms: ``players``, between the two seats, pushed to both over their
table sockets as ``{"type": "chat", ...}``; and ``spectators``, the watchers' own, which
the players do not see while they play (the watch page polls it). A table with a computer
or a BOT seat has no chat.

A message is at most :data:`MAX_CHARS` characters of text, or one of the quick phrases
(:data:`PHRASES`) for players who turned free text off. Rude words are masked (the
multilingual glin-profanity filter: its dictionaries cover all six of the site's
languages, it sees through leetspeak and look-alike letters, and it is pure Python and
maintained). Every message counts against the seat's (or the spectator's) budget and the
account's (``rate_chat``, ``rate_chat_account``); a muted account, one that turned chat
off, or one of two accounts with a block between them is refused with a sentence.

A message is stored (committed) before it is acknowledged, so no acknowledged message is
lost to a process's death. Then this process pushes it to its seats' sockets, and tells
the other processes over the broker (the match id only); each reads the messages it has
not pushed yet from the database. A lost event is caught up by a periodic pass (every
second while the broker is away), so an outage delays messages and loses none.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import Any

from ...i18n import N_, t
from ..backends.broker import Broker
from ..backends.database import Database
from ..backends.limits import RateLimits
from ..checks import json_object
from ..errors import TableError
from ..store.accounts import Account
from ..store.people import ChatRow
from ..tables.sockets import SocketHub
from ..tables.table import Table
from .people import People, muted_text

__all__ = ["MAX_CHARS", "PHRASES", "ROOMS", "Chat", "censor", "chat_text", "message_json"]

log = logging.getLogger("ginrummy.web")

MAX_CHARS = 140
"""The longest message."""
PHRASES = {"gl": N_("Good luck"), "gg": N_("Good game"), "nice-gin": N_("Nice gin"),
           "thanks": N_("Thanks"), "oops": N_("Oops")}
"""The quick phrases, by key (stored and sent in English; pages say them in theirs)."""
ROOMS = ("players", "spectators")
NO_CHAT = N_("This table has no chat: chat is between two people.")
CLOSED = N_("Chat with this player is closed.")
"""The refusal when a block stands between the two seats (it says nothing more)."""

_FILTER: Any = None


def _filter() -> Any:
    """The profanity filter, made once (loading its dictionaries takes a moment)."""
    global _FILTER
    if _FILTER is None:
        from glin_profanity import Filter  # type: ignore[import-untyped]

        _FILTER = Filter({"languages": ["english", "spanish", "portuguese", "french",
                                        "german", "italian"],
                          "replace_with": "***", "detect_leetspeak": True,
                          "normalize_unicode": True})
    return _FILTER


def censor(text: str) -> tuple[str, bool]:
    """``text`` with rude words masked, and whether any was.

    >>> censor("good game")
    ('good game', False)
    >>> censor("what a sh1t hand")
    ('what a *** hand', True)
    """
    result = _filter().check_profanity(text)
    if not result.get("contains_profanity"):
        return text, False
    return str(result.get("processed_text") or "***"), True


def chat_text(body: Any) -> tuple[str, str | None]:
    """The text and quick phrase of a chat request's body (``{"text"}`` or
    ``{"phrase"}``), checked: 400 with one sentence otherwise.

    >>> chat_text({"phrase": "gg"})
    ('Good game', 'gg')
    >>> chat_text({"text": "  nice  "})
    ('nice', None)
    """
    body = json_object(body, {"text", "phrase"})
    if ("text" in body) == ("phrase" in body):
        raise TableError(400, N_("Send either 'text' or 'phrase'."))
    if "phrase" in body:
        phrase = body["phrase"]
        if not isinstance(phrase, str) or phrase not in PHRASES:
            raise TableError(400, t("'phrase' is one of {phrases}.",
                                    phrases=", ".join(PHRASES)))
        return PHRASES[phrase], phrase
    text = body["text"]
    if not isinstance(text, str):
        raise TableError(400, N_("'text' is text."))
    text = text.strip()
    if not text:
        raise TableError(400, N_("Say something: the message is empty."))
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise TableError(400, N_("The message is not valid Unicode text."))
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in text):
        raise TableError(400, N_("A chat message is one line, without control "
                                 "characters."))
    if len(text) > MAX_CHARS:
        raise TableError(400, t("A chat message is at most {n} characters.",
                                n=str(MAX_CHARS)))
    return text, None


def message_json(m: ChatRow, names: dict[str, str]) -> dict[str, Any]:
    """A message as the API shows it (``names``: account ids to usernames)."""
    return {"id": m.id, "from": m.name, "seat": m.seat, "text": m.text, "phrase": m.phrase,
            "at": m.at, "account": names.get(m.account_id) if m.account_id else None}


class Chat:
    """The rooms of every match, and this process's pushes of the players' room."""

    def __init__(self, db: Database, broker: Broker, hub: SocketHub, people: People,
                 rates: RateLimits) -> None:
        self.db = db
        self.broker = broker
        self.hub = hub
        self.people = people
        self.rates = rates
        self._pushed: dict[str, int] = {}
        """The newest message of each match's players' room pushed to its sockets here."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        broker.on_chat.append(self._from_broker)

    @property
    def _store(self) -> Any:
        return self.db.store.people

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ players

    async def seat_accounts(self, t: Table) -> tuple[str | None, str | None]:
        """The account of each seat (None: a guest)."""
        links = await self.db.read(self.db.store.accounts.links, [t.id])
        link = links.get(t.id)
        return link.accounts if link is not None else (None, None)

    @staticmethod
    def no_chat(t: Table) -> str | None:
        """Why ``t`` has no players' chat (a computer or BOT seat), or None."""
        if t.bot_seat is not None or any(t.stored.bot_seats):
            return NO_CHAT
        return None

    async def post(self, t: Table, seat: int, body: Any) -> dict[str, Any]:
        """``POST /api/matches/{id}/chat`` by ``seat``: 201 ``{"message"}``."""
        text, phrase = chat_text(body)
        reason = self.no_chat(t)
        if reason is not None:
            raise TableError(409, reason)
        accounts = await self.seat_accounts(t)
        mine, theirs = accounts[seat], accounts[1 - seat]
        await self._may_speak(mine, phrase, f"seat:{t.id}:{seat}")
        if await self.people.blocked_between(mine, theirs):
            raise TableError(403, CLOSED)
        if phrase is None:
            text, censored = censor(text)
        else:
            censored = False
        row = await self.db.run(self._store.add_message, t.id, "players", mine, seat,
                                t.stored.players[seat], text, phrase, censored, time.time())
        # stored: from here on the message is acknowledged whatever the pushes meet
        await self._deliver_quietly(t.id)
        if self.broker.distributed:
            self._spawn(self._publish(t.id))
        return {"message": await self._json(row)}

    async def _may_speak(self, account_id: str | None, phrase: str | None,
                         client: str) -> None:
        """Refuse a muted account, one that turned chat (or free text) off, and a sender
        past its budgets."""
        if account_id is not None:
            choice, until = await self.people.speaking(account_id)
            if until is not None:
                raise TableError(403, muted_text(until))
            if choice == "off":
                raise TableError(409, N_("You turned chat off: turn it on in your account's "
                                         "settings to chat."))
            if choice == "phrases" and phrase is None:
                raise TableError(409, N_("You chose quick phrases only: turn free text on "
                                         "in your account's settings to type."))
        if not await self.rates.hit("chat", client):
            raise TableError(429, t("Too many chat messages: at most {limit}. Wait a moment.",
                                    limit=self.rates.describe("chat")))
        if account_id is not None and not await self.rates.hit("chat_account", account_id):
            raise TableError(429, t("Too many chat messages: at most {limit} per account. "
                                    "Wait a while.",
                                    limit=self.rates.describe("chat_account")))

    async def players_room(self, table: Table, after: Any) -> dict[str, Any]:
        """``GET /api/matches/{id}/chat?after=ID`` for a seat."""
        reason = self.no_chat(table)
        if reason is not None:
            return {"messages": [], "chat": False, "reason": t(reason)}
        rows = await self.db.read(self._store.messages, table.id, "players", _after(after))
        return {"messages": await self._many(rows), "chat": True, "reason": None}

    # ------------------------------------------------------------------ spectators

    async def post_spectator(self, t: Table, acct: Account | None,
                             body: Any) -> dict[str, Any]:
        """``POST /api/matches/{id}/watch/chat`` by a signed-in watcher."""
        text, phrase = chat_text(body)
        if acct is None:
            raise TableError(401, N_("Log in to chat with the other spectators."))
        if acct.id in await self._public_seats(t) and t.stored.status != "finished":
            raise TableError(403, N_("Players do not see the spectators' chat while they "
                                     "play."))
        await self._may_speak(acct.id, phrase, f"watch:{t.id}:{acct.id}")
        if phrase is None:
            text, censored = censor(text)
        else:
            censored = False
        row = await self.db.run(self._store.add_message, t.id, "spectators", acct.id, None,
                                acct.username, text, phrase, censored, time.time())
        return {"message": await self._json(row)}

    async def spectators_room(self, t: Table, viewer: Account | None,
                              after: Any) -> dict[str, Any]:
        """``GET /api/matches/{id}/watch/chat?after=ID`` (403 for a player of the match
        while it is played)."""
        seats = await self._public_seats(t)
        if viewer is not None and t.stored.status != "finished" and viewer.id in seats:
            raise TableError(403, N_("Players do not see the spectators' chat while they "
                                     "play."))
        rows = await self.db.read(self._store.messages, t.id, "spectators", _after(after))
        return {"messages": await self._many(rows)}

    async def _public_seats(self, t: Table) -> tuple[str | None, str | None]:
        """The account of each seat of a public match (404 for a match that is not)."""
        links = await self.db.read(self.db.store.accounts.links, [t.id])
        link = links.get(t.id)
        if link is None or not link.public:
            raise TableError(404, N_("Only public matches have a spectators' chat."))
        return link.accounts

    # ------------------------------------------------------------------ reports

    async def reported(self, message_id: Any, reporter: Account,
                       target: Account) -> dict[str, Any]:
        """What a report of one chat message carries for the moderators: the match, the
        message and the conversation around it. 400 unless the message is ``target``'s
        and ``reporter`` could see it."""
        if isinstance(message_id, bool) or not isinstance(message_id, int):
            raise TableError(400, N_("'message' is the id of a chat message."))
        m = await self.db.read(self._store.message, message_id)
        if m is None or m.account_id != target.id:
            raise TableError(400, t("That message is not one {name} wrote.",
                                    name=target.username))
        if m.room == "players":
            links = await self.db.read(self.db.store.accounts.links, [m.match_id])
            link = links.get(m.match_id)
            if link is None or reporter.id not in link.accounts:
                raise TableError(400, N_("Only the other player can report a message of "
                                         "the players' chat."))
        lines = await self.db.read(self._store.conversation, m)
        return {"match": m.match_id, "message": m.id, "room": m.room,
                "conversation": await self._many(lines)}

    # ------------------------------------------------------------------ pushes

    async def _json(self, row: ChatRow) -> dict[str, Any]:
        return (await self._many([row]))[0]

    async def _many(self, rows: list[ChatRow]) -> list[dict[str, Any]]:
        ids = sorted({r.account_id for r in rows if r.account_id})
        accounts = await self.db.read(self.db.store.accounts.by_ids, ids) if ids else {}
        names = {k: a.username for k, a in accounts.items()}
        return [message_json(r, names) for r in rows]

    async def watching(self, match_id: str) -> None:
        """A table socket of ``match_id`` opened here: from now on its new messages are
        pushed (the page reads what came before with ``GET .../chat``)."""
        if match_id in self._pushed:
            return
        latest = await self.db.read(self._store.latest, [match_id], "players")
        self._pushed.setdefault(match_id, latest.get(match_id, 0))

    async def deliver(self, match_id: str) -> None:
        """Push this process's sockets of ``match_id`` the players' messages they have not
        been pushed yet, in order."""
        if match_id not in self._pushed or not self.hub.has_open(match_id):
            return
        lock = self._locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            after = self._pushed.get(match_id)
            if after is None:
                return
            rows = await self.db.read(self._store.messages, match_id, "players", after)
            if not rows:
                return
            for m in await self._many(rows):
                for sub in self.hub.open_at(match_id):
                    sub.push({"type": "chat", **m})
            self._pushed[match_id] = rows[-1].id

    async def _publish(self, match_id: str) -> None:
        try:
            await self.broker.publish_chat(match_id)
        except Exception as e:  # noqa: BLE001 - the periodic pass catches the others up
            log.warning("could not tell the other processes of a chat message: %s", e)

    def _from_broker(self, match_id: str) -> None:
        if match_id in self._pushed:
            self._spawn(self._deliver_quietly(match_id))

    async def _deliver_quietly(self, match_id: str) -> None:
        try:
            await self.deliver(match_id)
        except TableError as e:  # the database away: the periodic pass catches up
            log.debug("chat of %s not pushed now: %s", match_id, e.message)

    async def catch_up(self) -> None:
        """Push what any of this process's matches has that was not pushed (a lost
        event), and forget the matches with no socket here any more."""
        for mid in [m for m in self._pushed if not self.hub.has_open(m)]:
            del self._pushed[mid]
            self._locks.pop(mid, None)
        if not self._pushed:
            return
        latest = await self.db.read(self._store.latest, sorted(self._pushed), "players")
        for mid, newest in latest.items():
            if newest > self._pushed.get(mid, newest):
                await self._deliver_quietly(mid)

    async def run_forever(self, seconds: float = 5.0, outage_seconds: float = 1.0) -> None:
        """:meth:`catch_up` every ``seconds`` (every ``outage_seconds`` while the broker
        is away)."""
        while True:
            away = self.broker.distributed and not self.broker.healthy
            await asyncio.sleep(outage_seconds if away else seconds)
            try:
                await self.catch_up()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - the pass outlives any surprise
                log.debug("chat catch-up failed: %s", e)


def _after(value: Any) -> int:
    """The ``after`` query parameter: a message id (0: from the start)."""
    if value is None or value == "":
        return 0
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = -1
    if not 0 <= n < 2**62:
        raise TableError(400, N_("'after' is the id of a chat message (a whole number)."))
    return n

