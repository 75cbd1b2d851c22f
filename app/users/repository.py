"""SQL for a user's whole record: read it out (export) and delete it (erasure)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import Delete, delete, select
from sqlalchemy.orm import Session

from app.core.pagination import Key, after
from app.models import (
    AgentSession,
    Audit,
    AuditCitation,
    Clarification,
    Decision,
    Edge,
    Event,
    GateState,
    HypothesisRow,
    Node,
    NodeLineage,
    NodeVersion,
    Retrieval,
    RetrievalResult,
    SpanRow,
    ToolCheck,
    User,
    UserErasure,
    WebhookDelivery,
)


def lock_user(db: Session, user_id: uuid.UUID) -> User | None:
    """The user's row, locked: writes for them wait (their next event takes this lock)."""
    return db.scalar(select(User).where(User.id == user_id).with_for_update())


def sessions(db: Session, user_id: uuid.UUID) -> Sequence[AgentSession]:
    return db.scalars(
        select(AgentSession).where(AgentSession.user_id == user_id)
        .order_by(AgentSession.started_at)
    ).all()


def events(db: Session, user_id: uuid.UUID) -> Sequence[Event]:
    return db.scalars(select(Event).where(Event.user_id == user_id).order_by(Event.seq)).all()


def hypotheses(db: Session, user_id: uuid.UUID) -> Sequence[HypothesisRow]:
    return db.scalars(
        select(HypothesisRow).where(HypothesisRow.user_id == user_id)
        .order_by(HypothesisRow.created_at, HypothesisRow.id)
    ).all()


def decisions(db: Session, user_id: uuid.UUID) -> Sequence[Decision]:
    return db.scalars(
        select(Decision).where(Decision.user_id == user_id)
        .order_by(Decision.created_at, Decision.id)
    ).all()


def nodes(db: Session, user_id: uuid.UUID) -> Sequence[Node]:
    return db.scalars(
        select(Node).where(Node.user_id == user_id).order_by(Node.recorded_at, Node.id)
    ).all()


def versions(db: Session, node_ids: list[uuid.UUID]) -> Sequence[NodeVersion]:
    return db.scalars(
        select(NodeVersion).where(NodeVersion.node_id.in_(node_ids))
        .order_by(NodeVersion.node_id, NodeVersion.version, NodeVersion.recorded_at)
    ).all()


def lineage(db: Session, node_ids: list[uuid.UUID]) -> Sequence[NodeLineage]:
    return db.scalars(
        select(NodeLineage).where(NodeLineage.node_id.in_(node_ids))
        .order_by(NodeLineage.created_at)
    ).all()


def edges(db: Session, user_id: uuid.UUID) -> Sequence[Edge]:
    return db.scalars(select(Edge).where(Edge.user_id == user_id).order_by(Edge.created_at)).all()


def clarifications(db: Session, user_id: uuid.UUID) -> Sequence[Clarification]:
    return db.scalars(
        select(Clarification).where(Clarification.user_id == user_id)
        .order_by(Clarification.created_at)
    ).all()


def retrievals(db: Session, user_id: uuid.UUID) -> Sequence[Retrieval]:
    return db.scalars(
        select(Retrieval).where(Retrieval.user_id == user_id).order_by(Retrieval.created_at)
    ).all()


def retrieval_results(db: Session, retrieval_ids: list[uuid.UUID]) -> Sequence[RetrievalResult]:
    return db.scalars(
        select(RetrievalResult).where(RetrievalResult.retrieval_id.in_(retrieval_ids))
        .order_by(RetrievalResult.retrieval_id, RetrievalResult.rank)
    ).all()


def tool_checks(db: Session, user_id: uuid.UUID) -> Sequence[ToolCheck]:
    return db.scalars(
        select(ToolCheck).where(ToolCheck.user_id == user_id).order_by(ToolCheck.created_at)
    ).all()


