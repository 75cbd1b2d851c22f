"""SQL for the ledger: nodes, versions, lineage, edges."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.domain.vocabulary import ClarificationStatus, NodeState, Origin
from app.models import Clarification, Decision, Edge, Event, Node, NodeLineage, NodeVersion


def nodes_for_subject(db: Session, user_id: uuid.UUID, subject: str) -> Sequence[Node]:
    """Live nodes (active or quarantined) about one subject, oldest first."""
    return db.scalars(
        select(Node)
        .where(
            Node.user_id == user_id,
            Node.subject == subject,
            Node.state.in_([NodeState.active.value, NodeState.quarantined.value]),
        )
        .order_by(Node.recorded_at, Node.id)
    ).all()


def held_claims(db: Session, user_id: uuid.UUID) -> frozenset[tuple[str, str]]:
    """(subject, value) of the user's active `prefer` nodes, any scope."""
    rows = db.execute(
        select(Node.subject, Node.value).where(
            Node.user_id == user_id,
            Node.state == NodeState.active.value,
            Node.direction == "prefer",
            Node.value.is_not(None),
        )
    ).all()
    return frozenset((subject, value) for subject, value in rows if value is not None)


def expired_quarantine(db: Session, user_id: uuid.UUID | None, cutoff: datetime) -> Sequence[Node]:
    """Quarantined nodes quarantined before `cutoff` (their retention fell below the floor)."""
    query = select(Node).where(
        Node.state == NodeState.quarantined.value, Node.quarantined_at < cutoff
    )
    if user_id is not None:
        query = query.where(Node.user_id == user_id)
    return db.scalars(query.with_for_update(skip_locked=True)).all()


def qualifying_sessions(
    db: Session, node_id: uuid.UUID, exclude: uuid.UUID, min_authenticity: float
) -> list[uuid.UUID]:
    """The session of each user event in the node's lineage (but `exclude`) whose decision's
    authenticity reached `min_authenticity`, oldest first (one query)."""
    return list(
        db.scalars(
            select(Event.session_id)
            .select_from(NodeLineage)
            .join(Event, Event.id == NodeLineage.event_id)
            .join(Decision, Decision.id == NodeLineage.decision_id)
            .where(
                NodeLineage.node_id == node_id,
                NodeLineage.event_id != exclude,
                Event.origin == Origin.user.value,
                Decision.authenticity >= min_authenticity,
            )
            .order_by(NodeLineage.created_at)
        )
    )


def add_version(
    db: Session,
    node: Node,
    change: str,
    at: datetime,
    event_id: uuid.UUID | None = None,
    decision_id: uuid.UUID | None = None,
) -> None:
    db.add(
        NodeVersion(
            node_id=node.id,
            version=node.version,
            claim=node.claim,
            layer=node.layer,
            state=node.state,
            scope=node.scope,
            change=change,
            event_id=event_id,
            decision_id=decision_id,
            changed_at=at,
        )
    )


def add_lineage(
    db: Session,
    node_id: uuid.UUID,
    event_id: uuid.UUID,
    relation: str,
    hypothesis_id: uuid.UUID | None = None,
    decision_id: uuid.UUID | None = None,
) -> None:
    db.add(
        NodeLineage(
            node_id=node_id,
            event_id=event_id,
            relation=relation,
            hypothesis_id=hypothesis_id,
            decision_id=decision_id,
        )
    )


def add_edge(
    db: Session,
    node: Node,
    dst_node_id: uuid.UUID,
    relation: str,
    probability: float,
    decision_id: uuid.UUID | None,
) -> None:
    db.add(
        Edge(
            tenant_id=node.tenant_id,
            user_id=node.user_id,
            src_node_id=node.id,
            dst_node_id=dst_node_id,
            relation=relation,
            probability=probability,
            decision_id=decision_id,
        )
    )


def bump_retrieval_counts(db: Session, node_ids: Sequence[uuid.UUID]) -> None:
    if node_ids:
        db.execute(
            update(Node)
            .where(Node.id.in_(node_ids))
            .values(retrieval_count=Node.retrieval_count + 1)
        )


def open_question(db: Session, node_id: uuid.UUID) -> uuid.UUID | None:
    """A pending or deferred question about the node, if any."""
    return db.scalar(
        select(Clarification.id).where(
            Clarification.node_id == node_id,
            Clarification.status.in_(
                (ClarificationStatus.pending.value, ClarificationStatus.deferred.value)),
        ).limit(1)
    )
