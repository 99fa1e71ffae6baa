"""people: chat, follows, blocks and each account's choices about them

Revision 0012 (after 0011):

* ``chat_messages``: the players' and the spectators' chat of each match.
* ``follows``, ``blocks``: who follows and who blocked whom.
* ``people_settings``: an account's chat, online-status and challenge choices, and a
  moderator's mute.

Only new tables: processes of the previous version keep working on the upgraded schema.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the tables (those not there yet)."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "chat_messages" not in tables:
        op.create_table(
            "chat_messages",
            sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("room", sa.String(length=12), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=True),
            sa.Column("seat", sa.Integer(), nullable=True),
            sa.Column("name", sa.String(length=40), nullable=False),
            sa.Column("text", sa.Text(), nullable=False),
            sa.Column("phrase", sa.String(length=16), nullable=True),
            sa.Column("censored", sa.Boolean(), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_chat_messages_match_room", "chat_messages",
                        ["match_id", "room", "id"])
        op.create_index("ix_chat_messages_account_id", "chat_messages", ["account_id"])
    for name, other in (("follows", "followed_id"), ("blocks", "blocked_id")):
        if name not in tables:
            op.create_table(
                name,
                sa.Column("account_id", sa.String(length=32), nullable=False),
                sa.Column(other, sa.String(length=32), nullable=False),
                sa.Column("at", sa.Float(), nullable=False),
                sa.PrimaryKeyConstraint("account_id", other),
            )
            op.create_index(f"ix_{name}_{other}", name, [other])
    if "people_settings" not in tables:
        op.create_table(
            "people_settings",
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("chat", sa.String(length=8), nullable=True),
            sa.Column("hide_online", sa.Boolean(), nullable=True),
            sa.Column("challenges", sa.String(length=12), nullable=True),
            sa.Column("muted_until", sa.Float(), nullable=True),
            sa.Column("mute_reason", sa.Text(), nullable=True),
            sa.PrimaryKeyConstraint("account_id"),
        )


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    for name in ("people_settings", "blocks", "follows", "chat_messages"):
        op.drop_table(name)
