"""SQL for the gate's decisions and clarifying questions as auditors list them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.pagination import Key, after
from app.models import Clarification, Decision, User


def list_decisions(
    db: Session,
    tenant_id: uuid.UUID,
    after_key: Key | None,
    limit: int,
    *,
    action: str | None,
    user_id: uuid.UUID | None,
) -> Sequence[tuple[Decision, str]]:
    """The tenant's decisions, newest first, with their user's external id."""
    query = (
        select(Decision, User.external_id)
        .join(User, User.id == Decision.user_id)
        .where(Decision.tenant_id == tenant_id)
    )
    if action is not None:
        query = query.where(Decision.action == action)
    if user_id is not None:
        query = query.where(Decision.user_id == user_id)
    condition = after(Decision.created_at, Decision.id, after_key, descending=True)
    if condition is not None:
        query = query.where(condition)
    rows = db.execute(
        query.order_by(Decision.created_at.desc(), Decision.id.desc()).limit(limit + 1)
    ).all()
    return [(d, u) for d, u in rows]


def list_clarifications(
    db: Session,
    tenant_id: uuid.UUID,
    after_key: Key | None,
    limit: int,
    *,
    status: str | None,
    user_id: uuid.UUID | None,
) -> Sequence[tuple[Clarification, str]]:
    """The tenant's clarifying questions, oldest first (the order they are asked in), with
    their user's external id."""
    query = (
        select(Clarification, User.external_id)
        .join(User, User.id == Clarification.user_id)
        .where(Clarification.tenant_id == tenant_id)
    )
    if status is not None:
        query = query.where(Clarification.status == status)
    if user_id is not None:
        query = query.where(Clarification.user_id == user_id)
    condition = after(Clarification.created_at, Clarification.id, after_key, descending=False)
    if condition is not None:
        query = query.where(condition)
    rows = db.execute(
        query.order_by(Clarification.created_at, Clarification.id).limit(limit + 1)
    ).all()
    return [(c, u) for c, u in rows]
