"""SQL for the gate: per-user gate state, the question budget, deferred and asked questions."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import Row, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import Session

from app.domain.vocabulary import ClarificationStatus
from app.models import Clarification, Event, GateState, Node
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


def questions_of(
    db: Session, user_id: uuid.UUID, status: ClarificationStatus | None, limit: int
) -> Sequence[Clarification]:
    """The user's questions (of one status, when given), oldest first."""
    query = select(Clarification).where(Clarification.user_id == user_id)
    if status is not None:
        query = query.where(Clarification.status == status.value)
    return db.scalars(query.order_by(Clarification.created_at).limit(limit)).all()


def locked_question(
    db: Session, tenant_id: uuid.UUID, clarification_id: uuid.UUID
) -> Clarification | None:
    """One of the tenant's questions, row-locked for the rest of the transaction."""
    return db.scalar(
        select(Clarification)
        .where(Clarification.id == clarification_id, Clarification.tenant_id == tenant_id)
        .with_for_update()
    )
