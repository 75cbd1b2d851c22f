"""Candidate search over active nodes (HNSW, cosine) and the retrieval record."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select, text
from sqlalchemy.orm import Session, defer

from app.domain.vocabulary import NodeState
from app.models import Node, Retrieval, RetrievalResult


def candidates(
    db: Session, tenant_id: uuid.UUID, user_id: uuid.UUID, query: list[float], limit: int
) -> Sequence[tuple[Node, float]]:
    """Nearest active nodes of one user by cosine distance, with their similarity."""
    # Filtered HNSW scans can stop short of `limit`; iterative scan keeps going (pgvector ≥0.8).
    # A custom plan each time: the generic plan of the prepared statement (psycopg prepares
    # it after five runs) cannot see the user's share of the nodes and scans worse.
    db.execute(
        text(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
            "set_config('hnsw.ef_search', '100', true), "
            "set_config('plan_cache_mode', 'force_custom_plan', true)"
        )
    )
    distance = Node.embedding.cosine_distance(query)
    rows = db.execute(
        select(Node, distance.label("distance"))
        .options(defer(Node.embedding))  # scoring needs the distance, not the vector
        .where(
            Node.tenant_id == tenant_id,
            Node.user_id == user_id,
            Node.state == NodeState.active.value,
            Node.embedding.is_not(None),
        )
        .order_by(distance)
        .limit(limit)
    ).all()
    return [(node, 1.0 - float(dist)) for node, dist in rows]


def record(db: Session, retrieval: Retrieval, results: list[RetrievalResult]) -> None:
    db.add(retrieval)
    db.flush()
    for result in results:
        result.retrieval_id = retrieval.id
        db.add(result)
