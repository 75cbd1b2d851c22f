"""SQL for lineage queries: read-only views of events, decisions, nodes, retrievals, checks
and spans."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence

from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from app.models import (
    AgentSession,
    Decision,
    Edge,
    Event,
    HypothesisRow,
    Node,
    NodeLineage,
    NodeVersion,
    Retrieval,
    RetrievalResult,
    SpanRow,
    ToolCheck,
)


def tenant_node(db: Session, tenant_id: uuid.UUID, node_id: uuid.UUID) -> Node | None:
    return db.scalar(select(Node).where(Node.id == node_id, Node.tenant_id == tenant_id))


def lineage_of(db: Session, node_id: uuid.UUID) -> Sequence[NodeLineage]:
    return db.scalars(
        select(NodeLineage).where(NodeLineage.node_id == node_id).order_by(NodeLineage.created_at)
    ).all()


def events_by_id(db: Session, ids: Collection[uuid.UUID]) -> dict[uuid.UUID, Event]:
    return {e.id: e for e in db.scalars(select(Event).where(Event.id.in_(ids)))}


def versions_of(db: Session, node_id: uuid.UUID) -> Sequence[NodeVersion]:
    return db.scalars(
        select(NodeVersion)
        .where(NodeVersion.node_id == node_id)
        .order_by(NodeVersion.version, NodeVersion.recorded_at)
    ).all()


def edges_of(db: Session, node_id: uuid.UUID) -> Sequence[Edge]:
    return db.scalars(
        select(Edge).where((Edge.src_node_id == node_id) | (Edge.dst_node_id == node_id))
    ).all()


def retrieval_hits(db: Session, node_id: uuid.UUID) -> Sequence[Row[RetrievalResult, Retrieval]]:
    return db.execute(
        select(RetrievalResult, Retrieval)
        .join(Retrieval, Retrieval.id == RetrievalResult.retrieval_id)
        .where(RetrievalResult.node_id == node_id)
        .order_by(Retrieval.created_at)
    ).all()


def checks_citing(db: Session, tenant_id: uuid.UUID, node_id: uuid.UUID) -> Sequence[ToolCheck]:
    return db.scalars(
        select(ToolCheck)
        .where(
            ToolCheck.tenant_id == tenant_id,
            ToolCheck.evidence_node_ids.contains([str(node_id)]),
        )
        .order_by(ToolCheck.created_at)
    ).all()


def hypotheses_by_id(db: Session, ids: Collection[uuid.UUID]) -> Sequence[HypothesisRow]:
    return db.scalars(select(HypothesisRow).where(HypothesisRow.id.in_(ids))).all()


def decisions_by_id(db: Session, ids: Collection[uuid.UUID]) -> Sequence[Decision]:
    return db.scalars(
        select(Decision).where(Decision.id.in_(set(ids))).order_by(Decision.created_at)
    ).all()


def session_names(db: Session, ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
    """External ids of the given sessions."""
    if not ids:
        return {}
    rows = db.execute(
        select(AgentSession.id, AgentSession.external_id).where(AgentSession.id.in_(set(ids)))
    ).all()
    return {row[0]: row[1] for row in rows}


def session_events(db: Session, session_id: uuid.UUID) -> Sequence[Event]:
    return db.scalars(
        select(Event).where(Event.session_id == session_id).order_by(Event.seq)
    ).all()


def decisions_on(db: Session, event_ids: list[uuid.UUID]) -> Sequence[Decision]:
    return db.scalars(
        select(Decision).where(Decision.event_id.in_(event_ids)).order_by(Decision.created_at)
    ).all()


def versions_by_decision(db: Session, decision_ids: list[uuid.UUID]) -> Sequence[NodeVersion]:
    return db.scalars(
        select(NodeVersion).where(NodeVersion.decision_id.in_(decision_ids))
    ).all()


def session_retrievals(db: Session, session_id: uuid.UUID) -> Sequence[Retrieval]:
    return db.scalars(
        select(Retrieval).where(Retrieval.session_id == session_id).order_by(Retrieval.created_at)
    ).all()


def results_of(db: Session, retrieval_ids: list[uuid.UUID]) -> Sequence[RetrievalResult]:
    return db.scalars(
        select(RetrievalResult).where(RetrievalResult.retrieval_id.in_(retrieval_ids))
    ).all()


def session_checks(db: Session, session_id: uuid.UUID) -> Sequence[ToolCheck]:
    return db.scalars(
        select(ToolCheck).where(ToolCheck.session_id == session_id).order_by(ToolCheck.created_at)
    ).all()


def events_outside(
    db: Session, ids: Collection[uuid.UUID], session_id: uuid.UUID
) -> Sequence[Event]:
    """The given events that belong to another session than `session_id`."""
    return db.scalars(
        select(Event).where(Event.id.in_(ids), Event.session_id != session_id)
    ).all()


def trace_spans(db: Session, tenant_id: uuid.UUID, trace_id: str) -> Sequence[SpanRow]:
    return db.scalars(
        select(SpanRow)
        .where(SpanRow.trace_id == trace_id, SpanRow.tenant_id == tenant_id)
        .order_by(SpanRow.started_at)
    ).all()
