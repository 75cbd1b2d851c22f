"""All SQL of the audit: audits, their citations, the nodes they read and update."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.vocabulary import NodeState
from app.models import Audit, AuditCitation, Node, Retrieval, RetrievalResult


def user_nodes(db: Session, tenant_id: uuid.UUID, user_id: uuid.UUID,
               node_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Node]:
    if not node_ids:
        return {}
    rows = db.scalars(select(Node).where(Node.tenant_id == tenant_id, Node.user_id == user_id,
                                         Node.id.in_(set(node_ids))))
    return {n.id: n for n in rows}


def active_nodes(db: Session, tenant_id: uuid.UUID, user_id: uuid.UUID,
                 node_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Node]:
    nodes = user_nodes(db, tenant_id, user_id, node_ids)
    return {i: n for i, n in nodes.items()
            if n.state == NodeState.active.value and n.erased_at is None}


def latest_retrieval_for(db: Session, session_id: uuid.UUID,
                         query_sha256: str) -> Retrieval | None:
    """The session's most recent retrieval of exactly this query: the memories the agent
    was given for the prompt."""
    return db.scalar(
        select(Retrieval)
        .where(Retrieval.session_id == session_id, Retrieval.query_sha256 == query_sha256)
        .order_by(Retrieval.created_at.desc())
        .limit(1)
    )


def retrieval_node_ids(db: Session, retrieval_id: uuid.UUID) -> list[uuid.UUID]:
    return list(db.scalars(select(RetrievalResult.node_id)
                           .where(RetrievalResult.retrieval_id == retrieval_id)
                           .order_by(RetrievalResult.rank)))


def add(db: Session, audit: Audit) -> Audit:
    db.add(audit)
    db.flush()
    return audit


def get(db: Session, tenant_id: uuid.UUID, audit_id: uuid.UUID) -> Audit | None:
    return db.scalar(select(Audit).where(Audit.id == audit_id, Audit.tenant_id == tenant_id))


def lock(db: Session, audit_id: uuid.UUID) -> Audit | None:
    return db.get(Audit, audit_id, with_for_update=True)


def lock_nodes(db: Session, node_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Node]:
    """Rows whose running influence this audit updates, locked in id order."""
    if not node_ids:
        return {}
    rows = db.scalars(select(Node).where(Node.id.in_(set(node_ids)))
                      .order_by(Node.id).with_for_update())
    return {n.id: n for n in rows}


def add_citations(db: Session, citations: Sequence[AuditCitation]) -> None:
    db.add_all(citations)
    db.flush()


def citations_of(db: Session, audit_id: uuid.UUID) -> Sequence[AuditCitation]:
    return db.scalars(select(AuditCitation).where(AuditCitation.audit_id == audit_id)
                      .order_by(AuditCitation.rank)).all()


def citations_of_node(db: Session, tenant_id: uuid.UUID,
                      node_id: uuid.UUID) -> Sequence[tuple[AuditCitation, Audit]]:
    rows = db.execute(
        select(AuditCitation, Audit)
        .join(Audit, Audit.id == AuditCitation.audit_id)
        .where(AuditCitation.node_id == node_id, Audit.tenant_id == tenant_id)
        .order_by(Audit.created_at)
    ).all()
    return [(c, a) for c, a in rows]
