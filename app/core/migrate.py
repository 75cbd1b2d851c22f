"""Run Alembic migrations programmatically (CLI, startup of the embedded server, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

import migrations
from app.core import repository


def alembic_config() -> Config:
    """Alembic config that finds the migrations shipped in the package (no alembic.ini needed)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrations.__file__).parent))
    return cfg


# Advisory-lock key held while migrating: replicas that start together migrate one at a time,
# and the later ones find the schema at head.
MIGRATION_LOCK_KEY = 4242002


def upgrade_to_head(engine: Engine) -> None:
    cfg = alembic_config()
    with engine.begin() as connection:
        # Transaction-scoped: released by the migration's own commit or rollback.
        repository.advisory_xact_lock(connection, MIGRATION_LOCK_KEY)
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")
