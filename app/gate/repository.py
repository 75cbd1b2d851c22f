"""SQL for the gate: per-user gate state and the question budget."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import Session

from app.models import Clarification, Event, GateState
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
