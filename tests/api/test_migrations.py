"""The migrations create exactly the schema the models declare."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Engine

from app.core.migrate import alembic_config


class TestMigrationsMatchModels:
    def test_no_pending_autogenerate_diff(self, engine: Engine) -> None:
        cfg = alembic_config()
        with engine.begin() as connection:
            cfg.attributes["connection"] = connection
            command.check(cfg)  # raises when models and migrations differ
