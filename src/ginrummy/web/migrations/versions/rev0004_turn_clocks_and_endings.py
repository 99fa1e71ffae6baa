"""turn clocks and how a match ended

Revision 0004 (after 0003):

* ``matches.clock_move`` and ``matches.clock_bank``: a table's turn clock (the seconds a
  decision gets, the seconds of each seat's bank); null for a table without one.
* ``matches.bank0``/``bank1``: what is left of each seat's bank.
* ``matches.deadline`` (indexed): when the decision now awaited runs out, in Unix seconds.
  It lives in the database so that any process enforces it, after a restart or the death
  of the process that set it (the clocks' scan reads the expired ones).
* ``matches.end_reason`` and ``ended_by``: the record's ``end`` and the seat that resigned
  or ran out of time (a resignation or an abort is not an action: a rebuilt match learns
  it from here).

All columns are nullable, so processes of the previous version keep working on the
upgraded schema (their tables simply have no clock).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = (
    ("clock_move", sa.Integer),
    ("clock_bank", sa.Integer),
    ("bank0", sa.Float),
    ("bank1", sa.Float),
    ("deadline", sa.Float),
    ("end_reason", lambda: sa.String(length=16)),
    ("ended_by", sa.Integer),
)


def upgrade() -> None:
    """Add the columns and the deadline's index (what is there already is left)."""
    inspector = sa.inspect(op.get_bind())
    have = {c["name"] for c in inspector.get_columns("matches")}
    missing = [sa.Column(name, kind()) for name, kind in _COLUMNS if name not in have]
    if missing:
        with op.batch_alter_table("matches") as batch:
            for column in missing:
                batch.add_column(column)
    if "ix_matches_deadline" not in {i["name"] for i in inspector.get_indexes("matches")}:
        op.create_index("ix_matches_deadline", "matches", ["deadline"])


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    op.drop_index("ix_matches_deadline", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        for name, _ in reversed(_COLUMNS):
            batch.drop_column(name)
