"""SQL for clarifying questions."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import Row, select
from sqlalchemy.orm import Session, aliased

from app.core.pagination import Key, after
from app.domain.vocabulary import ClarificationStatus
from app.models import Clarification, Node, User


def list_questions(
    db: Session,
    tenant_id: uuid.UUID,
    after_key: Key | None,
    limit: int,
    *,
    status: ClarificationStatus | None,
    user_id: uuid.UUID | None,
) -> Sequence[Row[Clarification, str, Node, Node | None]]:
    """The tenant's questions (one user's, of one status, when given), oldest first (the
    order they are raised in), each with its user's external id, the node it asks about and
    the node it would replace (if any); limit + 1 rows at most."""
    contradicted = aliased(Node)
    query = (
        select(Clarification, User.external_id, Node, contradicted)
        .join(User, User.id == Clarification.user_id)
        .join(Node, Node.id == Clarification.node_id)
        .outerjoin(contradicted, contradicted.id == Clarification.contradicted_node_id)
        .where(Clarification.tenant_id == tenant_id)
    )
    if status is not None:
        query = query.where(Clarification.status == status.value)
    if user_id is not None:
        query = query.where(Clarification.user_id == user_id)
    condition = after(Clarification.created_at, Clarification.id, after_key, descending=False)
    if condition is not None:
        query = query.where(condition)
    return db.execute(
        query.order_by(Clarification.created_at, Clarification.id).limit(limit + 1)
    ).all()


def external_user_id(db: Session, user_id: uuid.UUID) -> str | None:
    """The caller's id of one of the tenant's users."""
    return db.scalar(select(User.external_id).where(User.id == user_id))


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
