"""Candidate search over active nodes (HNSW, cosine) and the retrieval record."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Double,
    Insert,
    Integer,
    Select,
    Table,
    Uuid,
    any_,
    bindparam,
    column,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Session

from app.domain.vocabulary import NodeState
from app.models import AgentSession, Node, Retrieval, RetrievalResult, SpanRow, User
from app.models.base import Base

# Filtered HNSW scans can stop short of `limit`; iterative scan keeps going (pgvector ≥0.8).
# A custom plan each time: the generic plan of the prepared statement (psycopg prepares it
# after five runs) cannot see the user's share of the nodes and scans worse. Local to the
# transaction.
_SETTINGS = {
    "hnsw.iterative_scan": "relaxed_order",
    "hnsw.ef_search": "100",
    "plan_cache_mode": "force_custom_plan",
}


def _settings() -> list[ColumnElement[str]]:
    return [func.set_config(name, value, True) for name, value in _SETTINGS.items()]


@dataclass(frozen=True, slots=True)
class Target:
    """Whom a retrieval is for: the user and, when it was seen before, the session."""

    user_id: uuid.UUID
    session_id: uuid.UUID | None


@dataclass(frozen=True, slots=True)
class Candidate:
    """What scoring and the response read of a node, and its cosine similarity."""

    id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: str
    scope: str
    layer: str
    origin: str
    c0: float
    authenticity: float
    last_corroborated_at: datetime
    recorded_at: datetime
    influence: float | None
    similarity: float


def target(
    db: Session, tenant_id: uuid.UUID, user_external_id: str, session_external_id: str
) -> Target | None:
    """The user and session by their external ids, None for an unknown user. The same
    statement sets the candidate search's settings for the rest of the transaction, so the
    lookups and the settings cost one round trip."""
    row = db.execute(_target_query(), {"tenant_id": tenant_id, "user": user_external_id,
                                       "session": session_external_id}).first()
    if row is None:
        return None
    return Target(user_id=row.user_id, session_id=row.session_id)


@lru_cache(maxsize=1)
def _target_query() -> Select[uuid.UUID, uuid.UUID, *tuple[str, ...]]:
    return (
        select(User.id.label("user_id"), AgentSession.id.label("session_id"), *_settings())
        .select_from(User)
        .outerjoin(AgentSession, (AgentSession.user_id == User.id)
                   & (AgentSession.external_id == bindparam("session")))
        .where(User.tenant_id == bindparam("tenant_id"), User.external_id == bindparam("user"))
    )


def candidates(
    db: Session, tenant_id: uuid.UUID, user_id: uuid.UUID, query: list[float], limit: int
) -> list[Candidate]:
    """Nearest active nodes of one user by cosine distance, with their similarity; sets the
    search's settings first (`target` sets them for the retrieval's own transaction)."""
    db.execute(select(*_settings()))
    return nearest(db, tenant_id, user_id, query, limit)


def nearest(
    db: Session, tenant_id: uuid.UUID, user_id: uuid.UUID, query: list[float], limit: int
) -> list[Candidate]:
    """`candidates` under settings already made in the transaction."""
    distance = Node.embedding.cosine_distance(query)
    rows = db.execute(
        select(
            Node.id, Node.claim, Node.subject, Node.value, Node.direction, Node.scope,
            Node.layer, Node.origin, Node.c0, Node.authenticity, Node.last_corroborated_at,
            Node.recorded_at, Node.influence, distance.label("distance"),
        )
        .where(
            Node.tenant_id == tenant_id,
            Node.user_id == user_id,
            Node.state == NodeState.active.value,
            Node.embedding.is_not(None),
        )
        .order_by(distance)
        .limit(limit)
    ).all()
    return [
        Candidate(id=id_, claim=claim, subject=subject, value=value, direction=direction,
                  scope=scope, layer=layer, origin=origin, c0=c0, authenticity=authenticity,
                  last_corroborated_at=corroborated, recorded_at=recorded, influence=influence,
                  similarity=1.0 - float(distance))
        for (id_, claim, subject, value, direction, scope, layer, origin, c0, authenticity,
             corroborated, recorded, influence, distance) in rows
    ]


def record(
    db: Session,
    retrieval: dict[str, Any],
    results: list[dict[str, Any]],
    span: dict[str, Any],
) -> None:
    """The retrieval row, its results, the returned nodes' retrieval counts and the span in
    one statement (one round trip). `retrieval` and `span` give every column; each result
    gives id, node_id, rank, score and components."""
    retrievals, spans = _table(Retrieval), _table(SpanRow)
    params = {f"retrieval_{c.key}": retrieval[c.key] for c in retrievals.columns}
    params.update({f"span_{c.key}": span[c.key] for c in spans.columns})
    params["results"] = [{**r, "id": str(r["id"]), "node_id": str(r["node_id"])} for r in results]
    params["node_ids"] = [r["node_id"] for r in results]
    db.execute(_record_statement(), params)


def _table(model: type[Base]) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


@lru_cache(maxsize=1)
def _record_statement() -> Insert:
    """INSERT INTO spans with the retrieval, its results and the count update as
    data-modifying CTEs, every value bound by name: one statement object, compiled once.
    The results come as one JSON array (`jsonb_to_recordset`), so the statement's text is
    the same for any k."""
    retrievals, results, spans, nodes = (
        _table(Retrieval), _table(RetrievalResult), _table(SpanRow), _table(Node))

    def bound(table: Table, prefix: str) -> dict[str, Any]:
        return {c.key: bindparam(f"{prefix}{c.key}", type_=c.type) for c in table.columns}

    retrieval = insert(retrievals).values(bound(retrievals, "retrieval_"))
    listed = (
        func.jsonb_to_recordset(bindparam("results", type_=JSONB))
        .table_valued(
            column("id", Uuid), column("node_id", Uuid), column("rank", Integer),
            column("score", Double), column("components", JSONB),
        )
        .render_derived(name="result", with_types=True)
    )
    ranked = insert(results).from_select(
        ["id", "retrieval_id", "node_id", "rank", "score", "components"],
        # `retrieval_id` is also the retrieval row's `id` parameter (prefix `retrieval_`).
        select(listed.c.id, bindparam("retrieval_id", type_=Uuid), listed.c.node_id,
               listed.c.rank, listed.c.score, listed.c.components),
    )
    counted = (
        update(nodes)
        .where(nodes.c.id == any_(bindparam("node_ids", type_=ARRAY(Uuid))))
        .values(retrieval_count=nodes.c.retrieval_count + 1)
    )
    return (
        insert(spans)
        .values(bound(spans, "span_"))
        .add_cte(retrieval.cte("retrieval"))
        .add_cte(ranked.cte("ranked"))
        .add_cte(counted.cte("counted"))
    )
