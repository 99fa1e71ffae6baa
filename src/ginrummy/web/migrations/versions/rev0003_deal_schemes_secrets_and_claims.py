"""deal schemes, secrets hashed or encrypted, computer-turn claims

Revision 0003 (after 0002):

* ``matches.deal_scheme``: how the match's seed deals. Rows stored before stay null and
  read as ``python-random/1`` (the scheme they were dealt with); new matches name theirs.
* ``deal_salts.salt_enc``: salts encrypted like seeds (new rows leave ``salt`` empty; older
  rows keep their plain salt and still verify).
* ``rematches.pending``: whether a rematch awaits the other player. The other player takes
  the new seat with the old match's seat token, so the plain invite codes older versions
  kept in ``rematches.invite`` are no longer needed: this revision clears them (a copy of
  the database must not let a reader take a seat). A rematch asked for on an older
  process while the upgrade runs reads as accepted there; on this version it stays open.
* ``turn_claims``: computer-turn claims kept in the database while the broker is away.

All columns are nullable, so processes of the previous version keep working on the
upgraded schema.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns and the claims table; mark pending rematches and clear their codes.
    What is there already (a database that had it before it was stamped) is left."""
    inspector = sa.inspect(op.get_bind())
    for table, column in (("matches", sa.Column("deal_scheme", sa.String(length=32))),
                          ("deal_salts", sa.Column("salt_enc", sa.Text())),
                          ("rematches", sa.Column("pending", sa.Boolean()))):
        if column.name not in {c["name"] for c in inspector.get_columns(table)}:
            with op.batch_alter_table(table) as batch:
                batch.add_column(column)
    rematches = sa.table("rematches", sa.column("invite", sa.String(64)),
                         sa.column("pending", sa.Boolean()))
    op.execute(rematches.update().where(rematches.c.invite.isnot(None))
               .values(pending=True, invite=None))
    if "turn_claims" not in set(inspector.get_table_names()):
        op.create_table(
            "turn_claims",
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("holder", sa.String(length=64), nullable=False),
            sa.Column("expires_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("match_id"),
        )


def downgrade() -> None:
    """Undo :func:`upgrade` (cleared invite codes stay cleared: such a rematch can no
    longer be accepted by an older version)."""
    op.drop_table("turn_claims")
    with op.batch_alter_table("rematches") as batch:
        batch.drop_column("pending")
    with op.batch_alter_table("deal_salts") as batch:
        batch.drop_column("salt_enc")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("deal_scheme")
