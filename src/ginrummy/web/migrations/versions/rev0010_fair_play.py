"""fair play: no coach in rated play, screening, reports and moderators

Revision 0010 (after 0009):

* ``matches.no_coach``: a rated, arena or daily match (no hints; its review opens when
  it is over).
* ``accounts.moderator``, ``accounts.mark``, ``accounts.marked_at``: the moderator role,
  and a moderator's mark on an account.
* ``seeks.seeker_hash``, ``seeks.token_enc``, ``seeks.taken_by``: who may read a seek
  (its seeker's secret, hashed), its random seat token (encrypted), and the pairing that
  took it.
* ``accounts.program``: the account has played through an API token (paired like a BOT).
* ``challenges.address_hash``, ``tournament_players.address_hash``: the challenger's and
  an arena player's address, hashed (a rated result from one address moves little);
  ``challenges.taken_by``: the acceptance that took a challenge (only it may mark it
  accepted).
* ``tournaments.bots``: the arena admits BOT accounts and programs;
  ``tournament_players.withdrawals``: when the player withdrew (it ends its streak).
* ``screen_jobs``, ``screenings``, ``flags``: the screening of finished rated matches, its
  figures per account and match, and the accounts it flagged.
* ``reports``, ``mod_log``, ``refunds``: players' reports, what moderators did, and the
  rating points given back to a marked account's opponents.

Only new tables and nullable columns: processes of the previous version keep working on
the upgraded schema. What is there already is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS: tuple[tuple[str, str, Callable[[], Any]], ...] = (
    ("matches", "no_coach", sa.Boolean),
    ("accounts", "moderator", sa.Boolean),
    ("accounts", "mark", lambda: sa.String(length=16)),
    ("accounts", "marked_at", sa.Float),
    ("seeks", "seeker_hash", lambda: sa.String(length=64)),
    ("seeks", "token_enc", sa.Text),
    ("seeks", "taken_by", lambda: sa.String(length=32)),
    ("accounts", "program", sa.Boolean),
    ("challenges", "address_hash", lambda: sa.String(length=64)),
    ("challenges", "taken_by", lambda: sa.String(length=32)),
    ("tournaments", "bots", sa.Boolean),
    ("tournament_players", "address_hash", lambda: sa.String(length=64)),
    ("tournament_players", "withdrawals", sa.Text),
)
_TABLES = ("matches", "accounts", "seeks", "challenges", "tournaments", "tournament_players")
"""The tables :data:`_COLUMNS` adds to."""


def upgrade() -> None:
    """Add the columns and create the tables (those not there yet)."""
    inspector = sa.inspect(op.get_bind())
    for table in _TABLES:
        have = {c["name"] for c in inspector.get_columns(table)}
        missing = [sa.Column(name, kind()) for t, name, kind in _COLUMNS
                   if t == table and name not in have]
        if missing:
            with op.batch_alter_table(table) as batch:
                for column in missing:
                    batch.add_column(column)
    tables = set(inspector.get_table_names())
    if "screen_jobs" not in tables:
        op.create_table(
            "screen_jobs",
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("holder", sa.String(length=32), nullable=True),
            sa.Column("beat_at", sa.Float(), nullable=True),
            sa.Column("tries", sa.Integer(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("match_id"),
        )
        op.create_index(op.f("ix_screen_jobs_status"), "screen_jobs", ["status"],
                        unique=False)
    if "screenings" not in tables:
        op.create_table(
            "screenings",
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("seat", sa.Integer(), nullable=False),
            sa.Column("decisions", sa.Integer(), nullable=False),
            sa.Column("agree", sa.Integer(), nullable=False),
            sa.Column("loss", sa.Float(), nullable=False),
            sa.Column("contested", sa.Integer(), nullable=False),
            sa.Column("contested_agree", sa.Integer(), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("match_id", "account_id"),
        )
        op.create_index(op.f("ix_screenings_account_id"), "screenings", ["account_id"],
                        unique=False)
    if "flags" not in tables:
        op.create_table(
            "flags",
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("reason", sa.Text(), nullable=False),
            sa.Column("decisions", sa.Integer(), nullable=False),
            sa.Column("agree", sa.Integer(), nullable=False),
            sa.Column("loss", sa.Float(), nullable=False),
            sa.Column("contested", sa.Integer(), nullable=False),
            sa.Column("contested_agree", sa.Integer(), nullable=False),
            sa.Column("matches", sa.Text(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("updated_at", sa.Float(), nullable=False),
            sa.Column("closed_at", sa.Float(), nullable=True),
            sa.Column("closed_by", sa.String(length=32), nullable=True),
            sa.PrimaryKeyConstraint("account_id"),
        )
        op.create_index(op.f("ix_flags_status"), "flags", ["status"], unique=False)
    if "reports" not in tables:
        op.create_table(
            "reports",
            sa.Column("id", sa.String(length=16), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("by_account", sa.String(length=32), nullable=False),
            sa.Column("reason", sa.String(length=16), nullable=False),
            sa.Column("text", sa.Text(), nullable=False),
            sa.Column("match_id", sa.String(length=32), nullable=True),
            sa.Column("context", sa.Text(), nullable=True),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("closed_at", sa.Float(), nullable=True),
            sa.Column("closed_by", sa.String(length=32), nullable=True),
            sa.PrimaryKeyConstraint("id"),
        )
        for col in ("account_id", "by_account", "status"):
            op.create_index(op.f(f"ix_reports_{col}"), "reports", [col], unique=False)
    if "mod_log" not in tables:
        op.create_table(
            "mod_log",
            sa.Column("id", sa.String(length=16), nullable=False),
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("moderator_id", sa.String(length=32), nullable=True),
            sa.Column("action", sa.String(length=16), nullable=False),
            sa.Column("mark", sa.String(length=16), nullable=True),
            sa.Column("text", sa.Text(), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index(op.f("ix_mod_log_account_id"), "mod_log", ["account_id"],
                        unique=False)
    if "refunds" not in tables:
        op.create_table(
            "refunds",
            sa.Column("account_id", sa.String(length=32), nullable=False),
            sa.Column("match_id", sa.String(length=32), nullable=False),
            sa.Column("marked_id", sa.String(length=32), nullable=False),
            sa.Column("points", sa.Float(), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.PrimaryKeyConstraint("account_id", "match_id"),
        )
        op.create_index(op.f("ix_refunds_marked_id"), "refunds", ["marked_id"],
                        unique=False)


def downgrade() -> None:
    """Undo :func:`upgrade`."""
    op.drop_index(op.f("ix_refunds_marked_id"), table_name="refunds")
    op.drop_table("refunds")
    op.drop_index(op.f("ix_mod_log_account_id"), table_name="mod_log")
    op.drop_table("mod_log")
    for col in ("status", "by_account", "account_id"):
        op.drop_index(op.f(f"ix_reports_{col}"), table_name="reports")
    op.drop_table("reports")
    op.drop_index(op.f("ix_flags_status"), table_name="flags")
    op.drop_table("flags")
    op.drop_index(op.f("ix_screenings_account_id"), table_name="screenings")
    op.drop_table("screenings")
    op.drop_index(op.f("ix_screen_jobs_status"), table_name="screen_jobs")
    op.drop_table("screen_jobs")
    for table in reversed(_TABLES):
        with op.batch_alter_table(table) as batch:
            for t, name, _ in reversed(_COLUMNS):
                if t == table:
                    batch.drop_column(name)
