"""SQL for the gate: per-user gate state, the question budget, and decisions as auditors
list them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import Session

from app.core.pagination import Key, after
from app.models import Clarification, Decision, Event, GateState, User
from app.models.base import utcnow


def locked_state(db: Session, user_id: uuid.UUID) -> GateState | None:
    """The user's gate state, row-locked for the rest of the transaction."""
    return db.scalar(select(GateState).where(GateState.user_id == user_id).with_for_update())


def insert_state(
    db: Session, tenant_id: uuid.UUID, user_id: uuid.UUID, model_name: str, model_version: str
) -> None:
    """Create the user's gate state unless a concurrent transaction already did."""
    db.execute(
        pg_insert(GateState)
        .values(
            user_id=user_id,
            tenant_id=tenant_id,
            model_name=model_name,
            model_version=model_version,
            events_seen=0,
            updated_at=utcnow(),
        )
        .on_conflict_do_nothing(index_elements=["user_id"])
    )


def questions_asked_between(
    db: Session, user_id: uuid.UUID, after_seq: int, before_seq: int
) -> int:
    """Questions asked to the user at events with after_seq < seq < before_seq."""
    asked = db.scalar(
        select(func.count())
        .select_from(Clarification)
        .join(Event, Event.id == Clarification.asked_event_id)
        .where(
            Clarification.user_id == user_id,
            Event.seq > after_seq,
            Event.seq < before_seq,
        )
    )
    return asked or 0


def list_decisions(
    db: Session,
    tenant_id: uuid.UUID,
    after_key: Key | None,
    limit: int,
    *,
    action: str | None,
    user_id: uuid.UUID | None,
) -> Sequence[tuple[Decision, str]]:
    """The tenant's decisions, newest first, with their user's external id; limit + 1 rows
    at most."""
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
