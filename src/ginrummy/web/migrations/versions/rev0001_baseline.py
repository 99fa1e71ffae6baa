"""Baseline: the schema of the web table as it was when migrations were adopted.

Tables ``matches`` (one row per match), ``actions`` (one row per action), ``rematches``
and ``deal_salts``. On an empty database this creates them all. On a database made by a
version from before migrations (its tables exist, it has no ``alembic_version``), it
creates only what is missing: the tables added later (``rematches``, ``deal_salts``),
the columns added later to ``matches`` (nullable, so old rows stay valid) and the
indexes, exactly what the start-up code of those versions added in place.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LATE_COLUMNS = (
    ("invite_hash", sa.String(64)),
    ("seed_enc", sa.Text()),
    ("joined_at", sa.Float()),
)
"""Columns of ``matches`` added after the first release, in the order they were added."""


def _matches_columns() -> list[sa.Column[object]]:
    return [
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash0", sa.String(64), nullable=False),
        sa.Column("token_hash1", sa.String(64), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("first_dealer", sa.Integer(), nullable=False),
        sa.Column("opponent", sa.String(16), nullable=False),
        sa.Column("bot_level", sa.String(32), nullable=True),
        sa.Column("bot_name", sa.String(64), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("joined", sa.Boolean(), nullable=False),
        sa.Column("hands_dealt", sa.Integer(), nullable=False),
        sa.Column("ready", sa.String(16), nullable=False),
        sa.Column("score0", sa.Integer(), nullable=False),
        sa.Column("score1", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("to_play", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        *(sa.Column(name, type_, nullable=True) for name, type_ in LATE_COLUMNS),
    ]


def upgrade() -> None:
    """Create the baseline schema, or complete a database made before migrations."""
    inspector = sa.inspect(op.get_bind())
    tables = set(inspector.get_table_names())
    if "matches" not in tables:
        op.create_table("matches", *_matches_columns())
    else:
        have = {c["name"] for c in inspector.get_columns("matches")}
        for name, type_ in LATE_COLUMNS:
            if name not in have:
                op.add_column("matches", sa.Column(name, type_, nullable=True))
    indexes = (
        {ix["name"] for ix in inspector.get_indexes("matches")} if "matches" in tables else set()
    )
    for col in ("token_hash0", "token_hash1"):
        if f"ix_matches_{col}" not in indexes:
            op.create_index(f"ix_matches_{col}", "matches", [col])
    if "actions" not in tables:
        op.create_table(
            "actions",
            sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
            sa.Column("seq", sa.Integer(), primary_key=True),
            sa.Column("hand", sa.Integer(), nullable=False),
            sa.Column("seat", sa.Integer(), nullable=False),
            sa.Column("action", sa.Text(), nullable=False),
        )
    if "rematches" not in tables:
        op.create_table(
            "rematches",
            sa.Column("old_id", sa.String(32), primary_key=True),
            sa.Column("new_id", sa.String(32), nullable=False),
            sa.Column("offered_by", sa.String(1), nullable=False),
            sa.Column("invite", sa.String(64), nullable=True),
        )
    if "deal_salts" not in tables:
        op.create_table(
            "deal_salts",
            sa.Column("match_id", sa.String(32), primary_key=True),
            sa.Column("salt", sa.String(64), nullable=False),
        )


def downgrade() -> None:
    """Drop every table of the baseline (all matches are lost: back up first)."""
    op.drop_table("deal_salts")
    op.drop_table("rematches")
    op.drop_table("actions")
    op.drop_index("ix_matches_token_hash1", table_name="matches")
    op.drop_index("ix_matches_token_hash0", table_name="matches")
    op.drop_table("matches")
