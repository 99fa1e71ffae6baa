"""fair rated play: browsers, offences, the clock beat, seek and rating notes

Revision 0006 (after 0005):

* ``browsers`` and ``browser_accounts``: each browser cookie (as its hash) and the accounts
  that have used it: accounts sharing a browser are never paired with each other, and a
  browser is never paired with itself.
* ``rated_offences``: the rated matches an account aborted or left (lost to its clock):
  repeated, they make it wait before its next rated seek.
* ``clock_beats``: one row, when a process last found the database working; after an
  outage the running deadlines are moved on by its length, once.
* ``seeks.browser_hash``, ``seeks.nonce`` (a seek's id is derived from its browser's
  cookie and this nonce, so the same browser's second identical seek gets the first back)
  and ``seeks.address_hash``.
* ``account_matches.same_address`` (both seeks came from one address) and
  ``account_matches.rating_note`` (why a rated match moved no rating: ``aborted`` or
  ``repeated pairing``).

New tables and nullable columns only: processes of the previous version keep working on
the upgraded schema.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SEEK_COLUMNS = (
    ("browser_hash", lambda: sa.String(length=64)),
    ("nonce", lambda: sa.String(length=32)),
    ("address_hash", lambda: sa.String(length=64)),
)
_LINK_COLUMNS = (
    ("same_address", sa.Boolean),
    ("rating_note", lambda: sa.String(length=32)),
)


def _add_columns(table: str, columns: tuple[tuple[str, object], ...]) -> None:
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}
    missing = [sa.Column(name, kind()) for name, kind in columns  # type: ignore[operator]
               if name not in have]
    if missing:
        with op.batch_alter_table(table) as batch:
            for column in missing:
                batch.add_column(column)


def upgrade() -> None:
    """Create the tables and add the columns (what is there already is left)."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "browsers" not in tables:
        op.create_table(
            "browsers",
            sa.Column("browser_hash", sa.String(length=64), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("seen_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("browser_hash"),
        )
    if "browser_accounts" not in tables:
        op.create_table(
            "browser_accounts",
            sa.Column("browser_hash", sa.String(length=64), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("seen_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("browser_hash", "account_id"),
        )
        op.create_index(op.f("ix_browser_accounts_account_id"), "browser_accounts",
                        ["account_id"], unique=False)
    if "rated_offences" not in tables:
        op.create_table(
            "rated_offences",
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("account_id", "match_id"),
        )
    if "clock_beats" not in tables:
        op.create_table(
            "clock_beats",
            sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
    _add_columns("seeks", _SEEK_COLUMNS)
    if "ix_seeks_browser_hash" not in {i["name"] for i in
                                        sa.inspect(op.get_bind()).get_indexes("seeks")}:
        op.create_index(op.f("ix_seeks_browser_hash"), "seeks", ["browser_hash"])
    _add_columns("account_matches", _LINK_COLUMNS)


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    with op.batch_alter_table("account_matches") as batch:
        for name, _ in reversed(_LINK_COLUMNS):
            batch.drop_column(name)
    op.drop_index(op.f("ix_seeks_browser_hash"), table_name="seeks")
    with op.batch_alter_table("seeks") as batch:
        for name, _ in reversed(_SEEK_COLUMNS):
            batch.drop_column(name)
    op.drop_table("clock_beats")
    op.drop_table("rated_offences")
    op.drop_index(op.f("ix_browser_accounts_account_id"), table_name="browser_accounts")
    op.drop_table("browser_accounts")
    op.drop_table("browsers")
