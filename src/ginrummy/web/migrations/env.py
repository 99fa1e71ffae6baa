"""Alembic's entry point for ginrummy's migrations: run by Alembic through
:mod:`ginrummy.web.migrations`, which hands it an open connection."""

from alembic import context

from ginrummy.web.migrations import run_env

if hasattr(context, "config"):  # set while Alembic runs this file (not on a plain import)
    run_env(context.config)
