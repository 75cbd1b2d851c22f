"""Fault injection against a real stack: client threads write events over HTTP to the API
under uvicorn (idempotency keys, retries with backoff) while a fault loop kills workers
(SIGKILL), the API, Redis and Postgres at random points; then, from the database, lost,
duplicated and out-of-order events, the time to recovery after each fault and the error
responses clients saw.

The writes are a client's; the reads are not, by design: what is checked is the store below
the API (one row per idempotency key, each processed, in each user's order, and when), with
the API itself among the parts killed, and the API shows neither idempotency keys nor
processing times."""

from __future__ import annotations

import json
import random
import signal
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
from sqlalchemy import create_engine
from tqdm import tqdm

from app.core.embedded_pg import to_sqlalchemy_url
from app.core.migrate import upgrade_to_head
from bench.chaos.report import write_report
from bench.chaos.stack import (
    ChaosPostgres,
    RedisServer,
    Stack,
    build_stack,
    kill9,
    remove_root,
    temp_root,
)

SECRET = "chaos-secret"
DATABASE = "capture_chaos"
KINDS = ("worker", "api", "redis", "postgres")
RETRY_STATUSES = {429, 500, 502, 503, 504}


@dataclass(frozen=True)
class ChaosConfig:
    worker_kills: int = 100
    api_restarts: int = 10
    redis_restarts: int = 10
    postgres_restarts: int = 10
    workers: int = 2
    users: int = 4
    duration_s: float = 600.0
    write_interval_s: float = 0.5
    give_up_s: float = 90.0
    quiesce_timeout_s: float = 180.0
    requeue_stale_after_s: float = 30.0
    requeue_interval_s: float = 10.0
    seed: int = 0


@dataclass
class Fault:
    kind: str
    started: float
    ended: float = 0.0
    detail: str = ""


@dataclass
class Ack:
    key: str
    user: str
    index: int
    event_id: str
    acked_at: float


@dataclass
class ClientLog:
    acks: list[Ack] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    non_json_errors: list[dict[str, Any]] = field(default_factory=list)
    gave_up: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _json_error_shape(response: httpx.Response) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return (isinstance(error, dict) and isinstance(error.get("code"), str)
            and isinstance(error.get("message"), str))


def _retry_after(response: httpx.Response | None, attempt: int) -> float:
    backoff = float(min(3.0, 0.1 * 2 ** attempt) * random.uniform(0.5, 1.0))
    if response is not None:
        try:
            return float(min(3.0, max(backoff, float(response.headers.get("Retry-After", 0)))))
        except ValueError:
            pass
    return backoff


def _write_one(client: httpx.Client, log: ClientLog, run_id: str, user: str, index: int,
               give_up_s: float) -> None:
    key = f"{run_id}-{user}-{index:06d}"
    body = {"user_id": user, "session_id": "chaos", "origin": "user",
            "text": f"Note {index}: I prefer short answers.", "idempotency_key": key,
            "occurred_at": datetime.now(UTC).isoformat()}
    deadline = time.monotonic() + give_up_s
    attempt = 0
    while time.monotonic() < deadline:
        response: httpx.Response | None = None
        try:
            response = client.post("/v1/events", json=body)
        except httpx.HTTPError as exc:
            with log.lock:
                log.errors[f"connection:{type(exc).__name__}"] += 1
        else:
            if response.status_code in (200, 201, 202):
                with log.lock:
                    log.acks.append(Ack(key, user, index, str(response.json()["event_id"]),
                                        time.time()))
                return
            shaped = _json_error_shape(response)
            with log.lock:
                log.errors[f"{response.status_code}:{'json' if shaped else 'not-json'}"] += 1
                if not shaped and len(log.non_json_errors) < 20:
                    log.non_json_errors.append({"status": response.status_code,
                                                "body": response.text[:300]})
            if response.status_code not in RETRY_STATUSES:
                break
        time.sleep(_retry_after(response, attempt))
        attempt += 1
    with log.lock:
        log.gave_up.append(key)


def _client_loop(stack: Stack, log: ClientLog, run_id: str, user: str, stop: threading.Event,
                 config: ChaosConfig) -> None:
    index = 0
    with httpx.Client(base_url=stack.base_url, timeout=10,
                      headers={"Authorization": f"Bearer {stack.agent_key}"}) as client:
        while not stop.is_set():
            _write_one(client, log, run_id, user, index, config.give_up_s)
            index += 1
            stop.wait(config.write_interval_s)


