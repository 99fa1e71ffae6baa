"""puzzles, puzzle answers, puzzle ratings

Revision 0008 (after 0007): the tables of puzzles (``puzzles``: public ones made from matches, and
each account's private ones from its reviewed mistakes), of each account's first answer
to a public puzzle (``puzzle_attempts``) and of accounts' puzzle ratings
(``puzzle_ratings``, apart from the ratings in play). Only new tables: processes of the
previous version keep working on the upgraded schema. A table already there is left as
it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the three tables (those not there yet)."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "puzzles" not in tables:
        op.create_table(
            "puzzles",
            sa.Column("id", sa.String(length=32), nullable=False),
            sa.Column("key", sa.String(length=200), nullable=False),
            sa.Column("owner", sa.String(length=32), nullable=True),
            sa.Column("match_id", sa.String(length=64), nullable=True),
            sa.Column("hand", sa.Integer(), nullable=False),
            sa.Column("action", sa.Integer(), nullable=False),
            sa.Column("seat", sa.Integer(), nullable=False),
            sa.Column("themes", sa.String(length=300), nullable=False),
            sa.Column("body", sa.Text(), nullable=False),
            sa.Column("rating", sa.Float(), nullable=False),
            sa.Column("deviation", sa.Float(), nullable=False),
            sa.Column("volatility", sa.Float(), nullable=False),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.Column("solved", sa.Integer(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("solved_at", sa.Float(), nullable=True),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("key"),
        )
        op.create_index(op.f("ix_puzzles_owner"), "puzzles", ["owner"], unique=False)
        op.create_index(op.f("ix_puzzles_rating"), "puzzles", ["rating"], unique=False)
    if "puzzle_attempts" not in tables:
        op.create_table(
            "puzzle_attempts",
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("puzzle_id", sa.String(length=32), nullable=False),
            sa.Column("correct", sa.Boolean(), nullable=False),
            sa.Column("action", sa.Text(), nullable=False),
            sa.Column("rating", sa.Float(), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("account_id", "puzzle_id"),
        )
        op.create_index(op.f("ix_puzzle_attempts_at"), "puzzle_attempts", ["at"],
                        unique=False)
    if "puzzle_ratings" not in tables:
        op.create_table(
            "puzzle_ratings",
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("rating", sa.Float(), nullable=False),
            sa.Column("deviation", sa.Float(), nullable=False),
            sa.Column("volatility", sa.Float(), nullable=False),
            sa.Column("puzzles", sa.Integer(), nullable=False),
            sa.Column("rated_at", sa.Float(), nullable=True),
            sa.PrimaryKeyConstraint("account_id"),
        )


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    op.drop_table("puzzle_ratings")
    op.drop_index(op.f("ix_puzzle_attempts_at"), table_name="puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_index(op.f("ix_puzzles_rating"), table_name="puzzles")
    op.drop_index(op.f("ix_puzzles_owner"), table_name="puzzles")
    op.drop_table("puzzles")
