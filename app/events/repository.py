"""SQL for users, sessions and events."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import Session

from app.core.pagination import Key, after
from app.models import AgentSession, Decision, Event, HypothesisRow, NodeVersion, Tenant, User
from app.models.enums import EventStatus


def get_or_create_user(db: Session, tenant_id: uuid.UUID, external_id: str) -> User:
    existing = find_user(db, tenant_id, external_id)
    if existing is not None:
        return existing
    db.execute(
        pg_insert(User)
        .values(id=uuid.uuid4(), tenant_id=tenant_id, external_id=external_id, event_seq=0)
        .on_conflict_do_nothing(constraint="uq_users_tenant_external")
    )
    user = db.scalar(
        select(User).where(User.tenant_id == tenant_id, User.external_id == external_id)
    )
    assert user is not None
    return user


def get_or_create_user_and_session(
    db: Session, tenant_id: uuid.UUID, user_external_id: str, session_external_id: str
) -> tuple[User, AgentSession]:
    """The user and session, created when missing; one statement when both exist."""
    row = db.execute(
        select(User, AgentSession)
        .join(AgentSession, (AgentSession.user_id == User.id)
              & (AgentSession.external_id == session_external_id))
        .where(User.tenant_id == tenant_id, User.external_id == user_external_id)
    ).first()
    if row is not None:
        return row.User, row.AgentSession
    user = get_or_create_user(db, tenant_id, user_external_id)
    return user, get_or_create_session(db, user, session_external_id)


def find_user(db: Session, tenant_id: uuid.UUID, external_id: str) -> User | None:
    return db.scalar(
        select(User).where(User.tenant_id == tenant_id, User.external_id == external_id)
    )


def get_or_create_session(db: Session, user: User, external_id: str) -> AgentSession:
    existing = find_session(db, user, external_id)
    if existing is not None:
        return existing
    db.execute(
        pg_insert(AgentSession)
        .values(id=uuid.uuid4(), tenant_id=user.tenant_id, user_id=user.id, external_id=external_id)
        .on_conflict_do_nothing(constraint="uq_sessions_user_external")
    )
    session = db.scalar(
        select(AgentSession).where(
            AgentSession.user_id == user.id, AgentSession.external_id == external_id
        )
    )
    assert session is not None
    return session


def find_session(db: Session, user: User, external_id: str) -> AgentSession | None:
    return db.scalar(
        select(AgentSession).where(
            AgentSession.user_id == user.id, AgentSession.external_id == external_id
        )
    )


def next_seq(db: Session, user_id: uuid.UUID) -> int:
    """Take the user's next arrival number; the row lock holds until commit (arrival order)."""
    seq = db.scalar(
        update(User)
        .where(User.id == user_id)
        .values(event_seq=User.event_seq + 1)
        .returning(User.event_seq)
    )
    assert seq is not None
    return int(seq)


def by_idempotency_key(db: Session, tenant_id: uuid.UUID, key: str) -> Event | None:
    return db.scalar(
        select(Event).where(Event.tenant_id == tenant_id, Event.idempotency_key == key)
    )


def get_event(db: Session, tenant_id: uuid.UUID, event_id: uuid.UUID) -> Event | None:
    return db.scalar(select(Event).where(Event.id == event_id, Event.tenant_id == tenant_id))


def event_by_id(db: Session, event_id: uuid.UUID) -> Event | None:
    return db.get(Event, event_id)


def event_with_tenant(db: Session, event_id: uuid.UUID) -> tuple[Event, Tenant | None] | None:
    """The event and its tenant in one statement."""
    row = db.execute(
        select(Event, Tenant).outerjoin(Tenant, Tenant.id == Event.tenant_id)
        .where(Event.id == event_id)
    ).first()
    return None if row is None else (row.Event, row.Tenant)


def pending_up_to(
    db: Session, user_id: uuid.UUID, seq: int, limit: int | None = None
) -> Sequence[Event]:
    """The user's pending events up to arrival number `seq`, in arrival order: the first
    `limit` of them, or all when `limit` is None."""
    return db.scalars(
        select(Event)
        .where(
            Event.user_id == user_id,
            Event.status == EventStatus.pending.value,
            Event.seq <= seq,
        )
        .order_by(Event.seq)
        .limit(limit)
    ).all()


def stale_pending(db: Session, received_before: datetime, limit: int) -> list[uuid.UUID | None]:
    """The last pending event, received before `received_before`, of up to `limit` users."""
    rows = db.execute(
        select(Event.user_id, func.max(Event.seq))
        .where(Event.status == EventStatus.pending.value,
               Event.received_at < received_before)
        .group_by(Event.user_id)
        .limit(limit)
    ).all()
    return [
        db.scalar(select(Event.id).where(Event.user_id == user_id, Event.seq == seq))
        for user_id, seq in rows
    ]


def hypotheses_of(db: Session, event_id: uuid.UUID) -> Sequence[HypothesisRow]:
    return db.scalars(
        select(HypothesisRow)
        .where(HypothesisRow.event_id == event_id)
        .order_by(HypothesisRow.created_at)
    ).all()


def decisions_of(db: Session, event_id: uuid.UUID) -> Sequence[Decision]:
    return db.scalars(
        select(Decision).where(Decision.event_id == event_id).order_by(Decision.created_at)
    ).all()


def node_versions_of(db: Session, event_id: uuid.UUID) -> Sequence[NodeVersion]:
    return db.scalars(
        select(NodeVersion)
        .where(NodeVersion.event_id == event_id)
        .order_by(NodeVersion.recorded_at)
    ).all()


def list_users(
    db: Session, tenant_id: uuid.UUID, after_key: Key | None, limit: int, prefix: str | None
) -> Sequence[tuple[User, int, datetime | None]]:
    """The tenant's users, oldest first, with their event count and last event time."""
    events = (
        select(func.count(Event.id)).where(Event.user_id == User.id).scalar_subquery()
    )
    last = select(func.max(Event.occurred_at)).where(Event.user_id == User.id).scalar_subquery()
    query = select(User, events, last).where(User.tenant_id == tenant_id)
    if prefix:
        query = query.where(User.external_id.startswith(prefix, autoescape=True))
    condition = after(User.created_at, User.id, after_key, descending=False)
    if condition is not None:
        query = query.where(condition)
    rows = db.execute(query.order_by(User.created_at, User.id).limit(limit + 1)).all()
    return [(user, int(count), last_at) for user, count, last_at in rows]


def list_events(
    db: Session,
    user: User,
    after_seq: int | None,
    limit: int,
    *,
    status: str | None,
    origin: str | None,
    session_id: uuid.UUID | None,
) -> Sequence[tuple[Event, str]]:
    """One user's events in arrival order (`seq`), with their session's external id."""
    query = (
        select(Event, AgentSession.external_id)
        .join(AgentSession, AgentSession.id == Event.session_id)
        .where(Event.user_id == user.id, Event.tenant_id == user.tenant_id)
    )
    if after_seq is not None:
        query = query.where(Event.seq > after_seq)
    if status is not None:
        query = query.where(Event.status == status)
    if origin is not None:
        query = query.where(Event.origin == origin)
    if session_id is not None:
        query = query.where(Event.session_id == session_id)
    return [(e, s) for e, s in db.execute(query.order_by(Event.seq).limit(limit + 1)).all()]

