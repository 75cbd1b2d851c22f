"""Run Alembic migrations programmatically (CLI, startup of the embedded server, tests)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

from app.core.config import REPO_ROOT


def alembic_config() -> Config:
    cfg = Config(str(REPO_ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    return cfg


def upgrade_to_head(engine: Engine) -> None:
    cfg = alembic_config()
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")
