"""SQL for clarifying questions."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import Row, select
from sqlalchemy.orm import Session, aliased

from app.domain.vocabulary import ClarificationStatus
from app.models import Clarification, Node


def questions_of(
    db: Session, user_id: uuid.UUID, status: ClarificationStatus | None, limit: int
) -> Sequence[Row[Clarification, Node, Node | None]]:
    """The user's questions (of one status, when given), oldest first, each with the node it
    asks about and the node it would replace (if any)."""
    contradicted = aliased(Node)
    query = (
        select(Clarification, Node, contradicted)
        .join(Node, Node.id == Clarification.node_id)
        .outerjoin(contradicted, contradicted.id == Clarification.contradicted_node_id)
        .where(Clarification.user_id == user_id)
    )
    if status is not None:
        query = query.where(Clarification.status == status.value)
    return db.execute(query.order_by(Clarification.created_at).limit(limit)).all()


def locked_question(
    db: Session, tenant_id: uuid.UUID, clarification_id: uuid.UUID
) -> Clarification | None:
    """One of the tenant's questions, row-locked for the rest of the transaction."""
    return db.scalar(
        select(Clarification)
        .where(Clarification.id == clarification_id, Clarification.tenant_id == tenant_id)
        .with_for_update()
    )


def deferred_questions(db: Session, user_id: uuid.UUID) -> Sequence[Row[Clarification, str]]:
    """The user's deferred questions, oldest first, row-locked, with their node's state."""
    return db.execute(
        select(Clarification, Node.state)
        .join(Node, Node.id == Clarification.node_id)
        .where(Clarification.user_id == user_id,
               Clarification.status == ClarificationStatus.deferred.value)
        .order_by(Clarification.created_at)
        .with_for_update(of=Clarification)
    ).all()