class _Chaos:
    def __init__(self, stack: Stack, redis_server: RedisServer, postgres: ChaosPostgres,
                 root: Path, rng: random.Random) -> None:
        self.stack = stack
        self.redis = redis_server
        self.postgres = postgres
        self.root = root
        self.rng = rng
        self.generation = 0

    def inject(self, kind: str) -> Fault:
        fault = Fault(kind, time.time())
        if kind == "worker":
            # Kill a worker that has finished a task: a new worker's first task loads the
            # models (seconds), and kills that always land before it ends would let no task
            # ever commit, which tests the kill rate, not recovery.
            deadline = time.monotonic() + 120
            ready = [n for n in self.stack.workers if self.stack.worker_productive(n)]
            while not ready and time.monotonic() < deadline:
                time.sleep(0.2)
                ready = [n for n in self.stack.workers if self.stack.worker_productive(n)]
            fault.started = time.time()
            name = self.rng.choice(ready or list(self.stack.workers))
            kill9(self.stack.workers.pop(name))
            self.generation += 1
            slot = name.split("-")[0]
            self.stack.start_worker(f"{slot}-{self.generation}")
            fault.detail = name
        elif kind == "api":
            assert self.stack.api is not None
            kill9(self.stack.api)
            self.stack.start_api()
            self.stack.wait_ready(timeout_s=120)
        elif kind == "redis":
            self.redis.kill()
            time.sleep(self.rng.uniform(0.5, 2.0))
            self.redis.start()
        elif kind == "postgres":
            self.postgres.crash()
            time.sleep(self.rng.uniform(0.5, 3.0))
            self.postgres.restart()
        else:
            raise ValueError(kind)
        fault.ended = time.time()
        return fault


