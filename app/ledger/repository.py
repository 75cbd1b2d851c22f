"""SQL for the ledger: nodes, versions, lineage, edges."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.domain.vocabulary import ClarificationStatus, NodeState, Origin
from app.models import (
    Clarification,
    Decision,
    Edge,
    Event,
    HypothesisRow,
    Node,
    NodeLineage,
    NodeVersion,
    User,
)


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


def open_question(db: Session, node_id: uuid.UUID) -> uuid.UUID | None:
    """A pending or deferred question about the node, if any."""
    return db.scalar(
        select(Clarification.id).where(
            Clarification.node_id == node_id,
            Clarification.status.in_(
                (ClarificationStatus.pending.value, ClarificationStatus.deferred.value)),
        ).limit(1)
    )


# --- what a user does with their own memories (app/ledger/user_service.py) ---------------


def user_node(db: Session, user: User, node_id: uuid.UUID) -> Node | None:
    return db.scalar(
        select(Node).where(
            Node.id == node_id, Node.user_id == user.id, Node.tenant_id == user.tenant_id
        )
    )


def node_page(
    db: Session,
    user_id: uuid.UUID,
    *,
    state: str | None,
    layer: str | None,
    scope: str | None,
    as_of: datetime | None,
    limit: int,
    offset: int,
) -> tuple[int, Sequence[Node]]:
    """The user's unerased nodes that match, and how many match in all."""
    query = select(Node).where(Node.user_id == user_id, Node.erased_at.is_(None))
    if as_of is not None:
        # What was held (active) at event time `as_of`, as recorded by now.
        query = query.where(
            Node.valid_from <= as_of, (Node.valid_to.is_(None)) | (Node.valid_to > as_of)
        )
    elif state is not None:
        query = query.where(Node.state == state)
    if layer is not None:
        query = query.where(Node.layer == layer)
    if scope is not None:
        query = query.where(Node.scope == scope)
    total = db.scalar(select(func.count()).select_from(query.subquery())) or 0
    nodes = db.scalars(query.order_by(Node.recorded_at, Node.id).limit(limit).offset(offset)).all()
    return total, nodes


def settle_questions(db: Session, node_id: uuid.UUID, answer: str, at: datetime) -> None:
    """The node's pending question is answered with `answer`; a deferred one is withdrawn
    (it was never shown)."""
    db.execute(
        update(Clarification)
        .where(Clarification.node_id == node_id,
               Clarification.status == ClarificationStatus.pending.value)
        .values(status=ClarificationStatus.answered.value, answer=answer, answered_at=at)
    )
    db.execute(
        update(Clarification)
        .where(Clarification.node_id == node_id,
               Clarification.status == ClarificationStatus.deferred.value)
        .values(status=ClarificationStatus.withdrawn.value)
    )


def lineage_of(db: Session, node_id: uuid.UUID) -> Sequence[NodeLineage]:
    return db.scalars(select(NodeLineage).where(NodeLineage.node_id == node_id)).all()


def events_feeding_other_live_nodes(
    db: Session, event_ids: set[uuid.UUID], node_id: uuid.UUID
) -> set[uuid.UUID]:
    """Those of `event_ids` that also fed another node that is not erased."""
    if not event_ids:
        return set()
    return set(
        db.scalars(
            select(NodeLineage.event_id)
            .join(Node, Node.id == NodeLineage.node_id)
            .where(
                NodeLineage.event_id.in_(event_ids),
                NodeLineage.node_id != node_id,
                Node.erased_at.is_(None),
            )
        ).all()
    )


def user_event(db: Session, user: User, event_id: uuid.UUID) -> Event | None:
    return db.scalar(
        select(Event).where(
            Event.id == event_id, Event.user_id == user.id, Event.tenant_id == user.tenant_id
        )
    )


def nodes_fed_by(db: Session, event_id: uuid.UUID) -> set[uuid.UUID]:
    return set(db.scalars(select(NodeLineage.node_id).where(NodeLineage.event_id == event_id)))


def nodes_fed_by_other_live_events(
    db: Session, node_ids: set[uuid.UUID], event_id: uuid.UUID
) -> set[uuid.UUID]:
    """Those of `node_ids` whose lineage holds an unerased event other than `event_id`."""
    if not node_ids:
        return set()
    return set(
        db.scalars(
            select(NodeLineage.node_id)
            .join(Event, Event.id == NodeLineage.event_id)
            .where(
                NodeLineage.node_id.in_(node_ids),
                NodeLineage.event_id != event_id,
                Event.erased_at.is_(None),
            )
        )
    )


def unerased_nodes(db: Session, node_ids: set[uuid.UUID]) -> Sequence[Node]:
    return db.scalars(
        select(Node).where(Node.id.in_(node_ids), Node.erased_at.is_(None))
    ).all()


def erase_event_text(db: Session, event_ids: set[uuid.UUID], at: datetime) -> None:
    db.execute(
        update(Event)
        .where(Event.id.in_(event_ids))
        .values(text=None, source_uri=None, erased_at=at)
    )


def hypotheses_read_from(db: Session, event_ids: set[uuid.UUID]) -> set[uuid.UUID]:
    return set(
        db.scalars(select(HypothesisRow.id).where(HypothesisRow.event_id.in_(event_ids)))
    )


def erase_hypothesis_claims(db: Session, hypothesis_ids: set[uuid.UUID]) -> None:
    db.execute(
        update(HypothesisRow).where(HypothesisRow.id.in_(hypothesis_ids)).values(claim=None)
    )


def erase_node_copies(db: Session, node_id: uuid.UUID) -> None:
    """Clear the node's claim from its versions, and close the questions about it (their
    text is rendered from the node, so none can quote it once it is erased)."""
    db.execute(update(NodeVersion).where(NodeVersion.node_id == node_id).values(claim=None))
    db.execute(
        update(Clarification)
        .where(Clarification.node_id == node_id)
        .values(status=ClarificationStatus.erased.value)
    )


def record_actor(
    db: Session, node_id: uuid.UUID, after_version: int, key_id: uuid.UUID, role: str
) -> None:
    """Mark the node's versions after `after_version` as made by the key (a correction)."""
    db.execute(
        update(NodeVersion)
        .where(NodeVersion.node_id == node_id, NodeVersion.version > after_version)
        .values(actor_key_id=key_id, actor_role=role)
    )