def audits(db: Session, user_id: uuid.UUID) -> Sequence[Audit]:
    return db.scalars(
        select(Audit).where(Audit.user_id == user_id).order_by(Audit.created_at)
    ).all()


def delete_everything(db: Session, user_id: uuid.UUID) -> dict[str, int]:
    """Delete every row about the user, children before parents; rows deleted per table."""
    node_ids = select(Node.id).where(Node.user_id == user_id).scalar_subquery()
    audit_ids = select(Audit.id).where(Audit.user_id == user_id).scalar_subquery()
    retrieval_ids = select(Retrieval.id).where(Retrieval.user_id == user_id).scalar_subquery()
    session_ids = select(AgentSession.id).where(AgentSession.user_id == user_id).scalar_subquery()
    steps: list[tuple[str, Delete]] = [
        ("webhook_deliveries", delete(WebhookDelivery).where(WebhookDelivery.user_id == user_id)),
        ("audit_citations", delete(AuditCitation).where(AuditCitation.audit_id.in_(audit_ids))),
        ("audits", delete(Audit).where(Audit.user_id == user_id)),
        ("retrieval_results",
         delete(RetrievalResult).where(RetrievalResult.retrieval_id.in_(retrieval_ids))),
        ("retrievals", delete(Retrieval).where(Retrieval.user_id == user_id)),
        ("tool_checks", delete(ToolCheck).where(ToolCheck.user_id == user_id)),
        ("clarifications", delete(Clarification).where(Clarification.user_id == user_id)),
        ("edges", delete(Edge).where(Edge.user_id == user_id)),
        ("node_lineage", delete(NodeLineage).where(NodeLineage.node_id.in_(node_ids))),
        ("node_versions", delete(NodeVersion).where(NodeVersion.node_id.in_(node_ids))),
        ("decisions", delete(Decision).where(Decision.user_id == user_id)),
        ("nodes", delete(Node).where(Node.user_id == user_id)),
        ("hypotheses", delete(HypothesisRow).where(HypothesisRow.user_id == user_id)),
        ("events", delete(Event).where(Event.user_id == user_id)),
        ("gate_states", delete(GateState).where(GateState.user_id == user_id)),
        ("spans", delete(SpanRow).where(
            (SpanRow.user_id == user_id) | SpanRow.session_id.in_(session_ids))),
        ("sessions", delete(AgentSession).where(AgentSession.user_id == user_id)),
        ("users", delete(User).where(User.id == user_id)),
    ]
    counts: dict[str, int] = {}
    for table, statement in steps:
        result = db.execute(statement.execution_options(synchronize_session=False))
        counts[table] = int(result.rowcount or 0)  # type: ignore[attr-defined]
    return counts


def erasure(db: Session, tenant_id: uuid.UUID, erasure_id: uuid.UUID) -> UserErasure | None:
    return db.scalar(
        select(UserErasure).where(UserErasure.id == erasure_id, UserErasure.tenant_id == tenant_id)
    )


def pending_erasure(db: Session, user_id: uuid.UUID) -> UserErasure | None:
    return db.scalar(
        select(UserErasure).where(UserErasure.user_id == user_id, UserErasure.status == "pending")
    )


def lock_erasure(db: Session, erasure_id: uuid.UUID) -> UserErasure | None:
    return db.scalar(select(UserErasure).where(UserErasure.id == erasure_id).with_for_update())


def list_erasures(
    db: Session, tenant_id: uuid.UUID, after_key: Key | None, limit: int
) -> Sequence[UserErasure]:
    query = select(UserErasure).where(UserErasure.tenant_id == tenant_id)
    condition = after(UserErasure.requested_at, UserErasure.id, after_key, descending=True)
    if condition is not None:
        query = query.where(condition)
    return db.scalars(
        query.order_by(UserErasure.requested_at.desc(), UserErasure.id.desc()).limit(limit + 1)
    ).all()


