"""arena tournaments and the daily deal

Revision 0009:

* ``tournaments``, ``tournament_players``, ``tournament_matches``: arena tournaments,
  their players (with the pairing's conditional take) and their matches.
* ``daily_seeds``, ``daily_plays``: the daily deal's seed of each day (encrypted, with its
  commitment) and each account's one play a day.

Only new tables: processes of the previous version keep working on the upgraded schema.
What is there already is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the five tables (those not there yet)."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "tournaments" not in tables:
        op.create_table(
            "tournaments",
            sa.Column("id", sa.String(length=16), nullable=False),
            sa.Column("name", sa.String(length=40), nullable=False),
            sa.Column("creator", sa.String(length=32), nullable=False),
            sa.Column("minutes", sa.Float(), nullable=False),
            sa.Column("options", sa.Text(), nullable=False),
            sa.Column("rated", sa.Boolean(), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("started_at", sa.Float(), nullable=True),
            sa.Column("ends_at", sa.Float(), nullable=True),
            sa.Column("finished_at", sa.Float(), nullable=True),
            sa.Column("winner", sa.String(length=32), nullable=True),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index(op.f("ix_tournaments_creator"), "tournaments", ["creator"],
                        unique=False)
        op.create_index(op.f("ix_tournaments_status"), "tournaments", ["status"],
                        unique=False)
    if "tournament_players" not in tables:
        op.create_table(
            "tournament_players",
            sa.Column("tournament_id", sa.String(length=16), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("joined_at", sa.Float(), nullable=False),
            sa.Column("active", sa.Boolean(), nullable=False),
            sa.Column("match_id", sa.String(length=40), nullable=True),
            sa.Column("taken_at", sa.Float(), nullable=True),
            sa.Column("last_opponent", sa.String(length=32), nullable=True),
            sa.PrimaryKeyConstraint("tournament_id", "account_id"),
        )
    if "tournament_matches" not in tables:
        op.create_table(
            "tournament_matches",
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("tournament_id", sa.String(length=16), nullable=False),
            sa.Column("account0", sa.String(length=32), nullable=False),
            sa.Column("account1", sa.String(length=32), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("match_id"),
        )
        op.create_index(op.f("ix_tournament_matches_tournament_id"), "tournament_matches",
                        ["tournament_id"], unique=False)
    if "daily_seeds" not in tables:
        op.create_table(
            "daily_seeds",
            sa.Column("day", sa.String(length=10), nullable=False),
            sa.Column("secret", sa.Text(), nullable=False),
            sa.Column("commitment", sa.String(length=64), nullable=False),
            sa.Column("first_dealer", sa.Integer(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("day"),
        )
    if "daily_plays" not in tables:
        op.create_table(
            "daily_plays",
            sa.Column("day", sa.String(length=10), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("match_id", sa.String(length=32), nullable=True),
            sa.Column("started_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("day", "account_id"),
        )
        op.create_index(op.f("ix_daily_plays_match_id"), "daily_plays", ["match_id"],
                        unique=False)


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    op.drop_index(op.f("ix_daily_plays_match_id"), table_name="daily_plays")
    op.drop_table("daily_plays")
    op.drop_table("daily_seeds")
    op.drop_index(op.f("ix_tournament_matches_tournament_id"),
                  table_name="tournament_matches")
    op.drop_table("tournament_matches")
    op.drop_table("tournament_players")
    op.drop_index(op.f("ix_tournaments_status"), table_name="tournaments")
    op.drop_index(op.f("ix_tournaments_creator"), table_name="tournaments")
    op.drop_table("tournaments")
