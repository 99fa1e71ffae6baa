"""accounts, sessions, ratings, quick-match seeks

Revision 0005: the tables of accounts (``accounts``, ``account_sessions``), of who plays a
match and whether it is rated or public (``account_matches``), of each account's rating
after each rated match (``rating_history``) and of quick-match requests (``seeks``). Only
new tables: processes of the previous version keep working on the upgraded schema. A
table already there (a database that had it before it was stamped) is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the five tables (those not there yet)."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "accounts" not in tables:
        op.create_table(
            "accounts",
            sa.Column("id", sa.String(length=32), nullable=False),
            sa.Column("username", sa.String(length=20), nullable=False),
            sa.Column("username_key", sa.String(length=20), nullable=False),
            sa.Column("password_hash", sa.Text(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("rating", sa.Float(), nullable=False),
            sa.Column("deviation", sa.Float(), nullable=False),
            sa.Column("volatility", sa.Float(), nullable=False),
            sa.Column("rated_matches", sa.Integer(), nullable=False),
            sa.Column("rated_at", sa.Float(), nullable=True),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("username_key"),
        )
    if "account_sessions" not in tables:
        op.create_table(
            "account_sessions",
            sa.Column("token_hash", sa.String(length=64), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("expires_at", sa.Float(), nullable=False),
            sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
            sa.PrimaryKeyConstraint("token_hash"),
        )
        op.create_index(op.f("ix_account_sessions_account_id"), "account_sessions",
                        ["account_id"], unique=False)
    if "account_matches" not in tables:
        op.create_table(
            "account_matches",
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("account0", sa.String(length=32), nullable=True),
            sa.Column("account1", sa.String(length=32), nullable=True),
            sa.Column("rated", sa.Boolean(), nullable=False),
            sa.Column("public", sa.Boolean(), nullable=False),
            sa.Column("settled", sa.Boolean(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("match_id"),
        )
        op.create_index(op.f("ix_account_matches_account0"), "account_matches",
                        ["account0"], unique=False)
        op.create_index(op.f("ix_account_matches_account1"), "account_matches",
                        ["account1"], unique=False)
    if "rating_history" not in tables:
        op.create_table(
            "rating_history",
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("opponent_id", sa.String(length=32), nullable=False),
            sa.Column("score", sa.Float(), nullable=False),
            sa.Column("rating", sa.Float(), nullable=False),
            sa.Column("deviation", sa.Float(), nullable=False),
            sa.Column("volatility", sa.Float(), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("account_id", "match_id"),
        )
    if "seeks" not in tables:
        op.create_table(
            "seeks",
            sa.Column("id_hash", sa.String(length=64), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=True),
            sa.Column("name", sa.String(length=32), nullable=False),
            sa.Column("rating", sa.Float(), nullable=False),
            sa.Column("options", sa.Text(), nullable=False),
            sa.Column("rated", sa.Boolean(), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("expires_at", sa.Float(), nullable=False),
            sa.Column("taken_at", sa.Float(), nullable=True),
            sa.Column("match_id", sa.String(length=32), nullable=True),
            sa.Column("seat", sa.Integer(), nullable=True),
            sa.Column("seat_token_hash", sa.String(length=64), nullable=False),
            sa.PrimaryKeyConstraint("id_hash"),
        )
        op.create_index(op.f("ix_seeks_status"), "seeks", ["status"], unique=False)


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    op.drop_index(op.f("ix_seeks_status"), table_name="seeks")
    op.drop_table("seeks")
    op.drop_table("rating_history")
    op.drop_index(op.f("ix_account_matches_account1"), table_name="account_matches")
    op.drop_index(op.f("ix_account_matches_account0"), table_name="account_matches")
    op.drop_table("account_matches")
    op.drop_index(op.f("ix_account_sessions_account_id"), table_name="account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
