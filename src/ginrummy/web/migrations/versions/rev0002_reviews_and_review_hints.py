"""reviews and review hints

Revision 0002 (after 0001): the tables of ``ginrummy.web.reviews`` (stored game reviews
and their jobs; the decisions at which a hint was shown). A table already there (a
database that had them before it was stamped) is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | Sequence[str] | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the ``review_hints`` and ``reviews`` tables."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "review_hints" not in tables:
        _create_hints()
    if "reviews" not in tables:
        _create_reviews()


def _create_hints() -> None:
    op.create_table('review_hints',
    sa.Column('match_id', sa.String(length=32), nullable=False),
    sa.Column('hand', sa.Integer(), nullable=False),
    sa.Column('action', sa.Integer(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('hint', sa.Text(), nullable=False),
    sa.Column('shown_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('match_id', 'hand', 'action')
    )


def _create_reviews() -> None:
    op.create_table('reviews',
    sa.Column('match_id', sa.String(length=32), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('job', sa.String(length=32), nullable=True),
    sa.Column('started_at', sa.Float(), nullable=True),
    sa.Column('beat_at', sa.Float(), nullable=True),
    sa.Column('done', sa.Integer(), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('parts', sa.Text(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint('match_id')
    )


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    op.drop_table('reviews')
    op.drop_table('review_hints')
