"""Alembic's entry point, run by :func:`heartsuit.server.storage.migrations.upgrade` with the open
connection in ``config.attributes``: the site never migrates from a URL of its own here."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("run migrations through heartsuit.server.storage.migrations.upgrade()")

context.configure(
    connection=connection,
    # only for drafting a script (`python -m heartsuit.server.storage.new_migration …
    # --autogenerate`)
    target_metadata=context.config.attributes.get("target_metadata"),
    # SQLite changes a column by copying its table; batch operations say so explicitly
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
