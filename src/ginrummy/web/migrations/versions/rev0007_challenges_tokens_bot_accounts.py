"""challenges, API tokens and BOT accounts

Revision 0007 (after 0006):

* ``api_tokens``: an account's API tokens (only their hashes), revocable.
* ``challenges``: challenges to a player or open links, with the challenger's seat token
  kept hashed and encrypted.
* ``accounts.bot`` and ``accounts.closed_at``: a BOT account, an account an operator
  closed.
* ``matches.bot_seats``: which seats BOT accounts play.
* ``seeks.bot`` and ``seeks.bots``: a BOT's seek, a seek that accepts BOT opponents.

Only new tables and nullable columns: processes of the previous version keep working on
the upgraded schema. What is there already is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS: tuple[tuple[str, str, Callable[[], Any]], ...] = (
    ("accounts", "bot", sa.Boolean),
    ("accounts", "closed_at", sa.Float),
    ("matches", "bot_seats", lambda: sa.String(length=2)),
    ("seeks", "bot", sa.Boolean),
    ("seeks", "bots", sa.Boolean),
)


def upgrade() -> None:
    """Add the columns and create the two tables (those not there yet)."""
    inspector = sa.inspect(op.get_bind())
    for table in ("accounts", "matches", "seeks"):
        have = {c["name"] for c in inspector.get_columns(table)}
        missing = [sa.Column(name, kind()) for t, name, kind in _COLUMNS
                   if t == table and name not in have]
        if missing:
            with op.batch_alter_table(table) as batch:
                for column in missing:
                    batch.add_column(column)
    tables = set(inspector.get_table_names())
    if "api_tokens" not in tables:
        op.create_table(
            "api_tokens",
            sa.Column("id", sa.String(length=16), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("token_hash", sa.String(length=64), nullable=False),
            sa.Column("name", sa.String(length=40), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("last_used", sa.Float(), nullable=True),
            sa.Column("revoked_at", sa.Float(), nullable=True),
            sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("token_hash"),
        )
        op.create_index(op.f("ix_api_tokens_account_id"), "api_tokens", ["account_id"],
                        unique=False)
    if "challenges" not in tables:
        op.create_table(
            "challenges",
            sa.Column("id", sa.String(length=16), nullable=False),
            sa.Column("from_account", sa.String(length=32), nullable=True),
            sa.Column("from_name", sa.String(length=32), nullable=False),
            sa.Column("to_account", sa.String(length=32), nullable=True),
            sa.Column("options", sa.Text(), nullable=False),
            sa.Column("rated", sa.Boolean(), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("reason", sa.String(length=16), nullable=True),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("expires_at", sa.Float(), nullable=False),
            sa.Column("taken_at", sa.Float(), nullable=True),
            sa.Column("answered_at", sa.Float(), nullable=True),
            sa.Column("accepted_by", sa.String(length=32), nullable=True),
            sa.Column("match_id", sa.String(length=32), nullable=True),
            sa.Column("seat_token_hash", sa.String(length=64), nullable=False),
            sa.Column("seat_token_enc", sa.Text(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index(op.f("ix_challenges_from_account"), "challenges", ["from_account"],
                        unique=False)
        op.create_index(op.f("ix_challenges_to_account"), "challenges", ["to_account"],
                        unique=False)


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    op.drop_index(op.f("ix_challenges_to_account"), table_name="challenges")
    op.drop_index(op.f("ix_challenges_from_account"), table_name="challenges")
    op.drop_table("challenges")
    op.drop_index(op.f("ix_api_tokens_account_id"), table_name="api_tokens")
    op.drop_table("api_tokens")
    for table in ("seeks", "matches", "accounts"):
        with op.batch_alter_table(table) as batch:
            for t, name, _ in reversed(_COLUMNS):
                if t == table:
                    batch.drop_column(name)
