"""The migrations create exactly the schema the models declare."""

from __future__ import annotations

import os
import threading

from alembic import command
from sqlalchemy import Engine, create_engine, text

from app.core.migrate import alembic_config, upgrade_to_head
from tests.conftest import drop_database, fresh_database


class TestMigrationsMatchModels:
    def test_no_pending_autogenerate_diff(self, engine: Engine) -> None:
        cfg = alembic_config()
        with engine.begin() as connection:
            cfg.attributes["connection"] = connection
            command.check(cfg)  # raises when models and migrations differ


class TestConcurrentMigrations:
    def test_replicas_starting_together_both_reach_head(self, server_uri: str) -> None:
        """Two `capture serve` starting at once on an empty database: the advisory lock
        makes one migrate and the other find the schema at head (without it, both create
        the same tables and one fails)."""
        name = f"capture_migrate_race_{os.getpid()}"
        url = fresh_database(server_uri, name)
        engines = [create_engine(url) for _ in range(3)]
        barrier = threading.Barrier(len(engines))
        errors: list[BaseException] = []

        def start(engine: Engine) -> None:
            barrier.wait()
            try:
                upgrade_to_head(engine)
            except BaseException as exc:  # collected, asserted below
                errors.append(exc)

        threads = [threading.Thread(target=start, args=(e,)) for e in engines]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
            assert errors == []
            with engines[0].connect() as conn:
                heads = conn.execute(text("SELECT version_num FROM alembic_version")).all()
            assert len(heads) == 1
        finally:
            for engine in engines:
                engine.dispose()
            drop_database(server_uri, name)
