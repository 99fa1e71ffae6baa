"""The tables of people at the site (revision 0012): chat, follows, blocks and each
account's choices about them (:mod:`ginrummy.web.online.chat`,
:mod:`ginrummy.web.online.people`). Made and upgraded by the migrations, like every table
of :mod:`.schema`; only :mod:`.people` runs statements on them."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, Index, Integer, MetaData, String, Table, Text

__all__ = ["blocks_table", "chat_table", "follows_table", "metadata", "people_settings_table"]

metadata = MetaData()

chat_table = Table(
    "chat_messages",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("match_id", String(32), nullable=False),
    Column("room", String(12), nullable=False),
    Column("account_id", String(32), nullable=True, index=True),
    Column("seat", Integer, nullable=True),
    Column("name", String(40), nullable=False),
    Column("text", Text, nullable=False),
    Column("phrase", String(16), nullable=True),
    Column("censored", Boolean, nullable=False),
    Column("at", Float, nullable=False),
    Index("ix_chat_messages_match_room", "match_id", "room", "id"),
)
"""Every chat message, stored before it is acknowledged: the match, the ``room``
(``players``: the two seats; ``spectators``: the watchers'), who said it (the account, if
any; the seat for a player; the name as shown), the text as shown (rude words masked,
``censored`` then true) or the quick phrase it is, and when. ``id`` orders a room."""

follows_table = Table(
    "follows",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("followed_id", String(32), primary_key=True, index=True),
    Column("at", Float, nullable=False),
)
"""``account_id`` follows ``followed_id`` (its friends panel lists them)."""

blocks_table = Table(
    "blocks",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("blocked_id", String(32), primary_key=True, index=True),
    Column("at", Float, nullable=False),
)
"""``account_id`` blocked ``blocked_id``: no challenge, chat, follow or pairing between
them."""

people_settings_table = Table(
    "people_settings",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("chat", String(8), nullable=True),
    Column("hide_online", Boolean, nullable=True),
    Column("challenges", String(12), nullable=True),
    Column("muted_until", Float, nullable=True),
    Column("mute_reason", Text, nullable=True),
)
"""An account's choices (null: the default): ``chat`` (``on``, ``phrases``: quick
phrases only, ``off``), ``hide_online``, ``challenges`` (from ``everyone``, ``friends``:
the accounts it follows, ``nobody``), and a moderator's mute (until when, and why)."""
