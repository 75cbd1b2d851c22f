"""`capture bench latency`: write-path and retrieval latency through the service layer.

Measures DESIGN §9's targets on this machine: write path (store + extract + gate + ledger)
median ms per event, and retrieval p50/p95 with N active nodes in one tenant. The bulk
nodes carry random unit embeddings (realistic for index work; their claims are synthetic);
queries are real sentences embedded with the service's embedder.

It calls the services in-process rather than the HTTP API: the HTTP layer (routing, JSON,
auth) is what these figures leave out.
"""

from __future__ import annotations

import json
import os
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import create_engine, text
from sqlalchemy.orm import sessionmaker
from tqdm import tqdm

from app.core import db as core_db
from app.core.auth import Principal, get_or_create_tenant
from app.core.config import get_settings
from app.core.migrate import upgrade_to_head
from app.domain.vocabulary import Origin
from app.events import service as events_service
from app.events.schemas import EventCreate
from app.models.enums import Role
from app.retrieval import service as retrieval_service
from app.retrieval.schemas import RetrieveRequest

WRITE_TEXTS = [
    "I prefer short answers.", "Can you check the build logs?", "Please use metric units.",
    "Thanks, that worked.", "In standups, keep it casual.", "What's on my calendar today?",
    "From now on, write Python examples.", "Summarize this thread for me.",
]
QUERIES = [
    "How long should my answers be?", "Which units do I use?", "What tone for standups?",
    "Which programming language for examples?", "How should dates be formatted?",
]


def _fresh_database() -> str:
    import psycopg

    from app.core.embedded_pg import embedded_database_url, to_sqlalchemy_url

    name = f"capture_latency_{os.getpid()}"
    base = embedded_database_url(get_settings().var_dir / "pg")
    admin = base.replace("postgresql+psycopg://", "postgresql://")
    admin = admin.replace("/capture?", "/postgres?")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return to_sqlalchemy_url(admin, name)


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def run(out: Path, nodes: int = 100_000, writes: int = 400, queries: int = 300,
        seed: int = 0) -> dict[str, Any]:
    url = _fresh_database()
    engine = create_engine(url, hide_parameters=True)
    upgrade_to_head(engine)
    core_db.set_session_factory(sessionmaker(bind=engine, expire_on_commit=False), engine)
    with core_db.session_scope() as db:
        tenant = get_or_create_tenant(db, "latency")
    principal = Principal(tenant_id=tenant.id, key_id=uuid.uuid4(), role=Role.admin)
    results: dict[str, Any] = {
        "machine_cores": os.cpu_count(),
        "nodes": nodes,
        "admission_policy": get_settings().admission_policy,  # the write path's gate
        "extractor": get_settings().extractor,
    }

    # Write path: each event stored, then processed in-process after commit.
    start = datetime(2026, 1, 1, tzinfo=UTC)
    times: list[float] = []
    for i in tqdm(range(writes), desc="write path", unit="event"):
        body = EventCreate(user_id=f"w{i % 20}", session_id="s", origin=Origin.user,
                           text=WRITE_TEXTS[i % len(WRITE_TEXTS)],
                           occurred_at=start + timedelta(minutes=i))
        t0 = time.perf_counter()
        with core_db.session_scope() as db:
            events_service.create_event(db, principal, body, uuid.uuid4().hex)
        times.append((time.perf_counter() - t0) * 1000)
    results["write_ms_median"] = statistics.median(times)
    results["write_ms_p95"] = _percentile(times, 95)

    # Bulk nodes for one user, HNSW index built after the load (MODELS.md).
    rng = np.random.default_rng(seed)
    with engine.begin() as conn:
        user_id = conn.execute(text(
            "INSERT INTO users (id, tenant_id, external_id, event_seq, created_at) "
            "VALUES (:id, :t, 'bulk', 0, now()) RETURNING id"),
            {"id": uuid.uuid4(), "t": tenant.id}).scalar_one()
        conn.execute(text("DROP INDEX ix_nodes_embedding_hnsw"))
    batch = 5000
    for offset in tqdm(range(0, nodes, batch), desc="bulk nodes", unit="batch"):
        vectors = rng.normal(size=(min(batch, nodes - offset), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        rows = [
            {"id": uuid.uuid4(), "t": tenant.id, "u": user_id, "c": f"synthetic claim {offset + j}",
             "e": "[" + ",".join(f"{x:.6f}" for x in v) + "]"}
            for j, v in enumerate(vectors)
        ]
        with engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO nodes (id, tenant_id, user_id, claim, claim_sha256, subject, value, "
                "direction, scope, timescale, embedding, layer, state, origin, c0, authenticity, "
                "last_corroborated_at, valid_from, recorded_at, retrieval_count, version) VALUES "
                "(:id, :t, :u, :c, '0', 'synthetic', 'x', 'prefer', 'global', 'permanent', "
                "CAST(:e AS vector), 'stable', 'active', 'user', 0.9, 1.0, now(), now(), now(), "
                "0, 1)"), rows)
    t0 = time.perf_counter()
    with engine.begin() as conn:
        conn.execute(text("SET maintenance_work_mem = '512MB'"))
        conn.execute(text(
            "CREATE INDEX ix_nodes_embedding_hnsw ON nodes USING hnsw "
            "(embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"))
        conn.execute(text("ANALYZE nodes"))
    results["index_build_s"] = time.perf_counter() - t0

    retrieval_times: list[float] = []
    for i in tqdm(range(queries), desc="retrieval", unit="query"):
        request = RetrieveRequest(user_id="bulk", session_id="s", query=QUERIES[i % len(QUERIES)],
                                  k=12, mode="tool")
        t0 = time.perf_counter()
        with core_db.session_scope() as db:
            found = retrieval_service.retrieve(db, principal, request, uuid.uuid4().hex)
        retrieval_times.append((time.perf_counter() - t0) * 1000)
        assert len(found.memories) == 12
    results["retrieval_ms_p50"] = _percentile(retrieval_times, 50)
    results["retrieval_ms_p95"] = _percentile(retrieval_times, 95)

    core_db.set_session_factory(None)
    engine.dispose()
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "results.md").write_text(_markdown(results))
    return results


def _markdown(r: dict[str, Any]) -> str:
    return (
        "| measure | value | target (DESIGN §9) |\n|---|---|---|\n"
        f"| write path median (store + extract + gate + ledger) | {r['write_ms_median']:.1f} ms "
        "| ≤ 50 ms |\n"
        f"| write path p95 | {r['write_ms_p95']:.1f} ms | |\n"
        f"| retrieval p50, {r['nodes']:,} active nodes | {r['retrieval_ms_p50']:.1f} ms | |\n"
        f"| retrieval p95, {r['nodes']:,} active nodes | {r['retrieval_ms_p95']:.1f} ms "
        "| ≤ 25 ms |\n"
        f"| HNSW build after bulk load | {r['index_build_s']:.1f} s | |\n"
        f"\nWrite path through admission policy `{r.get('admission_policy')}` and the "
        f"`{r.get('extractor')}` extractor.\n"
    )