def _pending(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT count(*) FROM events WHERE status = 'pending'").fetchone()
    return int(row[0]) if row else 0


def _wait_quiescent(uri: str, timeout_s: float) -> tuple[float, int]:
    started = time.monotonic()
    pending = -1
    while time.monotonic() - started < timeout_s:
        try:
            with psycopg.connect(uri, connect_timeout=5) as conn:
                pending = _pending(conn)
        except psycopg.Error:
            pending = -1
        if pending == 0:
            break
        time.sleep(0.5)
    return time.monotonic() - started, pending


def _analyse(uri: str, log: ClientLog, faults: list[Fault]) -> dict[str, Any]:
    with psycopg.connect(uri) as conn:
        rows = conn.execute(
            "SELECT idempotency_key, id::text, user_id::text, seq, status, "
            "extract(epoch FROM received_at), extract(epoch FROM processed_at) "
            "FROM events ORDER BY user_id, seq").fetchall()
    by_key: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows:
        by_key.setdefault(row[0], []).append(row)
    missing = pending = failed = 0
    id_mismatch = 0
    for ack in log.acks:
        stored = by_key.get(ack.key)
        if not stored:
            missing += 1
            continue
        if stored[0][1] != ack.event_id:
            id_mismatch += 1
        status = stored[0][4]
        pending += status == "pending"
        failed += status == "failed"
    duplicated_rows = sum(len(v) - 1 for v in by_key.values() if len(v) > 1)
    out_of_order = 0
    previous: tuple[Any, ...] | None = None
    for row in rows:
        if previous is not None and previous[2] == row[2]:
            earlier_index = int(previous[0].rsplit("-", 1)[1])
            later_index = int(row[0].rsplit("-", 1)[1])
            processed_earlier = (previous[6] is not None and row[6] is not None
                                 and float(row[6]) < float(previous[6]))
            if later_index <= earlier_index or processed_earlier:
                out_of_order += 1
        previous = row
    processed_times = sorted(float(r[6]) for r in rows if r[6] is not None)
    recoveries = []
    for fault in faults:
        after = [t for t in processed_times if t > fault.ended]
        backlog = [r for r in rows if float(r[5]) <= fault.ended
                   and (r[6] is None or float(r[6]) > fault.ended)]
        unprocessed = any(r[6] is None for r in backlog)
        recoveries.append({
            **asdict(fault),
            "down_s": round(fault.ended - fault.started, 3),
            "next_processed_s": round(after[0] - fault.ended, 3) if after else None,
            "backlog": len(backlog),
            "backlog_processed_s": (None if unprocessed else round(
                max((float(r[6]) for r in backlog), default=fault.ended) - fault.ended, 3)),
        })
    return {
        "events_stored": len(rows),
        "acknowledged": len(log.acks),
        "lost": missing + pending + failed,
        "lost_detail": {"absent": missing, "pending": pending, "failed": failed},
        "duplicated": duplicated_rows + id_mismatch,
        "out_of_order": out_of_order,
        "gave_up": len(log.gave_up),
        "client_errors": dict(sorted(log.errors.items())),
        "non_json_errors": sum(n for k, n in log.errors.items() if k.endswith("not-json")),
        "non_json_samples": log.non_json_errors,
        "faults": recoveries,
    }


def _schedule(config: ChaosConfig, rng: random.Random) -> list[tuple[float, str]]:
    kinds = (["worker"] * config.worker_kills + ["api"] * config.api_restarts
             + ["redis"] * config.redis_restarts + ["postgres"] * config.postgres_restarts)
    rng.shuffle(kinds)
    warmup = min(5.0, config.duration_s / 10)
    times = sorted(rng.uniform(warmup, config.duration_s) for _ in kinds)
    return list(zip(times, kinds, strict=True))


def run(out: Path, config: ChaosConfig) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    if threading.current_thread() is threading.main_thread():
        # A background job ignores SIGINT; SIGTERM still stops the stack it started.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rng = random.Random(config.seed)
    root = temp_root("capchaos-")
    postgres = ChaosPostgres(root)
    redis_server = RedisServer(root / "redis")
    stack: Stack | None = None
    wall = time.monotonic()
    try:
        server_uri = postgres.start()
        with psycopg.connect(server_uri, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{DATABASE}"')
        database_url = to_sqlalchemy_url(server_uri, DATABASE)
        db_uri = database_url.replace("postgresql+psycopg://", "postgresql://", 1)
        engine = create_engine(database_url)
        upgrade_to_head(engine)
        engine.dispose()
        redis_server.start()
        log_dir = out / "logs"
        log_dir.mkdir(exist_ok=True)
        stack = build_stack(
            database_url, redis_server.url, SECRET, workers=config.workers, log_dir=log_dir,
            CAPTURE_REQUEUE_STALE_AFTER_S=str(config.requeue_stale_after_s),
            CAPTURE_REQUEUE_INTERVAL_S=str(config.requeue_interval_s))
        stack.start_beat(root)
        stack.wait_ready(timeout_s=120)
        chaos = _Chaos(stack, redis_server, postgres, root, rng)
        log = ClientLog()
        stop = threading.Event()
        run_id = uuid.uuid4().hex[:8]
        threads = [threading.Thread(target=_client_loop, daemon=True,
                                    args=(stack, log, run_id, f"chaos-user-{u}", stop, config))
                   for u in range(config.users)]
        for thread in threads:
            thread.start()
        faults: list[Fault] = []
        started = time.monotonic()
        plan = _schedule(config, rng)
        with tqdm(plan, desc="chaos", unit="fault") as progress:
            for at, kind in progress:
                delay = at - (time.monotonic() - started)
                if delay > 0:
                    time.sleep(delay)
                faults.append(chaos.inject(kind))
                with log.lock:
                    progress.set_postfix(kind=kind, acked=len(log.acks),
                                         errors=sum(log.errors.values()))
        remaining = config.duration_s - (time.monotonic() - started)
        if remaining > 0:
            time.sleep(remaining)
        stop.set()
        for thread in threads:
            thread.join(timeout=config.give_up_s + 15)
        writing_s = time.monotonic() - started
        quiesce_s, still_pending = _wait_quiescent(db_uri, config.quiesce_timeout_s)
        results = _analyse(db_uri, log, faults)
        results.update({
            "config": asdict(config),
            "writing_s": round(writing_s, 1),
            "quiescence_s": round(quiesce_s, 1),
            "pending_at_end": still_pending,
            "wall_seconds": round(time.monotonic() - wall, 1),
        })
    finally:
        if stack is not None:
            stack.stop_all()
        redis_server.stop()
        postgres.shutdown()
        remove_root(root)
    (out / "results.json").write_text(json.dumps(results, indent=2))
    write_report(results, out)
    return results
