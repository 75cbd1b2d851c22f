"""Alembic environment: migrates the database the settings (or the caller) point at."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

import app.models  # noqa: F401  (registers every table)
from app.models.base import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    from app.core.db import get_engine

    with get_engine().connect() as conn:
        _run(conn)
        conn.commit()


if context.is_offline_mode():
    raise SystemExit("offline migrations are not supported; run `capture migrate`")
run_migrations_online()
