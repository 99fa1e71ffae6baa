"""the language an account chose

Revision 0011 (after 0010):

* ``accounts.lang``: the language an account chose with the picker (null: the browser's).

Only a nullable column: processes of the previous version keep working on the upgraded
schema. What is there already is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column (if it is not there yet)."""
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("accounts")}
    if "lang" not in have:
        with op.batch_alter_table("accounts") as batch:
            batch.add_column(sa.Column("lang", sa.String(length=8)))


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("lang")
